"""Readers of action traces (format in :mod:`gnoming_sim.game.trace`) for the mulligan and hazard studies.

Two jitted scans over the traces of a batch of games:

* :func:`follow_cards` follows one tagged card of one round (a mulligan or a hazard,
  cards that never bounce) from its place in the deal to the first player who places
  it, and reports who that was, how the card came (kept from the deal, taken from a
  discard pile, drawn blind) and when (that player's face-down cards at the draw);
* :func:`mulligan_bars` counts, per round and seat, the turns in which a mulligan was on
  offer (face up on a discard pile at the start of the turn, or drawn blind) and those
  in which the mulligan limit barred it (the player already showed the limit's count of
  face-up mulligans).

Both walk the traces with the one trace walker, :func:`gnoming_sim.game.replay.apply_record`
compiled (the table of the deal, advanced record by record); the engine's records are the
truth (a record the walker cannot reconcile counts a mismatch, which tests check is 0).
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game import trace as T
from gnoming_sim.game.cards import MULLIGAN
from gnoming_sim.game.replay import N_SC, SC_DEALT, apply_record
from gnoming_sim.game.rules import mulligan_placeable
from gnoming_sim.kernel.jit import jit

# the rule and the trace walker themselves, compiled for the scans (no copy of either here)
_placeable = jit(mulligan_placeable)
_apply = jit(apply_record)

# fields of follow_cards' output rows (-1: does not apply / never happened)
FO_ACQ_SEAT = 0     # seat that first placed the card, or kept it from the deal
FO_ACQ_MODE = 1     # MODE_* below
FO_ACQ_TURN = 2     # round turn number of that draw (-1 when kept from the deal)
FO_ACQ_FD = 3       # that seat's face-down cards at the draw (-1 when kept from the deal)
FO_FIRST_SEAT = 4   # seat that first drew the card (blind or from a pile)
FO_FIRST_SRC = 5    # source of that draw: 0 draw pile, 1 / 2 discard pile 0 / 1
FO_FIRST_FD = 6     # the first drawer's face-down cards at that draw
FO_FIRST_KEPT = 7   # 1 if the first drawer placed it, 0 if not
FO_REMOVED_BY = 8   # a hazard: seat that discarded it (removed from the game)
FO_FLIPS = 9        # flips the other players took after that removal
FO_END_SEAT = 10    # seat whose layout holds the card at the end of the round
FO_FATE = 11        # FATE_* below
N_FO = 12

MODE_DEALT = 0      # kept in the layout it was dealt to (revealed there, or face down at the end)
MODE_PILE = 1       # taken from a discard pile and placed
MODE_BLIND = 2      # drawn blind and placed

FATE_LAYOUT = 0     # in a layout at the end of the round
FATE_PILE = 1       # on a discard pile at the end
FATE_DRAW = 2       # never left the draw pile
FATE_REMOVED = 3    # a hazard, discarded (or turned up at setup) and removed
FATE_LOST = 4       # reshuffled into a new draw pile: no longer told apart from its twins

_L_LAY, _L_DRAW, _L_PILE, _L_HAND, _L_CAND, _L_GONE = 0, 1, 2, 3, 4, 5


def concat_traces(traces) -> tuple[np.ndarray, np.ndarray]:
    """One int32 (records, 4) array of all traces and int64 (games + 1,) offsets into it."""
    lengths = np.array([t.shape[0] for t in traces], dtype=np.int64)
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat = np.concatenate(traces).astype(np.int32) if traces else np.zeros((0, 4), np.int32)
    return np.ascontiguousarray(flat), offsets


def follow_cards(traces, deals, players: int, rounds, positions) -> np.ndarray:
    """Follow the card at deal position ``positions[i]`` of round ``rounds[i]`` of game ``i``.

    ``traces``, ``deals`` (int8 (games, 3, N)): as :func:`gnoming_sim.kernel.engine.simulate`
    returns them with ``trace=True``; ``rounds``, ``positions``: int arrays of one entry per game.
    Returns int64 (games, N_FO), fields ``FO_*``.
    """
    flat, offsets = concat_traces(traces)
    out = np.empty((len(traces), N_FO), dtype=np.int64)
    _follow_batch(flat, offsets, np.ascontiguousarray(deals, dtype=np.int8), players, np.asarray(rounds, np.int64),
                  np.asarray(positions, np.int64), out)
    return out


def mulligan_bars(traces, deals, players: int, limit: int) -> tuple[np.ndarray, int]:
    """Per game, round and seat: (turns the limit barred a mulligan, turns a mulligan was on offer).

    ``deals``: int8 (games, 3, N) as returned beside the traces; ``limit``: the rules'
    ``mulligan_limit`` (0: no limit, nothing is ever barred).  Returns int64
    (games, 3, players, 2) and the number of records the walk could not reconcile (0).
    """
    flat, offsets = concat_traces(traces)
    out = np.zeros((len(traces), 3, players, 2), dtype=np.int64)
    bad = _bars_batch(flat, offsets, np.ascontiguousarray(deals, dtype=np.int8), players, limit, out)
    return out, int(bad)


@jit(nrt=True)   # allocates the walker's table
def _new_table(P, N):
    """The trace walker's table (:mod:`gnoming_sim.game.replay`) for P players and an N-card deck."""
    return (np.zeros((P, 9), dtype=np.int8), np.zeros((P, 9), dtype=np.int8), np.zeros(P, dtype=np.int64),
            np.zeros((2, N), dtype=np.int8), np.zeros(2, dtype=np.int64), np.zeros(N, dtype=np.int8),
            np.zeros(N_SC, dtype=np.int64))


@jit
def _step(order, tab, tr, i):
    """Apply record ``i`` of ``tr`` to the table ``tab``; 1 if it disagrees with it."""
    lay, up, fd, piles, plen, draw, sc = tab
    return _apply(order, lay, up, fd, piles, plen, draw, sc, tr[i, 0], tr[i, 1], tr[i, 2], tr[i, 3])


# ----------------------------------------------------------------- following one card
@jit(py=True, nrt=True)   # allocates the walker's table
def _follow_batch(flat, offsets, deals, P, rounds, positions, out):
    tab = _new_table(P, deals.shape[2])
    for g in range(offsets.shape[0] - 1):
        _follow_one(flat, offsets[g], offsets[g + 1], deals[g], rounds[g], positions[g], out[g], tab)


@jit
def _follow_one(tr, lo, hi, order, rnd, tag, out, tab):
    """The tagged card's way through round ``rnd``; the walker keeps the table (its face-down
    counts and the deal index of the draw pile's top), read before each record is applied."""
    fd, sc = tab[2], tab[6]
    P = fd.shape[0]
    for k in range(N_FO):
        out[k] = -1
    out[FO_FLIPS] = 0
    i = lo
    seen = -1
    while i < hi:
        if tr[i, 0] == T.ROUND:
            seen += 1
            if seen == rnd:
                break
        i += 1
    if i < hi:
        _step(order, tab, tr, i)   # the round's deal
    if tag < 9 * P:
        loc, la, lb = _L_LAY, tag // 9, tag % 9
    else:
        loc, la, lb = _L_DRAW, tag, 0
    turn = 0
    turn_fd = 0
    hand_src = -1
    flipping = False
    i += 1
    while i < hi:
        kind = tr[i, 0]
        seat = tr[i, 1]
        a = tr[i, 2]
        ptr = sc[SC_DEALT]     # the deal index of the draw pile's top card; -1 after a reshuffle
        if flipping and kind != T.HAZARD_FLIP:
            break
        if kind == T.ROUND_END:
            break
        if kind == T.SETUP_HAZARD or kind == T.SETUP_DISCARD:
            if loc == _L_DRAW and la == ptr:
                if kind == T.SETUP_HAZARD:
                    loc = _L_GONE
                    out[FO_FATE] = FATE_REMOVED
                    break
                loc, la, lb = _L_PILE, a, 0
        elif kind == T.INIT_FLIP:
            if loc == _L_LAY and la == seat and lb == a and out[FO_ACQ_SEAT] < 0:
                out[FO_ACQ_SEAT] = seat
                out[FO_ACQ_MODE] = MODE_DEALT
        elif kind == T.TURN:
            turn = a
            turn_fd = fd[seat]
        elif kind == T.RESHUFFLE:
            if loc == _L_PILE and lb > 0:
                loc = _L_GONE
                out[FO_FATE] = FATE_LOST
                break
        elif kind == T.DRAW:
            took = False
            if a == 0:
                took = loc == _L_DRAW and la == ptr
            elif loc == _L_PILE and la == a - 1:
                if lb == 0:
                    took = True
                else:
                    lb -= 1
            if took:
                loc, la = _L_HAND, seat
                hand_src = a
                if out[FO_FIRST_SEAT] < 0:
                    out[FO_FIRST_SEAT] = seat
                    out[FO_FIRST_SRC] = a
                    out[FO_FIRST_FD] = turn_fd
        elif kind == T.PLACE:
            if loc == _L_HAND and la == seat:
                loc, lb = _L_LAY, a
                if out[FO_FIRST_KEPT] < 0:
                    out[FO_FIRST_KEPT] = 1
                if out[FO_ACQ_SEAT] < 0:
                    out[FO_ACQ_SEAT] = seat
                    out[FO_ACQ_MODE] = MODE_PILE if hand_src > 0 else MODE_BLIND
                    out[FO_ACQ_TURN] = turn
                    out[FO_ACQ_FD] = turn_fd
            elif loc == _L_LAY and la == seat and lb == a:
                loc = _L_CAND
        elif kind == T.NOKEEP:
            if loc == _L_HAND and la == seat:
                loc = _L_CAND
                if out[FO_FIRST_KEPT] < 0:
                    out[FO_FIRST_KEPT] = 0
        elif kind == T.BOUNCE:
            if loc == _L_LAY and la == seat and lb == a:
                loc = _L_CAND
        elif kind == T.DISCARD:
            if loc == _L_CAND and la == seat:
                if a < 0:
                    loc = _L_GONE
                    out[FO_FATE] = FATE_REMOVED
                    out[FO_REMOVED_BY] = seat
                    flipping = True
                else:
                    loc, la, lb = _L_PILE, a, 0
            elif loc == _L_PILE and la == a:
                lb += 1
        elif kind == T.HAZARD_FLIP:
            if a >= 0:
                if flipping:
                    out[FO_FLIPS] += 1
                elif loc == _L_LAY and la == seat and lb == a and out[FO_ACQ_SEAT] < 0:
                    out[FO_ACQ_SEAT] = seat
                    out[FO_ACQ_MODE] = MODE_DEALT
        _step(order, tab, tr, i)
        i += 1
    if loc == _L_LAY:
        out[FO_END_SEAT] = la
        out[FO_FATE] = FATE_LAYOUT
        if out[FO_ACQ_SEAT] < 0:   # dealt, never revealed until the end of the round
            out[FO_ACQ_SEAT] = la
            out[FO_ACQ_MODE] = MODE_DEALT
    elif loc == _L_PILE:
        out[FO_FATE] = FATE_PILE
    elif loc == _L_DRAW:
        out[FO_FATE] = FATE_DRAW


# ----------------------------------------------------------------- the mulligan limit
@jit(py=True, nrt=True)   # allocates the walker's table
def _bars_batch(flat, offsets, deals, P, limit, out):
    tab = _new_table(P, deals.shape[2])
    bad = 0
    for g in range(offsets.shape[0] - 1):
        bad += _bars_one(flat, offsets[g], offsets[g + 1], deals[g], limit, out[g], tab)
    return bad


@jit
def _showing(lay, up, s):
    n = 0
    for q in range(9):
        if up[s, q] == 1 and lay[s, q] == MULLIGAN:
            n += 1
    return n


@jit
def _bars_one(tr, lo, hi, order, limit, out, tab):
    """Offers and bars of one game; the walker keeps the table (read at the start of each turn)."""
    lay, up, piles, plen = tab[0], tab[1], tab[3], tab[4]
    bad = 0
    r = -1
    cur = -1          # seat whose turn it is
    offered = False   # a mulligan was on offer this turn
    capped = False    # the seat showed the limit's count of face-up mulligans at its start
    for i in range(lo, hi):
        kind = tr[i, 0]
        seat = tr[i, 1]
        if kind == T.TURN or kind == T.ROUND_END or kind == T.STALL:
            if cur >= 0:
                if offered:
                    out[r, cur, 1] += 1
                    if capped:
                        out[r, cur, 0] += 1
            cur = -1
            offered = False
        if kind == T.ROUND:
            r = tr[i, 2]
        elif kind == T.TURN:
            cur = seat
            capped = not _placeable(_showing(lay, up, seat), limit)
            for k in range(2):
                if plen[k] > 0 and piles[k, plen[k] - 1] == MULLIGAN:
                    offered = True
        elif kind == T.DRAW and tr[i, 2] == 0 and tr[i, 3] == MULLIGAN:
            offered = True
        bad += _step(order, tab, tr, i)
    return bad
