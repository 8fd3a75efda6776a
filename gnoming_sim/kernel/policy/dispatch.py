"""Strategy decisions inside the jitted core: one function per decision point.

Every function takes ``(kind, params, rng, obs, memo, ...)``: the strategy's family
(``KIND_RANDOM``: uniform over the legal choices; ``KIND_HEURISTIC``; ``KIND_LEARNED``; ``KIND_CARD_STARRED``,
whose draw source and placement follow the card's starred cells and the rest the heuristic; ``KIND_CARD``, the
same lookup in card mode: every cell of the printed card and its defaults (with net's answers in the classes of
decisions ``params[K_NET_CLASSES]`` names: a measurement); ``KIND_NET_CELLS``, net except at a
draw source or placement whose card cell is set; ``KIND_RULES``, the pocket rules at every decision
(:mod:`gnoming_sim.kernel.policy.rules`; net's answers in the classes ``params[K_NET_CLASSES]`` names, as the card); ``KIND_VALUE``, which decides here as net (its
value-network decisions are :mod:`gnoming_sim.search.value_player`'s); ``KIND_MC``, which
decides here as the heuristic with its base policy's parameters: its rollout decisions are
made by the bot of :mod:`gnoming_sim.search.bot`, which asks this module for everything else),
its parameters (float64[N_PARAMS], read-only: the heuristic's, then the Monte Carlo settings M_*), the game's random stream, the public observation
(:class:`gnoming_sim.kernel.state.Obs`) and the strategy's own notes for this turn
(:class:`Memo`), plus a ``legal`` mask computed by the kernel;
it returns a choice that the mask allows (answers as in :mod:`gnoming_sim.game.observation`).
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gnoming_sim.game.cards import HIDDEN
from gnoming_sim.game.observation import N_CHOICES, N_SOURCES, O_ME
from gnoming_sim.game.rules import LAYOUT
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.kinds import KIND_CARD, KIND_CARD_STARRED, KIND_HEURISTIC, KIND_LEARNED, KIND_MC, KIND_NET, \
    KIND_NET_CELLS, KIND_RANDOM, KIND_RULES, KIND_VALUE
from gnoming_sim.kernel import value as V
from gnoming_sim.kernel.policy import card as C
from gnoming_sim.kernel.policy import heuristic as H
from gnoming_sim.kernel.policy import learned as L
from gnoming_sim.kernel.policy import net as NN
from gnoming_sim.kernel.policy import net_source as NSRC
from gnoming_sim.kernel.policy import rules as R
from gnoming_sim.kernel.policy.estimate import N_SCRATCH
from gnoming_sim.kernel.rng import below
from gnoming_sim.kernel.state import (
    DEC_BOUNCE,
    DEC_DISCARD,
    DEC_HAZARD_FLIP,
    DEC_INIT_FLIP,
    DEC_PLACE,
    DEC_SOURCE,
    S_HAND,
    S_PENDING,
    S_SEAT,
    seat_params,
)
from gnoming_sim.kernel.step import legal_actions


# the Monte Carlo settings, after the heuristic's parameters in the same vector (0 for other kinds)
M_BUDGET = H.N_PARAMS      # rollouts per option per decision
M_WIDTH = H.N_PARAMS + 1   # placements rolled out besides the base choice, no-keep and finishing
# adaptive allocation (search.allocate) and the extra rollout decisions; 0 everywhere: the fixed-budget mc
M_ADAPTIVE = H.N_PARAMS + 2   # 1: drop options by paired tests, stop early (then M_BUDGET: most per option)
M_MIN = H.N_PARAMS + 3        # rollouts per option before any option is dropped
M_MAX = H.N_PARAMS + 4        # most rollouts per decision, every option together (0: no cap)
M_Z = H.N_PARAMS + 5          # drop an option when its paired mean difference exceeds -eps by z standard errors
M_EPS = H.N_PARAMS + 6        # the indifference margin, in points
M_BOUNCE = H.N_PARAMS + 7     # 1: bounces by rollouts too
M_HAZARD = H.N_PARAMS + 8     # 1: hazard flips by rollouts too
M_LEARNED = H.N_PARAMS + 9    # the base policy: 0 the heuristic, 1 the learned family (its weights at L_W0), 2 the net
                              # family (its weights at N_W0 and NS_W0)
M_KEEP = H.N_PARAMS + 10      # > 0: keep the base policy's answer unless the best is better by this many standard
                              # errors of their paired difference (0: the lowest mean, whatever the evidence)
MC_PARAM_NAMES = ("mc_budget", "mc_width", "mc_adaptive", "mc_min", "mc_max", "mc_z", "mc_eps", "mc_bounce",
                  "mc_hazard_flip", "mc_learned_base", "mc_keep")
# Memo.plan[MEMO_COUNTERS:]: the game's counters for measurements, never reset within a game (engine.simulate's
# ``counters``).  [MEMO_MC_COST + 2 j] / [... + 1]: decisions of kind j (search.bot.COST_*) the table's MC seats
# decided by rollouts, and the rollouts they ran; [MEMO_RULE] / [MEMO_RULE + 1]: decisions where a KIND_NET_CELLS
# seat's set cell applied, and those where its answer differed from net's own
MEMO_COUNTERS = MEMO_MC_COST = H.N_MEMO_PLAN
MEMO_RULE = H.N_MEMO_PLAN + 8
N_MEMO_PLAN = H.N_MEMO_PLAN + 10
N_COUNTERS = N_MEMO_PLAN - MEMO_COUNTERS
# the learned family's weights (kernel.policy.learned) follow the Monte Carlo settings (0 for other kinds)
L_W0 = H.N_PARAMS + len(MC_PARAM_NAMES)
# the card family's cells (kernel.policy.card: one action per cell, 0 = not resolved) follow them (0 for other kinds)
C_W0 = L_W0 + L.N_WEIGHTS
# the net family's weights (kernel.policy.net) follow the card's cells (0 for other kinds)
N_W0 = C_W0 + C.N_CELLS
# the net family's draw-source head follows (kernel.policy.net: NS_W0 + NN.S_ON is 0 where a weights file has none,
# and the draw source is then learned's)
NS_W0 = N_W0 + NN.N_WEIGHTS
# the value network's weights (kernel.value) follow (0 for other kinds than KIND_VALUE)
V_W0 = NS_W0 + NN.N_SOURCE_WEIGHTS
# the pocket rules' settings (kernel.policy.rules) follow (0 for other kinds than KIND_RULES)
R_W0 = V_W0 + V.N_WEIGHTS
# a KIND_CARD or KIND_RULES seat's classes of decisions answered by net instead (a bit set of NETC_*; 0: its own
# answers everywhere), to measure what each class of its answers costs or wins in whole games (net's weights must
# then be in the vector)
K_NET_CLASSES = R_W0 + R.N_RULE_PARAMS
N_PARAMS = K_NET_CLASSES + 1
# the classes: the draw source; finish or play on; keep or throw away; a kept card over a face-up card or a face-down
# one; which position (both over face-up cards, or both over face-down ones); a bounce; a flip for a rival's hazard;
# the discard pile; the first flips (the last three are net's heuristic's: the card plays them so anyway)
NETC_SOURCE, NETC_FINISH, NETC_KEEP, NETC_UPDOWN, NETC_WHICH, NETC_BOUNCE = 1, 2, 4, 8, 16, 32
NETC_HAZARD, NETC_PILE, NETC_INIT = 64, 128, 256
NETC_NAMES = ("take or draw", "finish or play on", "keep or throw away", "over a face-up or a face-down card",
              "which position", "bounce", "a rival's hazard", "which pile", "first flips")

__all__ = ["KIND_RANDOM", "KIND_HEURISTIC", "KIND_MC", "KIND_LEARNED", "KIND_CARD_STARRED", "KIND_CARD", "KIND_NET",
           "KIND_NET_CELLS", "KIND_VALUE", "KIND_RULES", "MEMO_RULE", "K_NET_CLASSES", "NETC_NAMES", "L_W0", "C_W0", "N_W0", "NS_W0", "V_W0", "R_W0", "M_BUDGET", "M_WIDTH", "M_LEARNED",
           "MC_PARAM_NAMES", "N_PARAMS", "N_MEMO_PLAN", "N_SCRATCH", "Memo", "new_memo", "base_kind", "decide", "decide_hr",
           "families_known_to_hr"]

Memo = namedtuple("Memo", ["plan", "scratch"])
Memo.__doc__ = """A strategy's own notes within one turn (reset at the start of every turn: heuristic.new_turn).

    plan    int64[N_MEMO_PLAN]    the pile top a draw decision planned for and where (MEMO_*)
    scratch float64[MEMO_SCRATCH]   the heuristic's per-layout precompute (kernel.policy.estimate), then
                                  the learned family's feature buffer (kernel.policy.learned), then the
                                  net family's context inputs and hidden context (kernel.policy.net)
"""


MEMO_SCRATCH = max(L.N_MEMO_SCRATCH, NN.N_MEMO_SCRATCH)


@jit(py=True, nrt=True)
def new_memo():
    """A fresh :class:`Memo` (the table's ``memo``: :func:`gnoming_sim.kernel.state.new_table`)."""
    return Memo(np.zeros(N_MEMO_PLAN, dtype=np.int64), np.zeros(MEMO_SCRATCH, dtype=np.float64))


@jit
def pick_uniform(rng, legal, n):
    """A uniform index among ``legal[:n] != 0`` (at least one must be set)."""
    count = 0
    for i in range(n):
        if legal[i]:
            count += 1
    k = below(rng, count)
    for i in range(n):
        if legal[i]:
            if k == 0:
                return i
            k -= 1
    return -1


@jit
def initial_flips(kind, params, rng, obs, out):
    """Write the two positions to turn face up at the start of a round into ``out[0:2]``."""
    if kind == KIND_RULES and not _net_class(params, NETC_INIT):
        R.initial_flips(params, R_W0, out)
        return
    if kind != KIND_RANDOM:
        H.initial_flips(params, out)
        return
    a = below(rng, LAYOUT)
    b = below(rng, LAYOUT - 1)
    if b >= a:
        b += 1
    out[0] = a
    out[1] = b


@jit(inline="always")
def _count_rule(memo, applied, changed):
    """Count a KIND_NET_CELLS decision in the memo's rule counters (:data:`MEMO_RULE`)."""
    if applied:
        memo.plan[MEMO_RULE] += 1
        if changed:
            memo.plan[MEMO_RULE + 1] += 1


@jit(inline="always")
def draw_source(kind, params, rng, obs, memo, legal):
    """0 = draw pile, 1 / 2 = discard pile 0 / 1; ``legal`` int8[N_SOURCES]."""
    if kind == KIND_NET or ((kind == KIND_CARD or kind == KIND_RULES) and _net_class(params, NETC_SOURCE)):
        return NSRC.draw_source(params, NS_W0, L_W0, obs, memo, legal)
    if kind == KIND_RULES:
        return R.draw_source(params, R_W0, obs, legal)
    if kind == KIND_NET_CELLS:
        own = NSRC.draw_source(params, NS_W0, L_W0, obs, memo, legal)
        a, applied = C.cells_source(params, C_W0, obs, legal, own)
        _count_rule(memo, applied, a != own)
        return a
    if kind == KIND_LEARNED:
        return L.draw_source(params, L_W0, obs, memo, legal)
    if kind == KIND_CARD_STARRED or kind == KIND_CARD:
        return C.draw_source(params, C_W0, obs, memo, legal, kind == KIND_CARD)
    if kind != KIND_RANDOM:
        return H.draw_source(params, obs, memo, legal)
    return pick_uniform(rng, legal, N_SOURCES)


@jit(inline="always")
def placement(kind, params, rng, obs, memo, card, legal):
    """Position 0..8 to place ``card``, or ``CHOICE_NOKEEP``; ``legal`` int8[N_CHOICES]."""
    if kind == KIND_LEARNED:
        return L.placement(params, L_W0, obs, memo, card, legal)
    if kind == KIND_NET:
        return NN.placement(params, N_W0, obs, memo, card, legal)
    if (kind == KIND_CARD or kind == KIND_RULES) and _net_class(params, NETC_FINISH | NETC_KEEP | NETC_UPDOWN
                                                                | NETC_WHICH):
        return _own_or_net_placement(kind, params, obs, memo, card, legal)
    if kind == KIND_RULES:
        return R.placement(params, R_W0, obs, card, legal)
    if kind == KIND_NET_CELLS:
        own = NN.placement(params, N_W0, obs, memo, card, legal)
        a, applied = C.cells_placement(params, C_W0, obs, memo, card, legal, own)
        _count_rule(memo, applied, a != own)
        return a
    if kind == KIND_CARD_STARRED or kind == KIND_CARD:
        return C.placement(params, C_W0, obs, memo, card, legal, kind == KIND_CARD)
    if kind != KIND_RANDOM:
        return H.placement(params, obs, memo, card, legal)
    return pick_uniform(rng, legal, N_CHOICES)


@jit(inline="always")
def _net_class(params, bits):
    """Whether a card seat answers any of the classes ``bits`` (NETC_*) by net."""
    return (int(params[K_NET_CLASSES]) & bits) != 0


@jit
def _own_or_net_placement(kind, params, obs, memo, card, legal):
    """A card or rules seat's placement where some placement classes are net's: its own answer, or net's where the two
    part in a class given to net (finish or play on: one of them covers the finishing slot; keep or throw away: one
    of them throws the card away; over a face-up card or a face-down one: one of each; else which position)."""
    if kind == KIND_RULES:
        a = R.placement(params, R_W0, obs, card, legal)
    else:
        a = C.placement(params, C_W0, obs, memo, card, legal, True)
    n = NN.placement(params, N_W0, obs, memo, card, legal)
    if n == a:
        return a
    q_fin = C.finish_slot(obs)
    if q_fin >= 0 and legal[q_fin] and (a == q_fin) != (n == q_fin):
        cls = NETC_FINISH
    elif a >= LAYOUT or n >= LAYOUT:
        cls = NETC_KEEP
    else:
        row = obs.vis[obs.pub[O_ME]]
        cls = NETC_UPDOWN if (row[a] == HIDDEN) != (row[n] == HIDDEN) else NETC_WHICH
    return n if _net_class(params, cls) else a


@jit(inline="always")
def bounce_target(kind, params, rng, obs, memo, card, legal):
    """Position 0..8 to bounce ``card`` onto, or ``CHOICE_STOP``; ``legal`` int8[N_CHOICES]."""
    if kind == KIND_LEARNED:
        return L.bounce_target(params, L_W0, obs, memo, card, legal)
    if kind == KIND_NET or kind == KIND_NET_CELLS or ((kind == KIND_CARD or kind == KIND_RULES)
                                                      and _net_class(params, NETC_BOUNCE)):
        return NN.bounce_target(params, N_W0, obs, memo, card, legal)
    if kind == KIND_RULES:
        return R.bounce_target(params, R_W0, obs, card, legal)
    if kind != KIND_RANDOM:
        return H.bounce_target(params, obs, memo, card, legal)
    return pick_uniform(rng, legal, N_CHOICES)


@jit(inline="always")
def discard_pile(kind, params, rng, obs, memo, card):
    """Pile 0 or 1 for ``card`` when both piles are allowed."""
    if kind == KIND_RULES and not _net_class(params, NETC_PILE):
        return R.discard_pile(params, R_W0, obs.pub)
    if kind != KIND_RANDOM:
        return H.discard_pile(obs.pub)
    return below(rng, 2)


@jit(inline="always")
def hazard_flip(kind, params, rng, obs, legal):
    """Position 0..8 to turn face up after an opponent's hazard, or ``CHOICE_DECLINE``; ``legal`` int8[N_CHOICES].

    Decided out of turn: no memo (the notes belong to the player whose turn it is)."""
    if kind == KIND_RULES and not _net_class(params, NETC_HAZARD):
        return R.hazard_flip(params, R_W0, obs, legal)
    if kind != KIND_RANDOM:
        return H.hazard_flip(params, obs, legal)
    return pick_uniform(rng, legal, N_CHOICES)


@jit(inline="always")
def base_kind(kind, params):
    """The family that decides for a seat of family ``kind`` outside rollouts: a Monte Carlo seat's base
    policy (the heuristic; the learned family when ``params[M_LEARNED]`` is 1, the net family when it is 2),
    a value seat's net (its decisions by the value network are the value player's, search.value_player), else
    ``kind`` itself."""
    if kind == KIND_VALUE:
        return KIND_NET
    if kind == KIND_MC:
        b = params[M_LEARNED]
        if b > 1.5:
            return KIND_NET
        return KIND_LEARNED if b > 0.0 else KIND_HEURISTIC
    return kind


# Two families of dispatchers, so that a batch compiles only the families its seats play: the
# ``*_hr`` functions know only the random and heuristic families (the presets but ``learned``, ``net``,
# ``card-starred`` and ``card``, and a Monte Carlo seat's heuristic base), the unmarked ones every family.  A game loop
# names the one it needs (``game_loop.play_out_hr`` / ``play_out_base``), so greedy's first game
# never compiles the learned or card players.
@jit(inline="always")
def draw_source_hr(kind, params, rng, obs, memo, legal):
    """:func:`draw_source` for the random and heuristic families only."""
    if kind != KIND_RANDOM:
        return H.draw_source(params, obs, memo, legal)
    return pick_uniform(rng, legal, N_SOURCES)


@jit(inline="always")
def placement_hr(kind, params, rng, obs, memo, card, legal):
    """:func:`placement` for the random and heuristic families only."""
    if kind != KIND_RANDOM:
        return H.placement(params, obs, memo, card, legal)
    return pick_uniform(rng, legal, N_CHOICES)


@jit(inline="always")
def bounce_target_hr(kind, params, rng, obs, memo, card, legal):
    """:func:`bounce_target` for the random and heuristic families only."""
    if kind != KIND_RANDOM:
        return H.bounce_target(params, obs, memo, card, legal)
    return pick_uniform(rng, legal, N_CHOICES)


@jit(inline="always")
def _decide_with(t, rules, source_f, place_f, bounce_f):
    """The pending decision answered through the family dispatchers given (inlined: they are only called)."""
    legal_actions(t, rules)
    st = t.st
    kind = st[S_PENDING]
    s = st[S_SEAT]
    prm = seat_params(t, s)
    k = base_kind(t.kinds[s], prm)
    if kind == DEC_SOURCE:
        return source_f(k, prm, t.rng, t.obs, t.memo, t.legal)
    if kind == DEC_PLACE:
        return place_f(k, prm, t.rng, t.obs, t.memo, st[S_HAND], t.legal)
    if kind == DEC_BOUNCE:
        return bounce_f(k, prm, t.rng, t.obs, t.memo, st[S_HAND], t.legal)
    if kind == DEC_DISCARD:
        return discard_pile(k, prm, t.rng, t.obs, t.memo, st[S_HAND])
    if kind == DEC_HAZARD_FLIP:
        return hazard_flip(k, prm, t.rng, t.obs, t.legal)
    if kind == DEC_INIT_FLIP:
        initial_flips(k, prm, t.rng, t.obs, t.flips)
        return t.flips[0] * LAYOUT + t.flips[1]
    return -1


@jit(inline="always")
def decide(t, rules):
    """The pending decision of table ``t`` (:mod:`gnoming_sim.kernel.step`), answered by the deciding
    seat's strategy from its observation and memo: the base decision function of every game loop."""
    return _decide_with(t, rules, draw_source, placement, bounce_target)


@jit(inline="always")
def decide_hr(t, rules):
    """:func:`decide` for tables whose seats are all of the random or heuristic family (what
    :func:`base_kind` makes of them): the learned and card players are not compiled."""
    return _decide_with(t, rules, draw_source_hr, placement_hr, bounce_target_hr)


def families_known_to_hr(kinds, params) -> bool:
    """Whether every strategy (``kinds`` int64[S], ``params`` float64[S, N_PARAMS]) decides, outside
    rollouts, as the random or heuristic family: then :func:`decide_hr` serves the table."""
    for k, prm in zip(kinds, params):
        k = int(k)
        if k == KIND_MC:
            if prm[M_LEARNED] > 0.0:
                return False
        elif k not in (KIND_RANDOM, KIND_HEURISTIC):
            return False
    return True
