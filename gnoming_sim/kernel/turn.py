"""One turn in the jitted core: draw (with reshuffle or stall), keep and bounce, discard
(with hazard removal and the other players' flips) — RULES.md §3."""


from gnoming_sim.game import trace as T
from gnoming_sim.kernel.jit import jit
from gnoming_sim.game.observation import O_DRAWN, O_FROM_PILE, O_ME
from gnoming_sim.kernel.rng import shuffle_prefix
from gnoming_sim.kernel.policy.dispatch import NOKEEP, STOP, bounce_target, discard_pile, draw_source, hazard_flip, placement
from gnoming_sim.kernel.table import (
    S_DEND,
    S_DPTR,
    S_PLEN0,
    S_REMOVED,
    S_STALLED,
    _can_place,
    _emit,
    _fill_pub,
    _matches_face_up,
    _put,
    _reveal,
    _unseen,
)
from gnoming_sim.game.cards import HAZARD, NO_CARD
from gnoming_sim.game.rules import R_DISCARD_DRAW_MUST_BE_KEPT, R_RESHUFFLE_WHEN_EMPTY


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
    _fill_pub(pub, st, s, P, r, starter, piles, unknown, rules)
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
