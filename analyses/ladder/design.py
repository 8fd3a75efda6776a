"""The ladder study's design: :func:`gnoming_sim.experiments.ladder.design` at 2, 4 and 6 players,
the default pool and any user strategies of the report (``--strategies-file``), as framework tables
(one per ladder table, its games = deals x rotations) for the report's progress and its facts."""
from __future__ import annotations

from gnoming_sim.experiments import ladder

from ..framework.design import STRONG_LADDER
from ..framework.study import Table

PLAYERS = (2, 4, 6)
HEADLINE_PLAYERS = 4
# the Monte Carlo players (mcN) sit at the headline table size only: one of their games costs as much
# as thousands of a fast player's, and at 2 and 6 players the fast players' order is what the other
# studies need
SLOW_AT = (HEADLINE_PLAYERS,)
# the precision a fast player's rating is sized for (95% half-width, Elo): the players the studies read
# their answers along (the preset mix, learned, net) are 100+ Elo apart
TARGET_RATING = 10.0
# deals per fast table at a table size, as a multiple of the study's size: a 2-player deal holds one
# pairwise result per game where a 6-player one holds 15, so 2 players need more deals for the target
DEALS_FACTOR = {2: 2.5}


def deals_at(players: int, games: int) -> int:
    return max(int(round(games * DEALS_FACTOR.get(players, 1.0))), 1)
BOOTSTRAP = 1000
# --quick, a preview: a Monte Carlo table plays at least 2 deals (the full report: MIN_SLOW_DEALS),
# and the bootstrap draws 200 replicates
QUICK_MIN_SLOW = 2
QUICK_BOOTSTRAP = 200


def min_slow(quick: bool) -> int:
    return QUICK_MIN_SLOW if quick else ladder.MIN_SLOW_DEALS


def bootstrap(quick: bool) -> int:
    return QUICK_BOOTSTRAP if quick else BOOTSTRAP


def pool(extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The default pool, the rungs of the studies' strong ladder (:data:`STRONG_LADDER`: the players the answers
    are read under, so the ladder places them), then the report's own strategies (``--strategies-file``), each
    once."""
    names = ladder.DEFAULT_POOL + STRONG_LADDER + tuple(extra)
    return tuple(dict.fromkeys(names))


def pools(names: tuple[str, ...], quick: bool = False) -> list[tuple[tuple[int, ...], tuple[str, ...]]]:
    """(table sizes, pool) to play, one table size each: the whole pool at :data:`SLOW_AT`, the fast
    players elsewhere.  A preview (``quick``) plays no Monte Carlo player: on its few deals none could be
    rated (``analysis.MIN_RATED_DEALS``), and compiling one costs minutes (:func:`not_played` names them)."""
    fast = tuple(n for n in names if ladder.mc_cost(n) == 0.0)
    return [((p,), names if p in SLOW_AT and not quick else fast) for p in PLAYERS]


def not_played(names: tuple[str, ...], quick: bool) -> list[str]:
    """The pool's players a preview leaves out (:func:`pools`)."""
    return [n for n in names if quick and ladder.mc_cost(n) != 0.0]


def tables(games: int, seed: int, extra: tuple[str, ...] = (), quick: bool = False) -> list[Table]:
    """Every table the ladder plays: its seats at rotation 0 and its games (deals x players)."""
    names = pool(extra)
    return [Table(p, t.seats, t.deals * p, first_game=ladder.first_game(p), pool=names,
                  label=f"{p} players, {t.kind}: {', '.join(t.seats)}")
            for players, sub in pools(names, quick) for p in players
            for t in ladder.design(sub, p, deals_at(p, games), seed, min_slow(quick))]
