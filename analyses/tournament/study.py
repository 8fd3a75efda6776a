"""The tournament as a :class:`~gnoming_sim.analyses.framework.study.Study`: design, rows kept, analysis."""
from __future__ import annotations

from ..framework.study import Study, Table
from . import design, findings

class Tournament(Study):
    id = "tournament"
    title = "Strategy tournament"
    # games per lineup; multiples of 420 = lcm(3, 4, 5, 7), so rotation seats every preset
    # equally often in every seat.  8,400 reaches the targets of analysis.TARGET_* (a win share to
    # +-0.5 pp, a head-to-head gap to +-0.5 points, a seat's edge to +-0.3 points)
    default_games = 8_400
    quick_games = 420
    tidy, conclude = staticmethod(design.tidy), staticmethod(findings.conclude)

    def kernels(self, ctx) -> tuple[str, ...]:
        # the heuristic presets, the Monte Carlo entrant (a full report); a user's own strategies may be of any family
        return (("heuristic",) + (("monte-carlo",) if design.slow_entrants() and not ctx.quick else ())
                + (("every-family",) if ctx.strategies else ()))

    def design(self, ctx) -> list[Table]:
        return design.tables(ctx.cell_games(self), ctx.strategies, ctx.quick)
