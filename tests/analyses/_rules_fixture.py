"""The committed summary.json with the pocket rules study's section (``pocket_rules``) from
``data/summary_rules.json``: a --quick run's section, in the shape the study writes, so the README block, the docs'
generated blocks and the report's first screen can be checked before a report has it."""
from __future__ import annotations

import copy
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = ROOT / "reports" / "summary.json"
FIXTURE = Path(__file__).parent / "data" / "summary_rules.json"


def committed() -> dict:
    return json.loads(SUMMARY.read_text(encoding="utf-8"))


def with_rules(summary: dict | None = None) -> dict:
    """``summary`` (default: the committed one) with the fixture's pocket rules section in place of its own."""
    out = copy.deepcopy(committed() if summary is None else summary)
    out["pocket_rules"] = json.loads(FIXTURE.read_text(encoding="utf-8"))["pocket_rules"]
    return out


def fixture_report(out: Path, summary: dict | None = None) -> Path:
    """A report written by :func:`gnoming_sim.analyses.report.build_report` from studies that play no game and
    hand over the summary's sections (``pocket_rules``, ``agreement``, ``card``; ``summary`` in place of
    :func:`with_rules`'s): the report's first screen as a report with those studies renders it, in seconds.
    Their sections render nothing (their template is the macros file)."""
    from gnoming_sim.analyses.framework.study import Study, StudyResult
    from gnoming_sim.analyses.report import build_report

    summary = with_rules() if summary is None else summary

    class Fixed(Study):
        template = "_macros.html"   # defines macros only: renders no text

        def __init__(self, id: str, section: dict):
            self.id, self.title, self.section = id, f"{id} (fixture)", section

        def kernels(self, ctx):
            return ()

        def design(self, ctx):
            return []

        def play(self, ctx, seed, tables, advance):
            return None

        def conclude(self, ctx, tables, data):
            return StudyResult(findings=[], figures=[], frames={}, summary=self.section, precision=[])

    studies = [Fixed(key.replace("_", "-"), summary[key]) for key in ("card", "pocket_rules", "agreement")
               if key in summary]
    build_report(out, seed=0, studies=studies, command="fixture")
    return out / "index.html"
