"""The report: run the registered studies, write ``index.html``, PNGs, CSVs and ``summary.json``.

>>> from gnoming_sim.analyses.report import build_report
>>> summary = build_report("reports", quick=True, seed=1)

``index.html`` is self-contained (every figure embedded as a base64 PNG); each figure
is also written beside it as ``<study id>-<figure>.png``, each summary frame as
``<study id>-<frame>.csv``.  ``summary.json`` holds the headline figures, every one as
``{"mean": m, "ci95": [lo, hi], "n": n}``.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import json
import platform
import time
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numba
import numpy

from gnoming_sim.batch.safe_folder import check_target, staged_report
from gnoming_sim.game.deck import PUBLISHED, Deck
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.game.version import __version__

from . import lead
from .agreement import CardAgreement
from .early_finish import EarlyFinish
from .finish_play_on import FinishPlayOn
from .framework.design import EXPERT, SECOND, STRONG, STRONG_LADDER
from .framework.render import data_uri, environment, figure_png, fold_tables, format_mean
from .framework.study import MAX_ANSWERS, Context, Study, StudyRun, play_study
from .framework.words import as_preview
from .card import CardStudy
from .hazard_risk import HazardRisk
from .house_rules import HouseRules
from .ladder import StrengthLadder
from .mulligan_value import MulliganValue
from .rules import PocketRules
from .tournament import Tournament
from .value_calibration import ValueCalibration

# the studies a report runs, in order (the registry)
STUDIES = (Tournament(), StrengthLadder(), CardStudy(), CardAgreement(), EarlyFinish(), FinishPlayOn(), PocketRules(), MulliganValue(), HazardRisk(), HouseRules(), ValueCalibration())
# the studies whose findings are the designers' balance figures (skill against luck, seats, round
# length, house rules under strong play); the other studies' findings are details of their sections
DESIGNER_STUDIES = ("tournament", "ladder", "house-rules")

ProgressFactory = Callable[[Study, int], contextlib.AbstractContextManager]


@contextlib.contextmanager
def _no_progress(study, total):
    yield lambda n: None


def build_report(out_dir="reports", *, quick: bool = False, games: int | None = None, seed: int = 0,
                 threads: int | None = None, rules: RuleConfig | None = None, deck: Deck | None = None,
                 studies: Sequence[Study] | None = None, progress: ProgressFactory | None = None,
                 command: str = "", pool=None, force: bool = False, strategies: Sequence[str] = (),
                 compiling=None) -> dict:
    """Run ``studies`` (default: :data:`gnoming_sim.analyses.STUDIES`) and write the report into ``out_dir``.

    ``progress(study, total_games)`` returns a context manager yielding ``advance(k)``,
    called after every ``k`` games of that study.  ``pool`` (from
    :func:`gnoming_sim.batch.distributed.open_pool`) plays the games on a Dask cluster; the
    report is the same either way.  ``strategies``: registered strategy names that join the
    presets in the tournament.  ``compiling`` (:func:`gnoming_sim.cli.warmup.start`): kernel groups compiling
    in the background; each study then starts once the groups it plays (:meth:`Study.kernels`) are compiled,
    the first ready in the report's order, so the studies run while the rest compile.  Returns the
    summary.json dict.

    The report is written into a fresh folder beside ``out_dir`` and put in place at the
    end (:mod:`gnoming_sim.batch.safe_folder`), so ``out_dir`` only ever holds one complete
    report: never stale figures of an earlier one, and the previous report intact if the
    run fails or is interrupted.  Files in ``out_dir`` that gnoming-sim did not write are
    refused (:class:`GnomingError`) unless ``force``, and kept with it.
    """
    t0 = time.perf_counter()
    out = check_out_dir(out_dir, force)
    ctx = Context(seed=seed, quick=quick, games=games, threads=threads,
                  rules=RuleConfig() if rules is None else rules, deck=PUBLISHED if deck is None else deck,
                  pool=pool, strategies=tuple(strategies))
    progress = progress or _no_progress
    with staged_report(out) as stage:
        order = list(STUDIES if studies is None else studies)
        runs: list[StudyRun | None] = [None] * len(order)
        for i in _as_compiled(order, ctx, compiling):
            tables = order[i].design(ctx)
            with progress(order[i], sum(t.games for t in tables)) as advance:
                runs[i] = play_study(order[i], ctx, advance, tables)
        sections = [_write_study(run, stage) for run in runs]
        wall = time.perf_counter() - t0
        summary = _summary(ctx, runs, wall, command)
        designer = [f for run in runs if run.study.id in DESIGNER_STUDIES for f in run.result.findings]
        details = [f for run in runs if run.study.id not in DESIGNER_STUDIES for f in run.result.findings]
        html = environment().get_template("report.html").render(
            lead=lead.page(summary), sections=sections, answers=[_finding_parts(a) | {"holds_under": a.holds_under} for a in answers_of(runs)],
            designer=[_finding_parts(f) for f in designer], findings=[_finding_parts(f) for f in details],
            meta=_meta(ctx, runs, wall, command), deck=ctx.deck, rules=ctx.rules.describe(),
            expert=EXPERT, second=SECOND, strong=STRONG)
        stage.write("index.html", html)
        stage.write("summary.json", json.dumps(summary, indent=2) + "\n")
    return summary


def _as_compiled(studies: Sequence[Study], ctx: Context, compiling) -> Iterator[int]:
    """The indices of ``studies`` in the order they run: as given, or with ``compiling``, each time the first
    whose kernel groups are compiled (results do not depend on the order: each study has its own seed)."""
    left = list(range(len(studies)))
    while left:
        k = 0 if compiling is None else compiling.wait_any([studies[i].kernels(ctx) for i in left])
        yield left.pop(k)


# ----------------------------------------------------------------- the output folder

def check_out_dir(out_dir, force: bool = False, inputs=()) -> Path:
    """``out_dir`` as a Path if a report may be written there; else a one-line :class:`GnomingError`.

    An earlier report there is replaced; files it did not write are refused without
    ``force`` and kept with it; ``.`` and a folder holding one of ``inputs`` are refused.
    """
    return check_target(out_dir, "--out", force, inputs, names=("index.html", "summary.json"))


def _write_study(run: StudyRun, out) -> dict:
    """Write the study's PNGs and CSVs; render its section."""
    study, result = run.study, run.result
    figures = {}
    for fig in result.figures:
        png = figure_png(fig.figure)
        name = f"{study.id}-{fig.name}.png"
        out.write(name, png)
        figures[fig.name] = {"id": f"{study.id}-{fig.name}", "src": data_uri(png), "file": name,
                             "caption": fig.caption, "alt": fig.alt}
    for name, frame in result.frames.items():
        out.write(f"{study.id}-{name.replace('_', '-')}.csv", frame.to_csv(index=False, float_format="%.6g"))
    html = environment().get_template(study.template).render(
        study=study, run=run, figures=figures, precision=result.precision, **result.context)
    return {"id": study.id, "title": study.title, "html": fold_tables(html), "figures": figures}


def answers_of(runs) -> list:
    """The report's answers: every study's, by rank, at most :data:`MAX_ANSWERS`."""
    every = [a for run in runs for a in run.result.answers]
    return sorted(every, key=lambda a: a.rank)[:MAX_ANSWERS]


def _finding_parts(finding) -> dict:
    """A finding split around its number, so the template can set the number in bold."""
    before, _, after = finding.sentence.partition("{value}")
    return {"before": before, "value": format_mean(finding.estimate, finding.kind), "after": after,
            "estimate": finding.estimate, "kind": finding.kind, "unit": finding.unit}


def _meta(ctx: Context, runs, wall: float, command: str) -> dict:
    return {
        "version": __version__, "command": command, "seed": ctx.seed, "quick": ctx.quick,
        "games": ctx.games, "threads": ctx.threads or numba.get_num_threads(), "wall_s": wall,
        "date": _dt.date.today().isoformat(),
        "python": platform.python_version(), "numpy": numpy.__version__, "numba": numba.__version__,
        "studies": [{"id": r.study.id, "title": r.study.title, "seed": r.seed, "tables": len(r.tables),
                     "games": r.games, "cell_games": r.study.cell_games(ctx), "wall_s": r.wall_s,
                     "example": next((t.command(r.seed) for t in r.tables if t.command(r.seed)), ""),
                     "share": r.wall_s / wall if wall > 0 else 0.0,
                     "precision": r.result.precision} for r in runs],
    }


def _quick(ctx: Context, item: dict) -> dict:
    """A headline as summary.json (and the command line) shows it: a preview in a ``--quick`` report."""
    return as_preview(item) if ctx.quick else item


def _summary(ctx: Context, runs, wall: float, command: str) -> dict:
    summary = {
        "version": __version__, "command": command, "seed": ctx.seed, "quick": ctx.quick,
        "games_per_cell": ctx.games, "wall_s": wall,
        "rules": ctx.rules.to_dict(), "deck": {"name": ctx.deck.name, "size": ctx.deck.size,
                                              "cards": ctx.deck.to_dict()},
        # the players the answers are read along (weakest first) and the strong player they are stated under
        "strong_ladder": list(STRONG_LADDER), "strong_player": STRONG,
        "answers": [_quick(ctx, a.to_json()) for a in answers_of(runs)],
        "estimands": {q: m for r in runs for q, m in r.result.estimands.items()},
        "findings": [_quick(ctx, f.to_json()) for r in runs for f in r.result.findings],
        "designer_findings": [f.key for r in runs if r.study.id in DESIGNER_STUDIES for f in r.result.findings],
        "studies": {r.study.key: {"title": r.study.title, "seed": r.seed, "tables": len(r.tables),
                                  "games": r.games, "wall_s": r.wall_s,
                                  "half_widths": {p.what: p.half_width for p in r.result.precision},
                                  "targets": {p.what: {"half_width": p.half_width, "target": p.target, "met": p.met}
                                              for p in r.result.precision if p.target is not None}}
                    for r in runs},
    }
    for r in runs:
        summary[r.study.key] = r.result.summary
    return summary
