"""The standings of a batch file, as ``gnoming-sim simulate`` prints them.

>>> st = standings("games.parquet")          # also gnoming_sim.standings
>>> st.by_strategy[["n_games", "mean_game_score", "ci95_lo", "ci95_hi", "win_share", "win_ci95_lo", "win_ci95_hi"]]
>>> print(st.table())                        # simulate's text tables

Per strategy and per seat: the mean game score and the win share, each with its 95% interval over
games (the unit the seats of one game share; a strategy in several seats of a game counts once, as
their mean), and the finish, bonus and turn rates.  The win credit is the rules' own (a win shared
by k players counts 1/k), settled from the file's round scores by the game loop's code
(:func:`gnoming_sim.kernel.win_credit.win_credit`), and the numbers are those of ``simulate --json``
for the same games (:class:`~gnoming_sim.batch.summary.Tally`, one tally for both).  The file is read
row group by row group and every row is checked as a resume checks it; a wrong or damaged file is a
one-line :class:`~gnoming_sim.game.errors.GnomingError`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gnoming_sim.batch.compare_file import compare_metadata, open_compare, variant_label
from gnoming_sim.batch.parquet import arrays_of
from gnoming_sim.batch.scan import open_batch, strategy_names
from gnoming_sim.batch.summary import Tally, build_summary, format_table
from gnoming_sim.game.errors import GnomingError, one_line
from gnoming_sim.game.fields import F_SCORE
from gnoming_sim.game.rules import ROUNDS


@dataclass(frozen=True)
class Standings:
    """A batch file's standings.

    ``summary`` is the dict ``simulate --json`` prints for the same games (``wall_s`` None: read, not
    played; ``source`` the file).  ``by_strategy`` (index: strategy, in order of first seat) and
    ``by_seat`` (index: seat, from 0) are its two tables as DataFrames, one column per key of
    :func:`gnoming_sim.batch.summary.entry`, each interval split in two: ``ci95`` -> ``ci95_lo``,
    ``ci95_hi`` (the mean game score's), ``win_ci95_lo`` / ``win_ci95_hi`` (the win share's), ...
    A missing value (a label never seated, a bonus rate without finishes) is NaN.
    """

    path: Path
    summary: dict
    by_strategy: object   # pandas.DataFrame
    by_seat: object       # pandas.DataFrame

    @property
    def games(self) -> int:
        return self.summary["games"]

    @property
    def players(self) -> int:
        return self.summary["players"]

    def table(self) -> str:
        """The standings as ``simulate`` prints them (:func:`gnoming_sim.batch.summary.format_table`)."""
        return format_table(self.summary)


def standings(path, variant: str | None = None):
    """The standings of the batch file ``path`` (written by ``simulate --out``, complete or
    interrupted): mean game score and win share per strategy and per seat with their 95% intervals
    and n, the numbers ``simulate`` prints for those games.

    A ``compare --out`` file holds a batch per variant: with ``variant`` its :class:`Standings`, without
    a dict of every variant's (``{"baseline": Standings, ...}``, in the file's order)."""
    path = Path(path)
    meta = compare_metadata(path)
    if meta is None:
        if variant is not None:
            raise GnomingError(f"{path} holds one batch, not a compare's variants: give no variant")
        pf, meta = open_batch(path)
        reading = _Reading(path, str(path), meta)
        try:
            _read_groups(pf, path, reading.feed)
        finally:
            pf.close()
        return reading.standings()
    pf, batches = open_compare(path, meta)
    names = [name for name, _ in batches]
    if variant is not None and variant not in names:
        pf.close()
        raise GnomingError(f"{path} has no variant {variant!r}; it holds {', '.join(names)}")
    readings = {name: _Reading(path, variant_label(path, name), batch) for name, batch in batches}
    try:
        _feed_variants(pf, readings, path)
    finally:
        pf.close()
    if variant is not None:
        return readings[variant].standings()
    return {name: reading.standings() for name, reading in readings.items()}


class _Reading:
    """One batch's games read in file order, row group by row group, tallied as a resume checks them."""

    def __init__(self, path: Path, label: str, meta: dict):
        self.path, self.label, self.meta = path, label, meta
        self.names = strategy_names(meta)
        self.players = int(meta["players"])
        self.tally = Tally(self.names, self.players)
        self.first, self.carry = 0, None

    def feed(self, table) -> None:
        """The next rows of this batch (any number: a game cut between two row groups is carried)."""
        import pyarrow as pa

        if self.carry is not None:
            table = pa.concat_tables([self.carry, table])
        per_game = ROUNDS * self.players
        whole = table.num_rows // per_game * per_game
        self.carry = table.slice(whole) if whole < table.num_rows else None
        if whole:
            try:
                stats, seat_strategy = arrays_of(table.slice(0, whole), self.names, self.players, self.first)
            except GnomingError as exc:
                raise GnomingError(f"{self.label}: {exc}") from None
            _add(self.tally, stats, seat_strategy)
            self.first += len(stats)

    def standings(self) -> Standings:
        path, label, meta = self.path, self.label, self.meta
        if self.carry is not None:
            raise GnomingError(f"{label} ends inside game {self.first}: the file is damaged")
        if not self.tally.games:
            raise GnomingError(f"{label} holds no games")
        planned = int(meta["games"])
        if self.tally.games > planned:
            raise GnomingError(f"{label} holds {self.tally.games} games, more than the {planned} its metadata "
                               "plans: the file is damaged")
        summary = build_summary(self.tally, seed=meta["seed"], rules=_rules(meta, label), deck=_deck(meta, label),
                                wall_s=None, games_run=0, extra=_extra(meta, self.tally.games, label))
        return Standings(path, summary, _frame(summary["by_strategy"], "strategy"),
                         _frame(summary["by_seat"], "seat", int))


def _read_groups(pf, path: Path, each) -> None:
    """``each(table)`` for every row group of ``pf``; a read error is a one-line GnomingError."""
    import pyarrow as pa

    i = 0
    try:
        for i in range(pf.num_row_groups):
            each(pf.read_row_group(i))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise GnomingError(f"{path}: cannot read row group {i} ({one_line(exc)}): the file is damaged") from None


def _feed_variants(pf, readings: dict, path: Path) -> None:
    """A compare file's row groups, each row to the reading of its ``variant``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    def split(table):
        column = table.column("variant")
        if column.null_count:
            raise GnomingError(f"{path}: column 'variant' has missing values: the file is damaged")
        names = pc.cast(column, pa.string())
        for name in pc.unique(names).to_pylist():
            if name not in readings:
                raise GnomingError(f"{path} has rows of a variant its metadata does not list ({name!r}): "
                                   "the file is damaged")
            readings[name].feed(table.filter(pc.equal(names, name)).drop_columns(["variant"]))

    _read_groups(pf, path, split)


def _add(tally: Tally, stats, seat_strategy) -> None:
    from gnoming_sim.kernel.win_credit import win_credit

    tally.add(stats, seat_strategy, win_credit(stats[..., F_SCORE]))


def _rules(meta: dict, label: str):
    from gnoming_sim.game.rules import RuleConfig

    return RuleConfig.from_dict(meta["rules"], source=f"{label} (its rules)")


def _deck(meta: dict, label: str):
    from gnoming_sim.game.deck import Deck

    return Deck.from_mapping(meta["deck"], name=meta.get("deck_name", "custom"), source=f"{label} (its deck)")


def _extra(meta: dict, games: int, label: str) -> dict:
    """The summary keys ``simulate`` adds about its run, as the file tells them."""
    planned = int(meta["games"])
    return {"seats": list(meta["seats"]), "rotate": bool(meta.get("rotate", False)), "source": label,
            "games_requested": planned, "complete": games == planned,
            "interrupted": None if games == planned else "the run that wrote the file stopped early"}


def _frame(entries: dict, index: str, key=str):
    """One row per label of a summary table; each ``[lo, hi]`` pair as two columns."""
    import pandas as pd

    rows = {}
    for label, entry in entries.items():
        row = {}
        for k, v in entry.items():
            if isinstance(v, (list, tuple)):
                row[f"{k}_lo"], row[f"{k}_hi"] = v
            else:
                row[k] = v
        rows[key(label)] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = index
    return frame.astype({c: float for c in frame.columns if not c.startswith("n_")})


__all__ = ["Standings", "standings"]
