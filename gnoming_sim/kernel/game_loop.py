"""The jitted game loop: complete 3-round games of Gnoming A Round (RULES.md §2-§6).

A round is dealt and then played decision by decision through the action-level API
(:mod:`.step`: :func:`~gnoming_sim.kernel.step.play_out` asks a decision function and steps)
up to the last final-lap turn or a stall, then revealed and scored here; a game is three
rounds and its settlement; :func:`play_batch` plays many games in parallel, each from its own
streams and with its own state record (:mod:`.state`).

The decision function is an argument (a numba first-class function: the loop is compiled once
per function).  :func:`play_game_base` passes the policies' dispatcher; the Monte Carlo bot
(:mod:`gnoming_sim.search.bot`) passes its own, which asks the bot for MC seats.  Caching: a
dispatcher passed as a value into a compiled call is a "dynamic global" (its address), which
numba's on-disk cache refuses; so each such function names its decision function as a global,
and every function that takes a jitted function (:func:`play_one`, :func:`play_game`,
:func:`gnoming_sim.kernel.step.play_out`) is inlined into it, where the function is only called,
never passed.  Speed: the function the turn loop is inlined into is compiled without numba's
reference counting (``_nrt=False``, :mod:`.jit`); with it the loop ran 8x slower.
"""

import os
import threading
from collections import namedtuple

import numpy as np

from gnoming_sim.game import trace as T
from gnoming_sim.game.fields import (
    F_BONUS,
    F_FACEDOWN_AT_FINISH,
    F_FINISH_TURN,
    F_FINISHER,
    F_HAZARDS,
    F_LINES,
    F_MATCHED,
    F_NEGATIVES,
    F_SCORE,
    F_STALLED,
    F_START_SEAT,
    F_TURNS,
    F_UNMATCHED,
    F_VISIBLE_AT_FINISH,
)
from gnoming_sim.game.rules import (
    R_EARLY_FINISH_BONUS,
    R_FINISHER_TIE_IS_LOWEST,
    R_ROTATE_START,
    ROUNDS,
)
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.rng import STREAM_DEAL, STREAM_PLAY, seed_stream, shuffle_prefix
from gnoming_sim.kernel.scoring import (
    P_HAZARDS,
    P_LINES,
    P_MATCHED,
    P_NEGATIVES,
    P_UNMATCHED,
    score_parts,
)
from gnoming_sim.kernel.policy.dispatch import decide as decide_base
from gnoming_sim.kernel.policy.dispatch import decide_hr
from gnoming_sim.kernel.policy.dispatch import MEMO_COUNTERS, N_COUNTERS, new_memo
from gnoming_sim.kernel.state import N_ST, NOT_STALLED, RNG_WORDS, S_FINISH_TURN, S_FINISHER, S_STALLED, new_table
from gnoming_sim.kernel.step import play_out, start_round, step
from gnoming_sim.kernel.table import emit

NO_SCORE = 1 << 30  # larger than any score: the start of a running minimum


# ----------------------------------------------------------------- a round, a game
@jit
def score_round(t, rules, r, starter, out):
    """Reveal every layout, score it, apply the early-finish bonus; write out[r, seat, F_*]."""
    P = t.fd.shape[0]
    st = t.st
    parts = t.parts
    stalled = st[S_STALLED] != NOT_STALLED
    finisher = st[S_FINISHER]  # kept when the final lap stalls; the bonus is not paid then
    for s in range(P):
        total = score_parts(t.lay[s], rules, parts)
        o = out[r, s]
        o[F_SCORE] = total
        o[F_MATCHED] = parts[P_MATCHED]
        o[F_UNMATCHED] = parts[P_UNMATCHED]
        o[F_NEGATIVES] = parts[P_NEGATIVES]
        o[F_HAZARDS] = parts[P_HAZARDS]
        o[F_FINISHER] = 1 if s == finisher else 0
        o[F_BONUS] = 0
        o[F_TURNS] = t.turns[s]
        o[F_STALLED] = 1 if stalled else 0
        o[F_START_SEAT] = starter
        o[F_LINES] = parts[P_LINES]
        o[F_FINISH_TURN] = st[S_FINISH_TURN]
        o[F_VISIBLE_AT_FINISH] = t.at_finish[s, 0]
        o[F_FACEDOWN_AT_FINISH] = t.at_finish[s, 1]
    if finisher >= 0 and not stalled:
        mine = out[r, finisher, F_SCORE]
        best_other = NO_SCORE
        for s in range(P):
            if s != finisher and out[r, s, F_SCORE] < best_other:
                best_other = out[r, s, F_SCORE]
        lowest = mine < best_other or (mine == best_other and rules[R_FINISHER_TIE_IS_LOWEST] != 0)
        size = rules[R_EARLY_FINISH_BONUS]
        bonus = -size if lowest else size
        out[r, finisher, F_BONUS] = bonus
        out[r, finisher, F_SCORE] = mine + bonus


@jit
def settle_game(P, out, totals, win):
    """Game totals; lowest wins, tie broken by the lowest round-3 score, then shared."""
    best = NO_SCORE
    for s in range(P):
        total = 0
        for r in range(ROUNDS):
            total += out[r, s, F_SCORE]
        totals[s] = total
        if total < best:
            best = total
    best3 = NO_SCORE
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


@jit(nrt=True)
def self_play_table(game, seed, players, kinds, params, seat_strategy, deck):
    """``(t, order)``: a fresh untraced table for game ``game`` of ``seed`` with its play stream seeded as
    :func:`play_game` seeds it, and the game's deals ``order`` int8[3, N] (the self-play sampler,
    :mod:`gnoming_sim.search.sampler`, and the probes of :mod:`gnoming_sim.search.probe` start their rounds from it)."""
    N = deck.shape[0]
    t = new_table(players, N, kinds, params, seat_strategy, np.empty((0, 4), dtype=np.int32), new_memo())
    order = np.empty((ROUNDS, N), dtype=np.int8)
    deal_game(game, seed, deck, order, t.rng)
    seed_stream(t.rng, seed, game, STREAM_PLAY)
    for j in range(N_ST):
        t.st[j] = 0
    t.tn[0] = 0
    return t, order


@jit(py=True, nrt=True)
def deal_batch(first_game, seed, deck, orders, lo, hi):
    """``orders[i]`` = the deals of game ``first_game + i`` (exactly those :func:`play_game` plays), for
    ``i`` in ``lo .. hi - 1``: serial, handed to threads in blocks by :func:`run_blocks`.  It was the last
    numba ``parallel=True`` kernel: with none, numba's OpenMP layer never starts, so no process can fork
    with its threads running (a child that then enters a parallel region hangs)."""
    rng = np.empty(RNG_WORDS, dtype=np.uint64)
    for i in range(lo, hi):
        deal_game(first_game + i, seed, deck, orders[i], rng)


# the inputs and outputs of a batch of games (numba named tuples: one record each, so no two
# arrays can be swapped by position)
Games = namedtuple("Games", ["first_game", "seed", "players", "seat_strategy", "kinds", "params", "rules",
                             "deck", "deck_counts", "orders", "use_given"])
Games.__doc__ = """What a batch of G games plays (built by :func:`gnoming_sim.kernel.engine.simulate`).

    first_game    int64                 game i of the batch is global game first_game + i
    seed          uint64                the master seed
    players       int64                 P
    seat_strategy int16[G, P]           strategy index per seat
    kinds         int64[S]              family of each strategy;  params float64[S, N_PARAMS]
    rules         int64[N_RULES]        RuleConfig.to_array();  deck int8[N];  deck_counts int64[N_SLOTS]
    orders        int8[G or 0, 3, N]    deck orders: input if ``use_given``, else written (if G)
"""
Results = namedtuple("Results", ["out", "totals", "win", "traces", "trace_len", "counters"])
Results.__doc__ = """What a batch of G games writes.

    out int32[G, 3, P, N_FIELDS];  totals int32[G, P];  win float64[G, P]
    traces int32[G or 0, cap, 4];  trace_len int64[G]
    counters int64[G or 0, N_COUNTERS]   the game's counters kept in its memo (dispatch.MEMO_COUNTERS), if G
"""


@jit(inline="always")
def play_game(t, game, seed, rules, deck, deck_counts, order, use_given, out, totals, win, play_round):
    """Play one complete game on the state record ``t`` (:func:`gnoming_sim.kernel.state.new_table`),
    each round dealt here and played by ``play_round(t, rules)`` (:func:`play_out_base`: every
    decision asked of a decision function).

    ``order`` int8[3, N]: the deck order of each round; it is filled from the game's deal
    stream unless ``use_given``.  ``out`` int32[3, P, N_FIELDS]; ``totals`` int32[P];
    ``win`` float64[P].  The contents of ``t`` on entry do not matter (every round resets them).
    """
    P = t.fd.shape[0]
    if not use_given:
        deal_game(game, seed, deck, order, t.rng)
    seed_stream(t.rng, seed, game, STREAM_PLAY)
    for i in range(N_ST):
        t.st[i] = 0
    for s in range(P):
        t.scores[s] = 0
    t.tn[0] = 0
    for r in range(ROUNDS):
        starter = r % P if rules[R_ROTATE_START] != 0 else 0
        start_round(t, rules, r, starter, order[r], deck_counts)
        play_round(t, rules)
        score_round(t, rules, r, starter, out)
        emit(t, T.ROUND_END, -1, r, 1 if t.st[S_STALLED] != NOT_STALLED else 0)
        for s in range(P):
            t.scores[s] += out[r, s, F_SCORE]
    settle_game(P, out, totals, win)


@jit(nrt=True, inline="always")
def play_one(g, res, i, play):
    """Game ``g.first_game + i`` of a batch, on a state record of its own (row i of ``res``), played by
    ``play`` (a jitted :func:`play_game` with its decision function: :func:`play_game_base`)."""
    N = g.deck.shape[0]
    if res.traces.shape[0] > 0:
        tr = res.traces[i]
    else:
        tr = np.empty((0, 4), dtype=np.int32)
    t = new_table(g.players, N, g.kinds, g.params, g.seat_strategy[i], tr, new_memo())
    if g.orders.shape[0] > 0:
        order = g.orders[i]
    else:
        order = np.empty((ROUNDS, N), dtype=np.int8)
    play(t, g.first_game + i, g.seed, g.rules, g.deck, g.deck_counts, order, g.use_given, res.out[i],
         res.totals[i], res.win[i])
    res.trace_len[i] = t.tn[0]
    if res.counters.shape[0] > 0:
        for j in range(N_COUNTERS):
            res.counters[i, j] = t.memo.plan[MEMO_COUNTERS + j]


@jit
def play_out_base(t, rules):
    """The round played on from its pending decision by the policies (:func:`gnoming_sim.kernel.step.play_out`
    with :func:`gnoming_sim.kernel.policy.dispatch.decide`, every family): the one compiled copy of the
    full turn loop, shared by the games, the later rounds of a rollout and the MC probe.  Compiled without
    numba's reference counting (with it the loop ran 8x slower)."""
    play_out(t, rules, decide_base)


@jit(py=True)
def step_once(t, rules, action):
    """:func:`gnoming_sim.kernel.step.step`, compiled once and called (not inlined): every search path
    steps through it outside its hot loop (the collectors, the probes, a rollout's bounce, Python callers),
    so the ~500 lines of the turn are not compiled again for each of them."""
    step(t, rules, action)


@jit(py=True)
def decide_once(t, rules):
    """:func:`gnoming_sim.kernel.policy.dispatch.decide` (every family), compiled once and called: the
    search paths' base decisions outside their hot loop (:func:`step_once`)."""
    return decide_base(t, rules)


@jit
def play_out_hr(t, rules):
    """:func:`play_out_base` for tables of random and heuristic seats only
    (:func:`gnoming_sim.kernel.policy.dispatch.decide_hr`): the learned and card players are not compiled."""
    play_out(t, rules, decide_hr)


@jit
def play_game_base(t, game, seed, rules, deck, deck_counts, order, use_given, out, totals, win):
    """:func:`play_game` with the policies deciding (:func:`play_out_base`)."""
    play_game(t, game, seed, rules, deck, deck_counts, order, use_given, out, totals, win, play_out_base)


@jit
def play_game_hr(t, game, seed, rules, deck, deck_counts, order, use_given, out, totals, win):
    """:func:`play_game` with the random and heuristic families deciding (:func:`play_out_hr`)."""
    play_game(t, game, seed, rules, deck, deck_counts, order, use_given, out, totals, win, play_out_hr)


# The batch kernels are serial and release the GIL (``nogil``): :func:`play_blocks` hands blocks of
# games to a pool of Python threads.  A numba ``parallel=True`` loop did the same, but compiling its
# parfor cost more than the rest of the game loop; results are identical at any thread count either way,
# since every game draws from its own streams.
@jit(py=True, nrt=True)
def play_range_base(g, res, lo, hi):
    """Games ``lo .. hi - 1`` of ``g`` (:class:`Games`) into ``res`` (:class:`Results`), every family
    deciding (:func:`play_game_base`).

    Race freedom: each game allocates its whole mutable state with :func:`new_table` and writes only
    its row of the outputs; the strategy tables, rules and deck are shared and only read."""
    for i in range(lo, hi):
        # the game function is named here, and the functions it and the decision function are handed
        # down to (play_one; play_game, play_out) are inlined: a dispatcher passed as a value into a
        # compiled call is a "dynamic global", which numba refuses to cache
        play_one(g, res, i, play_game_base)


@jit(py=True, nrt=True)
def play_range_hr(g, res, lo, hi):
    """:func:`play_range_base` with the random and heuristic families only (:func:`play_game_hr`)."""
    for i in range(lo, hi):
        play_one(g, res, i, play_game_hr)


def play_blocks(kernel, g, res, block: int, threads: int | None = None) -> None:
    """Run ``kernel(g, res, lo, hi)`` over blocks of ``block`` games (:func:`run_blocks`)."""
    run_blocks(lambda lo, hi: kernel(g, res, lo, hi), g.seat_strategy.shape[0], block, threads)


def run_blocks(call, n: int, block: int, threads: int | None = None) -> None:
    """Run ``call(lo, hi)`` (a ``nogil`` kernel over items ``lo .. hi - 1``) over blocks of ``block`` of ``n``
    items on ``threads`` threads (None: numba's current thread count), handing out blocks as threads free up
    (no core idles at the end).  Every item draws its own streams, so results do not depend on the threads."""
    import numba

    blocks = [(lo, min(n, lo + block)) for lo in range(0, n, max(1, block))]
    k = min(len(blocks), threads or numba.get_num_threads())
    if k <= 1:
        for lo, hi in blocks:
            call(lo, hi)
        return
    # a cold cache compiles once: numba's dispatcher compiles under its global lock and the threads that
    # wait for it find the kernel compiled
    for _ in _threads(k).map(lambda b: call(b[0], b[1]), blocks):
        pass


_POOLS: dict = {}
_POOLS_LOCK = threading.Lock()


def _forget_pools() -> None:
    """In a forked child: its parent's pools have no threads there (a task sent to one would wait forever)."""
    global _POOLS_LOCK
    _POOLS.clear()
    _POOLS_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_forget_pools)


def _threads(k: int):
    """A pool of ``k`` threads, kept for the process: a search calls :func:`run_blocks` thousands of times
    with a few rollouts each (finish-or-play-on: 8 calls a decision), and starting the threads anew for
    each call cost more than the rollouts."""
    from concurrent.futures import ThreadPoolExecutor

    with _POOLS_LOCK:
        if k not in _POOLS:
            _POOLS[k] = ThreadPoolExecutor(k, thread_name_prefix="gnoming-sim-blocks")
        return _POOLS[k]
