"""The player's guide as a :class:`~gnoming_sim.analyses.framework.study.Study`: it renders the committed
guide (the package data the ``chart`` preset reads) and plays its own check of the chart against expert."""
from __future__ import annotations

import json

from gnoming_sim.experiments.chart_check import versus_expert
from gnoming_sim.kernel.policy import registry

from ..framework.study import Study, StudyResult, Table
from . import analysis, design


class PlayersGuide(Study):
    id = "guide"
    title = "The player's guide"
    template = "guide/template.html"
    # deals per table size (each played once per rotation, by the chart among experts and by experts alone)
    default_games = 3000
    quick_games = 100

    def design(self, ctx) -> list[Table]:
        return design.tables(ctx.cell_games(self))

    def play(self, ctx, seed, tables, advance):
        committed = json.loads(registry.CHART_CELLS.read_text())
        deals = ctx.cell_games(self)
        checks = []
        for p in design.PLAYERS:
            checks.append(versus_expert("chart", p, deals, seed, ctx.rules, ctx.deck, ctx.threads,
                                        first_game=design.first_game(p)))
            advance(2 * deals * p)
        return {"guide": committed, "checks": checks}

    def analyse(self, ctx, tables, data) -> StudyResult:
        return analysis.analyse(ctx, tables, data)
