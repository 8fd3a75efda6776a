"""The study framework: a study is an experiment design, a tidy frame, its conclusions, figures.

A study module defines one :class:`Study` subclass and registers an instance in
:data:`gnoming_sim.analyses.report.STUDIES`.  The report (:mod:`gnoming_sim.analyses.report`) then, for each study:

1. asks it for its design: a list of :class:`Table` s to play, all under one seed;
2. plays every table in chunks (:meth:`Study.play`; by default :func:`play_tables`),
   passing each chunk to :meth:`Study.tidy`, which keeps only what the conclusions need,
   as a DataFrame;
3. hands the concatenated frame to :meth:`Study.conclude`, which returns a
   :class:`StudyResult`: summary frames, headline findings, figures (matplotlib
   ``Figure`` objects, never pyplot) and the variables of its jinja2 template.

Studies never write files and never touch global state; the report renders and writes.
"""
from __future__ import annotations

import abc
import time
import zlib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from gnoming_sim.batch.distributed import simulate_many
from gnoming_sim.game.deck import PUBLISHED, Deck
from gnoming_sim.game.rules import RuleConfig

from gnoming_sim.stats import Estimate
from .render import format_interval, format_mean
from .design import STRONG_LADDER, TOP_DIFFERENCE
from .words import SETTLED_MEANS, convergence, power_by_size_json, power_json

# the committed data sets the studies read (analyses/data/, installed with the package: pyproject's package-data)
DATA = Path(str(resources.files("gnoming_sim.analyses").joinpath("data")))
CHUNK_GAMES = 16_384   # games per engine call: one progress step


@dataclass(frozen=True)
class Table:
    """One simulated table setting: ``games`` games of ``players`` with these seats.

    With ``rotate`` game ``g`` seats ``seats[(s + g) % players]`` at seat ``s`` (the
    engine's rotation); games are numbered from ``first_game``, so two tables with the
    same seed and game numbers are dealt the same cards (common random numbers).
    """

    players: int
    seats: tuple[str, ...]
    games: int
    first_game: int = 0
    rotate: bool = True
    label: str = ""
    pool: tuple[str, ...] = ()   # every strategy name of the design (a study's category list), if it keeps one

    def command(self, seed: int) -> str:
        """The ``gnoming-sim simulate`` command that replays this table's games."""
        if self.first_game:
            return ""   # simulate always starts at game 0
        seats = ",".join(self.seats)
        rot = "" if self.rotate else " --no-rotate-seats"
        return f"gnoming-sim simulate --players {self.players} --seats {seats} --seed {seed} --games {self.games}{rot}"


@dataclass
class Context:
    """What every study of one report shares: options, rules, deck and the master seed."""

    seed: int = 0
    quick: bool = False
    games: int | None = None      # games per design cell; None: each study's own size
    threads: int | None = None
    rules: RuleConfig = field(default_factory=RuleConfig)
    deck: Deck = PUBLISHED
    pool: object = None           # a gnoming_sim.batch.distributed pool (--workers / --scheduler), or None
    strategies: tuple[str, ...] = ()   # registered (user) strategies that join the presets in the tournament

    def simulate_many(self, calls):
        """``engine.simulate(**call)`` for each call, in order, on the pool or in this process."""
        return simulate_many(calls, self.pool)

    def study_seed(self, study_id: str) -> int:
        """A 64-bit seed of (master seed, study id): studies draw independent games."""
        words = [self.seed & 0xFFFFFFFF, self.seed >> 32, zlib.crc32(study_id.encode())]
        return int(np.random.SeedSequence(words).generate_state(1, np.uint64)[0])

    def cell_games(self, study: "Study") -> int:
        """Games per design cell for ``study``: ``--games``, else its quick or full size."""
        if self.games is not None:
            return self.games
        return study.quick_games if self.quick else study.default_games


@dataclass(frozen=True)
class Finding:
    """A headline: a plain sentence with ``{value}`` where the estimate's mean goes.

    ``kind`` picks the number format ("pct", "points", "signed", "score");
    ``unit`` names what ``n`` counts ("deals", "finished rounds").
    """

    key: str
    sentence: str
    estimate: Estimate
    kind: str = "points"
    unit: str = "deals"

    def to_json(self) -> dict:
        text = self.sentence.format(value=format_mean(self.estimate, self.kind))
        e = self.estimate
        return {"key": self.key, "text": text, "unit": self.unit, **e.to_json(),
                "display": f"{text} (95% interval {format_interval(e, self.kind)}; n = {e.n:,} {self.unit})"}


@dataclass(frozen=True)
class FigureOut:
    """A figure of a study: ``name`` becomes the file ``<study id>-<name>.png``."""

    name: str
    figure: object      # matplotlib.figure.Figure
    caption: str
    alt: str


@dataclass(frozen=True)
class Precision:
    """The half-width an estimate reached: what it is about, and its unit.

    ``target`` is the half-width the study was sized for (a decision-relevant precision
    stated before the run), or None where the estimate carries no advice.
    """

    what: str
    half_width: float
    kind: str = "points"
    target: float | None = None

    @property
    def met(self) -> bool | None:
        """Whether the estimate reached its target (None without one)."""
        if self.target is None:
            return None
        return bool(self.half_width <= self.target)


@dataclass(frozen=True)
class Answer:
    """One of the report's answers: one sentence a player can act on, with one figure.

    ``sentence`` holds ``{value}`` where the estimate's mean goes (formatted by ``kind``);
    ``holds_under`` names the players under which it holds (:func:`.words.holds_under`), and
    ``rank`` orders the answers section (lowest first; the report keeps at most
    :data:`MAX_ANSWERS`).  ``convergence``: what the equivalence test of the two strongest rungs
    says of it (:func:`.words.convergence`: "converged", "still moves", "convergence not shown", "not tested"),
    None where it was not measured along the ladder.
    """

    key: str
    sentence: str
    estimate: Estimate
    holds_under: str
    kind: str = "pct"
    unit: str = "deals"
    rank: int = 50
    convergence: str | None = None

    def to_json(self) -> dict:
        text = self.sentence.format(value=format_mean(self.estimate, self.kind))
        return {"key": self.key, "text": text, "unit": self.unit, "holds_under": self.holds_under,
                "convergence": self.convergence, **self.estimate.to_json(),
                "display": f"{text} (95% interval {format_interval(self.estimate, self.kind)}; "
                           f"n = {self.estimate.n:,} {self.unit}; holds under {self.holds_under})"}


MAX_ANSWERS = 8
# the rungs an answer is read along, weakest first (summary.json's estimands use these keys)
RUNGS = ("mix", *STRONG_LADDER)


def estimand(definition: str, unit: str, by_player: dict, differences: dict, *, n_unit: str = "deals",
             settled: str | None = None, target: float | None = None, by_size: dict | None = None,
             judged_by_size: dict | None = None, judged: str | None = None) -> dict:
    """One estimand of summary.json's ``estimands``: its value under each rung and the paired differences.

    ``by_player`` maps a rung (:data:`RUNGS`) to an :class:`Estimate`; ``differences`` maps
    ``"net-mix"`` style keys to the paired :class:`Estimate` of the difference on the same
    deals (or decisions).  ``settled``: the word :func:`.words.equivalence` says of the two strongest
    rungs' difference (:data:`.design.TOP_DIFFERENCE`, ``net-learned``) at the precision ``target``
    ("holds", "differs", "not shown to differ", "not tested" where under 80% power; None if not judged), and
    ``convergence`` what that says of
    the answer (:func:`.words.convergence`); ``by_size``: :func:`.words.size_json`, whether the table sizes
    of a pooled value agree; ``judged_by_size`` (size -> the top difference there): ``settled`` was judged at
    every table size (:func:`.words.equivalence_by_size`), and the power fields say so (``judged``: of what,
    where that is not the estimand itself).
    """
    out = {"definition": definition, "unit": unit, "n_unit": n_unit,
           "players": {k: v.to_json() for k, v in by_player.items()},
           "differences": {k: v.to_json() for k, v in differences.items()},
           "settled": settled, "settled_means": SETTLED_MEANS if settled is not None else None,
           "convergence": convergence(settled), "equivalence_target": target}
    if settled is not None and target is not None and judged_by_size is not None:
        out.update(power_by_size_json(judged_by_size, target, *([judged] if judged else [])))
    elif settled is not None and target is not None:
        out.update(power_json(differences.get(TOP_DIFFERENCE), target))
    if by_size is not None:
        out["by_table_size"] = by_size
    return out


@dataclass
class StudyResult:
    """What a study hands the report."""

    findings: list[Finding]
    figures: list[FigureOut]
    frames: dict[str, pd.DataFrame]
    summary: dict
    precision: list[Precision]
    context: dict = field(default_factory=dict)   # the template's own variables
    answers: list[Answer] = field(default_factory=list)      # candidates for the report's answers section
    estimands: dict = field(default_factory=dict)           # question -> measure -> :func:`estimand`


class Study(abc.ABC):
    """Base class of a study; subclasses set the attributes, implement :meth:`conclude`, give their design
    (``tables(games per cell)``, or their own :meth:`design`), and either :meth:`tidy` (standard deals) or their
    own :meth:`play`."""

    id: str = ""                # the HTML section id (``early-finish``)
    stream: str = ""            # the name its deals are drawn under (:meth:`Context.study_seed`): its id unless set,
                                # so a renamed study keeps the deals it has always played
    title: str = ""
    template: str = ""          # path relative to analyses/; by default the template.html beside the study's module
    default_games: int = 10_000  # games per design cell in a full report
    quick_games: int = 500       # ... and with --quick
    tables: Callable[[int], list[Table]]   # the design for a number of games per cell (its design.tables)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        package = cls.__module__.rpartition(".")[0]      # a study's own folder; a class outside one names its template
        if "template" not in cls.__dict__ and package:
            cls.template = f"{package.rpartition('.')[2]}/template.html"

    @property
    def key(self) -> str:
        """The study's key in summary.json (``early_finish``)."""
        return self.id.replace("-", "_")

    def kernels(self, ctx: Context) -> tuple[str, ...]:
        """The kernel groups its games play (:data:`gnoming_sim.cli.warmup.GROUPS`): a report compiling them
        ahead starts the study once they are ready.  A group left out compiles when first used (slower,
        never wrong)."""
        return ("heuristic", "every-family")

    def cell_games(self, ctx: Context) -> int:
        """Games per design cell in this report (``ctx.cell_games``; a costly study may cap ``--games``)."""
        return ctx.cell_games(self)

    def design(self, ctx: Context) -> list[Table]:
        """The tables to play: by default ``tables(games per cell)``."""
        return self.tables(self.cell_games(ctx))

    def play(self, ctx: Context, seed: int, tables: Sequence[Table],
             advance: Callable[[int], None]):
        """Play ``tables`` under ``seed`` and return the data :meth:`conclude` receives.

        The default plays the standard deals of every table (:func:`play_tables`).  A
        study of edited deals (paired arms on the same deals) overrides it; it must call
        ``advance(k)`` after every ``k`` games it plays.
        """
        return play_tables(self, ctx, seed, tables, advance)

    def tidy(self, index: int, table: Table, result) -> pd.DataFrame:
        """Rows to keep from one chunk of ``table`` (the ``index``-th of the design).

        Only the default :meth:`play` calls it; a study that overrides :meth:`play` need not.
        """
        raise TypeError(f"{type(self).__name__} plays standard deals, so it must define tidy()")

    @abc.abstractmethod
    def conclude(self, ctx: Context, tables: Sequence[Table], data: pd.DataFrame) -> StudyResult:
        """Estimates, findings and figures from the concatenated data."""


@dataclass
class StudyRun:
    """A study after it ran: its design, seed, result and timing."""

    study: Study
    seed: int
    tables: list[Table]
    result: StudyResult
    games: int
    wall_s: float


def play_study(study: Study, ctx: Context, advance: Callable[[int], None] = lambda n: None,
               tables: list[Table] | None = None) -> StudyRun:
    """Play the study's design and conclude; ``advance(k)`` after every ``k`` games played."""
    t0 = time.perf_counter()
    seed = ctx.study_seed(study.stream or study.id)
    tables = study.design(ctx) if tables is None else tables
    data = study.play(ctx, seed, tables, advance)
    result = study.conclude(ctx, tables, data)
    return StudyRun(study, seed, list(tables), result, sum(t.games for t in tables),
                    time.perf_counter() - t0)


def play_tables(study: Study, ctx: Context, seed: int, tables: Sequence[Table],
                advance: Callable[[int], None]) -> pd.DataFrame:
    """Play the standard deals of every table in chunks; concatenate what :meth:`Study.tidy` keeps."""
    chunks = [(index, table, lo, min(CHUNK_GAMES, table.first_game + table.games - lo))
              for index, table in enumerate(tables)
              for lo in range(table.first_game, table.first_game + table.games, CHUNK_GAMES)]
    calls = (dict(players=table.players, strategies=table.seats, games=n, seed=seed, rules=ctx.rules,
                  deck=ctx.deck, threads=ctx.threads, chunk_size=n, first_game=lo, rotate=table.rotate)
             for _, table, lo, n in chunks)
    parts = []
    for (index, table, _, n), res in zip(chunks, ctx.simulate_many(calls)):
        parts.append(study.tidy(index, table, res))
        advance(n)
    return pd.concat(parts, ignore_index=True)
