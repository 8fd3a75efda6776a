"""The hazard-risk study as a :class:`~gnoming_sim.analyses.framework.study.Study`."""
from __future__ import annotations

import pandas as pd

from gnoming_sim.game.cards import HAZARD

from ..framework.paired import ArmTable, cell_rng, nothing_to_measure, play_cells
from ..framework.study import Study, StudyResult
from . import analysis
from ..framework.design import STRONG_LADDER, strong_arm
from .design import (DENY, DRAWN, DRAWN_STRONG, NATURAL, NATURAL_STRONG, deny_rows, drawn_arms, drawn_rows,
                     natural_rows, resolve, tables)


TRACED = ("hazard", *(strong_arm("hazard", pl) for pl in STRONG_LADDER))   # the arms whose traces are followed


class HazardRisk(Study):
    id = "hazard-risk"
    title = "What a hazard costs"
    template = "hazard_risk/template.html"
    # games per table size of the natural tables; the drawn (x3 arms) and deny (x4 arms)
    # experiments play half as many
    default_games = 32_000
    quick_games = 1_200

    def design(self, ctx) -> list[ArmTable]:
        if ctx.deck.count(HAZARD) == 0:
            return []   # nothing to measure; analyse says so
        return tables(ctx.cell_games(self))

    def play(self, ctx, seed, tables, advance) -> dict[str, pd.DataFrame]:
        def edit(arms, lo, deals):
            experiment, players = arms[0].experiment, arms[0].players
            if experiment != DRAWN:
                return {t.arm: deals for t in arms}, {}
            return drawn_arms(players, lo, deals, cell_rng(seed, players, lo))

        def keep(arms, lo, results, facts):
            experiment, players = arms[0].experiment, arms[0].players
            if experiment == NATURAL:
                return {NATURAL: natural_rows(results[NATURAL]),
                        **{NATURAL_STRONG[pl]: natural_rows(results[NATURAL_STRONG[pl]]) for pl in STRONG_LADDER}}
            if experiment == DRAWN:
                return {DRAWN: drawn_rows(players, lo, results, facts),
                        **{DRAWN_STRONG[pl]: drawn_rows(players, lo, results, facts, strong_arm("", pl))
                           for pl in STRONG_LADDER}}
            return {DENY: deny_rows(players, lo, results)}

        return play_cells(ctx, seed, tables, advance, edit, keep, resolve,
                          traced=lambda t: t.experiment == DRAWN and t.arm in TRACED)

    def analyse(self, ctx, tables, data) -> StudyResult:
        if not tables:
            return nothing_to_measure(f"The deck '{ctx.deck.name}' has no hazards: there is nothing to measure.")
        return analysis.analyse(ctx, tables, data)
