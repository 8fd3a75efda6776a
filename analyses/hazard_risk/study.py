"""The hazard-risk study as a :class:`~gnoming_sim.analyses.framework.study.Study`."""
from __future__ import annotations

from gnoming_sim.game.cards import HAZARD

from ..framework.design import STRONG_LADDER, strong_arm
from ..framework.paired import EditedDealStudy, cell_rng
from . import design, findings
from .design import (DENY, DRAWN, DRAWN_STRONG, NATURAL, NATURAL_STRONG, deny_rows, drawn_arms, drawn_rows,
                     natural_rows, resolve)


TRACED = ("hazard", *(strong_arm("hazard", pl) for pl in STRONG_LADDER))   # the arms whose traces are followed


class HazardRisk(EditedDealStudy):
    id = "hazard-risk"
    title = "What a hazard costs"
    # games per table size of the natural tables and drawn cells (x3 arms) in the preset mix; the deny
    # experiment (x4 arms) plays a quarter as many; the rungs play design.RUNG_SHARE of them
    # (6,000: expert's margin reached +-0.40 points at 4,800 against its +-0.4 target)
    default_games = 6_000
    quick_games = 200
    card, cards, traced = HAZARD, "hazards", TRACED
    tables, findings, strategies = staticmethod(design.tables), staticmethod(findings.conclude), staticmethod(resolve)

    def edit(self, seed, cell, lo, deals):
        if cell.experiment != DRAWN:
            return None, {}
        return drawn_arms(cell.players, lo, deals, cell_rng(seed, cell.players, lo), seed=seed)

    def keep(self, ctx, cell, lo, results, facts):
        if cell.experiment == NATURAL:
            out = {NATURAL: natural_rows(results[NATURAL])} if NATURAL in results else {}
            out.update({NATURAL_STRONG[pl]: natural_rows(results[NATURAL_STRONG[pl]]) for pl in STRONG_LADDER
                        if NATURAL_STRONG[pl] in results})
            return out
        if cell.experiment == DRAWN:
            out = {DRAWN: drawn_rows(cell.players, lo, results, facts),
                   **{DRAWN_STRONG[pl]: drawn_rows(cell.players, lo, results, facts, strong_arm("", pl))
                      for pl in STRONG_LADDER}}
            return {k: v for k, v in out.items() if v is not None}
        return {DENY: deny_rows(cell.players, lo, results)}
