"""What the printed card says at a position, by the card player's own lookup (issue 50 item 4).

The card (``card``, :data:`gnoming_sim.kernel.policy.dispatch.KIND_CARD`) decides a draw source and a
placement by a cell of the guide's tables (:mod:`gnoming_sim.kernel.policy.chart`).  :func:`card_view`
enters the position on a kernel table seated by the card strategy itself and asks the chart module's
functions, the very ones the card player runs: which cell the decision falls in
(:func:`~gnoming_sim.kernel.policy.chart.pile_cell`, :func:`~gnoming_sim.kernel.policy.chart.finish_cell_at`,
:func:`~gnoming_sim.kernel.policy.chart.place_candidates`), the cell's action
(:func:`~gnoming_sim.kernel.policy.chart.cell_action`: the printed action, or the card's default where it
shows ``?``) and the answer the card player gives (:func:`~gnoming_sim.kernel.policy.chart.draw_source`,
:func:`~gnoming_sim.kernel.policy.chart.placement`).  No cell logic lives here; the cell's words are
the committed card's own (``chart_cells.json``'s tables).

:func:`compare` sets that answer beside an analysis's verdict: the card agrees when its answer is the
best option, equal to it in every rollout, or not separated from it (the difference's 95% interval
holds 0).
"""
from __future__ import annotations

import json

import numpy as np

from gnoming_sim.game.position import Position

CARD = "card"   # the strategy that plays the printed card


def _cell_words(tables: dict, table: str, cell: int) -> str:
    """The committed card's name of ``cell`` (its table's row and column words), as the card prints them."""
    for c in tables.get(table, {}).get("cells", []):
        if c["cell"] == cell:
            if table == "finish":
                return f"gap {c['gap']}, rivals {c['rivals_fd']} face down, {c['players']} players"
            if table == "place":
                drawn = "kept from a pile" if c["drawn"] == "from a pile" else "drawn blind"
                return f"{c['card']} {drawn}, best use: {c['use']}"
            return f"pile card {c['card']}, best use: {c['use']}"
    return _fallback_words(table, cell)


def _fallback_words(table: str, cell: int) -> str:
    """A cell the committed card never saw (blank on the card): its row and column from the chart's names."""
    from gnoming_sim.kernel.policy import chart as C

    rest = cell - C.CELL_OFFSET[C.TABLE_NAMES.index(table)]
    if table == "finish":
        g, r = divmod(rest, C.N_OFD * C.N_SIZE)
        f, s = divmod(r, C.N_SIZE)
        return f"gap {C.GAP_NAMES[g]}, rivals {C.OFD_NAMES[f]} face down, {C.SIZE_NAMES[s]} players"
    if table == "place":
        blind, r = divmod(rest, C.N_CLASS * C.N_USE)
        k, u = divmod(r, C.N_USE)
        return f"{C.CLASS_NAMES[k]} {'drawn blind' if blind else 'kept from a pile'}, best use: {C.USE_NAMES[u]}"
    k, u = divmod(rest, C.N_USE)
    return f"pile card {C.CLASS_NAMES[k]}, best use: {C.USE_NAMES[u]}"


def card_view(pos: Position) -> dict | None:
    """The card's cell and answer at ``pos``'s decision: ``{"table", "cells": [{"cell", "words", "action",
    "printed"}], "choice": (src, pos)}`` (``printed``: the card shows the action; else it shows ``?`` or
    nothing and its default rule answers), or None where the card has no cell for the decision (a hazard
    flip, a bounce, a draw with no pile card that can be taken)."""
    from gnoming_sim.kernel.engine import strategy_arrays
    from gnoming_sim.kernel.game_loop import step_once
    from gnoming_sim.kernel.policy import chart as C
    from gnoming_sim.kernel.policy import heuristic as H
    from gnoming_sim.kernel.policy import registry
    from gnoming_sim.kernel.policy.dispatch import C_W0, new_memo
    from gnoming_sim.kernel.state import new_table
    from gnoming_sim.kernel.step import legal_actions
    from gnoming_sim.search.start import enter, start_of_position

    if pos.decision not in ("draw", "place"):
        return None
    kinds, params = strategy_arrays([registry.get(CARD)])
    start = start_of_position(pos)
    rules = pos.rules.to_array()
    t = new_table(pos.players, pos.deck.size, kinds, params, np.zeros(pos.players, dtype=np.int16),
                  np.zeros((0, 4), dtype=np.int32), new_memo())
    enter(t, rules, start, start.unseen.copy(), False)   # the hidden cards are never looked at: the card sees obs
    if pos.decision == "place":
        step_once(t, rules, pos.source)
    legal_actions(t, rules)
    prm, obs, memo, legal = params[0], t.obs, t.memo, t.legal
    c0, on = np.int64(C_W0), np.bool_(True)
    tables = json.loads(registry.CHART_CELLS.read_text()).get("tables", {})
    cells = []

    def add(table: str, cell: int) -> None:
        a = int(C.cell_action(prm, c0, np.int64(cell), on))
        cells.append({"cell": int(cell), "words": _cell_words(tables, table, int(cell)),
                      "action": C.ACTION_NAMES[C.TABLE_NAMES.index(table)][a - 1],
                      "printed": bool(prm[C_W0 + cell] != 0)})

    if pos.decision == "draw":
        table = "source"
        for k in range(2):
            cell = int(C.pile_cell(obs, legal, np.int64(k)))
            if cell >= 0 and all(c["cell"] != cell for c in cells):
                add(table, cell)
        if not cells:
            return None
        src = int(C.draw_source(prm, c0, obs, memo, legal, on))
        return {"table": table, "cells": cells, "choice": (src, -1)}
    card = np.int64(pos.hand)
    q_fin = int(C.finish_slot(obs))
    if q_fin >= 0 and legal[q_fin]:
        table = "finish"
        add(table, int(C.finish_cell_at(obs, np.int64(q_fin), card)))
    else:
        table = "place"
        H.prepare_me(prm, obs, memo, True)
        add(table, int(C.place_candidates(prm, obs, memo, card, legal)[0]))
    q = int(C.placement(prm, c0, obs, memo, card, legal, on))
    return {"table": table, "cells": cells, "choice": (int(pos.source), q)}


def compare(view: dict, res: dict, options) -> dict:
    """The card's answer beside an analysis ``res`` of the same position (``options``: its legal options,
    :func:`gnoming_sim.search.options.legal_options`): the ``card`` object of ``analyse --json``."""
    src, q = view["choice"]
    key = next(o.key for o in options if (o.src, o.pos) == (src, q) or (q < 0 and o.src == src))
    rows = {r["key"]: r for r in res["options"]}
    mine, best = rows[key], next(r for r in res["options"] if r["best"])
    out = {"table": view["table"], "cells": view["cells"], "option": key, "option_label": mine["option"],
           "best": best["key"], "best_label": best["option"], "unit": res["unit"]}
    if mine["best"] or mine.get("same_as_best") or "diff_ci95" not in mine:
        out.update(agrees=True, diff=0.0, diff_ci95=[0.0, 0.0], separated=False)
        return out
    lo, hi = mine["diff_ci95"]
    separated = bool(lo > 0 or hi < 0)
    out.update(agrees=not separated, diff=float(mine["diff"]), diff_ci95=[float(lo), float(hi)],
               separated=separated, diff_on=mine.get("diff_on"))
    return out


def card_line(card: dict) -> str:
    """One plain line: what the card says here and whether the analysis agrees (with the difference)."""
    cell = card["cells"][0] if len(card["cells"]) == 1 else None
    says = cell["action"] if cell else "; ".join(f"{c['action']} ({c['words']})" for c in card["cells"])
    where = f" (cell: {cell['words']}{'' if cell['printed'] else '; the card shows ?, its default rule'})" \
        if cell else ""
    head = f"the card says {says} here{where}, which is {card['option_label']}"
    lo, hi = card["diff_ci95"]
    if card["agrees"]:
        if card["option"] == card["best"] or card["diff"] == 0.0:
            return f"card: {head}: the card agrees (it is the best option)"
        return (f"card: {head}: the card agrees ({card['best_label']} leads it by {card['diff']:.2f} "
                f"[{lo:.2f}, {hi:.2f}] {card['unit']}, not separated)")
    unit = "points of margin" if card.get("diff_on") == "margin" else card["unit"]
    return (f"card: {head}; in this position {card['best_label']} is {card['diff']:+.2f} [{lo:.2f}, {hi:.2f}] "
            f"{unit} better")


__all__ = ["card_view", "compare", "card_line", "CARD"]
