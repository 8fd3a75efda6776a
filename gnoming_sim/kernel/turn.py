"""One turn in the jitted core, as the effects of its actions: draw (with reshuffle or stall),
keep and bounce, discard (with hazard removal and the other players' flips), the end of the
turn and the start of the next — RULES.md §3.

Each ``apply_*`` function applies the action of one kind of pending decision and returns what
follows (a ``NEXT_*`` code); :func:`advance` then runs every automatic event (discarding, the
hazard flips offered, the end of the turn, the next turn) up to the next decision, which it
leaves in ``st[S_PENDING]`` and its context slots (:mod:`gnoming_sim.kernel.state`), with the
decider's observation filled in.  :func:`gnoming_sim.kernel.step.step` applies and advances.
Written as one loop over follow-ups, every effect is compiled once.  No function here asks a
strategy anything.

Every function takes the game's :class:`gnoming_sim.kernel.state.Table` ``t``.  All but the
rare reshuffle are inlined (numba IR) into :func:`gnoming_sim.kernel.step.step`: a call hands the
whole record over, field by field, and a turn is a chain of them (the turn loop ran at half speed
with them as calls).
"""

from gnoming_sim.game import trace as T
from gnoming_sim.game.cards import HAZARD
from gnoming_sim.game.observation import CHOICE_DECLINE, CHOICE_NOKEEP, CHOICE_STOP, O_DRAWN, O_FROM_PILE, O_ME, SRC_DRAW
from gnoming_sim.game.rules import HAZARD_FLIP_MIN_FACE_DOWN, LAYOUT, R_BOUNCING, R_MAX_TURNS, \
    R_RESHUFFLE_WHEN_EMPTY
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.rng import shuffle_prefix
from gnoming_sim.kernel.scoring import visible_score
from gnoming_sim.kernel.state import (
    DEC_BOUNCE,
    DEC_DISCARD,
    DEC_HAZARD_FLIP,
    DEC_NONE,
    DEC_PLACE,
    DEC_SOURCE,
    S_ACTOR,
    S_DEND,
    S_DPTR,
    S_FILLED,
    S_FINISH_TURN,
    S_FINISHER,
    S_HAND,
    S_LAPS,
    S_NEXT,
    S_PENDING,
    S_PLEN0,
    S_REMOVED,
    S_RESHUFFLES,
    S_SEAT,
    S_SRC,
    S_STALLED,
    S_TURN,
)
from gnoming_sim.kernel.table import emit, fill_pub, matches_face_up, put, reveal, unseen

# what follows an action, until the next decision (advance)
NEXT_NONE = 0       # a decision is pending, or the round is over
NEXT_DISCARD = 1    # the actor must get rid of the card in hand (st[S_HAND])
NEXT_FLIPS = 2      # offer hazard flips from the seat st[S_NEXT] places after the actor
NEXT_END_TURN = 3   # the actor's turn is over
NEXT_BEGIN = 4      # seat st[S_ACTOR]'s turn begins


@jit(inline="always")
def _ask(t, kind, seat):
    """Leave decision ``kind`` of ``seat`` pending."""
    t.st[S_PENDING] = kind
    t.st[S_SEAT] = seat


@jit(inline="always")
def _round_over(t):
    t.st[S_PENDING] = DEC_NONE
    t.st[S_SEAT] = -1


# ----------------------------------------------------------------- turns
@jit(inline="always")
def begin_turn(t, rules, s):
    """Seat s's turn starts (or the round ends out of turns): its draw-source decision is pending."""
    st = t.st
    if st[S_TURN] >= rules[R_MAX_TURNS]:
        emit(t, T.STALL, -1, T.STALL_MAX_TURNS, 0)
        st[S_STALLED] = T.STALL_MAX_TURNS
        _round_over(t)
        return
    emit(t, T.TURN, s, st[S_TURN], 1 if st[S_LAPS] >= 0 else 0)
    t.turns[s] += 1
    st[S_ACTOR] = s
    fill_pub(t, rules, s)
    _ask(t, DEC_SOURCE, s)


@jit
def _finish(t, rules, s):
    """Seat s has turned its last card up: it finishes, the final lap begins (what each seat showed is kept)."""
    st = t.st
    P = t.fd.shape[0]
    st[S_FINISHER] = s
    st[S_FINISH_TURN] = st[S_TURN] - 1
    emit(t, T.FINISH, s, 0, 0)
    st[S_LAPS] = P - 1
    for o in range(P):
        t.at_finish[o, 0] = visible_score(t.vis[o], rules)
        t.at_finish[o, 1] = t.fd[o]


# The rare events of a turn (a round's first flips, a finish, a stall, a hazard's flips) are compiled once
# and called; the common ones are inlined into the turn loop (see kernel/jit.py on why and what it costs).
@jit(inline="always")
def end_turn(t, rules):
    """The actor's turn is over: count it, settle the final lap or a finish; the next seat's turn follows."""
    st = t.st
    s = st[S_ACTOR]
    P = t.fd.shape[0]
    st[S_TURN] += 1
    laps = st[S_LAPS]
    if laps >= 0:
        st[S_LAPS] = laps - 1
        if laps - 1 == 0:
            _round_over(t)
            return NEXT_NONE
    elif t.fd[s] == 0:
        _finish(t, rules, s)
    st[S_ACTOR] = (s + 1) % P
    return NEXT_BEGIN


# ----------------------------------------------------------------- draw
@jit
def reshuffle(t, s):
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
                unseen(t.unknown, c, 1)
                n += 1
            piles[k, 0] = piles[k, plen - 1]
            st[S_PLEN0 + k] = 1
    shuffle_prefix(t.rng, draw, n)
    st[S_RESHUFFLES] += 1
    st[S_DPTR] = 0
    st[S_DEND] = n
    emit(t, T.RESHUFFLE, s, n, 0)
    for i in range(n):
        emit(t, T.CARD, -1, draw[i], 0)
    return n


@jit
def _stall(t, why):
    """The draw pile is empty and cannot be rebuilt: the turn counts, the round ends."""
    emit(t, T.STALL, -1, why, 0)
    t.st[S_STALLED] = why
    t.st[S_TURN] += 1
    _round_over(t)


@jit(inline="always")
def apply_source(t, rules, src):
    """Draw from ``src``; the placement of the card drawn is pending (or the round stalls)."""
    st = t.st
    s = st[S_ACTOR]
    if src == SRC_DRAW:
        if st[S_DPTR] == st[S_DEND]:
            if rules[R_RESHUFFLE_WHEN_EMPTY] == 0:
                _stall(t, T.STALL_NO_RESHUFFLE)
                return NEXT_NONE
            if reshuffle(t, s) == 0:
                _stall(t, T.STALL_NO_CARDS)
                return NEXT_NONE
        card = t.draw[st[S_DPTR]]
        st[S_DPTR] += 1
        unseen(t.unknown, card, -1)
    else:
        k = src - 1
        st[S_PLEN0 + k] -= 1
        card = t.piles[k, st[S_PLEN0 + k]]
    emit(t, T.DRAW, s, src, card)
    st[S_HAND] = card
    st[S_SRC] = src
    pub = t.obs.pub
    pub[O_DRAWN] = card
    pub[O_FROM_PILE] = src - 1
    _ask(t, DEC_PLACE, s)
    return NEXT_NONE


# ----------------------------------------------------------------- keep and bounce
@jit(inline="always")
def _bounce_pending(t, rules, cand, was_down, filled):
    """``cand`` came off the layout: leave a bounce of it pending if one is possible (True)."""
    s = t.st[S_ACTOR]
    if rules[R_BOUNCING] != 0 and was_down and matches_face_up(t, cand, s) and filled != (1 << LAYOUT) - 1:
        t.st[S_HAND] = cand
        t.st[S_FILLED] = filled
        t.obs.pub[O_DRAWN] = cand
        _ask(t, DEC_BOUNCE, s)
        return True
    return False


@jit(inline="always")
def apply_place(t, rules, pos):
    """Put the card in hand at ``pos`` (or not keep it, ``CHOICE_NOKEEP``)."""
    s = t.st[S_ACTOR]
    cand = t.st[S_HAND]
    if pos == CHOICE_NOKEEP:
        emit(t, T.NOKEEP, s, 0, 0)
    else:
        was_down = t.up[s, pos] == 0
        cand = put(t, s, pos, cand)
        emit(t, T.PLACE, s, pos, cand)
        if _bounce_pending(t, rules, cand, was_down, 1 << pos):
            return NEXT_NONE
    t.st[S_HAND] = cand
    return NEXT_DISCARD


@jit(inline="always")
def apply_bounce(t, rules, target):
    """Bounce the card in hand onto ``target`` (or stop, ``CHOICE_STOP``)."""
    st = t.st
    cand = st[S_HAND]
    if target != CHOICE_STOP:
        s = st[S_ACTOR]
        was_down = t.up[s, target] == 0
        cand = put(t, s, target, cand)
        emit(t, T.BOUNCE, s, target, cand)
        if _bounce_pending(t, rules, cand, was_down, st[S_FILLED] | (1 << target)):
            return NEXT_NONE
    st[S_HAND] = cand
    return NEXT_DISCARD


# ----------------------------------------------------------------- discard
@jit(inline="always")
def _to_discard(t, rules):
    """The actor must get rid of the card in hand: remove a hazard (the others' flips follow), put it
    on the only pile that holds a card, or leave the choice of pile pending."""
    st = t.st
    s = st[S_ACTOR]
    card = st[S_HAND]
    t.obs.pub[O_DRAWN] = card
    if card == HAZARD:
        st[S_REMOVED] += 1
        emit(t, T.DISCARD, s, T.DISCARD_REMOVED, card)
        st[S_NEXT] = 1
        return NEXT_FLIPS
    n0 = st[S_PLEN0]
    n1 = st[S_PLEN0 + 1]
    if n0 == 0 and n1 > 0:
        return apply_discard(t, rules, 0)
    if n1 == 0 and n0 > 0:
        return apply_discard(t, rules, 1)
    _ask(t, DEC_DISCARD, s)
    return NEXT_NONE


@jit(inline="always")
def apply_discard(t, rules, k):
    """Put the card in hand on discard pile k; the turn is over."""
    st = t.st
    card = st[S_HAND]
    t.piles[k, st[S_PLEN0 + k]] = card
    st[S_PLEN0 + k] += 1
    emit(t, T.DISCARD, st[S_ACTOR], k, card)
    return NEXT_END_TURN


@jit
def _offer_hazard_flips(t, rules):
    """After the actor removed a hazard: offer a flip to seats actor + st[S_NEXT], ..., actor + P - 1
    (in turn order) that still have enough face-down cards; once none is left, the turn is over."""
    P = t.fd.shape[0]
    s = t.st[S_ACTOR]
    pub = t.obs.pub
    for i in range(t.st[S_NEXT], P):
        o = (s + i) % P
        if t.fd[o] < HAZARD_FLIP_MIN_FACE_DOWN:
            emit(t, T.HAZARD_FLIP, o, T.HFLIP_NOT_ALLOWED, 0)
            continue
        pub[O_ME] = o
        t.st[S_NEXT] = i
        _ask(t, DEC_HAZARD_FLIP, o)
        return NEXT_NONE
    pub[O_ME] = s
    return NEXT_END_TURN


@jit
def apply_hazard_flip(t, rules, pos):
    """The deciding seat turns ``pos`` face up (or declines, ``CHOICE_DECLINE``); the next seat is offered."""
    o = t.st[S_SEAT]
    if pos == CHOICE_DECLINE:
        emit(t, T.HAZARD_FLIP, o, T.HFLIP_DECLINED, 0)
    else:
        reveal(t, o, pos)
        emit(t, T.HAZARD_FLIP, o, pos, t.lay[o, pos])
    t.st[S_NEXT] += 1
    return NEXT_FLIPS


# ----------------------------------------------------------------- up to the next decision
@jit(inline="always")
def advance(t, rules, nxt):
    """Run the automatic events that follow (``nxt``, a NEXT_* code) up to the next decision or the
    round's end."""
    while nxt != NEXT_NONE:
        if nxt == NEXT_DISCARD:
            nxt = _to_discard(t, rules)
        elif nxt == NEXT_FLIPS:
            nxt = _offer_hazard_flips(t, rules)
        elif nxt == NEXT_END_TURN:
            nxt = end_turn(t, rules)
        else:
            begin_turn(t, rules, t.st[S_ACTOR])
            nxt = NEXT_NONE


@jit
def offer_hazard_flips(t, rules, first):
    """Enter a hazard's flips (a rollout of a hazard-flip position): the actor has just removed a
    hazard; offer the seats ``first``, ..., P - 1 places after it, then go on to the next decision."""
    t.st[S_NEXT] = first
    advance(t, rules, NEXT_FLIPS)


@jit
def offer_bounce(t, rules, s, card, src, filled):
    """Enter a bounce (a rollout of a bounce decision): seat s's turn is in progress (its card drawn
    from ``src``), ``card`` came off its layout and is in hand, the positions ``filled`` (bit q) were
    filled this turn; seat s's bounce decision is pending."""
    st = t.st
    st[S_ACTOR] = s
    t.turns[s] += 1
    fill_pub(t, rules, s)
    st[S_SRC] = src
    st[S_HAND] = card
    st[S_FILLED] = filled
    t.obs.pub[O_FROM_PILE] = src - 1
    t.obs.pub[O_DRAWN] = card
    _ask(t, DEC_BOUNCE, s)
