"""`gnoming-sim report`: a --quick report builds; every section and figure is there; no NaN
or empty table reaches the page; summary.json intervals contain their means; and a
headless Chromium renders the page as something other than a blank sheet."""
from __future__ import annotations

import base64
import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from _pages import assert_renders, estimates
from click.testing import CliRunner

from gnoming_sim.analyses.report import STUDIES
from gnoming_sim.game.version import __version__
from gnoming_sim.cli.app import cli

pytestmark = pytest.mark.slow  # builds quick reports / starts Dask clusters

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SECTION_IDS = ("tournament", "ladder", "card", "agreement", "early-finish", "finish-play-on", "pocket-rules", "mulligan-value", "hazard-risk", "house-rules", "value")


class Page(HTMLParser):
    """Sections (by id), images (with the section they sit in), tables (their body cells)."""

    def __init__(self):
        super().__init__()
        self.sections: dict[str, str] = {}   # id -> text
        self.images: list[dict] = []
        self.tables: list[dict] = []
        self._section: list[str] = []
        self._table = None
        self._in_body = False
        self._cell = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self._section.append(attrs.get("id", ""))
            self.sections.setdefault(attrs.get("id", ""), "")
        elif tag == "img":
            self.images.append({**attrs, "section": self._section[-1] if self._section else ""})
        elif tag == "table":
            self._table = {"cells": [], "section": self._section[-1] if self._section else ""}
        elif tag == "tbody":
            self._in_body = True
        elif tag == "td" and self._table is not None and self._in_body:
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "section" and self._section:
            self._section.pop()
        elif tag == "table" and self._table is not None:
            self.tables.append(self._table)
            self._table = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "td" and self._cell is not None:
            self._table["cells"].append(self._cell.strip())
            self._cell = None

    def handle_data(self, data):
        for sid in self._section:
            self.sections[sid] += " " + data   # cells apart: "4" and "none" must not read "4none"
        if self._cell is not None:
            self._cell += data


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    result = CliRunner().invoke(cli, ["report", "--quick", "--seed", "3", "--out", str(out)])
    assert result.exit_code == 0, (result.output, result.exception)
    assert "index.html" in result.stdout
    return out


@pytest.fixture(scope="module")
def page(report) -> Page:
    parser = Page()
    parser.feed((report / "index.html").read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def summary(report) -> dict:
    return json.loads((report / "summary.json").read_text(encoding="utf-8"))


# ----------------------------------------------------------------- the page
def test_every_study_has_its_section(page):
    assert [s.id for s in STUDIES] == list(SECTION_IDS)
    for study in STUDIES:
        assert study.id in page.sections, study.id
        assert study.title in page.sections[study.id]
        assert "Precision reached" in page.sections[study.id]   # the half-width each study reached


def test_figures_are_embedded_and_saved_beside(report, page):
    by_section = {}
    for img in page.images:
        assert img["src"].startswith("data:image/png;base64,")
        png = base64.b64decode(img["src"].split(",", 1)[1])
        assert png.startswith(PNG_MAGIC) and len(png) > 5000
        assert img.get("alt")
        by_section.setdefault(img["section"], []).append(png)
    files = {p.name: p.read_bytes() for p in report.glob("*.png")}
    for study in STUDIES:
        mine = sorted(name for name in files if name.startswith(study.id + "-"))
        assert len(by_section.get(study.id, [])) == len(mine) >= 1, (study.id, mine)
        assert sorted(by_section[study.id]) == sorted(files[name] for name in mine)
    for name in ("tournament-standings.png", "tournament-head-to-head.png", "tournament-seats.png",
                 "early-finish-by-score.png", "early-finish-by-gap.png", "early-finish-by-players.png",
                 "early-finish-by-turn.png"):
        assert name in files


def test_answers_open_the_report_then_the_designers_figures(page, summary):
    html_order = list(page.sections)
    assert html_order.index("the-rules") < html_order.index("answers") < html_order.index("balance") \
        < html_order.index("headlines") < html_order.index("tournament")
    if "pocket_rules" not in summary:   # a report without the pocket rules study says so
        assert "The ladder and the pocket rules are not available" in page.sections["the-rules"]
    else:   # the ladder's rungs, then the pocket rules
        text = page.sections["the-rules"]
        assert text.index("simplest default") < text.index("The pocket rules") < text.index("1 start")
    answers = page.sections["answers"]
    assert 1 <= len(summary["answers"]) <= 8
    assert answers.count("95% interval [") == len(summary["answers"]) == answers.count("holds under ")
    designer = set(summary["designer_findings"])
    assert page.sections["balance"].count("95% interval") == len(designer)
    head = page.sections["headlines"]
    assert len(summary["findings"]) >= 4
    assert head.count("95% interval") == len(summary["findings"]) - len(designer)
    assert head.count("n = ") == len(summary["findings"]) - len(designer)
    keys = {f["key"] for f in summary["findings"]}
    assert {"early_finish.bonus_probability", "tournament.head_to_head"} <= keys
    for key in ("score_change_per_round", "paired_se", "unpaired_se"):
        assert key in summary["mulligan_value"], key
    assert summary["mulligan_value"]["paired_se"] < summary["mulligan_value"]["unpaired_se"]
    assert "end_with_hazard_probability" in summary["hazard_risk"]


def test_how_it_was_made(page):
    made = page.sections["how-made"]
    for fact in (f"gnoming-sim {__version__}", "master seed", "3", "wall time", "Rules", "Deck: published",
                 "110 cards", "finisher_tie_is_lowest", "--quick", "Strategy tournament", "half-width"):
        assert fact in made, fact


def test_no_nan_and_no_empty_table(page):
    text = " ".join(page.sections.values())
    assert not re.search(r"\bnan\b|\binf\b|\u2014", text, flags=re.IGNORECASE), "a missing number is shown"
    assert not re.search(r"\bNone\b", text), "a Python None is shown"
    assert len(page.tables) >= 6
    for table in page.tables:
        assert table["cells"], table["section"]
        assert all(cell for cell in table["cells"]), table


# ----------------------------------------------------------------- summary.json


def test_summary_intervals_contain_their_means(summary):
    found = list(estimates(summary))
    assert len(found) > 100
    for path, e in found:
        lo, hi = e["ci95"]
        assert all(math.isfinite(v) for v in (e["mean"], lo, hi)), path
        assert lo <= e["mean"] <= hi, (path, e)
        assert isinstance(e["n"], int) and e["n"] > 0, path


def test_summary_early_finish_bonus_probability(summary):
    p = summary["early_finish"]["bonus_probability"]
    assert set(p) == {"mean", "ci95", "n"}
    assert 0 < p["ci95"][0] <= p["mean"] <= p["ci95"][1] < 1
    assert p["n"] > 1000
    assert summary["seed"] == 3 and summary["quick"] is True
    assert set(summary["studies"]) >= {"tournament", "early_finish"}
    for study in summary["studies"].values():
        assert study["half_widths"] and all(h > 0 for h in study["half_widths"].values())


# ----------------------------------------------------------------- rendering
def test_chromium_renders_a_page_that_is_not_blank(chromium, report, tmp_path):
    assert_renders(chromium, report / "index.html", tmp_path)


# ----------------------------------------------------------------- user errors
@pytest.mark.parametrize("args, fragment", [
    (["--games", "0"], "--games"),
    (["--threads", "0"], "--threads"),
    (["--seed", "-1"], "--seed"),
])
def test_report_rejects_bad_options(tmp_path, args, fragment):
    result = CliRunner().invoke(cli, ["report", "--out", str(tmp_path / "r"), *args])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("gnoming-sim: error: ") and fragment in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_report_rejects_an_out_that_is_a_file(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    result = CliRunner().invoke(cli, ["report", "--out", str(target)])
    assert result.exit_code == 2 and "--out" in result.stderr


def test_the_three_answers_are_estimands_along_the_ladder(summary):
    """summary.json holds, for mulligan, hazard and finishing, the win-chance and margin estimands under
    the preset mix and the two rungs of the strong ladder (learned, net), with the paired differences between
    rungs."""
    from gnoming_sim.analyses.framework.design import SECOND, STRONG, STRONG_LADDER

    estimands = summary["estimands"]
    assert summary["strong_ladder"] == list(STRONG_LADDER)
    for question in ("mulligan", "hazard", "finishing"):
        for measure in ("win_chance", "margin"):
            e = estimands[question][measure]
            assert e["definition"] and e["unit"], (question, measure)
            assert set(e["players"]) == {"mix", SECOND, STRONG}, (question, measure)
            assert set(e["differences"]) == {f"{SECOND}-mix", f"{STRONG}-mix", f"{STRONG}-{SECOND}"}, (question, measure)
            for part in (*e["players"].values(), *e["differences"].values()):
                lo, hi = part["ci95"]
                assert part["n"] > 0 and lo <= part["mean"] <= hi, (question, measure, part)


def test_every_advice_bearing_precision_states_its_target(summary):
    targets = [t for s in summary["studies"].values() for t in s.get("targets", {}).values()]
    assert len(targets) >= 6
    for t in targets:
        assert t["target"] > 0 and isinstance(t["met"], bool)


def test_a_quick_report_is_a_preview_that_says_no_clear(report, summary):
    """`report --quick` prints no headline its size cannot support: every finding and answer
    is a preview, and none says "clear", "clearly" or "settled" (quick once said "'no bouncing' ... clear
    after Holm" where the full report said the opposite)."""
    from gnoming_sim.analyses.framework.words import verdict_words

    assert summary["quick"]
    for item in (*summary["findings"], *summary["answers"]):
        assert item["preview"] and item["display"].startswith("Preview"), item["key"]
        assert not verdict_words(item["display"]), item["display"]
