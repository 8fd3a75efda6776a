"""The hazard-risk study as a :class:`~gnoming_sim.analyses.framework.study.Study`."""
from __future__ import annotations

import pandas as pd

from gnoming_sim.game.cards import HAZARD

from ..framework.design import STRONG_LADDER, strong_arm
from ..framework.paired import EditedDealStudy, cell_rng, play_cells
from . import design, findings
from .design import (DENY, DRAWN, DRAWN_STRONG, NATURAL, NATURAL_STRONG, deny_rows, drawn_arms, drawn_rows,
                     natural_rows, resolve)


TRACED = ("hazard", *(strong_arm("hazard", pl) for pl in STRONG_LADDER))   # the arms whose traces are followed


class HazardRisk(EditedDealStudy):
    id = "hazard-risk"
    title = "What a hazard costs"
    template = "hazard_risk/template.html"
    # games per table size of the natural tables and drawn cells (x3 arms) in the preset mix; the deny
    # experiment (x4 arms) plays a quarter as many; the rungs play design.RUNG_SHARE of them
    # (6,000: expert's margin reached +-0.40 points at 4,800 against its +-0.4 target)
    default_games = 6_000
    quick_games = 200
    card, cards = HAZARD, "hazards"
    tables, findings = staticmethod(design.tables), staticmethod(findings.conclude)

    def play(self, ctx, seed, tables, advance) -> dict[str, pd.DataFrame]:
        def edit(arms, lo, deals):
            experiment, players = arms[0].experiment, arms[0].players
            if experiment != DRAWN:
                return {t.arm: deals for t in arms}, {}
            return drawn_arms(players, lo, deals, cell_rng(seed, players, lo), seed=seed)

        def keep(arms, lo, results, facts):
            experiment, players = arms[0].experiment, arms[0].players
            if experiment == NATURAL:
                out = {NATURAL: natural_rows(results[NATURAL])} if NATURAL in results else {}
                out.update({NATURAL_STRONG[pl]: natural_rows(results[NATURAL_STRONG[pl]]) for pl in STRONG_LADDER
                            if NATURAL_STRONG[pl] in results})
                return out
            if experiment == DRAWN:
                out = {DRAWN: drawn_rows(players, lo, results, facts),
                       **{DRAWN_STRONG[pl]: drawn_rows(players, lo, results, facts, strong_arm("", pl))
                          for pl in STRONG_LADDER}}
                return {k: v for k, v in out.items() if v is not None}
            return {DENY: deny_rows(players, lo, results)}

        return play_cells(ctx, seed, tables, advance, edit, keep, resolve,
                          traced=lambda t: t.experiment == DRAWN and t.arm in TRACED)
