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


def standings(path) -> Standings:
    """The standings of the batch file ``path`` (written by ``simulate --out``, complete or
    interrupted): mean game score and win share per strategy and per seat with their 95% intervals
    and n, the numbers ``simulate`` prints for those games."""
    import pyarrow as pa

    path = Path(path)
    pf, meta = open_batch(path)
    names = strategy_names(meta)
    players = int(meta["players"])
    tally = Tally(names, players)
    per_game = ROUNDS * players
    first, carry = 0, None
    try:
        for i in range(pf.num_row_groups):
            table = pf.read_row_group(i)
            if carry is not None:
                table = pa.concat_tables([carry, table])
            whole = table.num_rows // per_game * per_game
            carry = table.slice(whole) if whole < table.num_rows else None
            if whole:
                stats, seat_strategy = arrays_of(table.slice(0, whole), names, players, first)
                _add(tally, stats, seat_strategy)
                first += len(stats)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise GnomingError(f"{path}: cannot read games {first}.. ({one_line(exc)}): the file is damaged") from None
    except GnomingError as exc:
        raise GnomingError(f"{path}: {exc}") from None
    finally:
        pf.close()
    if carry is not None:
        raise GnomingError(f"{path} ends inside game {first}: the file is damaged")
    if not tally.games:
        raise GnomingError(f"{path} holds no games")
    planned = int(meta["games"])
    if tally.games > planned:
        raise GnomingError(f"{path} holds {tally.games} games, more than the {planned} its metadata plans: "
                           "the file is damaged")
    summary = build_summary(tally, seed=meta["seed"], rules=_rules(meta, path), deck=_deck(meta, path), wall_s=None,
                            games_run=0, extra=_extra(meta, tally.games, path))
    return Standings(path, summary, _frame(summary["by_strategy"], "strategy"),
                     _frame(summary["by_seat"], "seat", int))


def _add(tally: Tally, stats, seat_strategy) -> None:
    from gnoming_sim.kernel.win_credit import win_credit

    tally.add(stats, seat_strategy, win_credit(stats[..., F_SCORE]))


def _rules(meta: dict, path: Path):
    from gnoming_sim.game.rules import RuleConfig

    return RuleConfig.from_dict(meta["rules"], source=f"{path} (its rules)")


def _deck(meta: dict, path: Path):
    from gnoming_sim.game.deck import Deck

    return Deck.from_mapping(meta["deck"], name=meta.get("deck_name", "custom"), source=f"{path} (its deck)")


def _extra(meta: dict, games: int, path: Path) -> dict:
    """The summary keys ``simulate`` adds about its run, as the file tells them."""
    planned = int(meta["games"])
    return {"seats": list(meta["seats"]), "rotate": bool(meta.get("rotate", False)), "source": str(path),
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
