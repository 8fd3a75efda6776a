"""The mulligan-value study as a :class:`~gnoming_sim.analyses.framework.study.Study`."""
from __future__ import annotations

import pandas as pd

from gnoming_sim.game.cards import MULLIGAN
from gnoming_sim.kernel.policy import registry

from ..framework.paired import EditedDealStudy, cell_rng, play_cells
from . import design, findings
from .design import ARMS, TRACED, edit_arms, keep_rows


class MulliganValue(EditedDealStudy):
    id = "mulligan-value"
    title = "What a mulligan is worth"
    template = "mulligan_value/template.html"
    # deals per table size in the dealt experiment's preset mix (x3 arms), split over 5 lineups; the two rungs
    # of the strong ladder play design.RUNG_SHARE of them (design.RUNG_ARMS); the flow experiment plays
    # 1/FLOW_SHARE of them (x2 arms, one traced)
    default_games = 5_000
    quick_games = 150
    card, cards = MULLIGAN, "mulligans"
    tables, findings = staticmethod(design.tables), staticmethod(findings.conclude)

    def play(self, ctx, seed, tables, advance) -> dict[str, pd.DataFrame]:
        def edit(arms, lo, deals):
            experiment, players = arms[0].experiment, arms[0].players
            rng = cell_rng(seed, list(ARMS).index(experiment), players, lo)
            return edit_arms(experiment, players, lo, deals, rng, seed=seed)

        def keep(arms, lo, results, facts):
            return keep_rows(arms[0].experiment, arms[0].players, lo, results, facts, ctx.rules.mulligan_limit)

        return play_cells(ctx, seed, tables, advance, edit, keep, registry.get,
                          traced=lambda t: t.arm in TRACED)
