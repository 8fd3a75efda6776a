"""The ladder of advice and the pocket rules, played, as a :class:`~gnoming_sim.analyses.framework.study.Study`.

At 2, 4 and 6 players, on deals no choice of the rules saw (game numbers ``RULE_FIRST + players * 2**40``, the
study's own seed; the rules were searched and confirmed on tuning/rules/'s), each rung of the ladder (every rule at
its simplest default, the pocket rules, the card, net, value) sits in one seat among a table of ``net`` and among a
table of ``expert``, the seat rotating with the deal, against the table's player in that seat on the same deals
(:class:`gnoming_sim.experiments.rule_play.Table`).  Among net, each printed rule is also played at its simplest
default, the other seven as printed: its worth.
"""
from __future__ import annotations

import time

from gnoming_sim.experiments.rule_play import RULE_FIRST, Table
from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.kernel.policy import registry

from ..framework.study import Precision, Study, StudyResult
from ..framework.study import Table as FTable
from . import figures, findings

# deals per table size and table: a rung's change against the table's player has a 95% half-width of about 1.2-1.8
# pp of win chance a game at 4,000 (wider at 2 players), a rule's pooled worth about 0.4-0.6 pp; value plays about 60
# games a second, so its rung plays the first VALUE_DEALS of them.  17 strategy runs a size, about 120 s of CPU
# (measured: 61 s at 2,000 and 200, busy cores)
DEALS, VALUE_DEALS = 4000, 400
QUICK_DEALS, QUICK_VALUE_DEALS = 40, 10


def _defaults() -> dict:
    out: dict = {}
    for r in registry.RULES_PRINTED:
        out.update(r["default"])
    return out


class PocketRules(Study):
    id = "pocket-rules"
    title = "The ladder of advice and the pocket rules"
    default_games = DEALS
    quick_games = QUICK_DEALS

    def kernels(self, ctx) -> tuple[str, ...]:
        return ("every-family",)   # value's own batch kernel compiles when its rung is first played

    def design(self, ctx) -> list:
        """The games it plays, as tables (for the report's count and progress; :meth:`play` plays them): at each
        size and table, the table's own player at every seat, then each rung in one seat (and among net each rule
        at its simplest default); none under other rules or another deck (:meth:`play` skips them)."""
        if ctx.rules != RuleConfig() or ctx.deck != PUBLISHED:
            return []
        deals = self.cell_games(ctx)
        value = QUICK_VALUE_DEALS if ctx.quick else min(VALUE_DEALS, deals)
        out = []
        for p in findings.SIZES:
            for table in findings.TABLES:
                rungs = [r for r in findings.RUNGS if r != table] + ([r["title"] for r in registry.RULES_PRINTED]
                                                                     if table == "net" else [])
                out.append(FTable(p, (table,) * p, deals, RULE_FIRST + p * 2**40, label=f"{p} players, {table}"))
                out += [FTable(p, (r,) + (table,) * (p - 1), value if r == "value" else deals,
                               RULE_FIRST + p * 2**40, label=f"{p} players, {r} among {table}") for r in rungs]
        return out

    def play(self, ctx, seed, tables, advance) -> dict:
        if ctx.rules != RuleConfig() or ctx.deck != PUBLISHED:
            return {"skip": "the pocket rules were chosen under the default rules and the published deck only"}
        import gnoming_sim.search  # noqa: F401  (registers the value player's batch kernel)

        t0 = time.perf_counter()
        deals = self.cell_games(ctx)
        value_deals = QUICK_VALUE_DEALS if ctx.quick else min(VALUE_DEALS, deals)
        rungs = {"simplest default": registry.rules_strategy(_defaults(), name="rules-defaults"),
                 "pocket rules": registry.rules_strategy(), "card": "card", "net": "net", "value": "value"}
        without = {r["title"]: registry.rules_strategy(r["default"], name="rules-without")
                   for r in registry.RULES_PRINTED}
        played, gone = {}, {}
        for p in findings.SIZES:
            first = RULE_FIRST + p * 2**40
            for table in findings.TABLES:
                T = Table(p, deals, seed, first, base=table, threads=ctx.threads)
                for rung, s in rungs.items():
                    n = value_deals if rung == "value" else deals
                    played.setdefault(table, {}).setdefault(p, {})[rung] = T.versus(s, n)
                    advance(n if rung != table else 0)
                advance(deals)       # the table's own games, played with its first rung
                if table == "net":
                    for title, s in without.items():
                        gone.setdefault(title, {})[p] = T.versus(s)
                        advance(deals)
        return {"played": played, "without": gone, "deals": deals, "value_deals": value_deals,
                "first_game": RULE_FIRST, "wall_s": time.perf_counter() - t0}

    def conclude(self, ctx, tables, data) -> StudyResult:
        if "skip" in data:
            return StudyResult([], [], {}, {"skipped": data["skip"]}, [], context={"empty": data["skip"]})
        played = data["played"]
        rules = findings.worth(list(registry.RULES_PRINTED),
                               {p: r["pocket rules"] for p, r in played["net"].items()}, data["without"])
        summary = {"table_play": "one seat among a table of the named player, against that player in the seat, the "
                                 "seat rotating with the deal; paired by deal",
                   "sizes": list(findings.SIZES), "deals": data["deals"], "value_deals": data["value_deals"],
                   "first_game": data["first_game"], "rungs": list(findings.RUNGS),
                   "ladder": findings.ladder(played), "steps": findings.steps(played), "worth_table": "net",
                   "rules": rules, "no_gain": findings.NO_GAIN, "wall_s": round(data["wall_s"], 1)}
        half = lambda e: (e["ci95"][1] - e["ci95"][0]) / 2   # noqa: E731
        precision = [Precision(f"{what} (win chance a game)", max(widths) / 100, "pct")   # pp, as a share
                     for what, widths in (
                         (f"a rung's change against the table's player, {data['deals']:,} deals",
                          [half(e["win_vs_table"]) for t in summary["ladder"].values() for r in t.values()
                           for k, e in r.items() if k != "value"]),
                         ("a rule's pooled worth", [half(r["win"]["pooled"]) for r in rules])) if max(widths) > 0]
        return StudyResult(findings=[], figures=[figures.ladder_figure(summary)],
                           frames={"table": findings.table(summary)}, summary=summary, precision=precision,
                           context={"s": summary})
