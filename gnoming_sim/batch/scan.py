"""One streaming pass over a batch file (``simulate --out``): per-game statistics.

>>> scan = scan_batch("games.parquet")
>>> scan.by_strategy.mean("score", k=0)          # mean game score of names[0], over games
Interval(mean=15.65, lo=15.41, hi=15.90, n=20000)

The file is read in blocks of :data:`BLOCK_GAMES` games with pyarrow's record-batch
reader (only the columns used; a block is decoded, tallied and dropped), so memory
stays flat whatever the file's size or row-group size.  Rows must be whole games in
order, as :class:`~gnoming_sim.batch.batch_writer.ParquetSink` writes them: the runner makes
every row group whole games, but a block that ends inside a game carries the rest over
to the next, so any blocking gives the same sums.  Every block is checked (game
numbers, round and seat pattern, one strategy per seat per game, every score the sum of
its parts) and a damaged file is reported as a :class:`GnomingError`.

What is kept (see :class:`BatchScan`): exact per-game sums for each strategy, each
seat and the table (:class:`~gnoming_sim.batch.game_sums.GroupSums`), and histograms
of game and round scores, turns, matched lines, hazards left and the finisher's score.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from gnoming_sim.batch.game_sums import GroupSums, Hist
from gnoming_sim.batch.parquet import META_KEY, check_magic, parse_metadata
from gnoming_sim.batch.safe_write import arrow_path
from gnoming_sim.batch.summary import WIN_UNIT
from gnoming_sim.kernel.win_credit import win_credit
from gnoming_sim.game.errors import GnomingError, one_line
from gnoming_sim.game.rules import HAZARD_PENALTY, ROUNDS

BLOCK_GAMES = 20_000
FIELDS = ("score", "matched", "unmatched", "negatives", "hazards", "finisher", "bonus", "turns", "stalled",
          "lines")
COLUMNS = ("game", "round", "seat", "strategy") + FIELDS

# per (game, seat), summed over the game's rounds; grouped by strategy and by seat
SEAT_QUANTITIES = (
    "score",            # game score
    "win",              # win credit in 1/WIN_UNIT
    "turns",            # turns taken
    "finishes",         # rounds this seat finished
    "earned",           # ... and got the -5
    "penalised",        # ... and got the +5
    "stalled_finishes",  # ... whose final lap stalled (no bonus)
    "matched", "unmatched", "negatives", "hazard_points", "bonus",   # the parts of the score
    "lines",            # matched lines at round end
    "hazard_rounds",    # rounds ending with a hazard in this layout
)
# per game, over its rounds
TABLE_QUANTITIES = ("stalled", "hazard_rounds", "finished", "turns")   # rounds, rounds, rounds, turns
RATIOS = (("earned", "finishes"), ("penalised", "finishes"), ("stalled_finishes", "finishes"))

_PARTIAL = re.compile(r"^\.(?P<name>.+)\.partial$")


@dataclass
class BatchScan:
    """Everything a report needs from a batch file, gathered in one pass.

    ``names`` are the strategies (metadata order, ``k`` indexes them); ``games`` the games
    the file holds (fewer than ``meta["games"]`` when the run was interrupted).
    Histograms: ``game_score``, ``round_score``, ``seat_turns``, ``lines``,
    ``hazards_left`` by strategy; ``table_turns`` (all seats' turns in a round, label 0);
    ``finish`` by ``2 k + earned`` over the finisher's score before the bonus, in rounds
    whose final lap did not stall.
    """

    path: Path
    meta: dict
    names: tuple[str, ...]
    players: int
    file_bytes: int
    row_groups: int
    by_strategy: GroupSums = field(init=False)
    by_seat: GroupSums = field(init=False)
    table: GroupSums = field(init=False)
    wall_s: float = 0.0

    def __post_init__(self):
        k = len(self.names)
        self.by_strategy = GroupSums(SEAT_QUANTITIES, k, RATIOS)
        self.by_seat = GroupSums(SEAT_QUANTITIES, self.players, RATIOS)
        self.table = GroupSums(TABLE_QUANTITIES, 1)
        self.game_score, self.round_score, self.seat_turns = Hist(k), Hist(k), Hist(k)
        self.lines, self.hazards_left, self.finish = Hist(k), Hist(k), Hist(2 * k)
        self.table_turns = Hist(1)

    @property
    def games(self) -> int:
        return self.table.games

    @property
    def planned_games(self) -> int:
        return int(self.meta["games"])

    def add_block(self, first_game: int, cols: dict[str, np.ndarray]) -> None:
        """Tally the rows of games ``first_game ..`` (``cols`` as :func:`_block_columns` gives)."""
        p, k = self.players, len(self.names)
        games = len(cols["game"]) // (ROUNDS * p)
        _check_block(first_game, games, p, cols)
        f = {name: cols[name].reshape(games, ROUNDS, p) for name in FIELDS}
        # checked before the win credit, whose kernel a cold cache would compile for a file it then refuses
        hazards = self._hazards_left(first_game, f["hazards"])
        strat3 = cols["strategy"].reshape(games, ROUNDS, p)
        strat = strat3[:, 0, :]
        score = f["score"]
        total = _over_rounds(score).astype(np.int64)
        win = np.rint(win_credit(score) * WIN_UNIT).astype(np.int64)
        finisher = f["finisher"] == 1
        stalled = f["stalled"] != 0
        bonus = f["bonus"]
        x = np.stack([
            total, win, _over_rounds(f["turns"]),
            _over_rounds(finisher), _over_rounds(finisher & (bonus < 0)), _over_rounds(finisher & (bonus > 0)),
            _over_rounds(finisher & stalled),
            _over_rounds(f["matched"]), _over_rounds(f["unmatched"]), _over_rounds(f["negatives"]),
            _over_rounds(f["hazards"]), _over_rounds(bonus), _over_rounds(f["lines"]), _over_rounds(hazards > 0),
        ]).astype(np.int64)
        onehot = (strat[:, :, None] == np.arange(k)).astype(np.int64)
        self.by_strategy.add(x, onehot)
        self.by_seat.add(x)
        self.table.add(np.stack([_over_rounds(stalled[:, :, :1]), _over_rounds((hazards > 0).any(axis=2)[..., None]),
                                 _over_rounds(finisher.any(axis=2)[..., None]),
                                 _over_rounds(f["turns"].sum(axis=2, keepdims=True))]))

        self.game_score.add(strat, total)
        self.round_score.add(strat3, score)
        self.seat_turns.add(strat3, f["turns"])
        self.table_turns.add(np.zeros((games, ROUNDS), dtype=np.int64), f["turns"].sum(axis=2))
        self.lines.add(strat3, f["lines"])
        self.hazards_left.add(strat3, hazards)
        done = finisher & ~stalled
        self.finish.add(2 * strat3[done] + (bonus[done] < 0), score[done] - bonus[done])

    def _hazards_left(self, first_game: int, points: np.ndarray) -> np.ndarray:
        """Hazards left in each layout, from their points and the metadata's ``hazard_value`` (checked
        against the file's metadata by :func:`~gnoming_sim.batch.parquet.parse_metadata`, 1..50; a file
        older than the option: 10).  Points that are no whole number of hazards the deck holds mean
        the metadata is not that of the games: refused, never a wrong count."""
        from gnoming_sim.game.cards import HAZARD
        from gnoming_sim.game.deck import Deck
        from gnoming_sim.game.rules import LAYOUT

        value = int(self.meta["rules"].get("hazard_value", HAZARD_PENALTY))
        most = min(LAYOUT, Deck.from_mapping(self.meta["deck"], source="its deck").count(HAZARD))
        hazards = points // value
        bad = np.flatnonzero(((points % value) != 0) | (hazards < 0) | (hazards > most))
        if bad.size:
            i = int(bad[0])
            raise GnomingError(f"game {first_game + i // points[0].size} has {int(points.flat[i])} hazard points in a "
                               f"round, not a whole number of hazards (0..{most}) at the metadata's hazard_value "
                               f"{value}: the metadata is not that of the games; the file is damaged")
        return hazards


def _over_rounds(a: np.ndarray) -> np.ndarray:
    """Sum of ``a`` (G, ROUNDS, P) over its rounds, as int32 (G, P): explicit adds, several
    times faster than a reduction over the middle axis."""
    out = a[:, 0].astype(np.int32)
    for r in range(1, a.shape[1]):
        out += a[:, r]
    return out


def _check_block(first: int, games: int, players: int, cols: dict) -> None:
    """Rows must be whole games ``first ..`` in (round, seat) order, one strategy per seat."""
    per_game = ROUNDS * players
    game = cols["game"].reshape(games, per_game)
    want = np.arange(first, first + games, dtype=np.int64)[:, None]
    rounds = np.repeat(np.arange(ROUNDS), players)
    seats = np.tile(np.arange(players), ROUNDS)
    strat = cols["strategy"].reshape(games, ROUNDS, players)
    if not ((game == want).all() and (cols["round"].reshape(games, per_game) == rounds).all()
            and (cols["seat"].reshape(games, per_game) == seats).all()):
        raise GnomingError(f"rows of games {first}.. are not whole games in order: the file is damaged")
    if not (strat == strat[:, :1, :]).all():
        raise GnomingError(f"a seat changes strategy between rounds in games {first}..: the file is damaged")
    parts = cols["matched"] + cols["unmatched"] + cols["negatives"] + cols["hazards"] + cols["bonus"]
    bad = np.flatnonzero(cols["score"] != parts)
    if bad.size:
        raise GnomingError(f"game {first + int(bad[0]) // per_game} has a score that is not the sum of its parts "
                           "(matched + unmatched + negatives + hazards + bonus): the file is damaged")


# ------------------------------------------------------------------ the file
def open_batch(path) -> tuple[object, dict]:
    """Open a batch file: ``(pyarrow ParquetFile, batch metadata)``, or a one-line GnomingError."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    partial = _PARTIAL.match(path.name)
    if partial:
        raise GnomingError(f"{path} is a half-written batch file: simulate writes .NAME.partial and renames it "
                           f"to NAME when it closes; report on {path.with_name(partial['name'])} once "
                           "simulate has finished (or was interrupted)")
    if not path.exists():
        sibling = path.with_name(f".{path.name}.partial")
        if sibling.exists():
            raise GnomingError(f"{path} does not exist yet: {sibling.name} is still being written "
                               "(or was left by a crash); wait for simulate to finish")
        raise GnomingError(f"{path} does not exist")
    if path.is_dir():
        raise GnomingError(f"{path} is a directory, not a batch file")
    check_magic(path, str(path))
    try:
        # pre_buffer keeps every row group's buffered bytes until the reader closes: memory
        # would grow with the file (measured: +100 MB per million games); off, it stays flat
        with arrow_path(path) as name:
            pf = pq.ParquetFile(name, pre_buffer=False, page_checksum_verification=True)
    except (pa.ArrowException, OSError) as exc:
        raise GnomingError(f"{path} is not a readable Parquet file ({one_line(exc)})") from None
    raw = (pf.schema_arrow.metadata or {}).get(META_KEY)
    if raw is None:
        raise GnomingError(f"{path} was not written by gnoming-sim simulate (no batch metadata)")
    meta = parse_metadata(raw, path)
    players = meta["players"]
    missing = [c for c in COLUMNS if c not in pf.schema_arrow.names]
    if missing:
        raise GnomingError(f"{path} has no column {missing[0]!r}: not a batch file this version can read")
    schema = pf.schema_arrow
    bad = [c for c in COLUMNS if not (pa.types.is_dictionary(schema.field(c).type) if c == "strategy"
                                      else pa.types.is_integer(schema.field(c).type))]
    if bad:
        raise GnomingError(f"{path}: column {bad[0]!r} has type {schema.field(bad[0]).type}: "
                           "not a batch file this version can read")
    if pf.metadata.num_rows % (ROUNDS * players):
        raise GnomingError(f"{path} holds {pf.metadata.num_rows} rows, not whole games of {players} players: "
                           "the file is damaged")
    return pf, meta


def strategy_names(meta: dict) -> tuple[str, ...]:
    """The batch's strategies in order of first seat (the runner's ``BatchSpec.names``)."""
    return tuple(dict.fromkeys(meta["seats"]))


def scan_batch(path, progress: Callable[[int], None] | None = None,
               block_games: int = BLOCK_GAMES) -> BatchScan:
    """Read the batch file ``path`` once; ``progress(rows)`` is called after each block."""
    import pyarrow as pa

    t0 = time.perf_counter()
    pf, meta = open_batch(path)
    names = strategy_names(meta)
    players = int(meta["players"])
    scan = BatchScan(Path(path), meta, names, players, Path(path).stat().st_size, pf.metadata.num_row_groups)
    per_game = ROUNDS * players
    advance = progress or (lambda rows: None)
    first, carry = 0, None
    try:
        # every column is read, those the report does not use too, so that each page's checksum is verified
        for batch in pf.iter_batches(batch_size=block_games * per_game):
            cols = _block_columns(batch, names)
            if carry is not None:
                cols = {c: np.concatenate([carry[c], cols[c]]) for c in COLUMNS}
            whole = len(cols["game"]) // per_game * per_game
            carry = {c: v[whole:] for c, v in cols.items()} if whole < len(cols["game"]) else None
            if whole:
                scan.add_block(first, {c: v[:whole] for c, v in cols.items()})
                first += whole // per_game
            advance(batch.num_rows)
    except GnomingError as exc:   # a check of the rows: it names the game and says the file is damaged
        raise GnomingError(f"{path}: {exc}") from None
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise GnomingError(f"{path}: cannot read games {first}.. ({one_line(exc)}): the file is damaged") from None
    finally:
        pf.close()
    if carry is not None:
        raise GnomingError(f"{path} ends inside game {first}: the file is damaged")
    if scan.games > scan.planned_games:
        raise GnomingError(f"{path} holds {scan.games} games, more than the {scan.planned_games} its metadata "
                           "plans: the file is damaged")
    scan.wall_s = time.perf_counter() - t0
    return scan


def _block_columns(batch, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The numpy columns of a record batch; strategies as indices into ``names``."""
    cols = {}
    for c in COLUMNS:
        col = batch.column(c)
        if col.null_count:
            raise GnomingError(f"column {c!r} has missing values: the file is damaged")
        if c == "strategy":
            lookup = np.array([names.index(s) if s in names else -1 for s in col.dictionary.to_pylist()],
                              dtype=np.int64)
            codes = lookup[col.indices.to_numpy()]
            if (codes < 0).any():
                raise GnomingError("the file names a strategy that its metadata does not list: "
                                   "the file is damaged")
            cols[c] = codes
        else:
            cols[c] = col.to_numpy()
    return cols
