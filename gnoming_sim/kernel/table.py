"""A table in the jitted core: state constants, the small state helpers, and round setup.

State of one game (allocated once per game by ``play_batch``, reused across its rounds)::

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


from gnoming_sim.game import trace as T
from gnoming_sim.kernel.jit import jit
from gnoming_sim.game.observation import (
    O_DRAW_N,
    O_DRAWN,
    O_FINISHER,
    O_FROM_PILE,
    O_ME,
    O_MULLIGAN_LIMIT,
    O_MULLIGANS_PER_LINE,
    O_PILE0_N,
    O_PLAN_CARD,
    O_PLAN_POS,
    O_PLAN_PRE,
    O_PLAYERS,
    O_ROUND,
    O_STARTER,
    O_TOP0,
    O_TURN,
    O_UNKNOWN_N,
    U_COST,
    U_COUNT,
)
from gnoming_sim.kernel.scoring import card_cost
from gnoming_sim.kernel.policy.dispatch import initial_flips
from gnoming_sim.game.cards import HAZARD, HIDDEN, MAX_VALUE, MULLIGAN, N_SLOTS, NO_CARD, SLOT_OFFSET
from gnoming_sim.game.rules import R_HAZARD_PLACEABLE, R_MULLIGAN_LIMIT, R_MULLIGANS_PER_LINE

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
def _fill_pub(pub, st, s, P, r, starter, piles, unknown, rules):
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
    pub[O_UNKNOWN_N] = unknown[U_COUNT]  # the draw pile and every face-down card
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
        _fill_pub(pub, st, s, P, r, starter, piles, unknown, rules)
        initial_flips(kinds[s], params[s], rng, pub, flips)
        for j in range(2):
            _reveal(s, flips[j], lay, up, vis, fd, unknown)
            _emit(tr, tn, T.INIT_FLIP, s, flips[j], lay[s, flips[j]])
