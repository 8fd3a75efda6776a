"""The rule families of the decisions in the oracle-valued decision set (analyses/data/oracle/decisions.parquet).

Each family is a list of rules a person can follow, each expressible as card cells (so it can be played:
:func:`gnoming_sim.experiments.rule_play.play_rule`), and a richer family it is held against (the best
action chosen per table size and a feature the simple rules ignore).  At every decision a rule picks an
option the way the played seat does (:func:`gnoming_sim.kernel.policy.chart.cells_source` and
``cells_placement``): net's own choice where it belongs to the rule's action, else the card's option for that
action; its value there is the oracle's win chance of that option (pp).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from gnoming_sim.game.cards import HIDDEN

from gnoming_sim.kernel.policy import chart as C

USES = C.USE_NAMES           # best first
CLASSES = C.CLASS_NAMES

@dataclass
class Family:
    """One decision's rules: ``rules[j]`` (name, words, cells) and ``value[i, j]`` the oracle's win chance (%)
    of rule j's option at decision i; ``rich`` the richer family's columns with its groups; ``fixed``: the
    obvious alternatives' values per decision; ``net``: net's own choice's value."""

    key: str
    decision: str
    frame: pd.DataFrame
    rules: list
    value: np.ndarray
    rich: np.ndarray
    rich_groups: np.ndarray
    rich_family: str
    fixed: dict = field(default_factory=dict)
    net: np.ndarray | None = None
    versus: str = ""
    changed: np.ndarray | None = None     # [i, j]: rule j's option differs from net's own
    versus_for: dict = field(default_factory=dict)   # rule name -> its obvious alternative, where not ``versus``

def option_value(frame: pd.DataFrame, keys) -> np.ndarray:
    """The oracle's win chance (%) of option ``keys[i]`` at decision i (nan where there is none)."""
    out = np.full(len(frame), np.nan)
    for i, (ks, ms, k) in enumerate(zip(frame["keys"], frame["mean"], keys)):
        ks = list(ks)
        if isinstance(k, str) and k in ks:
            out[i] = float(ms[ks.index(k)])
    return out

def _layout(pid: str) -> np.ndarray:
    from gnoming_sim.search.position_id import decode

    p = decode(pid)
    return np.asarray(p.layouts[p.me])

def card_keys(frame: pd.DataFrame) -> list[str]:
    """The committed card's answer at every decision (:func:`gnoming_sim.search.card_view.card_view` at the position
    rebuilt from its ID): the card this checkout plays, not the one the set was made with."""
    from gnoming_sim.experiments.oracle_decisions import key_of_place, key_of_source
    from gnoming_sim.search.card_view import card_view
    from gnoming_sim.search.position_id import decode

    out = []
    for pid in frame["position_id"]:
        pos = decode(pid)
        view = card_view(pos)
        if view is None:
            out.append("")
            continue
        src, q = view["choice"]
        out.append(key_of_place(q) if pos.decision == "place" else key_of_source(src))
    return out


def net_action(frame: pd.DataFrame) -> np.ndarray:
    """What net's own choice at a placement was: "throw", "face-down" (a face-down position) or "use" (face up)."""
    out = []
    for pid, k in zip(frame["position_id"], frame["net_key"]):
        if k == "discard":
            out.append("throw")
        else:
            out.append("face-down" if _layout(pid)[int(k[3:])] == HIDDEN else "use")
    return np.array(out, dtype=object)

def _pick(frame, net_act, action_of_row) -> list[str]:
    """The played seat's option per decision: net's where it belongs to the rule's action, else the card's."""
    out = []
    for (i, r), na in zip(frame.iterrows(), net_act):
        a = action_of_row(r)
        if a == na:
            out.append(r["net_key"])
            continue
        key = {"face-down": r["fd_key"], "throw": r["throw_key"], "use": r["use_key"]}[a]
        if not isinstance(key, str) or not key:   # the action cannot be played here: the card's fallback order
            key = next((k for k in (r["use_key"], r["fd_key"], r["throw_key"]) if isinstance(k, str) and k),
                       r["net_key"])
        out.append(key)
    return out

def _build(key, decision, frame, rules, picks, rich_cols, rich_groups, rich_family, fixed, versus,
           versus_for=None) -> Family:
    value = np.column_stack([option_value(frame, p) for p in picks])
    net = option_value(frame, list(frame["net_key"]))
    changed = np.column_stack([np.array(p, dtype=object) != frame["net_key"].to_numpy() for p in picks])
    rich = np.column_stack([option_value(frame, p) for p in rich_cols])
    return Family(key, decision, frame, rules, value, rich, rich_groups, rich_family,
                  {k: option_value(frame, v) for k, v in fixed.items()}, net, versus, changed, versus_for or {})

# ---------------------------------------------------------------- a hazard drawn blind
def hazard_family(frame: pd.DataFrame) -> Family:
    """Keep a blind-drawn hazard face down, or throw it away; richer: per table size and own face-down cards."""
    f = frame[frame["kind"] == "hazard"].reset_index(drop=True)
    na = net_action(f)
    down = _pick(f, na, lambda r: "face-down")
    throw = _pick(f, na, lambda r: "throw")
    hazard = [C.place_cell_of(b, C.CC_HAZARD, u) for b in (0, 1) for u in range(C.N_USE)]
    rules = [{"name": "keep it face down", "words": "keep a hazard you draw blind, on a face-down card",
              "cells": {c: C.A_FACEDOWN for c in hazard}},
             {"name": "throw it away", "words": "throw away a hazard you draw blind",
              "cells": {c: C.A_THROW for c in hazard}}]
    groups = np.array([f"{p}|{min(int(d), 6)}" for p, d in zip(f["players"], f["own_fd"])], dtype=object)
    return _build("hazard", "a hazard drawn blind: keep it or throw it away", f, rules, [down, throw],
                  [down, throw], groups, "keep or throw, chosen by table size and by your own face-down cards",
                  {"always keeping it face down": down, "always throwing it away": throw,
                   "the committed card": card_keys(f)}, "always throwing it away",
                  {"throw it away": "always keeping it face down"})

# ---------------------------------------------------------------- where a mulligan goes
MULLIGAN_USES = (("completes a line",), ("completes a line", "pairs in a line"))

def mulligan_family(frame: pd.DataFrame) -> Family:
    """A mulligan in hand: on its best use in a line when that use is in a set, else on a face-down card."""
    f = frame[frame["kind"] == "mulligan"].reset_index(drop=True)
    na = net_action(f)
    use = f["hand_use"].fillna("").to_numpy()
    picks, rules = [], []
    sets = [(), *MULLIGAN_USES, tuple(USES[:5])]
    words = ["on a face-down card", "where it completes a line, else on a face-down card",
             "where it completes a line or makes a pair, else on a face-down card",
             "on its best use in a line (completes, pairs or lowers a card), else on a face-down card"]
    for s, w in zip(sets, words):
        picks.append(_pick(f, na, lambda r, s=s: "use" if r["hand_use"] in s else "face-down"))
        cells = {C.place_cell_of(b, C.CC_MULLIGAN, u): (C.A_USE if USES[u] in s else C.A_FACEDOWN)
                 for b in (0, 1) for u in range(C.N_USE)}
        rules.append({"name": f"a mulligan {w}", "words": f"put a mulligan {w}", "cells": cells})
    rich_cols = [_pick(f, na, lambda r: "use"), _pick(f, na, lambda r: "face-down")]
    groups = np.array([f"{p}|{u}|{min(int(d), 5)}" for p, u, d in zip(f["players"], use, f["own_fd"])], dtype=object)
    return _build("mulligan", "where a mulligan goes", f, rules, picks, rich_cols, groups,
                  "best use or face down, chosen by table size, the mulligan's best use and your face-down cards",
                  {"always putting it on a face-down card": picks[0],
                   "always putting it to its best use": picks[-1], "the committed card": card_keys(f)},
                  "always putting it on a face-down card",
                  {rules[0]["name"]: "always putting it to its best use"})

# ---------------------------------------------------------------- take or draw
def pile_card_cost(card) -> int:
    """Points a pile card scores unmatched under the default rules (the game's card_cost)."""
    from gnoming_sim.game.cards import card_cost
    from gnoming_sim.game.rules import RuleConfig

    return int(card_cost(int(card), RuleConfig()))

def take_choice(row, takes) -> str:
    """The played seat's draw source (:func:`gnoming_sim.kernel.policy.chart.cells_source`) when ``takes(class,
    use)`` says whether a pile's cell says take: net's choice when it takes a pile that says take, else the
    chart's pile among those that say take (better use, then cheaper card), else draw blind."""
    best, rank, own = "", 1 << 30, None
    for k in (0, 1):
        cls, use = row[f"pile{k}_class"], row[f"pile{k}_use"]
        if not isinstance(cls, str) or not cls:
            continue
        t = takes(cls, use)
        if row["net_key"] == f"pile{k}":
            own = t
        if t:
            r = USES.index(use) * 256 + pile_card_cost(row[f"pile{k}_card"]) + 128
            if r < rank:
                best, rank = f"pile{k}", r
    if own:
        return row["net_key"]
    return best or "draw"

VALUE_CLASSES = ((), ("negative",), ("negative", "3-4"), ("negative", "3-4", "5-6"))
USE_TOPS = (0, 1, 2, 3, 4, 5)      # take when its best use is at least USES[x] ... (x = -1: never by use)

def take_rule(value_classes, use_top) -> tuple[str, str]:
    parts = []
    if use_top >= 0:
        if use_top == 0:
            parts.append("it completes a line")
        elif use_top == 1:
            parts.append("it completes a line or makes a pair")
        elif use_top < 5:
            d = {2: 6, 3: 3, 4: 1}[use_top]
            parts.append(f"it completes a line, makes a pair or lowers a face-up card by {d} or more")
        else:
            parts.append("it has any use but none (a face-down card too)")
    if value_classes:
        top = {"negative": "negative", "3-4": "4 or less", "5-6": "6 or less"}[value_classes[-1]]
        parts.append(f"it is {top}")
    if not parts:
        return "always draw", "always draw blind"
    return " or ".join(parts), "take the pile's card when " + ", or when ".join(parts) + "; else draw blind"

def take_family(frame: pd.DataFrame) -> Family:
    """Take the pile's card iff its best use is at least X or its value is at most v (class), else draw."""
    f = frame[frame["kind"] == "take"].reset_index(drop=True)
    picks, rules = [], []
    for vc in VALUE_CLASSES:
        for ut in (-1, *USE_TOPS):
            def takes(cls, use, vc=vc, ut=ut):
                return cls in vc or (ut >= 0 and USES.index(use) <= ut)
            name, words = take_rule(vc, ut)
            picks.append([take_choice(r, takes) for _, r in f.iterrows()])
            cells = {C.source_cell_of(k, u): (C.A_TAKE if takes(CLASSES[k], USES[u]) else C.A_DRAW)
                     for k in range(C.N_CLASS) for u in range(C.N_USE)}
            rules.append({"name": name, "words": words, "cells": cells})
    # richer: per table size and the top pile's (class, best use): take it or draw
    top = []
    for _, r in f.iterrows():
        cand = [(USES.index(r[f"pile{k}_use"]) * 256 + pile_card_cost(r[f"pile{k}_card"]), k) for k in (0, 1)
                if isinstance(r[f"pile{k}_class"], str) and r[f"pile{k}_class"]]
        top.append(min(cand)[1] if cand else -1)
    take_top = [f"pile{k}" if k >= 0 else "draw" for k in top]
    groups = np.array([f"{p}|{r[f'pile{k}_class']}|{r[f'pile{k}_use']}" if k >= 0 else f"{p}|none"
                       for p, k, (_, r) in zip(f["players"], top, f.iterrows())], dtype=object)
    return _build("take", "take the pile's card or draw blind", f, rules, picks, [["draw"] * len(f), take_top],
                  groups, "take or draw, chosen by table size and the pile card's class and best use (the card's "
                  "take table)", {"always drawing blind": ["draw"] * len(f), "the committed card": card_keys(f)},
                  "always drawing blind", {"always draw": "the committed card"})
