"""A table in the jitted core: the small state helpers and the set-up of a round.

Every function takes the game's :class:`gnoming_sim.kernel.state.Table` (``t``); its
fields and the ``S_*`` scalars are described in :mod:`gnoming_sim.kernel.state`.  Only
``t.obs`` (and the strategy's own ``t.memo``) reach strategies.
"""

from gnoming_sim.game import trace as T
from gnoming_sim.game.cards import HAZARD, HIDDEN, MAX_VALUE, MULLIGAN, N_SLOTS, NO_CARD, SLOT_OFFSET
from gnoming_sim.game.observation import (
    CHOICE_NOKEEP,
    O_DRAW_N,
    O_DRAWN,
    O_FINISH_BONUS,
    O_FINISHER,
    O_FROM_PILE,
    O_ME,
    O_MULLIGAN_LIMIT,
    O_MULLIGANS_PER_LINE,
    O_PILE0_N,
    O_PLAYERS,
    O_ROUND,
    O_STARTER,
    O_TOP0,
    O_TURN,
    O_UNKNOWN_N,
    O_HAZARD_VALUE,
    O_MULLIGAN_VALUE,
    O_NEGATIVE_MULTIPLIER,
    SRC_DRAW,
    U_COUNT,
    U_FACES,
    U_NEGATIVES,
)
from gnoming_sim.game.rules import (
    LAYOUT,
    R_DISCARD_DRAW_MUST_BE_KEPT,
    R_EARLY_FINISH_BONUS,
    R_HAZARD_PLACEABLE,
    R_HAZARD_VALUE,
    R_MULLIGAN_LIMIT,
    R_MULLIGAN_VALUE,
    R_MULLIGANS_PER_LINE,
    R_NEGATIVE_MULTIPLIER,
)
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy.heuristic import new_turn
from gnoming_sim.kernel.scoring import mulligan_allowed
from gnoming_sim.kernel.state import (
    NOT_STALLED,
    S_DEND,
    S_DPTR,
    S_FINISHER,
    S_PLEN0,
    S_REMOVED,
    S_RESHUFFLES,
    S_ROUND,
    S_STALLED,
    S_STARTER,
    S_TURN,
)


# ----------------------------------------------------------------- small helpers
@jit(inline="always")
def emit(t, kind, seat, a, b):
    """Append one trace record (dropped, but counted, when the buffer is full or absent)."""
    tr = t.tr
    n = t.tn[0]
    if n < tr.shape[0]:
        tr[n, 0] = kind
        tr[n, 1] = seat
        tr[n, 2] = a
        tr[n, 3] = b
    t.tn[0] = n + 1


@jit(inline="always")
def is_positive(c):
    return c >= 0 and c <= MAX_VALUE


@jit(inline="always")
def unseen(unknown, c, d):
    """Add ``d`` cards of code ``c`` to the unseen counts and their running totals (face values only:
    ``scoring.unseen_cost`` prices them by the rules)."""
    unknown[c + SLOT_OFFSET] += d
    unknown[U_COUNT] += d
    if c != HAZARD and c != MULLIGAN:
        unknown[U_FACES] += d * c
        if c < 0:
            unknown[U_NEGATIVES] += d * c


@jit(inline="always")
def reveal(t, s, pos):
    """Turn the face-down card at (s, pos) face up."""
    c = t.lay[s, pos]
    t.up[s, pos] = 1
    t.vis[s, pos] = c
    t.fd[s] -= 1
    unseen(t.unknown, c, -1)


@jit(inline="always")
def put(t, s, pos, card):
    """Put ``card`` face up at (s, pos); return the card replaced (revealed if it was face down)."""
    old = t.lay[s, pos]
    if t.up[s, pos] == 0:
        t.fd[s] -= 1
        unseen(t.unknown, old, -1)
    t.lay[s, pos] = card
    t.up[s, pos] = 1
    t.vis[s, pos] = card
    return old


@jit(inline="always")
def face_up_mulligans(t, s):
    n = 0
    for q in range(LAYOUT):
        if t.up[s, q] == 1 and t.lay[s, q] == MULLIGAN:
            n += 1
    return n


@jit(inline="always")
def can_place(t, rules, card, s):
    """Whether ``card`` may be placed in seat s's layout at all (mulligan limit, hazard option)."""
    if card == MULLIGAN:
        return mulligan_allowed(face_up_mulligans(t, s), rules[R_MULLIGAN_LIMIT])
    if card == HAZARD:
        return rules[R_HAZARD_PLACEABLE] != 0
    return True



@jit(inline="always")
def legal_placements(t, rules, s, card, src):
    """Write seat s's legal answers for ``card`` drawn from ``src`` into ``t.legal[:N_CHOICES]``
    (every position when the card may be placed; not keeping it when it was drawn blind, or
    when a discard draw need not be kept); return whether it may be placed."""
    legal = t.legal
    placeable = can_place(t, rules, card, s)
    for q in range(LAYOUT):
        legal[q] = 1 if placeable else 0
    legal[CHOICE_NOKEEP] = 1 if (src == SRC_DRAW or rules[R_DISCARD_DRAW_MUST_BE_KEPT] == 0) else 0
    return placeable


@jit(inline="always")
def legal_sources(t, rules, s):
    """Write seat s's legal draw sources into ``t.legal[:N_SOURCES]`` (the draw pile always; a
    discard pile when it holds a card, and with ``discard_draw_must_be_kept`` only a card s can
    place); return how many are legal."""
    st = t.st
    legal = t.legal
    must_keep = rules[R_DISCARD_DRAW_MUST_BE_KEPT] != 0
    legal[SRC_DRAW] = 1
    n_legal = 1
    for k in range(2):
        plen = st[S_PLEN0 + k]
        ok = plen > 0
        if ok and must_keep:
            ok = can_place(t, rules, t.piles[k, plen - 1], s)
        legal[1 + k] = 1 if ok else 0
        n_legal += 1 if ok else 0
    return n_legal

@jit(inline="always")
def matches_face_up(t, card, s):
    """Whether positive ``card`` equals some face-up positive card in seat s's layout (bounce test)."""
    if not is_positive(card):
        return False
    for q in range(LAYOUT):
        if t.up[s, q] == 1 and t.lay[s, q] == card:
            return True
    return False


@jit(inline="always")
def fill_pub(t, rules, s):
    """The public scalars for seat s's decisions, and a fresh memo for its turn."""
    pub = t.obs.pub
    st = t.st
    r = st[S_ROUND]
    starter = st[S_STARTER]
    pub[O_MULLIGAN_LIMIT] = rules[R_MULLIGAN_LIMIT]
    pub[O_MULLIGANS_PER_LINE] = rules[R_MULLIGANS_PER_LINE]
    pub[O_FINISH_BONUS] = rules[R_EARLY_FINISH_BONUS]
    pub[O_HAZARD_VALUE] = rules[R_HAZARD_VALUE]
    pub[O_MULLIGAN_VALUE] = rules[R_MULLIGAN_VALUE]
    pub[O_NEGATIVE_MULTIPLIER] = rules[R_NEGATIVE_MULTIPLIER]
    pub[O_ME] = s
    pub[O_PLAYERS] = t.fd.shape[0]
    pub[O_ROUND] = r
    pub[O_TURN] = st[S_TURN]
    pub[O_DRAW_N] = st[S_DEND] - st[S_DPTR]
    for k in range(2):
        n = st[S_PLEN0 + k]
        pub[O_PILE0_N + k] = n
        pub[O_TOP0 + k] = t.piles[k, n - 1] if n > 0 else NO_CARD
    pub[O_FINISHER] = st[S_FINISHER]
    pub[O_STARTER] = starter
    pub[O_UNKNOWN_N] = t.unknown[U_COUNT]  # the draw pile and every face-down card
    pub[O_DRAWN] = NO_CARD
    pub[O_FROM_PILE] = -1
    new_turn(t.memo)


# ----------------------------------------------------------------- setup
@jit
def deal_round(t, r, starter, order, deck_counts):
    """Deal ``order`` (int8[N]) and seed both discard piles (the initial flips are decisions:
    :func:`gnoming_sim.kernel.step.start_round`)."""
    N = order.shape[0]
    P = t.fd.shape[0]
    st = t.st
    draw = t.draw
    for s in range(P):
        t.fd[s] = LAYOUT
        for q in range(LAYOUT):
            t.lay[s, q] = order[LAYOUT * s + q]
            t.up[s, q] = 0
            t.vis[s, q] = HIDDEN
    for i in range(N):
        draw[i] = order[i]
    for i in range(N_SLOTS):
        t.unknown[i] = deck_counts[i]
    st[S_DPTR] = LAYOUT * P
    st[S_DEND] = N
    st[S_PLEN0] = 0
    st[S_PLEN0 + 1] = 0
    st[S_TURN] = 0
    st[S_RESHUFFLES] = 0
    st[S_FINISHER] = -1
    st[S_STALLED] = NOT_STALLED
    st[S_ROUND] = r
    st[S_STARTER] = starter
    emit(t, T.ROUND, starter, r, P)
    for k in range(2):
        while True:  # the deck was validated: enough non-hazard cards remain
            c = draw[st[S_DPTR]]
            st[S_DPTR] += 1
            unseen(t.unknown, c, -1)
            if c == HAZARD:
                st[S_REMOVED] += 1
                emit(t, T.SETUP_HAZARD, -1, 0, c)
                continue
            t.piles[k, 0] = c
            st[S_PLEN0 + k] = 1
            emit(t, T.SETUP_DISCARD, -1, k, c)
            break
