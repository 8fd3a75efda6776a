"""One turn in the jitted core: draw (with reshuffle or stall), keep and bounce, discard
(with hazard removal and the other players' flips) — RULES.md §3.

Every function takes the game's :class:`gnoming_sim.kernel.state.Table` ``t``.
"""

from gnoming_sim.game import trace as T
from gnoming_sim.game.cards import HAZARD, NO_CARD
from gnoming_sim.game.observation import (
    CHOICE_DECLINE,
    CHOICE_NOKEEP,
    CHOICE_STOP,
    O_DRAWN,
    O_FROM_PILE,
    O_ME,
    SRC_DRAW,
    U_COST,
    U_COUNT,
)
from gnoming_sim.game.rules import HAZARD_FLIP_MIN_FACE_DOWN, LAYOUT, R_BOUNCING, R_RESHUFFLE_WHEN_EMPTY
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy.dispatch import bounce_target, discard_pile, draw_source, hazard_flip, placement
from gnoming_sim.kernel.rng import shuffle_prefix
from gnoming_sim.kernel.state import (
    S_DEND,
    S_DPTR,
    S_FORCE_FLIP,
    S_FORCE_POS,
    S_FORCE_SRC,
    S_LUCK,
    S_PLEN0,
    S_REMOVED,
    S_RESHUFFLES,
    S_STALLED,
)
from gnoming_sim.kernel.scoring import card_cost
from gnoming_sim.kernel.table import (
    _legal_placements,
    _legal_sources,
    _emit,
    _fill_pub,
    _matches_face_up,
    _put,
    _reveal,
    _unseen,
)


# ----------------------------------------------------------------- one turn
@jit
def _reshuffle(t, s):
    """Rebuild the empty draw pile from both discard piles, all but their top cards."""
    st = t.st
    draw = t.draw
    piles = t.piles
    n = 0
    for k in range(2):
        plen = st[S_PLEN0 + k]
        if plen > 1:
            for i in range(plen - 1):
                c = piles[k, i]
                draw[n] = c
                _unseen(t.unknown, c, 1)
                n += 1
            piles[k, 0] = piles[k, plen - 1]
            st[S_PLEN0 + k] = 1
    shuffle_prefix(t.rng, draw, n)
    st[S_RESHUFFLES] += 1
    st[S_DPTR] = 0
    st[S_DEND] = n
    _emit(t, T.RESHUFFLE, s, n, 0)
    for i in range(n):
        _emit(t, T.CARD, -1, draw[i], 0)
    return n


@jit(inline="always")
def _draw(t, rules, s):
    """The draw step.  Returns (card, source) or (NO_CARD, -1) when the round stalls."""
    st = t.st
    legal = t.legal
    _legal_sources(t, rules, s)
    forced = st[S_FORCE_SRC]
    if forced > 0:  # a rollout's option under test (kernel.rollout); used once
        st[S_FORCE_SRC] = 0
        src = forced - 1
    else:
        src = draw_source(t.kinds[s], t.params[s], t.rng, t.obs, t.memo, legal)
    if src == SRC_DRAW:
        if st[S_DPTR] == st[S_DEND]:
            if rules[R_RESHUFFLE_WHEN_EMPTY] == 0:
                _emit(t, T.STALL, -1, T.STALL_NO_RESHUFFLE, 0)
                st[S_STALLED] = T.STALL_NO_RESHUFFLE
                return NO_CARD, -1
            if _reshuffle(t, s) == 0:
                _emit(t, T.STALL, -1, T.STALL_NO_CARDS, 0)
                st[S_STALLED] = T.STALL_NO_CARDS
                return NO_CARD, -1
        card = t.draw[st[S_DPTR]]
        st[S_DPTR] += 1
        if st[S_LUCK] != 0 and forced == 0 and st[S_RESHUFFLES] == 0:  # a division per draw: rollouts only
            t.luck[s] += card_cost(card) - t.unknown[U_COST] / t.unknown[U_COUNT]
        _unseen(t.unknown, card, -1)
    else:
        k = src - 1
        st[S_PLEN0 + k] -= 1
        card = t.piles[k, st[S_PLEN0 + k]]
    _emit(t, T.DRAW, s, src, card)
    return card, src


@jit(inline="always")
def _keep_and_bounce(t, rules, s, card, src):
    """Placement and the bounce chain.  Returns the card to discard."""
    legal = t.legal
    pub = t.obs.pub
    kind = t.kinds[s]
    prm = t.params[s]
    _legal_placements(t, rules, s, card, src)
    pub[O_DRAWN] = card
    pub[O_FROM_PILE] = src - 1
    forced = t.st[S_FORCE_POS]
    if forced > 0:  # a rollout's option under test (kernel.rollout); used once
        t.st[S_FORCE_POS] = 0
        pos = forced - 1
    else:
        pos = placement(kind, prm, t.rng, t.obs, t.memo, card, legal)
    if pos == CHOICE_NOKEEP:
        _emit(t, T.NOKEEP, s, 0, 0)
        return card
    was_down = t.up[s, pos] == 0
    cand = _put(t, s, pos, card)
    _emit(t, T.PLACE, s, pos, cand)
    filled = 1 << pos
    may_bounce = rules[R_BOUNCING] != 0
    while may_bounce and was_down and _matches_face_up(t, cand, s):
        n_free = 0
        for q in range(LAYOUT):
            free = (filled >> q) & 1 == 0
            legal[q] = 1 if free else 0
            n_free += free
        if n_free == 0:
            break
        legal[CHOICE_STOP] = 1
        pub[O_DRAWN] = cand
        target = bounce_target(kind, prm, t.rng, t.obs, t.memo, cand, legal)
        if target == CHOICE_STOP:
            break
        was_down = t.up[s, target] == 0
        bounced = cand
        cand = _put(t, s, target, bounced)
        filled |= 1 << target
        _emit(t, T.BOUNCE, s, target, cand)
    return cand


@jit(inline="always")
def _hazard_flips(t, s, first):
    """After seat s removed a hazard: the flips of seats s + first, ..., s + P - 1 (in turn order)."""
    P = t.fd.shape[0]
    legal = t.legal
    pub = t.obs.pub
    for i in range(first, P):
        o = (s + i) % P
        if t.fd[o] < HAZARD_FLIP_MIN_FACE_DOWN:
            _emit(t, T.HAZARD_FLIP, o, T.HFLIP_NOT_ALLOWED, 0)
            continue
        for q in range(LAYOUT):
            legal[q] = 1 - t.up[o, q]
        legal[CHOICE_DECLINE] = 1
        pub[O_ME] = o
        forced = t.st[S_FORCE_FLIP]
        if forced > 0:  # a rollout's option under test (kernel.rollout); used once
            t.st[S_FORCE_FLIP] = 0
            pos = forced - 1
        else:
            pos = hazard_flip(t.kinds[o], t.params[o], t.rng, t.obs, legal)
        if pos == CHOICE_DECLINE:
            _emit(t, T.HAZARD_FLIP, o, T.HFLIP_DECLINED, 0)
        else:
            _reveal(t, o, pos)
            _emit(t, T.HAZARD_FLIP, o, pos, t.lay[o, pos])
    pub[O_ME] = s


@jit(inline="always")
def _discard(t, s, card):
    """Put ``card`` on a discard pile, or remove a hazard and offer the others their flips."""
    st = t.st
    if card == HAZARD:
        st[S_REMOVED] += 1
        _emit(t, T.DISCARD, s, T.DISCARD_REMOVED, card)
        _hazard_flips(t, s, 1)
        return
    n0 = st[S_PLEN0]
    n1 = st[S_PLEN0 + 1]
    if n0 == 0 and n1 > 0:
        k = 0
    elif n1 == 0 and n0 > 0:
        k = 1
    else:
        k = discard_pile(t.kinds[s], t.params[s], t.rng, t.obs, t.memo, card)
    t.piles[k, st[S_PLEN0 + k]] = card
    st[S_PLEN0 + k] += 1
    _emit(t, T.DISCARD, s, k, card)


@jit(inline="always")
def _play_turn(t, rules, s, r, starter):
    """One turn of seat s: draw, play, discard.  Returns False if the round stalled."""
    _fill_pub(t, rules, s, r, starter)
    card, src = _draw(t, rules, s)
    if src < 0:
        return False
    out = _keep_and_bounce(t, rules, s, card, src)
    t.obs.pub[O_DRAWN] = out
    _discard(t, s, out)
    return True
