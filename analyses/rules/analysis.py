"""The player's rules (issue 50 item 2): one rule per decision, what following it wins, its regret, played.

Inputs (committed, so the study reads them rather than replaying them): the finishing study's decisions
(reports/finish-play-on-decisions.csv: finish minus the best play-on under net rollouts to the end of the
game, one chance per self-play game of the presets) and the oracle-valued decision set from net self-play
(tuning/oracle/decisions.parquet, :mod:`gnoming_sim.experiments.oracle_decisions`).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from gnoming_sim.kernel.policy import chart as C

from ..framework import finish_threshold as TH
from . import evaluate as EV
from . import kinds as K
from . import played as PL
from ..framework.rule_split import TOLERANCE_PP

ORDER = ("finish", "hazard", "take", "mulligan")
MAX_WORDS = 40


# ---------------------------------------------------------------- finishing
def finish_cells(t) -> dict:
    """The finish table's cells of "finish iff gap <= t" (t one of :data:`TH.PLAYABLE`, or never/always)."""
    cells = {}
    for g in range(C.N_GAP):
        lo = -math.inf if g == 0 else C.GAP_EDGES[g - 1]        # bin g: lo <= gap < hi
        finish = t == "always" or (t != "never" and lo <= t)
        for f in range(C.N_OFD):
            for s in range(C.N_SIZE):
                cells[C.finish_cell_of(g, f, s)] = C.A_FINISH if finish else C.A_PLAYON
    return cells


def finish_versus_net(frame: pd.DataFrame, thresholds: dict) -> dict:
    """At net self-play's finishing chances (the oracle set: fresh to the rule, chosen on the finishing study's
    decisions): the rule's option (as the played seat picks it) minus net's own, where they differ."""
    f = frame[(frame["kind"] == "finish") & frame["finish_key"].notna()].reset_index(drop=True)
    if f.empty:
        return {}
    keys = []
    for _, r in f.iterrows():
        t = thresholds.get(str(int(r["players"])))
        fin = t == "always" or (t != "never" and r["finish_gap"] <= t)
        if fin:
            keys.append(r["finish_key"])
        else:
            keys.append(r["net_key"] if r["net_key"] != r["finish_key"] else (r["playon_key"] or r["net_key"]))
    rule = K.option_value(f, keys)
    net = K.option_value(f, list(f["net_key"]))
    changed = np.array(keys, dtype=object) != f["net_key"].to_numpy()
    d = rule - net
    by = {str(p): EV._est(d[(f["players"] == p).to_numpy() & changed]) for p in sorted(f["players"].unique())}
    return {"versus_net": EV._est(d), "predicted_per_decision": EV._est(d[changed]),
            "changed_share": float(changed.mean()), "by_players": by,
            "thresholds_here": _thresholds_here(f, thresholds)}


def _thresholds_here(f: pd.DataFrame, thresholds: dict) -> dict:
    """The same family at net self-play's finishing chances (another population of positions than the finishing
    study's, which come from the presets' self-play): each playable threshold's gain over playing on (net's own
    play-on where it played on, else the card's), and the chosen rule minus the best of them and minus the card's
    default (gap < 0), paired."""
    fin = K.option_value(f, list(f["finish_key"]))
    on = K.option_value(f, [r["net_key"] if r["net_key"] != r["finish_key"] else (r["playon_key"] or r["net_key"])
                            for _, r in f.iterrows()])
    gap = f["finish_gap"].to_numpy(dtype=np.float64)
    sizes = f["players"].astype(str).to_numpy()
    rule_t = np.array([thresholds.get(p, "never") for p in sizes], dtype=object)
    gains = {t: np.where(gap <= t, fin - on, 0.0) for t in TH.PLAYABLE}
    best = max(gains, key=lambda t: np.nanmean(gains[t]))
    mine = np.array([gains[t][i] if isinstance(t, int) else (fin - on)[i] * (t == "always")
                     for i, t in enumerate(rule_t)])
    return {"value_by_threshold": {str(t): EV._est(g) for t, g in gains.items()},
            "best_here": best, "best_here_note": "chosen on these same decisions (flatters it)",
            "rule_minus_best_here": EV._est(mine - gains[best]),
            "rule_minus_card_default_here": EV._est(mine - gains[TH.CARD_DEFAULT]),
            "decisions": "net self-play's finishing chances of the oracle-valued set (tuning/oracle)"}


# ---------------------------------------------------------------- words
def _pp(e: dict) -> str:
    return f"{e['mean']:+.1f} pp"


def _bracket(e: dict, unit: str) -> str:
    lo, hi = e["ci95"]
    return f"[n {e['n']:,} {unit}, {lo:+.1f} to {hi:+.1f}]"


def _sizes(players) -> str:
    return f"{min(players)}-{max(players)} players" if len(players) > 1 else f"{players[0]} players"


def text_of(entry: dict) -> str:
    """The README sentence: the rule, what it wins against its alternative and the table sizes (<= 40 words)."""
    sizes = _sizes(entry["players"])
    if not entry["printed"]:
        n = (entry.get("regret") or {}).get("n", 0)
        return (f"{entry['decision'].capitalize()}: no single rule; the best choice depends on the position "
                f"({sizes}, {n:,} decisions).")
    v = entry["value"]
    head = entry["rule"].rstrip(".")
    out = (f"{head[0].upper()}{head[1:]}: {_pp(v)} of win chance each time, against {entry['versus']}, "
           f"{sizes} {_bracket(v, 'decisions')}.")
    if len(out.split()) > MAX_WORDS:
        out = f"{head[0].upper()}{head[1:]}: {_pp(v)} of win chance each time ({sizes}) {_bracket(v, 'decisions')}."
    return out


def finish_words(thresholds: dict) -> str:
    ts = set(thresholds.values())
    if len(ts) == 1:
        t = ts.pop()
        if t == "never":
            return "play on rather than finish"
        if t == "always":
            return "finish whenever you can"
        return (f"finish when your score after finishing would be at most {t} above the best rival's visible "
                "score; else play on") if t >= 0 else (
            f"finish when your score after finishing is at least {-t} below the best rival's visible score; else "
            "play on")
    return "finish when your score after finishing is at most " + ", ".join(
        f"{t} at {p}" for p, t in sorted(thresholds.items())) + " players above the best rival's visible score"


# ---------------------------------------------------------------- the study's rules
def finish_entry(finish_dec: pd.DataFrame, oracle: pd.DataFrame | None) -> tuple[dict, dict]:
    """(schema entry, cells by table size) of the finishing rule."""
    card = TH.card_finishes(finish_dec)
    r = TH.threshold_rule(finish_dec, card_finishes=card)
    players = sorted(int(p) for p in r["thresholds"])
    entry = {"key": "finish", "decision": "finish or play on", "rule": finish_words(r["thresholds"]),
             "players": players, "value": {**r["value"], "unit": "pp"}, "versus": "always playing on",
             "alternatives": [{**a, "unit": "pp"} for a in r["alternatives"][1:]],
             "regret": {**r["regret"], "unit": "pp"},
             "family": "every gap threshold, by table size and the closest rival's face-down cards (1, 2, 3+)",
             "printed": r["printed"], "threshold": r["thresholds"],
             "same_on_the_other_half": r["same_on_the_other_half"],
             "by_players": {p: {"rule": b["rule"], "value": {**b["value"], "unit": "pp"},
                                "regret": {**b["regret"], "unit": "pp"}} for p, b in r["by_players"].items()},
             "decisions": "the finishing study's chances (one per self-play game of the presets), valued by net "
                          "rollouts to the end of the game"}
    if not r["printed"]:
        entry["reason"] = f"{r['regret']['n']:,} decisions, {r['regret']['ci95'][1]:.2f} pp behind the best at most"
    if oracle is not None:
        vn = finish_versus_net(oracle, r["thresholds"])
        if vn:
            entry["predicted_per_decision"] = vn["predicted_per_decision"]
            entry["versus_net"] = vn["versus_net"]
            entry["at_net_self_play"] = vn["thresholds_here"]
            for p, e in vn["by_players"].items():
                entry["by_players"].setdefault(p, {})["predicted_per_decision"] = e
    cells = {int(p): finish_cells(t) for p, t in r["thresholds"].items()}
    return entry, cells


def family_entry(fam) -> tuple[dict, dict]:
    """(schema entry, cells by table size) of a family of the oracle set."""
    r = EV.evaluate(fam)
    if "shape" not in r:
        entry = {"key": fam.key, "decision": fam.decision, "rule": "no single number", "players": [],
                 "printed": False, "reason": r["reason"], "value": None, "regret": None}
        return entry, {}
    rule = r["words"] if r["shape"] == "one rule" else "; ".join(
        f"at {p} players: {fam.rules[c]['words']}" for p, c in r["columns"].items())
    entry = {"key": fam.key, "decision": fam.decision, "rule": rule, "players": r["players"],
             "value": r["value"], "versus": r["versus"], "alternatives": r["alternatives"][1:],
             "regret": r["regret"], "family": fam.rich_family, "printed": r["printed"],
             "predicted_per_decision": r["predicted_per_decision"], "versus_net": r["versus_net"],
             "same_on_the_other_half": r["same_on_the_other_half"], "candidates": r["candidates"],
             "by_players": {p: {"rule": b["rule"], "value": b["value"], "regret": b["regret"],
                                "predicted_per_decision": b["predicted_per_decision"]}
                            for p, b in r["by_players"].items()},
             "decisions": "net self-play decisions, every option valued by the oracle (tuning/oracle)"}
    if not r["printed"]:
        lo, hi = r["regret"]["ci95"]
        entry["reason"] = (f"{r['regret']['n']:,} decisions; the best rule of its kind gives up {lo:+.2f} to "
                           f"{hi:+.2f} pp each time against the best choice by position, more than {TOLERANCE_PP} pp")
    return entry, {p: EV.cells_of(fam, r, p) for p in r["players"]}


def rules(finish_dec: pd.DataFrame | None, oracle: pd.DataFrame | None) -> tuple[list[dict], dict]:
    """The schema's rule entries (in :data:`ORDER`) and each printed rule's cells by table size."""
    entries, cells = {}, {}
    if finish_dec is not None and not finish_dec.empty:
        entries["finish"], cells["finish"] = finish_entry(finish_dec, oracle)
    if oracle is not None and not oracle.empty:
        for make in (K.hazard_family, K.take_family, K.mulligan_family):
            fam = make(oracle)
            entries[fam.key], cells[fam.key] = family_entry(fam)
    return [entries[k] for k in ORDER if k in entries], cells


def with_played(entry: dict, played: dict | None) -> dict:
    """The entry with its played gain and whether it agrees with the decision-level estimate."""
    if played is None:
        return entry
    entry = dict(entry)
    entry["played"] = played["played"]
    entry["played_per_decision"] = played["played_per_decision"]
    entry["played_changed_per_game"] = played["changed"]
    entry["played_deals"] = played["deals"]
    for p, b in played["by_players"].items():
        entry["by_players"].setdefault(p, {})["played"] = b["played"]
        entry["by_players"][p]["played_per_decision"] = b["played_per_decision"]
    pred = entry.get("predicted_per_decision")
    entry["agrees"] = PL.agrees(played["played_per_decision"], pred) if pred else None
    return entry


def finalize(entries: list[dict]) -> list[dict]:
    for e in entries:
        e["text"] = text_of(e)
    return entries


def table(entries: list[dict]) -> pd.DataFrame:
    """One row per rule and table size (players 0: all sizes): the CSV."""
    rows = []

    def est(prefix, e):
        if not e:
            return {f"{prefix}": None, f"{prefix}_lo": None, f"{prefix}_hi": None, f"{prefix}_n": None}
        return {prefix: e["mean"], f"{prefix}_lo": e["ci95"][0], f"{prefix}_hi": e["ci95"][1], f"{prefix}_n": e["n"]}

    for e in entries:
        base = {"decision": e["key"], "printed": e["printed"]}
        rows.append({**base, "players": 0, "rule": e["rule"], **est("value", e.get("value")),
                     **est("regret", e.get("regret")), **est("played", e.get("played")),
                     **est("played_per_decision", e.get("played_per_decision")),
                     **est("predicted_per_decision", e.get("predicted_per_decision")), "agrees": e.get("agrees")})
        for p, b in e.get("by_players", {}).items():
            rows.append({**base, "players": int(p), "rule": b.get("rule", ""), **est("value", b.get("value")),
                         **est("regret", b.get("regret")), **est("played", b.get("played")),
                         **est("played_per_decision", b.get("played_per_decision")),
                         **est("predicted_per_decision", b.get("predicted_per_decision")), "agrees": None})
    return pd.DataFrame(rows)
