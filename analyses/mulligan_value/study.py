"""The mulligan-value study as a :class:`~gnoming_sim.analyses.framework.study.Study`."""
from __future__ import annotations

import pandas as pd

from gnoming_sim.game.cards import MULLIGAN
from gnoming_sim.kernel.policy import registry

from ..framework.paired import ArmTable, cell_rng, nothing_to_measure, play_cells
from ..framework.study import Study, StudyResult
from . import analysis
from .design import ARMS, FLOW, edit_arms, keep_rows, tables


class MulliganValue(Study):
    id = "mulligan-value"
    title = "What a mulligan is worth"
    template = "mulligan_value/template.html"
    # deals per table size in the dealt experiment (x2 arms), split over 5 lineups; the flow
    # experiment plays half as many (x2 arms, one traced)
    default_games = 48_000
    quick_games = 1_500

    def design(self, ctx) -> list[ArmTable]:
        if ctx.deck.count(MULLIGAN) == 0:
            return []   # nothing to measure; analyse says so
        return tables(ctx.cell_games(self))

    def play(self, ctx, seed, tables, advance) -> dict[str, pd.DataFrame]:
        def edit(arms, lo, deals):
            experiment, players = arms[0].experiment, arms[0].players
            rng = cell_rng(seed, list(ARMS).index(experiment), players, lo)
            return edit_arms(experiment, players, lo, deals, rng)

        def keep(arms, lo, results, facts):
            return keep_rows(arms[0].experiment, arms[0].players, lo, results, facts, ctx.rules.mulligan_limit)

        return play_cells(ctx, seed, tables, advance, edit, keep, registry.get,
                          traced=lambda t: t.experiment == FLOW and t.arm == "natural")

    def analyse(self, ctx, tables, data) -> StudyResult:
        if not tables:
            return nothing_to_measure(f"The deck '{ctx.deck.name}' has no mulligans: there is nothing to measure.")
        return analysis.analyse(ctx, tables, data)
