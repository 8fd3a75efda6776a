"""Write the batch report: ``index.html`` (figures embedded), PNGs, CSVs and ``summary.json``.

>>> from gnoming_sim.batch.scan import scan_batch
>>> summary = write_batch_report(scan_batch("games.parquet"), "games-report")

The folder is written as given; :mod:`gnoming_sim.cli.report_batch` hands it a fresh
temporary folder and moves it into place, so a reader never sees half a report.
"""
from __future__ import annotations

import datetime as _dt
import functools
import json
import math
from pathlib import Path

import jinja2

from gnoming_sim.batch.safe_folder import staged_report
from gnoming_sim.batch.scan import BatchScan

from gnoming_sim.stats import Estimate
from ..framework.render import estimates_frame
from ..framework.render import data_uri, environment, figure_png
from . import content, figures

TEMPLATES = Path(__file__).parent / "templates"


@functools.cache
def _environment() -> jinja2.Environment:
    """The report's environment (filters, macros) with this package's templates first (built once a process)."""
    env = environment()
    return env.overlay(loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(TEMPLATES)), env.loader]))


def write_batch_report(scan: BatchScan, out_dir) -> dict:
    """Write the report of ``scan`` into ``out_dir``; return summary.json's dict.

    ``out_dir``: a folder (written crash-safely, created if missing; files there that
    gnoming-sim did not write are kept), or a :class:`~gnoming_sim.batch.safe_folder.StagedDir`
    the caller publishes.
    """
    if hasattr(out_dir, "write"):
        return _write(scan, out_dir)
    with staged_report(Path(out_dir)) as stage:
        return _write(scan, stage)


def _write(scan: BatchScan, out) -> dict:
    """The report's files, each through ``out.write(name, data)``."""
    names = list(scan.names)
    by_strategy = content.standings(scan.by_strategy, names, scan.players)
    by_seat = content.standings(scan.by_seat, [f"seat {s}" for s in range(scan.players)], scan.players)
    parts = content.score_parts(scan)
    play = content.play_stats(scan)
    finish = content.early_finish(scan)
    facts = content.facts(scan)

    figs = {
        "standings": (figures.standings(by_strategy, scan.players, "strategy"),
                      "Mean game score and win share per strategy; bars are 95% intervals over games.",
                      "Dot plots of each strategy's mean game score and win share with interval bars"),
        "seats": (figures.standings(by_seat, scan.players, "seat"),
                  "Mean game score and win share per seat, every strategy pooled; 95% intervals over games.",
                  "Dot plots of each seat's mean game score and win share"),
        "scores": (figures.score_distributions(scan),
                   "Left: share of a strategy's game scores at or below each value. Right: its round scores.",
                   "Cumulative distribution of game scores and histogram of round scores per strategy"),
        "turns": (figures.turns(scan),
                  "Left: turns a seat takes in a round, per strategy. Right: all seats' turns in a round.",
                  "Histograms of turns per round"),
        "finish-by-score": (figures.finish_by_score(finish["by_score"], names),
                            f"Share of finishes that earned the \u22125, by the finisher's round score when it "
                            f"finished; shaded: Wilson 95% intervals; scores with fewer than "
                            f"{content.MIN_FINISHES} finishes are left out (they are in the CSV).",
                            "Curves of the probability of the -5 bonus against the finisher's score"),
        "lines-hazards": (figures.lines_and_hazards(scan),
                          "Matched lines (left) and hazards (right, log scale) in a layout at round end.",
                          "Bar charts of matched lines and hazards left per layout"),
    }
    rendered = {}
    for name, (fig, caption, alt) in figs.items():
        png = figure_png(fig)
        out.write(f"batch-{name}.png", png)
        rendered[name] = {"id": name, "src": data_uri(png), "file": f"batch-{name}.png", "caption": caption,
                          "alt": alt}

    frames = {
        "standings-strategy": estimates_frame([_flat(r, "strategy") for r in by_strategy]),
        "standings-seat": estimates_frame([_flat(r, "seat") for r in by_seat]),
        "score-parts": estimates_frame([_flat(r, "strategy") for r in parts]),
        "play": estimates_frame([_flat(r, "strategy") for r in play["by_strategy"]]),
        "early-finish": estimates_frame([_flat(r, "strategy") for r in finish["by_strategy"]]),
        "finish-by-score": finish["by_score"],
        "game-score-histogram": content.histogram_frame(scan.game_score, names, "game_score"),
        "round-score-histogram": content.histogram_frame(scan.round_score, names, "round_score"),
        "turns-histogram": content.histogram_frame(scan.seat_turns, names, "turns"),
        "round-turns-histogram": content.histogram_frame(scan.table_turns, ["all seats"], "turns"),
        "lines-histogram": content.histogram_frame(scan.lines, names, "lines"),
        "hazards-histogram": content.histogram_frame(scan.hazards_left, names, "hazards"),
    }
    for name, frame in frames.items():
        out.write(f"batch-{name}.csv", frame.to_csv(index=False, float_format="%.6g"))

    from gnoming_sim.game.version import __version__

    html = _environment().get_template("batch_report.html").render(
        facts=facts, figures=rendered, by_strategy=by_strategy, by_seat=by_seat, parts=parts,
        part_names=content.SCORE_PARTS, play=play, finish=finish, players=scan.players,
        version=__version__, date=_dt.date.today().isoformat(), csv=[f"batch-{n}.csv" for n in frames])
    out.write("index.html", html)
    summary = _summary(scan, facts, by_strategy, by_seat, parts, play, finish, __version__)
    out.write("summary.json", json.dumps(summary, indent=2) + "\n")
    return summary


def _flat(row: dict, label: str) -> dict:
    return {label if k == "label" else k: v for k, v in row.items()}


def _est_json(e: Estimate) -> dict | None:
    return e.to_json() if all(math.isfinite(v) for v in (e.mean, e.lo, e.hi)) else None


def _group_json(rows: list[dict]) -> dict:
    return {str(r["label"]): {k: (_est_json(v) if isinstance(v, Estimate) else v)
                              for k, v in r.items() if k != "label"} for r in rows}


def _summary(scan, facts, by_strategy, by_seat, parts, play, finish, version) -> dict:
    """summary.json: facts, then every estimate as ``{"mean", "ci95", "n"}`` (n = games)."""
    return {
        "version": version,
        "batch": {k: v for k, v in facts.items() if k not in ("rules", "params")}
                 | {"rules": {name: value for name, value, _, _ in facts["rules"]}},
        "unit": "game: per strategy, a game's value is the mean over that strategy's seats",
        "standings": {
            "by_strategy": {str(r["label"]): {"seats_per_game": r["seats"], "mean_game_score": _est_json(r["score"]),
                                              "win_share": _est_json(r["win"])} for r in by_strategy},
            "by_seat": {str(s): {"mean_game_score": _est_json(r["score"]), "win_share": _est_json(r["win"])}
                        for s, r in enumerate(by_seat)},
        },
        "score_parts_per_round": _group_json(parts),
        "play_per_round": _group_json(play["by_strategy"]),
        "table": {"turns_per_round": _est_json(play["round_turns"]), "stalled_share": _est_json(play["stalled"]),
                  "stalled_rounds": play["stalled_rounds"], "hazard_round_share": _est_json(play["hazard_rounds"]),
                  "finished_round_share": _est_json(play["finished_rounds"])},
        "early_finish": {
            "conditioning": "P(-5 | score) is conditional on the strategy choosing to finish at that score",
            "by_strategy": _group_json(finish["by_strategy"]),
            "by_score": finish["by_score"].to_dict(orient="records"),
        },
        "scan": {"wall_s": scan.wall_s, "rows": facts["rows"], "row_groups": scan.row_groups},
    }
