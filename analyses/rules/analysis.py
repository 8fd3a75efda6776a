"""The player's rules: one rule per decision, what following it wins, its regret, played.

Inputs (committed, so the study reads them rather than replaying them): the finishing study's decisions
(reports/finish-play-on-decisions.csv: finish minus the best play-on under net rollouts to the end of the
game, one chance per self-play game of the presets) and the oracle-valued decision set from net self-play
(analyses/data/oracle/decisions.parquet, :mod:`gnoming_sim.experiments.oracle_decisions`).
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
from ..framework.rule_split import TOLERANCE_PP, halves

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


def played_alternatives(entry: dict) -> dict:
    """Other rules a printed rule is also played against, on the same deals ({name: cells for every size}): the
    finishing rule against the card's old default (gap < 0), or where it is that rule, against the threshold chosen
    at the presets' self-play positions."""
    if entry["key"] != "finish":
        return {}
    mine = set(entry["threshold"].values())
    if mine != {TH.CARD_DEFAULT}:
        return {"the card's stated default (finish when gap < 0)": finish_cells(TH.CARD_DEFAULT)}
    there = ((entry.get("at_presets_self_play") or {}).get("rule_chosen_there") or {}).get("thresholds") or {}
    ts = set(there.values())
    if len(ts) == 1 and ts != mine:
        t = ts.pop()
        return {f"finish iff gap <= {t} (the rule chosen at the presets' self-play positions)": finish_cells(t)}
    return {}


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
            "changed_share": float(changed.mean()), "by_players": by}


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
        if t == -1:
            return "finish when your score after finishing would be below the best rival's visible score; else play on"
        return (f"finish when your score after finishing would be at most {t} above the best rival's visible "
                "score; else play on") if t >= 0 else (
            f"finish when your score after finishing is at least {-t} below the best rival's visible score; else "
            "play on")
    return "finish when your score after finishing is at most " + ", ".join(
        f"{t} at {p}" for p, t in sorted(thresholds.items())) + " players above the best rival's visible score"


# ---------------------------------------------------------------- the study's rules
def net_finishing(oracle: pd.DataFrame | None) -> pd.DataFrame | None:
    """Net self-play's finishing chances of the oracle-valued sets as the threshold rule's decisions: ``win_net`` =
    finish minus playing on (net's own play-on where it played on, else the card's), a probability; ``preset`` the
    set the row comes from (its games are numbered apart only within a set); None where there are none."""
    if oracle is None or oracle.empty:
        return None
    f = oracle[(oracle["kind"] == "finish") & oracle["finish_key"].notna()].reset_index(drop=True)
    if f.empty:
        return None
    fin = K.option_value(f, list(f["finish_key"]))
    on = K.option_value(f, [r["net_key"] if r["net_key"] != r["finish_key"] else (r["playon_key"] or r["net_key"])
                            for _, r in f.iterrows()])
    out = pd.DataFrame({"players": f["players"], "gap": f["gap"], "others_face_down_min": f["rivals_fd_min"],
                        "others_face_down": f["rivals_fd_mean"] * (f["players"] - 1), "game": f["game"],
                        "preset": f["set"] if "set" in f else "net", "win_net": (fin - on) / 100.0})
    keep = np.isfinite(out["win_net"].to_numpy()) & np.isfinite(out["gap"].to_numpy(dtype=np.float64))
    return out[keep].reset_index(drop=True)


def _rule_there(dec: pd.DataFrame, thresholds: dict) -> dict:
    """The chosen thresholds' gain over always playing on at every decision of ``dec`` (chosen elsewhere: no split)."""
    t = np.array([thresholds.get(str(int(p)), "never") for p in dec["players"]], dtype=object)
    gap = dec["gap"].to_numpy(dtype=np.float64)
    win = dec["win_net"].to_numpy(dtype=np.float64) * 100
    g = np.array([w if (x == "always" or (x != "never" and gg <= x)) else 0.0 for w, gg, x in zip(win, gap, t)])
    card = np.where(gap <= TH.CARD_DEFAULT, win, 0.0)
    return {"value": EV._est(g), "versus_card_default": EV._est(g - card)}


def finish_entry(finish_dec: pd.DataFrame | None, oracle: pd.DataFrame | None) -> tuple[dict, dict]:
    """(schema entry, cells by table size) of the finishing rule: chosen and valued (split by game) on net
    self-play's finishing chances where the oracle sets hold them (the positions the rule is played at), else on
    the finishing study's decisions (the presets' self-play); the other population is reported as a check."""
    net = net_finishing(oracle)
    use_net = net is not None and len(net) >= 200
    dec = net if use_net else finish_dec
    r = TH.threshold_rule(dec, card_finishes=TH.card_finishes(dec))
    players = sorted(int(p) for p in r["thresholds"])
    where = ("net self-play's finishing chances (tuning/oracle), finish and playing on valued by the oracle"
             if use_net else "the finishing study's chances (one per self-play game of the presets), valued by net "
             "rollouts to the end of the game")
    entry = {"key": "finish", "decision": "finish or play on", "rule": finish_words(r["thresholds"]),
             "players": players, "value": {**r["value"], "unit": "pp"}, "versus": "always playing on",
             "alternatives": [{**a, "unit": "pp"} for a in r["alternatives"][1:]],
             "regret": {**r["regret"], "unit": "pp"},
             "family": "every gap threshold, by table size and the closest rival's face-down cards (1, 2, 3+)",
             "printed": r["printed"], "threshold": r["thresholds"],
             "same_on_the_other_half": r["same_on_the_other_half"],
             "by_players": {p: {"rule": b["rule"], "value": {**b["value"], "unit": "pp"},
                                "regret": {**b["regret"], "unit": "pp"}} for p, b in r["by_players"].items()},
             "decisions": where}
    if not r["printed"]:
        entry["reason"] = f"{r['regret']['n']:,} decisions, {r['regret']['ci95'][1]:.2f} pp behind the best at most"
    if use_net and finish_dec is not None and not finish_dec.empty:
        other = TH.threshold_rule(finish_dec)
        entry["at_presets_self_play"] = {
            "decisions": "the finishing study's chances (reports/finish-play-on-decisions.csv)",
            "this_rule": _rule_there(finish_dec, r["thresholds"]),
            "rule_chosen_there": other and {k: other[k] for k in ("rule", "thresholds", "value", "regret", "printed")}}
    if oracle is not None:
        f = oracle[(oracle["kind"] == "finish") & oracle["finish_key"].notna()]
        if use_net:   # the decision-level estimate on the half the rule was not chosen on
            sets = f["set"] if "set" in f else pd.Series("net", index=f.index)
            f = f[~halves((sets.astype(str) + ":" + f["game"].astype(str)).to_numpy())]
        vn = finish_versus_net(f, r["thresholds"])
        if vn:
            entry["predicted_per_decision"] = vn["predicted_per_decision"]
            entry["versus_net"] = vn["versus_net"]
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
    if (finish_dec is not None and not finish_dec.empty) or net_finishing(oracle) is not None:
        entries["finish"], cells["finish"] = finish_entry(finish_dec, oracle)
    if oracle is not None and not oracle.empty:
        for make in (K.hazard_family, K.take_family, K.mulligan_family):
            fam = make(oracle)
            entries[fam.key], cells[fam.key] = family_entry(fam)
    return [entries[k] for k in ORDER if k in entries], cells


def with_played(entry: dict, played: dict | None, also: list | None = None) -> dict:
    """The entry with its played gain, whether it agrees with the decision-level estimate, and ``also``: the rule
    played against other rules on the same deals (pp per game, paired)."""
    if played is None:
        return entry
    entry = dict(entry)
    if also:
        entry["played_alternatives"] = also
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
