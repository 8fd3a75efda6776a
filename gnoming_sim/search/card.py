"""What the printed card says at a position, by the card player's own lookup, and where a difference from it
comes from (``analyse --follow-card``).

The card (``card``, :data:`gnoming_sim.kernel.policy.dispatch.KIND_CARD`) decides a draw source and a
placement by a cell of its tables (:mod:`gnoming_sim.kernel.policy.card`).  :func:`card_view`
enters the position on a kernel table seated by the card strategy itself and asks the card module's
functions, the very ones the card player runs: which cell the decision falls in
(:func:`~gnoming_sim.kernel.policy.card.pile_cell`, :func:`~gnoming_sim.kernel.policy.card.finish_cell_at`,
:func:`~gnoming_sim.kernel.policy.card.place_candidates`), the cell's action
(:func:`~gnoming_sim.kernel.policy.card.cell_action`: the measured action, or the card's default, which the
card prints pale where nothing was measured) and the answer the card player gives
(:func:`~gnoming_sim.kernel.policy.card.draw_source`,
:func:`~gnoming_sim.kernel.policy.card.placement`).  No cell logic lives here; the cell's words are
the committed card's own (``card_cells.json``'s tables).

:func:`compare` sets that answer beside an analysis's verdict: the card agrees when its answer is the
best option, equal to it in every rollout, or not separated from it (the difference's 95% interval
holds 0).

The oracle (:mod:`gnoming_sim.search.evaluator`) values a decision's options with its base player playing on at
every seat; the card was derived for a player who goes on playing the card.  ``--follow-card`` values the options
again, on the same rollout seeds, with the ``card`` player in the seat to move and the base player at the others
(:func:`follow_base`), and :func:`judge` sets the card's answer beside that ranking: still separated behind the
best, the difference comes from **this position**; the best, or not separated from it, from **the play that
follows** (the answer suits the card's own later play).  The advice stays the oracle's: this explains a
difference, never a second verdict.
"""
from __future__ import annotations

import json

import numpy as np

from gnoming_sim.game.cards import HAZARD, MULLIGAN, card_name
from gnoming_sim.game.deck import PUBLISHED, Deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.position import Position

CARD = "card"   # the strategy that plays the printed card


def _cell_words(tables: dict, table: str, cell: int, row=lambda name: name) -> str:
    """The committed card's name of ``cell`` (its table's row and column words), as the card prints them;
    ``row`` turns the printed row of a card class into the words said (:func:`_row_words`)."""
    for c in tables.get(table, {}).get("cells", []):
        if c["cell"] == cell:
            if table == "finish":
                return f"gap {c['gap']}, rivals {c['rivals_fd']} face down, {c['players']} players"
            if table == "place":
                drawn = "kept from a pile" if c["drawn"] == "from a pile" else "drawn blind"
                return f"{row(c['card'])} {drawn}, best use: {c['use']}"
            band = f", {c['own_fd']} own cards face down" if "own_fd" in c else ""
            return f"pile card {row(c['card'])}, best use: {c['use']}{band}"
    return _fallback_words(table, cell, row)


def _fallback_words(table: str, cell: int, row=lambda name: name) -> str:
    """A cell the committed card never saw (its default printed on the card): its row and column from the card's
    names."""
    from gnoming_sim.kernel.policy import card as C

    rest = cell - C.CELL_OFFSET[C.TABLE_NAMES.index(table)]
    if table == "finish":
        g, r = divmod(rest, C.N_OFD * C.N_SIZE)
        f, s = divmod(r, C.N_SIZE)
        return f"gap {C.GAP_NAMES[g]}, rivals {C.OFD_NAMES[f]} face down, {C.SIZE_NAMES[s]} players"
    if table == "place":
        blind, r = divmod(rest, C.N_CLASS * C.N_USE)
        k, u = divmod(r, C.N_USE)
        return (f"{row(C.CLASS_NAMES[k])} {'drawn blind' if blind else 'kept from a pile'}, best use: "
                f"{C.USE_NAMES[u]}")
    if cell >= C.SOURCE_FD_OFFSET:
        parent, band = divmod(cell - C.SOURCE_FD_OFFSET, C.N_FD_BAND)
        k, u = divmod(parent, C.N_USE)
        return (f"pile card {row(C.CLASS_NAMES[k])}, best use: {C.USE_NAMES[u]}, {C.FD_BAND_NAMES[band]} own "
                "cards face down")
    k, u = divmod(rest, C.N_USE)
    return f"pile card {row(C.CLASS_NAMES[k])}, best use: {C.USE_NAMES[u]}"


def _class_values(deck: Deck, cls: int) -> list[int]:
    """The number cards of ``deck`` in the card's card class ``cls`` (:func:`~gnoming_sim.kernel.policy.card.
    card_class`), lowest first."""
    from gnoming_sim.kernel.policy import card as C

    of = getattr(C.card_class, "py_func", C.card_class)
    return [int(c) for c, _ in deck.counts if c not in (HAZARD, MULLIGAN) and of(c) == cls]


def _row_words(deck: Deck, card: int):
    """The words for the printed row of ``card`` (a card code of ``deck``): the printed name where ``deck``'s
    cards of that class are the published deck's (the names were made for it), else the card itself with the
    row it falls in and the cards of ``deck`` that row holds (a 20 of a house deck is in the row printed
    "7-8", and is no 7 or 8)."""
    from gnoming_sim.kernel.policy import card as C

    cls = int(getattr(C.card_class, "py_func", C.card_class)(card))
    mine = _class_values(deck, cls)
    if card in (HAZARD, MULLIGAN) or mine == _class_values(PUBLISHED, cls):
        return lambda name: name
    held = ", ".join(card_name(v) for v in mine)
    return lambda name: f"{card_name(card)} (the card's row {name}, which in this deck holds {held})"


_ARRAYS: dict = {}


def _entered(pos: Position, strategy=CARD):
    """``pos``'s decision entered on a kernel table seated by ``strategy`` (a name or a Strategy of the card's
    kind): (a writable copy of its parameter vector, obs, memo, legal)."""
    from gnoming_sim.kernel.engine import strategy_arrays
    from gnoming_sim.kernel.game_loop import step_once
    from gnoming_sim.kernel.policy import registry
    from gnoming_sim.kernel.policy.dispatch import new_memo
    from gnoming_sim.kernel.state import new_table
    from gnoming_sim.kernel.step import legal_actions
    from gnoming_sim.search.start import enter, start_of_position

    st = registry.get(strategy)
    if _ARRAYS.get("of") is not st:           # one strategy's arrays, built once (a card asked at many positions)
        _ARRAYS.update({"of": st, "arrays": strategy_arrays([st])})
    kinds, params = _ARRAYS["arrays"]
    start = start_of_position(pos)
    rules = pos.rules.to_array()
    t = new_table(pos.players, pos.deck.size, kinds, params, np.zeros(pos.players, dtype=np.int16),
                  np.zeros((0, 4), dtype=np.int32), new_memo())
    enter(t, rules, start, start.unseen.copy(), False)   # the hidden cards are never looked at: the card sees obs
    if pos.decision == "place":
        step_once(t, rules, pos.source)
    legal_actions(t, rules)
    return params[0].copy(), t.obs, t.memo, t.legal


def _pile_cell(prm, obs, legal, k: int) -> int:
    """The cell that decides discard pile k's top (its banded take cell where that is set, else its take-table
    cell, :func:`~gnoming_sim.kernel.policy.card.acting_source_cell`), or -1 where it cannot be taken."""
    from gnoming_sim.kernel.policy import card as C
    from gnoming_sim.kernel.policy.dispatch import C_W0

    cell = int(C.pile_cell(obs, legal, np.int64(k)))
    return cell if cell < 0 else int(C.acting_source_cell(prm, np.int64(C_W0), obs, np.int64(cell)))


def _decision_cells(pos: Position, prm, obs, memo, legal) -> tuple[str, list[int]]:
    """(table, cells) of the card at ``pos``'s decision: the take table's cell of each pile that can be taken
    (distinct), or the finish table's cell when covering the last face-down card would finish, else the place
    table's; no cells where the card has none."""
    from gnoming_sim.kernel.policy import card as C
    from gnoming_sim.kernel.policy import heuristic as H

    if pos.decision == "draw":
        cells: list[int] = []
        for k in range(2):
            cell = _pile_cell(prm, obs, legal, k)
            if cell >= 0 and cell not in cells:
                cells.append(cell)
        return "source", cells
    if pos.decision != "place":
        return "", []
    card = np.int64(pos.hand)
    q_fin = int(C.finish_slot(obs))
    if q_fin >= 0 and legal[q_fin]:
        return "finish", [int(C.finish_cell_at(obs, np.int64(q_fin), card))]
    H.prepare_me(prm, obs, memo, True)
    return "place", [int(C.place_candidates(prm, obs, memo, card, legal)[0])]


def _cell_cards(pos: Position, table: str, cells: list[int], prm, obs, legal) -> dict[int, int]:
    """The card each cell of the decision is about: {cell: card code} (the pile's top card in the take table,
    the card in hand in the place table; none in the finish table)."""
    if table == "place":
        return {cells[0]: int(pos.hand)}
    if table != "source":
        return {}
    out = {}
    for k in range(2):
        cell = _pile_cell(prm, obs, legal, k)
        if cell in cells and cell not in out and pos.piles[k]:
            out[cell] = int(pos.piles[k][-1])
    return out


def _choice(pos: Position, prm, obs, memo, legal) -> tuple[int, int]:
    """(source, position) the card player with parameters ``prm`` answers at ``pos``'s decision."""
    from gnoming_sim.kernel.policy import card as C
    from gnoming_sim.kernel.policy.dispatch import C_W0

    c0, on = np.int64(C_W0), np.bool_(True)
    if pos.decision == "draw":
        return int(C.draw_source(prm, c0, obs, memo, legal, on)), -1
    return int(pos.source), int(C.placement(prm, c0, obs, memo, np.int64(pos.hand), legal, on))


def option_key(pos: Position, choice: tuple[int, int]) -> str:
    """The option key (:func:`gnoming_sim.search.options.legal_options`) of a card answer (source, position)."""
    from gnoming_sim.search.options import legal_options

    src, q = choice
    return next(o.key for o in legal_options(pos) if (o.src, o.pos) == (src, q) or (q < 0 and o.src == src))


def card_view(pos: Position) -> dict | None:
    """The card's cell and answer at ``pos``'s decision: ``{"table", "cells": [{"cell", "words", "action",
    "printed"}], "choice": (src, pos)}`` (``printed``: a measured action; else the card's default rule answers,
    printed pale on the card), or None where the card has no cell for the decision (a hazard
    flip, a bounce, a draw with no pile card that can be taken)."""
    from gnoming_sim.kernel.policy import card as C
    from gnoming_sim.kernel.policy import registry
    from gnoming_sim.kernel.policy.dispatch import C_W0

    if pos.decision not in ("draw", "place"):
        return None
    prm, obs, memo, legal = _entered(pos)
    table, found = _decision_cells(pos, prm, obs, memo, legal)
    if not found:
        return None
    c0, on = np.int64(C_W0), np.bool_(True)
    tables = json.loads(registry.CARD_CELLS.read_text()).get("tables", {})
    cards = _cell_cards(pos, table, found, prm, obs, legal)
    cells = [{"cell": cell, "words": _cell_words(tables, table, cell, _row_words(pos.deck, cards[cell])
                                                 if cell in cards else (lambda name: name)),
              "action": C.ACTION_NAMES[C.TABLE_NAMES.index(table)][int(C.cell_action(prm, c0, np.int64(cell), on)) - 1],
              "printed": bool(prm[C_W0 + cell] != 0)} for cell in found]
    return {"table": table, "cells": cells, "choice": _choice(pos, prm, obs, memo, legal)}


def _direct(table: str, a: int, key: str, k_pile: str, q_fin: str, q_use: str, q_fd: str) -> bool:
    """Whether the answer ``key`` that the card gives with its cell set to action ``a`` is that action itself
    (not the card's fallback where the action cannot be played)."""
    from gnoming_sim.kernel.policy import card as C

    if table == "source":
        return (key == k_pile) == (a == C.A_TAKE)
    if table == "finish":
        return (key == q_fin) == (a == C.A_FINISH)
    return key == {C.A_USE: q_use, C.A_FACEDOWN: q_fd, C.A_THROW: "discard"}[a]


def card_options(pos: Position, strategy=CARD) -> list[dict]:
    """What the card ``strategy`` (a name or a Strategy of the card's kind, such as
    :func:`gnoming_sim.tune.card.iterate.card_strategy`'s) would play at ``pos``'s decision with each of its
    cells there set to each of the cell's actions, the other cells as they are: one ``{"table", "cell",
    "current", "actions": {action name: option key}, "direct": [action names played as themselves]}`` per cell
    of the decision (and ``"pile"``, the pile's option key, in the take table) (a draw with two takeable piles of different cells has two; none where the card has no
    cell: a hazard flip, a bounce, a draw with no pile card that can be taken).  An action that cannot be played
    here (no face-down slot left, say) maps to the card's fallback answer and is not in ``direct``."""
    from gnoming_sim.kernel.policy import card as C
    from gnoming_sim.kernel.policy import heuristic as H
    from gnoming_sim.kernel.policy.dispatch import C_W0

    if pos.decision not in ("draw", "place"):
        return []
    prm, obs, memo, legal = _entered(pos, strategy)
    table, found = _decision_cells(pos, prm, obs, memo, legal)
    if not found:
        return []
    ti = C.TABLE_NAMES.index(table)
    names = C.ACTION_NAMES[ti]
    c0, on = np.int64(C_W0), np.bool_(True)
    q_fin = q_use = q_fd = ""
    if table == "finish":
        q_fin = f"pos{int(C.finish_slot(obs))}"
    elif table == "place":
        H.prepare_me(prm, obs, memo, True)
        _, u, f, _ = C.place_candidates(prm, obs, memo, np.int64(pos.hand), legal)
        q_use, q_fd = (f"pos{int(u)}" if u >= 0 else "-"), (f"pos{int(f)}" if f >= 0 else "-")
    out = []
    for cell in found:
        k_pile = ""
        if table == "source":
            k_pile = next(f"pile{k}" for k in range(2) if _pile_cell(prm, obs, legal, k) == cell)
        current = int(C.cell_action(prm, c0, np.int64(cell), on))
        actions, direct = {}, []
        for a in range(1, len(names) + 1):
            p = prm.copy()
            p[C_W0 + cell] = a
            key = option_key(pos, _choice(pos, p, obs, memo, legal))
            actions[names[a - 1]] = key
            if _direct(table, a, key, k_pile, q_fin, q_use, q_fd):
                direct.append(names[a - 1])
        out.append({"table": table, "cell": cell, "current": names[current - 1], "actions": actions,
                    "direct": direct, **({"pile": k_pile} if k_pile else {})})
    return out


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
    default = "; not measured: the default rule the card prints"
    where = f" (cell: {cell['words']}{'' if cell['printed'] else default})" \
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


FROM_POSITION = "this position"
FROM_PLAY = "the play that follows"


def follow_base(policies) -> str:
    """The one base player of the follow-card rollouts (``policies``: one name, or one per seat all alike), which
    :func:`gnoming_sim.search.evaluator.seats_with` seats beside the card in the seat to move."""
    names = [getattr(p, "name", p) for p in ([policies] if isinstance(policies, str) else policies)]
    if len(set(names)) != 1:
        raise GnomingError("--follow-card puts the card in the seat to move and one base policy at the others: "
                           "give --policy one name")
    return names[0]


def judge(view: dict, res: dict, follow: dict, options, me: int) -> dict:
    """The ``follow_card`` object of ``analyse --json``: the card's answer beside ``follow`` (the analysis with
    the card playing on in the seat to move, :func:`compare`'s dict as ``card``),
    and ``source``: where the difference from the oracle's verdict (``res``) comes from, :data:`FROM_POSITION`
    or :data:`FROM_PLAY`; None where the card agrees with the oracle (no difference to explain); ``me``: the
    seat to move."""
    here, after = compare(view, res, options), compare(view, follow, options)
    source = None if here["agrees"] else FROM_PLAY if after["agrees"] else FROM_POSITION
    return {"me": me, "policies": follow["policies"], "n": follow["n"], "horizon": follow["horizon"],
            "adaptive": follow.get("adaptive"), "best": follow["best"], "card": after, "source": source}


def follow_line(follow: dict) -> str:
    """One plain line: the card's answer with the card playing on, and where the difference comes from."""
    c, me = follow["card"], follow["me"]
    others = sorted({p for s, p in enumerate(follow["policies"]) if s != me})
    head = (f"follow-card: with the card playing on in your seat (seat {me}; {', '.join(others) or 'no one'} at the "
            f"others; n = {follow['n']:,} rollouts per option, the same seeds): ")
    lo, hi = c["diff_ci95"]
    unit = "points of margin" if c.get("diff_on") == "margin" else c["unit"]
    if c["option"] == c["best"] or (c["agrees"] and c["diff"] == 0.0):
        said = f"the card's answer, {c['option_label']}, is the best option"
    elif c["agrees"]:
        said = (f"the card's answer, {c['option_label']}, is not separated from the best, {c['best_label']} "
                f"({c['diff']:+.2f} [{lo:.2f}, {hi:.2f}] {unit})")
    else:
        said = (f"{c['best_label']} is still {c['diff']:+.2f} [{lo:.2f}, {hi:.2f}] {unit} better than the card's "
                f"answer, {c['option_label']}")
    if follow["source"] is None:
        tail = "; the card agrees with the oracle here: no difference to explain"
    elif follow["source"] == FROM_POSITION:
        tail = "; so the difference from the card comes from this position, not from the play that follows"
    else:
        tail = (f"; so the difference from the card comes from the play that follows (the card's answer suits the "
                f"card's own later play), not from this position")
    return head + said + tail


__all__ = ["card_view", "card_options", "option_key", "compare", "card_line", "CARD", "follow_base", "judge",
           "follow_line", "FROM_POSITION", "FROM_PLAY"]
