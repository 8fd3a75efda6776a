"""Public engine API: validate, allocate, call the jitted kernel, wrap the results.

>>> res = simulate(players=4, strategies=("random",), games=1000, seed=1)
>>> res.round_stats.shape   # (games, 3, players, N_FIELDS)
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from gnoming_sim.game import cards
from gnoming_sim.kernel.policy import registry
from gnoming_sim.game.deck import PUBLISHED, Deck, check_players
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.fields import N_FIELDS, NAMES as FIELD_NAMES
from gnoming_sim.game.limits import MAX_GAME, MAX_SEED
from gnoming_sim.game.rules import ROUNDS, RuleConfig

DEFAULT_CHUNK = 16384
PARALLEL_CHUNK = 64  # games per block handed to a thread
MC_PARALLEL_CHUNK = 1  # with Monte Carlo seats a game takes ~0.1 s: one at a time keeps the threads even
TRACE_CAPACITY = 4096  # records per game; longer games are replayed with a larger buffer


@dataclass
class SimResult:
    """Results of a batch (shapes in the docstrings of :func:`simulate`)."""

    players: int
    games: int
    seed: int
    first_game: int
    rules: RuleConfig
    deck: Deck
    strategy_names: tuple[str, ...]
    seat_strategy: np.ndarray      # int16 (G, P)
    round_stats: np.ndarray        # int32 (G, 3, P, N_FIELDS)
    totals: np.ndarray             # int32 (G, P)
    win_credit: np.ndarray         # float64 (G, P)
    deals: np.ndarray | None = None    # int8 (G, 3, N) when traced or given
    traces: list | None = None         # G arrays int32 (n_i, 4) when traced
    counters: np.ndarray | None = None  # int64 (G, N_COUNTERS) when counted: Memo.plan[dispatch.MEMO_COUNTERS:]

    def to_frame(self):
        """Tidy frame: one row per (game, round, seat)."""
        import pandas as pd

        G, R, P = self.games, ROUNDS, self.players
        game = np.repeat(np.arange(self.first_game, self.first_game + G, dtype=np.int64), R * P)
        rnd = np.tile(np.repeat(np.arange(R, dtype=np.int8), P), G)
        seat = np.tile(np.arange(P, dtype=np.int8), G * R)
        strat_idx = np.repeat(self.seat_strategy[:, None, :], R, axis=1).reshape(-1)
        cols = {"game": game, "round": rnd, "seat": seat,
                "strategy": pd.Categorical.from_codes(strat_idx, categories=list(self.strategy_names))}
        flat = self.round_stats.reshape(-1, N_FIELDS)
        for j, name in enumerate(FIELD_NAMES):
            cols[name] = flat[:, j].copy()
        return pd.DataFrame(cols)


def _check_count(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise GnomingError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise GnomingError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def _check_last_game(first_game: int, games: int) -> None:
    """Game numbers are int64 in the kernels: the last one must fit."""
    if first_game + games - 1 > MAX_GAME:
        raise GnomingError(f"game numbers must fit in 0..2**63-1, got {first_game}..{first_game + games - 1}")


def _check_seed(seed) -> None:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= MAX_SEED:
        raise GnomingError(f"seed must be an integer in 0..2**64-1, got {seed!r}")


def seat_table(players: int, strategies, games: int, first_game: int, rotate: bool):
    """(distinct strategies, seat_strategy int16 (G, P)) from one strategy for all seats or one per seat."""
    if isinstance(strategies, (str, registry.Strategy)):
        strategies = [strategies]
    strategies = [registry.get(s) for s in strategies]
    if len(strategies) not in (1, players):
        raise GnomingError(f"give 1 strategy or one per seat ({players}), got {len(strategies)}")
    if len(strategies) == 1:
        strategies = strategies * players
    distinct = list({s.name: s for s in strategies}.values())
    names = [s.name for s in distinct]
    base = np.array([names.index(s.name) for s in strategies], dtype=np.int16)
    if rotate:
        g = np.arange(first_game, first_game + games, dtype=np.int64)[:, None]
        s = np.arange(players, dtype=np.int64)[None, :]
        table = base[(s + g) % players]
    else:
        table = np.broadcast_to(base, (games, players))
    # a copy, always writable: a read-only table (one game's broadcast row) would compile the game loop again
    return distinct, np.array(table, dtype=np.int16, order="C")


def strategy_arrays(strats) -> tuple[np.ndarray, np.ndarray]:
    """The kernels' view of a batch's distinct strategies: ``kinds`` int64[S] and ``params`` float64[S, N_PARAMS]
    (each strategy's parameter vector, one row per strategy)."""
    from gnoming_sim.kernel.policy.dispatch import N_PARAMS

    kinds = np.array([s.kind for s in strats], dtype=np.int64)
    params = np.zeros((len(strats), N_PARAMS), dtype=np.float64)
    for j, s in enumerate(strats):
        params[j] = s.param_vector()
    return kinds, params


def deck_counts(deck_arr: np.ndarray) -> np.ndarray:
    """int64[N_SLOTS]: the deck's cards per slot, with its size and face-value sums (``U_COUNT``,
    ``U_FACES``, ``U_NEGATIVES``: what ``table.unseen`` keeps up as cards are seen)."""
    counts = np.zeros(cards.N_SLOTS, dtype=np.int64)
    from gnoming_sim.game.observation import U_COUNT, U_FACES, U_NEGATIVES
    codes = deck_arr.astype(np.int64)
    np.add.at(counts, codes + cards.SLOT_OFFSET, 1)
    counts[U_COUNT] = codes.size
    faces = codes[(codes != cards.HAZARD) & (codes != cards.MULLIGAN)]
    counts[U_FACES] = int(faces.sum())
    counts[U_NEGATIVES] = int(faces[faces < 0].sum())
    return counts


def _check_deals(deals, games: int, deck_arr: np.ndarray) -> np.ndarray:
    deals = np.asarray(deals)
    want = (games, ROUNDS, deck_arr.shape[0])
    if deals.shape != want:
        raise GnomingError(f"deals must have shape {want}, got {deals.shape}")
    deals = np.ascontiguousarray(deals, dtype=np.int8)
    ref = np.sort(deck_arr)
    if not (np.sort(deals, axis=2) == ref).all():
        raise GnomingError("every deal must be a permutation of the deck")
    return deals.copy()


def batch_record(players: int, strategies, games: int, seed: int = 0, rules: RuleConfig | None = None,
                 deck: Deck | None = None, first_game: int = 0, rotate: bool = False, deals=None,
                 keep_deals: bool = False):
    """``(g, names)``: a batch as the kernels take it (a :class:`gnoming_sim.kernel.game_loop.Games` record), its
    arguments checked as :func:`simulate` checks them, and the names of its distinct strategies.  ``deals`` given:
    they are played; else ``keep_deals``: room in ``g.orders`` for the deals dealt."""
    from gnoming_sim.kernel.game_loop import Games

    check_players(players)
    games = _check_count("games", games, 1)
    first_game = _check_count("first_game", first_game, 0)
    _check_last_game(first_game, games)
    _check_seed(seed)
    rules = RuleConfig() if rules is None else rules
    deck = PUBLISHED if deck is None else deck
    deck.validate_for(players)
    strats, seat_strategy = seat_table(players, strategies, games, first_game, rotate)
    kinds, params = strategy_arrays(strats)
    deck_arr = deck.to_array()
    orders = _check_deals(deals, games, deck_arr) if deals is not None else (
        np.zeros((games if keep_deals else 0, ROUNDS, deck_arr.shape[0]), dtype=np.int8))
    g = Games(first_game, np.uint64(seed), players, seat_strategy, kinds, params, rules.to_array(), deck_arr,
              deck_counts(deck_arr), orders, deals is not None)
    return g, tuple(s.name for s in strats)


def simulate(players: int = 4, strategies: Sequence[str] = ("random",), games: int = 1000,
             seed: int = 0, rules: RuleConfig | None = None, deck: Deck | None = None, *,
             threads: int | None = None, chunk_size: int | None = None, trace: bool = False,
             deals=None, first_game: int = 0, rotate: bool = False, counters: bool = False,
             progress: Callable[[int], None] | None = None) -> SimResult:
    """Play ``games`` complete games.

    Parameters
    ----------
    players : 2..7
    strategies : one strategy (name or Strategy) for every seat, or one per seat; with a Monte Carlo
        seat (``mc``) the batch is played by the batch kernel registered for its kind (the MC bot's,
        :mod:`gnoming_sim.search.bot`), thousands of times slower than a heuristic
        (``experiments.mc_eval.games_per_second``)
    games : number of games (>= 1); game ``i`` is global game ``first_game + i``
    seed : master seed, 0 <= seed < 2**64; game g draws from streams of (seed, g)
    rules, deck : RuleConfig and Deck (defaults: RULES.md defaults, the published deck)
    threads : numba threads (default: all)
    chunk_size : games per kernel call (results do not depend on it)
    trace : also return ``deals`` and one action trace per game (see trace.py)
    deals : int8 (games, 3, deck size), the deck order of every round, instead of shuffling
    rotate : move the strategies one seat per game, so seat advantage cancels
    counters : also return each game's counters (``counters``: the Monte Carlo seats' decisions and rollouts,
        ``dispatch.MEMO_MC_COST``; the net-with-cells seats' applied and changed cells, ``dispatch.MEMO_RULE``)
    progress : called with the number of games finished after each chunk
    """
    from gnoming_sim.kernel.game_loop import Results
    from gnoming_sim.kernel.policy.dispatch import KIND_MC, KIND_VALUE, N_COUNTERS

    rules = RuleConfig() if rules is None else rules
    deck = PUBLISHED if deck is None else deck
    g, names = batch_record(players, strategies, games, seed, rules, deck, first_game, rotate, deals, trace)
    games, first_game = g.seat_strategy.shape[0], g.first_game
    chunk = _check_count("chunk_size", chunk_size, 1) if chunk_size is not None else DEFAULT_CHUNK
    play_batch = batch_kernel(g.kinds, g.params)
    per_thread = MC_PARALLEL_CHUNK if np.isin(g.kinds, (KIND_MC, KIND_VALUE)).any() else PARALLEL_CHUNK
    out = np.zeros((games, ROUNDS, players, N_FIELDS), dtype=np.int32)
    totals = np.zeros((games, players), dtype=np.int32)
    win = np.zeros((games, players), dtype=np.float64)
    counts = np.zeros((games if counters else 0, N_COUNTERS), dtype=np.int64)
    trace_list = [] if trace else None
    with numba_threads(threads):
        for lo in range(0, games, chunk):
            hi = min(games, lo + chunk)
            tr = np.zeros((hi - lo if trace else 0, TRACE_CAPACITY if trace else 0, 4), dtype=np.int32)
            tlen = np.zeros(hi - lo, dtype=np.int64)
            part = g._replace(first_game=first_game + lo, seat_strategy=g.seat_strategy[lo:hi],
                              orders=g.orders[lo:hi])
            play_batch(part, Results(out[lo:hi], totals[lo:hi], win[lo:hi], tr, tlen, counts[lo:hi]), per_thread)
            if trace:
                trace_list.extend(_collect_traces(part, tr, tlen))
            if progress is not None:
                progress(hi)
    return SimResult(players, games, int(seed), first_game, rules, deck, names,
                     g.seat_strategy, out, totals, win, g.orders if g.orders.shape[0] else None, trace_list,
                     counts if counters else None)


def batch_kernel(kinds: np.ndarray, params: np.ndarray):
    """``run(g, res, block)``: plays the batch ``g`` (a ``Games`` record) into ``res``, handing blocks of
    ``block`` games to the threads, with the kernel these strategy families need: the base loop of the
    random and heuristic families alone when they are all the table plays (nothing else compiles),
    the base loop of every family, or the one registered for a family that decides above the kernel
    stage (:mod:`gnoming_sim.kernel.kinds`: the Monte Carlo bot's)."""
    from gnoming_sim.kernel import game_loop
    from gnoming_sim.kernel.kinds import KIND_MC, batch_kernel_loader
    from gnoming_sim.kernel.policy.dispatch import families_known_to_hr

    special = sorted({int(k) for k in kinds if batch_kernel_loader(k) is not None or int(k) == KIND_MC})
    if not special:
        kernel = game_loop.play_range_hr if families_known_to_hr(kinds, params) else game_loop.play_range_base
        return lambda g, res, block: game_loop.play_blocks(kernel, g, res, block)
    loader = batch_kernel_loader(special[0])
    if len(special) > 1 or loader is None:
        raise GnomingError("a Monte Carlo strategy needs its bot: import gnoming_sim.search")
    kernel = loader()
    return lambda g, res, block: game_loop.play_blocks(kernel, g, res, block)


DEAL_BLOCK = 4096   # games dealt per block of deal_orders (a game's three shuffles take about a microsecond)


def deal_orders(games: int, seed: int = 0, deck: Deck | None = None, first_game: int = 0) -> np.ndarray:
    """The deck order of every round of games ``first_game .. first_game + games - 1``.

    Returns int8 (games, 3, deck size): exactly the deals :func:`simulate` plays under the
    same seed (whatever the strategies and rules), to be edited and passed back through
    ``deals=`` for paired experiments on the same deals.
    """
    from gnoming_sim.kernel.game_loop import deal_batch, run_blocks

    games = _check_count("games", games, 1)
    first_game = _check_count("first_game", first_game, 0)
    _check_last_game(first_game, games)
    _check_seed(seed)
    deck_arr = (PUBLISHED if deck is None else deck).to_array()
    orders = np.empty((games, ROUNDS, deck_arr.shape[0]), dtype=np.int8)
    seed_ = np.uint64(seed)
    run_blocks(lambda lo, hi: deal_batch(first_game, seed_, deck_arr, orders, lo, hi), games, DEAL_BLOCK)
    return orders


def _collect_traces(g, tr, tlen):
    """Copy each game's trace of the chunk ``g`` (a ``Games`` record); replay (deterministically)
    any game that overflowed the buffer."""
    from gnoming_sim.kernel.game_loop import Results
    from gnoming_sim.kernel.policy.dispatch import N_COUNTERS

    play_batch = batch_kernel(g.kinds, g.params)
    result = []
    P = g.players
    for i in range(tr.shape[0]):
        n = int(tlen[i])
        if n <= tr.shape[1]:
            result.append(tr[i, :n].copy())
            continue
        big = np.zeros((1, n, 4), dtype=np.int32)
        one = g._replace(first_game=g.first_game + i, seat_strategy=g.seat_strategy[i:i + 1],
                         orders=g.orders[i:i + 1], use_given=True)
        play_batch(one, Results(np.zeros((1, ROUNDS, P, N_FIELDS), dtype=np.int32),
                                np.zeros((1, P), dtype=np.int32), np.zeros((1, P), dtype=np.float64), big,
                                np.zeros(1, dtype=np.int64), np.zeros((0, N_COUNTERS), dtype=np.int64)), 1)
        result.append(big[0, :n].copy())
    return result


@contextlib.contextmanager
def _numba_setting(get, set_, value):
    """Run with a numba runtime setting changed (``value`` None: unchanged), then restore it."""
    old = get()
    if value is not None:
        set_(value)
    try:
        yield
    finally:
        set_(old)


def numba_threads(k):
    """Run numba kernels with ``k`` threads (None: all), then restore."""
    import numba

    if k is not None:
        k = min(_check_count("threads", k, 1), numba.config.NUMBA_NUM_THREADS)
    return _numba_setting(numba.get_num_threads, numba.set_num_threads, k)


# ----------------------------------------------------------------- scoring one layout
def _layout_array(layout) -> np.ndarray:
    items = list(layout) if not isinstance(layout, (str, bytes)) else None
    if items is None or len(items) != 9:
        raise GnomingError(f"a layout is 9 cards in row-major order, got {layout!r}")
    codes = []
    for item in items:
        if isinstance(item, (np.integer,)):
            item = int(item)
        if isinstance(item, str) and item.strip().upper() not in ("H", "M"):
            raise GnomingError(f"unknown layout item {item!r} (expected an int value, 'H' or 'M')")
        try:
            codes.append(cards.parse_card(item))
        except ValueError as exc:
            raise GnomingError(f"bad layout item: {exc}") from None
    return np.array(codes, dtype=np.int8)


def score_layout_parts(layout, rules: RuleConfig | None = None) -> dict:
    """Score parts of one final layout (no finisher bonus): matched, unmatched, negatives, hazards, total."""
    from gnoming_sim.kernel.scoring import P_HAZARDS, P_MATCHED, P_NEGATIVES, P_UNMATCHED, N_PARTS, score_parts

    rules = RuleConfig() if rules is None else rules
    parts = np.zeros(N_PARTS, dtype=np.int32)
    total = score_parts(_layout_array(layout), rules.to_array(), parts)
    return {"matched": int(parts[P_MATCHED]), "unmatched": int(parts[P_UNMATCHED]),
            "negatives": int(parts[P_NEGATIVES]), "hazards": int(parts[P_HAZARDS]), "total": int(total)}


def score_layout(layout, rules: RuleConfig | None = None) -> int:
    """Round score of one final layout without the finisher bonus.

    ``layout``: 9 items, row-major; each an int card value, ``"H"`` (hazard) or ``"M"`` (mulligan).
    """
    return score_layout_parts(layout, rules)["total"]
