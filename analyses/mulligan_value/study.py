"""The mulligan-value study as a :class:`~gnoming_sim.analyses.framework.study.Study`."""
from __future__ import annotations

from gnoming_sim.game.cards import MULLIGAN
from gnoming_sim.kernel.policy import registry

from ..framework.paired import EditedDealStudy, cell_rng
from . import design, findings
from .design import ARMS, TRACED, edit_arms, keep_rows


class MulliganValue(EditedDealStudy):
    id = "mulligan-value"
    title = "What a mulligan is worth"
    # deals per table size in the dealt experiment's preset mix (x3 arms), split over 5 lineups; the two rungs
    # of the strong ladder play design.RUNG_SHARE of them (design.RUNG_ARMS); the flow experiment plays
    # 1/FLOW_SHARE of them (x2 arms, one traced)
    default_games = 5_000
    quick_games = 150
    card, cards, traced = MULLIGAN, "mulligans", TRACED
    tables, findings, strategies = staticmethod(design.tables), staticmethod(findings.conclude), staticmethod(registry.get)

    def edit(self, seed, cell, lo, deals):
        rng = cell_rng(seed, list(ARMS).index(cell.experiment), cell.players, lo)
        return edit_arms(cell.experiment, cell.players, lo, deals, rng, seed=seed)

    def keep(self, ctx, cell, lo, results, facts):
        return keep_rows(cell.experiment, cell.players, lo, results, facts, ctx.rules.mulligan_limit)
