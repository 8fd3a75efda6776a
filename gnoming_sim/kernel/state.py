"""The state of one game in the jitted core, as one record, and the function that allocates it.

Every kernel function below the batch kernels (:func:`gnoming_sim.kernel.game_loop.play_range_base` and
its kin) receives the game's state as one :class:`Table` (a numba-supported named tuple of arrays)
instead of dozens of positional arrays, so two arrays of the same type cannot be swapped by
position.  A batch kernel calls :func:`new_table` once per game: every array a game writes is that
game's own, which is what keeps the blocks that threads play side by side free of races (the
strategy tables, rules and deck they read are shared and read-only).

A strategy is handed only :class:`Obs` (what every player sees, RULES.md §7) and its own
memo (notes it keeps between the decisions of one turn, a record the policy package defines
and allocates); the true layouts and the draw pile order are not in either.

The table also carries its *pending decision* (``st[S_PENDING]`` and its context, the ``S_*``
slots after it): :func:`gnoming_sim.kernel.step.legal_actions` and
:func:`gnoming_sim.kernel.step.step` read it, and nothing else tells the rules who is asking.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from gnoming_sim.game.cards import N_SLOTS
from gnoming_sim.game.observation import N_CHOICES, N_OBS
from gnoming_sim.game.rules import LAYOUT
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.scoring import N_PARTS

# ``Table.st``: the table's scalars
S_DPTR = 0        # draw pile: draw[st[S_DPTR]:st[S_DEND]], top first
S_DEND = 1
S_PLEN0 = 2       # S_PLEN0 + k: cards on discard pile k
S_REMOVED = 4     # hazards removed from play this round
S_TURN = 5        # turns played in this round (all seats)
S_FINISHER = 6    # seat that finished, -1 if none
S_STALLED = 7     # NOT_STALLED, or the trace's STALL_* reason
S_FINISH_TURN = 8
S_RESHUFFLES = 9  # reshuffles in this round
# the pending decision (what :func:`gnoming_sim.kernel.step.step` expects next) and its context
S_PENDING = 10    # DEC_*: the kind of the pending decision; DEC_NONE once the round is over
S_SEAT = 11       # the seat that decides it
S_ACTOR = 12      # the seat whose turn it is (a hazard flip is decided out of turn)
S_HAND = 13       # the card in hand: drawn (DEC_PLACE), bounced (DEC_BOUNCE), to discard (DEC_DISCARD)
S_SRC = 14        # the drawn card's source (SRC_DRAW or 1 + pile)
S_FILLED = 15     # bounce: bit q set once position q was filled this turn
S_NEXT = 16       # initial flips: the index of the deciding seat after the starter; hazard flips: after the discarder
S_LAPS = 17       # -1 before anybody finished, else the final-lap turns left (the actor's included)
S_ROUND = 18      # the round being played (0..2) ...
S_STARTER = 19    # ... and the seat that started it
N_ST = 20

# ``st[S_PENDING]``: the decisions of RULES.md §3, in the order a round asks them
DEC_NONE = 0        # the round is over (finished, stalled or out of turns)
DEC_INIT_FLIP = 1   # the N_FLIPS cards to turn face up at the start of a round: action a * LAYOUT + b
DEC_SOURCE = 2      # draw pile (SRC_DRAW) or a discard pile (1 + k)
DEC_PLACE = 3       # a position 0..8 for the card in hand, or CHOICE_NOKEEP
DEC_BOUNCE = 4      # a position 0..8 to bounce the card in hand to, or CHOICE_STOP
DEC_DISCARD = 5     # discard pile 0 or 1 (asked only when both piles, or neither, hold a card)
DEC_HAZARD_FLIP = 6  # a face-down position 0..8 to turn up for another's hazard, or CHOICE_DECLINE

NOT_STALLED = -1
N_FLIPS = 2       # cards each player turns face up at the start of a round
RNG_WORDS = 4     # xoshiro256** state

Obs = namedtuple("Obs", ["pub", "vis", "fd", "unknown", "scores"])
Obs.__doc__ = """What a strategy sees (layout in :mod:`gnoming_sim.game.observation`).

    pub     int64[N_OBS]      public scalars (O_*)
    vis     int8[P, LAYOUT]   every layout as seen: the card if face up, HIDDEN if face down
    fd      int64[P]          face-down cards per seat
    unknown int64[N_SLOTS]    unseen cards per code, with running totals in U_COUNT / U_FACES / U_NEGATIVES
    scores  int64[P]          game scores of the finished rounds
"""

Table = namedtuple("Table", ["lay", "up", "vis", "fd", "draw", "piles", "unknown", "st", "scores",
                             "turns", "at_finish", "kinds", "params", "rng", "obs", "memo", "legal",
                             "flips", "parts", "tr", "tn"])
Table.__doc__ = """One game's state and workspace (allocated by :func:`new_table`).

    lay       int8[P, LAYOUT]     true cards of every layout, row-major
    up        int8[P, LAYOUT]     1 if face up
    vis       int8[P, LAYOUT]     what everyone sees: lay where up, else HIDDEN  (= obs.vis)
    fd        int64[P]            face-down count per seat                       (= obs.fd)
    draw      int8[N]             the draw pile (see S_DPTR)
    piles     int8[2, N]          discard piles, bottom first: piles[k, :st[S_PLEN0 + k]]
    unknown   int64[N_SLOTS]      unseen cards per code (card counting, public)  (= obs.unknown)
    st        int64[N_ST]         scalars (S_*)
    scores    int64[P]            game scores so far                             (= obs.scores)
    turns     int64[P]            turns of each seat in this round
    at_finish int64[P, 2]         per seat, visible score and face-down count when somebody finished
    kinds     int64[2P]           strategy family per seat (kinds[s]), then the row of ``params`` it
                                  plays (kinds[P + s]: :func:`seat_params`)
    params    float64[S, N_PARAMS] the batch's strategy parameters (shared, read-only): seat s plays row kinds[P + s]
    rng       uint64[RNG_WORDS]   the game's random stream
    obs       Obs                 the public observation handed to strategies
    memo      the deciding strategy's notes for this turn (the policy package's record,
              :func:`gnoming_sim.kernel.policy.dispatch.new_memo`; the kernel only hands it over)
    legal     int8[N_CHOICES]     the legal mask of the pending decision
    flips     int64[N_FLIPS]      initial flips chosen
    parts     int32[N_PARTS]      score parts of one layout
    tr        int32[cap, 4]       action trace (cap may be 0); tn int64[1] its length
"""


@jit(py=True, nrt=True)
def new_table(P, N, kinds, params, seat_strategy, tr, memo):
    """Allocate one game's :class:`Table` for P seats and an N-card deck.

    ``kinds`` int64[S] / ``params`` float64[S, n_params] describe the S strategies of the
    batch; ``seat_strategy`` int16[P] picks one per seat; ``tr`` is the game's trace buffer;
    ``memo`` the strategies' notes (allocated by the policy package, which alone knows their size).
    """
    seat_kinds = np.empty(2 * P, dtype=np.int64)   # no new field: every field is one more argument per call
    for s in range(P):
        j = seat_strategy[s]
        seat_kinds[s] = kinds[j]
        seat_kinds[P + s] = j
    vis = np.empty((P, LAYOUT), dtype=np.int8)
    fd = np.empty(P, dtype=np.int64)
    unknown = np.empty(N_SLOTS, dtype=np.int64)
    scores = np.zeros(P, dtype=np.int64)
    pub = np.zeros(N_OBS, dtype=np.int64)
    obs = Obs(pub, vis, fd, unknown, scores)
    return Table(np.empty((P, LAYOUT), dtype=np.int8), np.empty((P, LAYOUT), dtype=np.int8), vis, fd,
                 np.empty(N, dtype=np.int8), np.empty((2, N), dtype=np.int8), unknown,
                 np.zeros(N_ST, dtype=np.int64), scores, np.zeros(P, dtype=np.int64),
                 np.zeros((P, 2), dtype=np.int64), seat_kinds, params,
                 np.empty(RNG_WORDS, dtype=np.uint64), obs, memo, np.zeros(N_CHOICES, dtype=np.int8),
                 np.zeros(N_FLIPS, dtype=np.int64), np.zeros(N_PARTS, dtype=np.int32), tr,
                 np.zeros(1, dtype=np.int64))


@jit(inline="always")
def seat_params(t, s):
    """The parameter row of the strategy seat ``s`` plays (a view of the batch's ``params``, never a copy:
    with the learned, card and net weights a row is over a thousand numbers)."""
    return t.params[t.kinds[t.fd.shape[0] + s]]
