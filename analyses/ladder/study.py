"""The strength ladder as a :class:`~gnoming_sim.analyses.framework.study.Study`: it plays its own
design (:func:`gnoming_sim.experiments.ladder.run`, in this process) and rates the pool."""
from __future__ import annotations

from gnoming_sim.experiments import ladder

from ..framework.study import Study, Table
from . import design, findings


class StrengthLadder(Study):
    id = "ladder"
    title = "Strength ladder"
    # deals per table without a Monte Carlo seat (played once per rotation); a table with one plays
    # fewer by its cost (experiments.ladder.deals_for), at least MIN_SLOW_DEALS.  600 puts a fast
    # player's rating to about +-6 Elo (design.TARGET_RATING)
    default_games = 600
    quick_games = 60

    def kernels(self, ctx) -> tuple[str, ...]:
        return ("heuristic", "every-family", "monte-carlo")   # a preview's pool has no Monte Carlo player

    def design(self, ctx) -> list[Table]:
        return design.tables(ctx.cell_games(self), ctx.study_seed(self.id), ctx.strategies, ctx.quick)

    def play(self, ctx, seed, tables, advance):
        names = tables[0].pool if tables else design.pool(ctx.strategies)
        out = None
        for players, pool in design.pools(names, ctx.quick):
            part = ladder.run(pool, players, design.deals_at(players[0], ctx.cell_games(self)), seed, ctx.rules, ctx.deck, ctx.threads,
                              design.bootstrap(ctx.quick), progress=lambda games, units: advance(games),
                              min_slow=design.min_slow(ctx.quick)).to_dict()
            if out is None:
                out = part
            else:
                out["tables"] += part["tables"]
                out["wall_s"] += part["wall_s"]
        out["tables"].sort(key=lambda size: size["players"])
        out["players"] = sorted(size["players"] for size in out["tables"])
        out["not_played"] = design.not_played(names, ctx.quick)
        return out

    conclude = staticmethod(findings.conclude)
