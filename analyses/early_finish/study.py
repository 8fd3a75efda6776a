"""The early-finish study as a :class:`~gnoming_sim.analyses.framework.study.Study`."""
from __future__ import annotations

from ..framework.study import Study
from . import design, findings

class EarlyFinish(Study):
    id = "early-finish"
    title = "The early-finish bonus"
    # games per table size, split over 4 lineups: multiples of 4 * 420 (420 = lcm(2..7)), so
    # rotation seats every preset equally often in every seat.  Sized from a pilot: P(bonus) per table
    # size to about +-1 pp under every rung (the ladder tables play 1/8 of these deals: 3,360 per size) and the per-preset
    # rules to about +-3 pp at their cut; was 672,000 (P(bonus) at +-0.03 pp, 380 s)
    default_games = 26_880
    quick_games = 1_680
    tables, tidy, conclude = staticmethod(design.tables), staticmethod(design.tidy), staticmethod(findings.conclude)
