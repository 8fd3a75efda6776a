"""The strength ladder: every strategy of a pool rated on one scale (``gnoming-sim ladder``).

Design, at each table size ``P``, all on the deals of that table size (deal ``d`` is the same
cards in every table below, common random numbers):

- **lineups** (:func:`lineups`): tables of ``P`` strategies of the pool, seeded, so that every pair
  of the pool meets.  Every deal is played ``P`` times, once per cyclic rotation of the lineup
  (rotation ``r`` seats ``lineup[(s + r) % P]`` at seat ``s``), so every strategy sits in every
  seat equally often on the same cards.  The head-to-head share and the skill share come from these games (:mod:`.ladder_stats`).
- **against expert**: one strategy X among ``P - 1`` ``expert`` seats, rotated the same way: X's
  game score minus the mean of the expert seats', per deal averaged over the rotations.
- **against random**: one X among ``P - 1`` ``random`` seats: X's win rate, as CardStock's Order.

In every game of all three, every pair of seats holding different strategies gives one pairwise
result (the lower game score wins, a tie is half a win each); the Bradley-Terry ratings are fitted
to all of them, so a slow player's games against expert count directly against the anchor.

A table without a Monte Carlo seat plays ``games`` deals (heuristics cost microseconds a game); a
table with one plays fewer, by its cost (:func:`deals_for`), at least :data:`MIN_SLOW_DEALS`: the
intervals show what that buys.  The deal is the independent unit of every interval.

The pool is a list of registered strategy names (:data:`DEFAULT_POOL`); ``mcN`` names the Monte
Carlo player with ``N`` rollouts (registered on first use), so adding a player is adding its name.
"""
from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from gnoming_sim.experiments.ladder_stats import Tally, table_size_result
from gnoming_sim.game.deck import PUBLISHED, Deck, check_players
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.kernel.engine import deal_orders, simulate
from gnoming_sim.kernel.kinds import KIND_MC, batch_kernel_loader
from gnoming_sim.kernel.policy import registry

DEFAULT_POOL = ("random", "greedy", "builder", "rusher", "cautious", "expert", "learned", "card-starred", "card", "mc4",
                "mc16", "mc64")
DEFAULT_PLAYERS = (4,)
DEFAULT_GAMES = 4000        # deals per table without a Monte Carlo seat
MAX_GAMES = 100_000         # the per-deal tallies keep 2 x (deals, strategies, strategies) float64:
MAX_POOL = 24               # at most 0.9 GB
REFERENCE = "expert"        # the margin's opponents, and the ratings' anchor when in the pool
FIELD = "random"            # the opponents of Order
MIN_SLOW_DEALS = 6          # the fewest deals a table with a Monte Carlo seat plays
# a table with Monte Carlo seats plays games * SLOW_SHARE / (its MC seats' cost) deals, so each such
# table takes about the same time; a seat's cost in units of an mc16 seat (mc_cost).  Measured at 4
# players, one thread, one MC seat among experts: mc4 7 ms a game, mc16 31 ms, mc64 105 ms, a
# heuristic game 50 us: a fixed cost of about 4 rollouts' worth per decision (MC_OVERHEAD)
SLOW_SHARE = 0.03
MC_OVERHEAD = 4.0
MC16_GAME_UNITS = 600.0     # an mc16 seat's game in heuristic games (progress units)
LADDER_FIRST = 2**61        # game numbers: apart from tuning's (< 2**58) and held-out's (2**60)
_MC_NAME = re.compile(r"mc([1-9][0-9]{0,5})")


# ------------------------------------------------------------------ the pool
def resolve(name: str) -> registry.Strategy:
    """A registered strategy; ``mcN`` (not registered) is the Monte Carlo player with N rollouts."""
    try:
        return registry.get(name)
    except GnomingError:
        m = _MC_NAME.fullmatch(str(name))
        if m is None:
            raise
    from gnoming_sim.experiments.mc_eval import mc_strategy

    return mc_strategy(int(m.group(1)), name=name)


def check_pool(names: Sequence[str]) -> tuple[str, ...]:
    """The pool as registered names: at least 2, each once, every one known (``mcN`` included)."""
    names = tuple(names)
    if len(names) < 2:
        raise GnomingError(f"--strategies needs at least 2 strategies to rate, got {len(names)}")
    if len(names) > MAX_POOL:
        raise GnomingError(f"--strategies takes at most {MAX_POOL} strategies, got {len(names)}")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise GnomingError(f"--strategies names {', '.join(twice)} twice: give each strategy once")
    for n in names:
        try:
            resolve(n)
        except GnomingError as exc:
            raise GnomingError(f"--strategies: {exc}") from None
    return names


def mc_cost(name: str) -> float:
    """The cost of one seat of ``name`` in a game, in units of an mc16 seat: 0 for a heuristic (and
    random), by the rollouts for a Monte Carlo player, 1 for any other family that decides above the
    kernel (one with a batch kernel of its own, :mod:`gnoming_sim.kernel.kinds`) until it is measured."""
    s = resolve(name)
    if s.kind != KIND_MC:
        return 1.0 if batch_kernel_loader(s.kind) is not None else 0.0
    budget = float(s.params.get("mc_budget", 16.0))
    return (MC_OVERHEAD + budget) / (MC_OVERHEAD + 16.0)


def is_slow(name: str) -> bool:
    return mc_cost(name) > 0.0


def deals_for(seats: Sequence[str], games: int, min_slow: int = MIN_SLOW_DEALS) -> int:
    """Deals a table plays: ``games`` without a Monte Carlo seat, else fewer, by the seats' cost
    (at least ``min_slow``)."""
    cost = sum(mc_cost(s) for s in seats)
    if cost == 0.0:
        return games
    return int(min(games, max(min_slow, round(games * SLOW_SHARE / cost))))


# ------------------------------------------------------------------ the design
@dataclass(frozen=True)
class Table:
    """One table of the design: ``kind`` (``lineup``, ``expert`` or ``random``), the seats of rotation 0
    (the strategy rated sits first in the ``expert`` and ``random`` tables), and its deals."""

    kind: str
    seats: tuple[str, ...]
    deals: int


def lineups(pool: Sequence[str], players: int, seed: int) -> list[tuple[str, ...]]:
    """Lineups of ``players`` strategies such that every pair of ``pool`` meets at least once.

    The heuristics (no Monte Carlo seat) play every subset of their own when there are few
    (at most 70), else a covering of their pairs; the pairs with a Monte Carlo strategy are then
    covered greedily (each lineup the one that covers most pairs not yet met, ties broken by a
    generator seeded from ``seed`` and ``players``), which packs the slow players together.  A pool
    no larger than the table: the cyclic lineups (every strategy at every table, some twice; as
    the table: the pool itself, whose rotations are the other cyclic lineups).
    """
    pool = list(pool)
    if len(pool) == players:
        return [tuple(pool)]   # its rotations are the other cyclic lineups
    if len(pool) < players:
        return [tuple(pool[(k + s) % len(pool)] for s in range(players)) for k in range(len(pool))]
    rng = np.random.default_rng([seed & 0xFFFFFFFF, seed >> 32, players, 0x1ADDE])
    fast = [n for n in pool if not is_slow(n)]
    met = np.zeros((len(pool), len(pool)), dtype=bool)
    np.fill_diagonal(met, True)
    out: list[tuple[str, ...]] = []
    if len(fast) >= players and math.comb(len(fast), players) <= 70:
        from itertools import combinations

        out += [tuple(c) for c in combinations(fast, players)]
    elif len(fast) >= players:
        out += _cover(pool, players, met, rng, allowed=[pool.index(n) for n in fast])
    for lineup in out:
        _mark(met, [pool.index(n) for n in lineup])
    out += _cover(pool, players, met, rng, allowed=list(range(len(pool))))
    return out


def _mark(met: np.ndarray, members: list[int]) -> None:
    for a in members:
        for b in members:
            met[a, b] = True


def _cover(pool, players, met, rng, allowed) -> list[tuple[str, ...]]:
    """Greedy lineups (of ``allowed`` indices) until every pair among ``allowed`` has met."""
    sub = np.ix_(allowed, allowed)
    out = []
    while not met[sub].all():
        open_ = (~met[sub]).sum(axis=1)
        best = np.flatnonzero(open_ == open_.max())
        first = allowed[int(rng.choice(best))]
        members = [first]
        while len(members) < players:
            rest = [i for i in allowed if i not in members]
            gain = np.array([sum(not met[i, m] for m in members) for i in rest])
            top = [rest[k] for k in np.flatnonzero(gain == gain.max())]
            members.append(int(rng.choice(top)))
        _mark(met, members)
        out.append(tuple(pool[i] for i in sorted(members)))
    return out


def design(pool: Sequence[str], players: int, games: int, seed: int, min_slow: int = MIN_SLOW_DEALS) -> list[Table]:
    """Every table of one table size: the lineups, then each strategy against expert and against random."""
    tables = [Table("lineup", lineup, deals_for(lineup, games, min_slow)) for lineup in lineups(pool, players, seed)]
    for kind, other in (("expert", REFERENCE), ("random", FIELD)):
        for name in pool:
            seats = (name,) + (other,) * (players - 1)
            tables.append(Table(kind, seats, deals_for(seats, games, min_slow)))
    return tables


def first_game(players: int) -> int:
    """The first game number at ``players``: a multiple of it (so game ``i`` is rotation ``i % P``),
    its own range per table size."""
    return (LADDER_FIRST // players + players * 2**36) * players


# ------------------------------------------------------------------ playing
@dataclass
class Ladder:
    """The ladder of a pool: one entry of :func:`ladder_stats.table_size_result` per table size."""

    pool: tuple[str, ...]
    players: tuple[int, ...]
    games: int
    seed: int
    bootstrap: int
    rules: RuleConfig
    deck: Deck
    min_slow: int = MIN_SLOW_DEALS
    sizes: list[dict] = field(default_factory=list)
    wall_s: float = 0.0

    def to_dict(self) -> dict:
        return {"pool": list(self.pool), "players": list(self.players), "games": self.games, "seed": self.seed,
                "bootstrap": self.bootstrap, "min_slow": self.min_slow, "deck": self.deck.name, "rules": self.rules.to_dict(),
                "reference": REFERENCE, "field": FIELD, "tables": self.sizes, "wall_s": round(self.wall_s, 3)}

    def rows(self) -> list[dict]:
        """One flat row per (table size, strategy), for a CSV."""
        out = []
        for size in self.sizes:
            for r in size["strategies"]:
                row = {"players": size["players"], "strategy": r["strategy"]}
                for key in ("rating", "margin", "order"):
                    row.update({f"{key}": r[key]["mean"], f"{key}_lo": r[key]["ci95"][0],
                                f"{key}_hi": r[key]["ci95"][1], f"{key}_n": r[key]["n"]})
                row["results"] = r["results"]
                out.append(row)
        return out


def cost_of(tables: Sequence[Table], players: int) -> float:
    """Games of the design, a Monte Carlo game counted as many games as its cost (progress units)."""
    return sum(t.deals * players * (1.0 + MC16_GAME_UNITS * sum(mc_cost(s) for s in t.seats)) for t in tables)


def design_cost(pool: Sequence[str], players: Sequence[int], games: int, seed: int,
                min_slow: int = MIN_SLOW_DEALS) -> float:
    """The work of the whole design, in the units of :func:`cost_of` (for a progress bar)."""
    return sum(cost_of(design(pool, p, games, seed, min_slow), p) for p in players)


def run(pool: Sequence[str] = DEFAULT_POOL, players: Sequence[int] = DEFAULT_PLAYERS, games: int = DEFAULT_GAMES,
        seed: int = 0, rules: RuleConfig | None = None, deck: Deck | None = None, threads: int | None = None,
        bootstrap: int = 1000, progress: Callable[[int, float], None] | None = None,
        done: Callable[[dict], None] | None = None, min_slow: int = MIN_SLOW_DEALS) -> Ladder:
    """Play the design at every table size and rate the pool (see the module docstring).

    ``progress(games, units)`` is called after each chunk with the games just played and their
    work in the units of :func:`cost_of` (:func:`design_cost` is the whole design's);
    ``done(size)`` with each table size's result as it is finished.  ``min_slow``: the fewest deals
    a table with a Monte Carlo seat plays (a quick preview may take fewer than :data:`MIN_SLOW_DEALS`).
    """
    t0 = time.perf_counter()
    pool = check_pool(pool)
    players = tuple(players)
    for p in players:
        check_players(p)
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or not 1 <= games <= MAX_GAMES:
        raise GnomingError(f"--games must be an integer in 1..{MAX_GAMES}, got {games!r}")
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, (int, np.integer)) or not 100 <= bootstrap <= 100_000:
        raise GnomingError(f"--bootstrap must be an integer in 100..100000, got {bootstrap!r}")
    rules = RuleConfig() if rules is None else rules
    deck = PUBLISHED if deck is None else deck
    for p in players:
        deck.validate_for(p)
    if isinstance(min_slow, bool) or not isinstance(min_slow, (int, np.integer)) or min_slow < 2:
        raise GnomingError(f"min_slow must be an integer >= 2 (a t interval needs 2 deals), got {min_slow!r}")
    designs = {p: design(pool, p, int(games), seed, min_slow) for p in players}
    out = Ladder(pool, players, int(games), int(seed), int(bootstrap), rules, deck, int(min_slow))
    for p in players:
        t_size = time.perf_counter()
        tally = Tally(pool, p, max(t.deals for t in designs[p]))
        deals = deal_orders(tally.deals, seed, deck, first_game=first_game(p))
        for t in designs[p]:
            scores, wins = play_table(t, p, deals, seed, rules, deck, threads, progress)
            tally.add(t, scores, wins)
        out.sizes.append(table_size_result(tally, pool, seed, bootstrap, anchor=_anchor(pool), reference=REFERENCE))
        out.sizes[-1]["wall_s"] = round(time.perf_counter() - t_size, 3)
        if done is not None:
            done(out.sizes[-1])
    out.wall_s = time.perf_counter() - t0
    return out


def _anchor(pool: Sequence[str]) -> str:
    return REFERENCE if REFERENCE in pool else pool[0]


CHUNK_DEALS = 4096


def play_table(table: Table, players: int, deals: np.ndarray, seed: int, rules, deck, threads,
               progress=None) -> tuple[np.ndarray, np.ndarray]:
    """Play every deal of ``table`` in each of the ``players`` rotations.

    Returns game scores and win credit, float64 (deals, rotations, seats): entry ``[d, r, s]`` is
    seat ``s`` on deal ``d`` in rotation ``r``, where seat ``s`` holds ``table.seats[(s + r) % P]``.
    """
    strategies = [resolve(s) for s in table.seats]
    want = np.array([[(s + r) % players for s in range(players)] for r in range(players)])
    scores, wins = [], []
    per_chunk = CHUNK_DEALS if not any(is_slow(s) for s in table.seats) else 1
    for lo in range(0, table.deals, per_chunk):
        hi = min(table.deals, lo + per_chunk)
        res = simulate(players, strategies, (hi - lo) * players, seed, rules, deck, threads=threads,
                       deals=np.repeat(deals[lo:hi], players, axis=0), first_game=first_game(players) + lo * players,
                       rotate=True)
        # the engine's rotation must be the one this design reads: seat s of game i holds seats[(s + i) % P]
        names = np.asarray(res.strategy_names)[res.seat_strategy].reshape(hi - lo, players, players)
        if not (names == np.asarray(table.seats)[want][None]).all():
            raise AssertionError("the engine's seat rotation is not the ladder's")
        scores.append(res.totals.astype(np.float64).reshape(hi - lo, players, players))
        wins.append(res.win_credit.reshape(hi - lo, players, players))
        if progress is not None:
            progress((hi - lo) * players, cost_of([Table(table.kind, table.seats, hi - lo)], players))
    return np.concatenate(scores), np.concatenate(wins)
