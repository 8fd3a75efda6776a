"""The player's rules as a :class:`~gnoming_sim.analyses.framework.study.Study`."""
from __future__ import annotations

import time

import pandas as pd

from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.rules import RuleConfig

from ..framework.study import DATA, Precision, Study, StudyResult
from . import analysis as A
from . import figures as F
from . import played as PL
from ..framework.rule_split import TOLERANCE_PP

# the committed report's finishing-study decisions (reports/finish-play-on-decisions.csv, copied: a test keeps them
# equal) and net self-play's oracle-valued sets (tuning/oracle/run.sh, run_finish.sh), all package data
FINISH_DECISIONS = DATA / "finish-play-on-decisions.csv"
ORACLE_DECISIONS = DATA / "oracle" / "decisions.parquet"
ORACLE_FINISHING = DATA / "oracle" / "finish.parquet"    # more of net self-play's finishing chances
# deals per table size for each played rule (net vs net with the rule's cells, paired): a finishing chance or a
# pile card comes about once a game per seat, a hazard drawn blind or a mulligan about 0.15 times, so the rare
# decisions' rules play twice the deals.  About 3 s per 1,000 deals (both arms) at 5 players on 2 busy cores:
# the four rules at 3-6 players, 6,000 deals a size in all, about 70 s
DEALS = 1_000
RARE = {"hazard": 2, "mulligan": 2}
QUICK_DEALS = 40
PLAYERS = (3, 4, 5, 6)


def _named(path) -> str:
    """A data file by its place in the repository (summary.json's ``inputs``)."""
    return f"analyses/data/{path.relative_to(DATA).as_posix()}"


class PlayerRules(Study):
    id = "player-rules"   # its summary key player_rules: summary.json's "rules" is the game's rule options
    title = "The player's rules"
    template = "rules/template.html"
    default_games = DEALS
    quick_games = QUICK_DEALS

    def kernels(self, ctx) -> tuple[str, ...]:
        return ("every-family",)

    def design(self, ctx) -> list:
        return []     # its decisions are read (committed); its games are the played rules' (play)

    def play(self, ctx, seed, tables, advance) -> dict:
        if ctx.rules != RuleConfig() or ctx.deck != PUBLISHED:
            return {"skip": "the rules were measured under the default rules and the published deck only"}
        t0 = time.perf_counter()
        fin = pd.read_csv(FINISH_DECISIONS) if FINISH_DECISIONS.exists() else None
        sets = [pd.read_parquet(p).assign(set=p.stem) for p in (ORACLE_DECISIONS, ORACLE_FINISHING) if p.exists()]
        orc = pd.concat(sets, ignore_index=True) if sets else None
        entries, cells = A.rules(fin, orc)
        deals = min(self.cell_games(ctx), DEALS * 4)
        played, also = {}, {}
        for e in entries:
            if e["printed"] and cells.get(e["key"]):
                n = deals * RARE.get(e["key"], 1)
                played[e["key"]] = PL.play(cells[e["key"]], n, seed, ctx.threads)
                for name, other in A.played_alternatives(e).items():   # the same deals
                    alt = PL.play({p: other for p in cells[e["key"]]}, n, seed, ctx.threads)
                    also.setdefault(e["key"], []).append({"versus": name, **PL.versus(played[e["key"]], alt),
                                                          "alternative_played": alt["played"]})
        return {"entries": entries, "played": played, "also": also, "deals": deals, "wall_s": time.perf_counter() - t0,
                "inputs": {"finish": _named(FINISH_DECISIONS) if fin is not None else None,
                           "oracle": ", ".join(_named(p) for p in (ORACLE_DECISIONS, ORACLE_FINISHING)
                                               if p.exists()) or None}}

    def analyse(self, ctx, tables, data) -> StudyResult:
        if "skip" in data:
            return StudyResult([], [], {}, {"rules": [], "skipped": data["skip"]}, [], context={"empty": data["skip"]})
        entries = A.finalize([A.with_played(e, data["played"].get(e["key"]), data["also"].get(e["key"]))
                              for e in data["entries"]])
        summary = {"base": "net", "criterion": "chance of winning the game", "tolerance_pp": TOLERANCE_PP,
                   "rules": entries, "deals_per_size": {k: data["deals"] * RARE.get(k, 1) for k in A.ORDER},
                   "inputs": data["inputs"], "wall_s": round(data["wall_s"], 1)}
        precision = [Precision(f"{e['decision']}: value per decision (pp)", (e["value"]["ci95"][1] - e["value"]["ci95"][0]) / 2,
                               "points") for e in entries if e.get("value")]
        precision += [Precision(f"{e['decision']}: played against net, a game (pp)",
                                (e["played"]["ci95"][1] - e["played"]["ci95"][0]) / 2, "points")
                      for e in entries if isinstance(e.get("played"), dict) and "ci95" in e["played"]]
        precision = [p for p in precision if p.half_width > 0]   # a rule that changed no answer: exactly 0, no spread
        return StudyResult(findings=[], figures=[F.value_figure(entries)], frames={"table": A.table(entries)},
                           summary=summary, precision=precision,
                           context={"entries": entries, "tolerance": TOLERANCE_PP, "deals": data["deals"],
                                    "inputs": data["inputs"]})
