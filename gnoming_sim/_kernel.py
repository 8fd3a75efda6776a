"""The jitted game loop: complete 3-round games of Gnoming A Round (RULES.md §2-§6).

State of one game (allocated once per game, reused across its rounds)::

    lay     int8[P, 9]     true cards of every layout, row-major
    up      int8[P, 9]     1 if face up
    vis     int8[P, 9]     what everyone sees: lay where up, else HIDDEN
    fd      int64[P]       face-down count per seat
    draw    int8[N]        draw pile: draw[st[S_DPTR]:st[S_DEND]], top first
    piles   int8[2, N]     discard piles, bottom first: piles[k, :st[S_PLEN0 + k]]
    unknown int64[N_SLOTS] unseen cards per code (card counting, public)
    st      int64[N_ST]    scalars (S_* below)

Only ``vis``, ``fd``, ``unknown``, ``scores`` and ``pub`` (see _observe.py) reach strategies.
"""
from __future__ import annotations

import numpy as np
from numba import prange

from . import trace as T
from ._jit import jit
from ._observe import (O_PLAN_CARD, O_PLAN_POS, O_PLAN_PRE, U_COST, U_COUNT, O_MULLIGAN_LIMIT, O_MULLIGANS_PER_LINE, N_OBS, O_DRAW_N, O_DRAWN, O_FINISHER, O_FROM_PILE, O_ME, O_PILE0_N,
                       O_PILE1_N, O_PLAYERS, O_ROUND, O_STARTER, O_TOP0, O_TOP1, O_TURN,
                       O_UNKNOWN_N)
from ._rng import STREAM_DEAL, STREAM_PLAY, seed_stream, shuffle_prefix
from ._scoring import (card_cost, N_PARTS, P_HAZARDS, P_LINES, P_MATCHED, P_NEGATIVES, P_UNMATCHED,
                       score_parts, visible_score)
from ._strategy import NOKEEP, STOP, N_PARAMS
from ._strategy import bounce_target, discard_pile, draw_source, hazard_flip, initial_flips, placement
from .cards import HAZARD, HIDDEN, MAX_VALUE, MULLIGAN, N_SLOTS, NO_CARD, SLOT_OFFSET
from .fields import (F_BONUS, F_FACEDOWN_AT_FINISH, F_FINISH_TURN, F_FINISHER, F_HAZARDS, F_LINES,
                     F_MATCHED, F_NEGATIVES, F_SCORE, F_STALLED, F_START_SEAT, F_TURNS, F_UNMATCHED,
                     F_VISIBLE_AT_FINISH, N_FIELDS)
from .rules import (EARLY_FINISH_BONUS, R_DISCARD_DRAW_MUST_BE_KEPT, R_FINISHER_TIE_IS_LOWEST,
                    R_HAZARD_PLACEABLE, R_MAX_TURNS, R_MULLIGAN_LIMIT, R_MULLIGANS_PER_LINE,
                    R_RESHUFFLE_WHEN_EMPTY, R_ROTATE_START, ROUNDS)

S_DPTR = 0
S_DEND = 1
S_PLEN0 = 2   # S_PLEN0 + k for pile k
S_REMOVED = 4
S_TURN = 5
S_FINISHER = 6
S_STALLED = 7
S_FINISH_TURN = 8
N_ST = 9

NOT_STALLED = -1


# ----------------------------------------------------------------- small helpers
@jit(inline="always")
def _emit(tr, tn, kind, seat, a, b):
    """Append one trace record (dropped, but counted, when the buffer is full or absent)."""
    n = tn[0]
    if n < tr.shape[0]:
        tr[n, 0] = kind
        tr[n, 1] = seat
        tr[n, 2] = a
        tr[n, 3] = b
    tn[0] = n + 1


@jit(inline="always")
def _is_positive(c):
    return c >= 0 and c <= MAX_VALUE


@jit(inline="always")
def _unseen(unknown, c, d):
    """Add ``d`` cards of code ``c`` to the unseen counts and their running totals."""
    unknown[c + SLOT_OFFSET] += d
    unknown[U_COUNT] += d
    unknown[U_COST] += d * card_cost(c)


@jit(inline="always")
def _reveal(s, pos, lay, up, vis, fd, unknown):
    """Turn the face-down card at (s, pos) face up."""
    c = lay[s, pos]
    up[s, pos] = 1
    vis[s, pos] = c
    fd[s] -= 1
    _unseen(unknown, c, -1)


@jit(inline="always")
def _put(s, pos, card, lay, up, vis, fd, unknown):
    """Put ``card`` face up at (s, pos); return the card replaced (revealed if it was face down)."""
    old = lay[s, pos]
    if up[s, pos] == 0:
        fd[s] -= 1
        _unseen(unknown, old, -1)
    lay[s, pos] = card
    up[s, pos] = 1
    vis[s, pos] = card
    return old


@jit(inline="always")
def _face_up_mulligans(s, lay, up):
    n = 0
    for q in range(9):
        if up[s, q] == 1 and lay[s, q] == MULLIGAN:
            n += 1
    return n


@jit(inline="always")
def _can_place(card, s, lay, up, rules):
    """Whether ``card`` may be placed in seat s's layout at all (mulligan limit, hazard option)."""
    if card == MULLIGAN:
        limit = rules[R_MULLIGAN_LIMIT]
        return limit == 0 or _face_up_mulligans(s, lay, up) < limit
    if card == HAZARD:
        return rules[R_HAZARD_PLACEABLE] != 0
    return True


@jit(inline="always")
def _matches_face_up(card, s, lay, up):
    """Whether positive ``card`` equals some face-up positive card in seat s's layout (bounce test)."""
    if not _is_positive(card):
        return False
    for q in range(9):
        if up[s, q] == 1 and lay[s, q] == card:
            return True
    return False


@jit
def _fill_pub(pub, st, s, P, r, starter, piles, fd, rules):
    pub[O_MULLIGAN_LIMIT] = rules[R_MULLIGAN_LIMIT]
    pub[O_MULLIGANS_PER_LINE] = rules[R_MULLIGANS_PER_LINE]
    pub[O_ME] = s
    pub[O_PLAYERS] = P
    pub[O_ROUND] = r
    pub[O_TURN] = st[S_TURN]
    pub[O_DRAW_N] = st[S_DEND] - st[S_DPTR]
    for k in range(2):
        n = st[S_PLEN0 + k]
        pub[O_PILE0_N + k] = n
        pub[O_TOP0 + k] = piles[k, n - 1] if n > 0 else NO_CARD
    pub[O_FINISHER] = st[S_FINISHER]
    pub[O_STARTER] = starter
    n_unknown = st[S_DEND] - st[S_DPTR]
    for i in range(P):
        n_unknown += fd[i]
    pub[O_UNKNOWN_N] = n_unknown
    pub[O_DRAWN] = NO_CARD
    pub[O_FROM_PILE] = -1
    pub[O_PLAN_CARD] = NO_CARD
    pub[O_PLAN_POS] = -1
    pub[O_PLAN_PRE] = 0


# ----------------------------------------------------------------- setup
@jit
def _setup_round(r, P, starter, rules, order, deck_counts, lay, up, vis, fd, draw, piles, unknown, st,
                 kinds, params, rng, pub, flips, tr, tn):
    """Deal ``order`` (int8[N]), seed both discard piles, make the initial flips."""
    N = order.shape[0]
    for s in range(P):
        fd[s] = 9
        for q in range(9):
            lay[s, q] = order[9 * s + q]
            up[s, q] = 0
            vis[s, q] = HIDDEN
    for i in range(N):
        draw[i] = order[i]
    for i in range(N_SLOTS):
        unknown[i] = deck_counts[i]
    st[S_DPTR] = 9 * P
    st[S_DEND] = N
    st[S_PLEN0] = 0
    st[S_PLEN0 + 1] = 0
    st[S_TURN] = 0
    st[S_FINISHER] = -1
    st[S_STALLED] = NOT_STALLED
    _emit(tr, tn, T.ROUND, starter, r, P)
    for k in range(2):
        while True:  # the deck was validated: enough non-hazard cards remain
            c = draw[st[S_DPTR]]
            st[S_DPTR] += 1
            _unseen(unknown, c, -1)
            if c == HAZARD:
                st[S_REMOVED] += 1
                _emit(tr, tn, T.SETUP_HAZARD, -1, 0, c)
                continue
            piles[k, 0] = c
            st[S_PLEN0 + k] = 1
            _emit(tr, tn, T.SETUP_DISCARD, -1, k, c)
            break
    for i in range(P):
        s = (starter + i) % P
        _fill_pub(pub, st, s, P, r, starter, piles, fd, rules)
        initial_flips(kinds[s], params[s], rng, pub, flips)
        for j in range(2):
            _reveal(s, flips[j], lay, up, vis, fd, unknown)
            _emit(tr, tn, T.INIT_FLIP, s, flips[j], lay[s, flips[j]])


# ----------------------------------------------------------------- one turn
@jit
def _reshuffle(s, draw, piles, unknown, st, rng, tr, tn):
    """Rebuild the empty draw pile from both discard piles, all but their top cards."""
    n = 0
    for k in range(2):
        plen = st[S_PLEN0 + k]
        if plen > 1:
            for i in range(plen - 1):
                c = piles[k, i]
                draw[n] = c
                _unseen(unknown, c, 1)
                n += 1
            piles[k, 0] = piles[k, plen - 1]
            st[S_PLEN0 + k] = 1
    shuffle_prefix(rng, draw, n)
    st[S_DPTR] = 0
    st[S_DEND] = n
    _emit(tr, tn, T.RESHUFFLE, s, n, 0)
    for i in range(n):
        _emit(tr, tn, T.CARD, -1, draw[i], 0)
    return n


@jit
def _draw(s, kind, prm, rules, lay, up, vis, fd, draw, piles, unknown, st, scores, rng, pub,
          legal, tr, tn):
    """The draw step.  Returns (card, source) or (NO_CARD, -1) when the round stalls."""
    must_keep = rules[R_DISCARD_DRAW_MUST_BE_KEPT] != 0
    legal[0] = 1
    for k in range(2):
        plen = st[S_PLEN0 + k]
        ok = plen > 0
        if ok and must_keep:
            ok = _can_place(piles[k, plen - 1], s, lay, up, rules)
        legal[1 + k] = 1 if ok else 0
    src = draw_source(kind, prm, rng, pub, vis, fd, unknown, scores, legal)
    if src == 0:
        if st[S_DPTR] == st[S_DEND]:
            if rules[R_RESHUFFLE_WHEN_EMPTY] == 0:
                _emit(tr, tn, T.STALL, -1, T.STALL_NO_RESHUFFLE, 0)
                st[S_STALLED] = T.STALL_NO_RESHUFFLE
                return NO_CARD, -1
            if _reshuffle(s, draw, piles, unknown, st, rng, tr, tn) == 0:
                _emit(tr, tn, T.STALL, -1, T.STALL_NO_CARDS, 0)
                st[S_STALLED] = T.STALL_NO_CARDS
                return NO_CARD, -1
        card = draw[st[S_DPTR]]
        st[S_DPTR] += 1
        _unseen(unknown, card, -1)
    else:
        k = src - 1
        st[S_PLEN0 + k] -= 1
        card = piles[k, st[S_PLEN0 + k]]
    _emit(tr, tn, T.DRAW, s, src, card)
    return card, src


@jit
def _keep_and_bounce(s, card, src, kind, prm, rules, lay, up, vis, fd, unknown, scores, rng, pub,
                     legal, tr, tn):
    """Placement and the bounce chain.  Returns the card to discard."""
    placeable = _can_place(card, s, lay, up, rules)
    for q in range(9):
        legal[q] = 1 if placeable else 0
    legal[NOKEEP] = 1 if (src == 0 or rules[R_DISCARD_DRAW_MUST_BE_KEPT] == 0) else 0
    pub[O_DRAWN] = card
    pub[O_FROM_PILE] = src - 1
    pos = placement(kind, prm, rng, pub, vis, fd, unknown, scores, card, legal)
    if pos == NOKEEP:
        _emit(tr, tn, T.NOKEEP, s, 0, 0)
        return card
    was_down = up[s, pos] == 0
    cand = _put(s, pos, card, lay, up, vis, fd, unknown)
    _emit(tr, tn, T.PLACE, s, pos, cand)
    filled = 1 << pos
    while was_down and _matches_face_up(cand, s, lay, up):
        n_free = 0
        for q in range(9):
            free = (filled >> q) & 1 == 0
            legal[q] = 1 if free else 0
            n_free += free
        if n_free == 0:
            break
        legal[STOP] = 1
        pub[O_DRAWN] = cand
        t = bounce_target(kind, prm, rng, pub, vis, fd, unknown, scores, cand, legal)
        if t == STOP:
            break
        was_down = up[s, t] == 0
        bounced = cand
        cand = _put(s, t, bounced, lay, up, vis, fd, unknown)
        filled |= 1 << t
        _emit(tr, tn, T.BOUNCE, s, t, cand)
    return cand


@jit
def _discard(s, P, card, kinds, params, lay, up, vis, fd, piles, unknown, st, scores, rng, pub,
             legal, tr, tn):
    """Put ``card`` on a discard pile, or remove a hazard and offer the others their flips."""
    if card == HAZARD:
        st[S_REMOVED] += 1
        _emit(tr, tn, T.DISCARD, s, T.DISCARD_REMOVED, card)
        for i in range(1, P):
            o = (s + i) % P
            if fd[o] < 2:  # the final face-down card cannot be flipped by a hazard
                _emit(tr, tn, T.HAZARD_FLIP, o, T.HFLIP_NOT_ALLOWED, 0)
                continue
            for q in range(9):
                legal[q] = 1 - up[o, q]
            legal[9] = 1
            pub[O_ME] = o
            pos = hazard_flip(kinds[o], params[o], rng, pub, vis, fd, unknown, scores, legal)
            if pos == 9:
                _emit(tr, tn, T.HAZARD_FLIP, o, T.HFLIP_DECLINED, 0)
            else:
                _reveal(o, pos, lay, up, vis, fd, unknown)
                _emit(tr, tn, T.HAZARD_FLIP, o, pos, lay[o, pos])
        pub[O_ME] = s
        return
    n0 = st[S_PLEN0]
    n1 = st[S_PLEN0 + 1]
    if n0 == 0 and n1 > 0:
        k = 0
    elif n1 == 0 and n0 > 0:
        k = 1
    else:
        k = discard_pile(kinds[s], params[s], rng, pub, vis, fd, unknown, scores, card)
    piles[k, st[S_PLEN0 + k]] = card
    st[S_PLEN0 + k] += 1
    _emit(tr, tn, T.DISCARD, s, k, card)


@jit
def _play_turn(s, P, r, starter, rules, kinds, params, lay, up, vis, fd, draw, piles, unknown, st,
               scores, rng, pub, legal, tr, tn):
    """One turn of seat s: draw, play, discard.  Returns False if the round stalled."""
    _fill_pub(pub, st, s, P, r, starter, piles, fd, rules)
    kind = kinds[s]
    prm = params[s]
    card, src = _draw(s, kind, prm, rules, lay, up, vis, fd, draw, piles, unknown, st, scores, rng,
                      pub, legal, tr, tn)
    if src < 0:
        return False
    out = _keep_and_bounce(s, card, src, kind, prm, rules, lay, up, vis, fd, unknown, scores, rng,
                           pub, legal, tr, tn)
    pub[O_DRAWN] = out
    _discard(s, P, out, kinds, params, lay, up, vis, fd, piles, unknown, st, scores, rng, pub,
             legal, tr, tn)
    return True


# ----------------------------------------------------------------- a round, a game
@jit
def _play_round(r, P, starter, rules, kinds, params, lay, up, vis, fd, draw, piles, unknown, st,
                scores, turns, at_finish, rng, pub, legal, tr, tn):
    """The turn loop of one round, up to the last final-lap turn or a stall."""
    for i in range(P):
        turns[i] = 0
        at_finish[i, 0] = 0
        at_finish[i, 1] = -1
    st[S_FINISH_TURN] = -1
    max_turns = rules[R_MAX_TURNS]
    s = starter
    laps_left = -1  # turns left in the final lap, once somebody has finished
    while True:
        if st[S_TURN] >= max_turns:
            _emit(tr, tn, T.STALL, -1, T.STALL_MAX_TURNS, 0)
            st[S_STALLED] = T.STALL_MAX_TURNS
            return
        _emit(tr, tn, T.TURN, s, st[S_TURN], 1 if laps_left >= 0 else 0)
        turns[s] += 1
        ok = _play_turn(s, P, r, starter, rules, kinds, params, lay, up, vis, fd, draw, piles,
                        unknown, st, scores, rng, pub, legal, tr, tn)
        st[S_TURN] += 1
        if not ok:
            return
        if laps_left >= 0:
            laps_left -= 1
            if laps_left == 0:
                return
        elif fd[s] == 0:
            st[S_FINISHER] = s
            st[S_FINISH_TURN] = st[S_TURN] - 1
            _emit(tr, tn, T.FINISH, s, 0, 0)
            laps_left = P - 1
            mpl = rules[R_MULLIGANS_PER_LINE]
            for o in range(P):
                at_finish[o, 0] = visible_score(vis[o], mpl)
                at_finish[o, 1] = fd[o]
        s = (s + 1) % P


@jit
def _score_round(r, P, starter, rules, lay, st, turns, at_finish, parts, out):
    """Reveal every layout, score it, apply the early-finish bonus; write out[r, seat, F_*]."""
    mpl = rules[R_MULLIGANS_PER_LINE]
    stalled = st[S_STALLED] != NOT_STALLED
    finisher = st[S_FINISHER]  # kept when the final lap stalls; the bonus is not paid then
    for s in range(P):
        total = score_parts(lay[s], mpl, parts)
        o = out[r, s]
        o[F_SCORE] = total
        o[F_MATCHED] = parts[P_MATCHED]
        o[F_UNMATCHED] = parts[P_UNMATCHED]
        o[F_NEGATIVES] = parts[P_NEGATIVES]
        o[F_HAZARDS] = parts[P_HAZARDS]
        o[F_FINISHER] = 1 if s == finisher else 0
        o[F_BONUS] = 0
        o[F_TURNS] = turns[s]
        o[F_STALLED] = 1 if stalled else 0
        o[F_START_SEAT] = starter
        o[F_LINES] = parts[P_LINES]
        o[F_FINISH_TURN] = st[S_FINISH_TURN]
        o[F_VISIBLE_AT_FINISH] = at_finish[s, 0]
        o[F_FACEDOWN_AT_FINISH] = at_finish[s, 1]
    if finisher >= 0 and not stalled:
        mine = out[r, finisher, F_SCORE]
        best_other = 1 << 30
        for s in range(P):
            if s != finisher and out[r, s, F_SCORE] < best_other:
                best_other = out[r, s, F_SCORE]
        lowest = mine < best_other or (mine == best_other and rules[R_FINISHER_TIE_IS_LOWEST] != 0)
        bonus = -EARLY_FINISH_BONUS if lowest else EARLY_FINISH_BONUS
        out[r, finisher, F_BONUS] = bonus
        out[r, finisher, F_SCORE] = mine + bonus


@jit
def _settle_game(P, out, totals, win):
    """Game totals; lowest wins, tie broken by the lowest round-3 score, then shared."""
    best = 1 << 30
    for s in range(P):
        t = 0
        for r in range(ROUNDS):
            t += out[r, s, F_SCORE]
        totals[s] = t
        if t < best:
            best = t
    best3 = 1 << 30
    for s in range(P):
        if totals[s] == best and out[ROUNDS - 1, s, F_SCORE] < best3:
            best3 = out[ROUNDS - 1, s, F_SCORE]
    k = 0
    for s in range(P):
        if totals[s] == best and out[ROUNDS - 1, s, F_SCORE] == best3:
            k += 1
    for s in range(P):
        win[s] = 1.0 / k if (totals[s] == best and out[ROUNDS - 1, s, F_SCORE] == best3) else 0.0


@jit
def deal_game(game, seed, deck, order, rng):
    """The deck order of each round of game ``game``: ``order`` int8[3, N], from its deal stream."""
    N = deck.shape[0]
    seed_stream(rng, seed, game, STREAM_DEAL)
    for r in range(ROUNDS):
        for i in range(N):
            order[r, i] = deck[i]
        shuffle_prefix(rng, order[r], N)


@jit(parallel=True, nrt=True)
def deal_batch(first_game, seed, deck, orders):
    """``orders[i]`` = the deals of game ``first_game + i`` (exactly those :func:`play_game` plays)."""
    for i in prange(orders.shape[0]):
        deal_game(first_game + i, seed, deck, orders[i], np.empty(4, dtype=np.uint64))


@jit
def play_game(game, seed, P, kinds, params, rules, deck, deck_counts, order, use_given,
              out, totals, win, tr, tn, rng, lay, up, vis, fd, draw, piles, unknown, st, scores,
              turns, at_finish, pub, legal, parts, flips):
    """Play one complete game.

    ``order`` int8[3, N]: the deck order of each round; it is filled from the game's deal
    stream unless ``use_given``.  ``out`` int32[3, P, N_FIELDS]; ``totals`` int32[P];
    ``win`` float64[P]; ``tr`` int32[cap, 4] (cap may be 0); ``tn`` int64[1] trace length.
    The remaining arrays are the workspace allocated by :func:`play_batch` (shapes in the
    module docstring); their contents on entry do not matter.
    """
    if not use_given:
        deal_game(game, seed, deck, order, rng)
    seed_stream(rng, seed, game, STREAM_PLAY)
    for i in range(N_ST):
        st[i] = 0
    for s in range(P):
        scores[s] = 0
    tn[0] = 0
    for r in range(ROUNDS):
        starter = r % P if rules[R_ROTATE_START] != 0 else 0
        _setup_round(r, P, starter, rules, order[r], deck_counts, lay, up, vis, fd, draw, piles, unknown,
                     st, kinds, params, rng, pub, flips, tr, tn)
        _play_round(r, P, starter, rules, kinds, params, lay, up, vis, fd, draw, piles, unknown,
                    st, scores, turns, at_finish, rng, pub, legal, tr, tn)
        _score_round(r, P, starter, rules, lay, st, turns, at_finish, parts, out)
        _emit(tr, tn, T.ROUND_END, -1, r, 1 if st[S_STALLED] != NOT_STALLED else 0)
        for s in range(P):
            scores[s] += out[r, s, F_SCORE]
    _settle_game(P, out, totals, win)


@jit(parallel=True, nrt=True)
def play_batch(first_game, seed, P, seat_strategy, strat_kinds, strat_params, rules, deck,
               deck_counts, orders, use_given, out, totals, win, traces, trace_len):
    """Play games ``first_game + i`` for i in range(G), in parallel, each from its own streams.

    seat_strategy int16[G, P]   strategy index per seat
    strat_kinds   int64[S]      family of each strategy;  strat_params float64[S, N_PARAMS]
    orders        int8[G or 0, 3, N] deck orders: input if ``use_given``, else written (if G)
    out           int32[G, 3, P, N_FIELDS];  totals int32[G, P];  win float64[G, P]
    traces        int32[G or 0, cap, 4];     trace_len int64[G]
    """
    G = seat_strategy.shape[0]
    N = deck.shape[0]
    tracing = traces.shape[0] > 0
    for i in prange(G):
        kinds = np.empty(P, dtype=np.int64)
        params = np.empty((P, N_PARAMS), dtype=np.float64)
        for s in range(P):
            j = seat_strategy[i, s]
            kinds[s] = strat_kinds[j]
            params[s] = strat_params[j]
        tn = np.zeros(1, dtype=np.int64)
        if tracing:
            tr = traces[i]
        else:
            tr = np.empty((0, 4), dtype=np.int32)
        if orders.shape[0] > 0:
            order = orders[i]
        else:
            order = np.empty((ROUNDS, N), dtype=np.int8)
        play_game(first_game + i, seed, P, kinds, params, rules, deck, deck_counts, order,
                  use_given, out[i], totals[i], win[i], tr, tn,
                  np.empty(4, dtype=np.uint64), np.empty((P, 9), dtype=np.int8),
                  np.empty((P, 9), dtype=np.int8), np.empty((P, 9), dtype=np.int8),
                  np.empty(P, dtype=np.int64), np.empty(N, dtype=np.int8),
                  np.empty((2, N), dtype=np.int8), np.empty(N_SLOTS, dtype=np.int64),
                  np.zeros(N_ST, dtype=np.int64), np.zeros(P, dtype=np.int64),
                  np.zeros(P, dtype=np.int64), np.zeros((P, 2), dtype=np.int64),
                  np.zeros(N_OBS, dtype=np.int64), np.zeros(10, dtype=np.int8),
                  np.zeros(N_PARTS, dtype=np.int32), np.zeros(2, dtype=np.int64))
        trace_len[i] = tn[0]
