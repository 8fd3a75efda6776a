"""The finish-or-play-on study as a :class:`~gnoming_sim.analyses.framework.study.Study`."""
from __future__ import annotations

from ..framework.study import Study
from . import design, findings


class FinishPlayOn(Study):
    id = "finish-play-on"
    title = "Finish or play on"
    # games per (preset, table size) cell, one decision rolled out per game (about 90% of games have a
    # chance): 20 cells x 400 about 7,900 decisions (4x the pilot's size: the boundary's crossing is the
    # estimate that needs them), a selection batch of 64 expert rollouts and design.ROLLOUTS (16 mix, 10 learned,
    # 10 net) rollouts of three options per rung; about 0.05 s a decision on 2 quiet cores (a pilot of 1,580
    # decisions took 83 s), about 0.2 s on 2 busy ones
    default_games = 400
    quick_games = 3
    max_games = 512   # --games N caps here: every game costs a rollout analysis (about 0.2 s on 2 cores)

    def kernels(self, ctx) -> tuple[str, ...]:
        return ("heuristic", "every-family", "rollouts")   # each decision is rolled out

    def cell_games(self, ctx) -> int:
        return min(ctx.cell_games(self), self.max_games)

    tables, play, conclude = staticmethod(design.tables), staticmethod(design.play), staticmethod(findings.conclude)
