"""The batch report page (`report --from FILE.parquet`): every section and figure is there, each
figure embedded and saved beside; no NaN, None or empty cell reaches the page; every
summary.json interval contains its mean; the conditioning of P(-5) is stated; an
interrupted batch says so; and a headless Chromium renders the page as more than a blank sheet."""
from __future__ import annotations

import base64
import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from _pages import assert_renders, estimates

from gnoming_sim.analyses.batch_report import write_batch_report
from gnoming_sim.batch.runner import BatchSpec, run_batch
from gnoming_sim.batch.scan import scan_batch

SECTIONS = ("standings", "scores", "turns", "early-finish", "hazards-lines", "how-made")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class Page(HTMLParser):
    """Text per section id, images, and the body cells of every table."""

    def __init__(self):
        super().__init__()
        self.sections: dict[str, str] = {}
        self.images: list[dict] = []
        self.tables: list[list[str]] = []
        self._open: list[str] = []
        self._cell = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self._open.append(attrs.get("id", ""))
            self.sections.setdefault(self._open[-1], "")
        elif tag == "img":
            self.images.append(attrs)
        elif tag == "table":
            self.tables.append([])
        elif tag == "td":
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "section" and self._open:
            self._open.pop()
        elif tag == "td" and self._cell is not None:
            self.tables[-1].append(self._cell.strip())
            self._cell = None

    def handle_data(self, data):
        for sid in self._open:
            self.sections[sid] += " " + data
        if self._cell is not None:
            self._cell += data


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("batch-page")
    path = root / "games.parquet"
    run_batch(BatchSpec.make(4, ("builder", "greedy", "rusher", "cautious"), 1200, seed=4), out=path,
              chunk_size=400)
    out = root / "report"
    summary = write_batch_report(scan_batch(path), out)
    page = Page()
    page.feed((out / "index.html").read_text(encoding="utf-8"))
    return out, page, summary


def test_every_section_is_there(report):
    _, page, _ = report
    for sid in SECTIONS:
        assert sid in page.sections, sid
    made = page.sections["how-made"]
    for fact in ("master seed", "4", "builder, greedy, rusher, cautious", "finisher_tie_is_lowest",
                 "Deck: published", "110 cards", "pair_weight", "--seed 4", "row groups"):
        assert fact in made, fact


def test_the_strategies_table_names_each_kind_in_words(report):
    _, page, _ = report
    table = next(cells for cells in page.tables if "kind" in cells)
    i = table.index("kind")
    assert table[i + 1:i + 5] == ["heuristic"] * 4


def test_every_strategy_family_has_its_words():
    """Every KIND_* code of the kernel is named on the page (a new family must be given words), and a
    file's kind is told in words: learned is "learned ...", not "3"."""

    from gnoming_sim.analyses.batch_report import content
    from gnoming_sim.batch.scan import BatchScan
    from gnoming_sim.kernel import kinds

    codes = {value for name, value in vars(kinds).items() if name.startswith("KIND_")}
    assert set(content.KIND_WORDS) == codes and len(codes) == 10
    names = ("learned", "expert", "random", "mc", "card-starred", "card")
    meta = json.loads(json.dumps(BatchSpec.make(6, names, 10, seed=1).metadata()))   # as the file stores it
    facts = content.facts(BatchScan(Path("games.parquet"), meta, names, 6, 0, 0))
    assert [s["kind_name"] for s in facts["strategies"]] == [
        "learned (fitted evaluator)", "heuristic", "random", "Monte Carlo (rollouts)",
        "card-starred (the card's starred cells, expert's rules elsewhere)", "card (the printed card)"]
    assert content.kind_name(99) == "unknown kind 99"


def test_figures_are_embedded_and_saved_beside(report):
    out, page, _ = report
    embedded = sorted(base64.b64decode(img["src"].split(",", 1)[1]) for img in page.images)
    saved = sorted(p.read_bytes() for p in out.glob("*.png"))
    assert len(embedded) == len(saved) == 6
    assert embedded == saved
    assert all(png.startswith(PNG_MAGIC) and len(png) > 5000 for png in saved)
    assert all(img.get("alt") for img in page.images)


def test_no_missing_number_and_no_empty_cell(report):
    _, page, _ = report
    text = " ".join(page.sections.values())
    assert not re.search(r"\bnan\b|\binf\b|\u2014", text, flags=re.IGNORECASE), "a missing number is shown"
    assert not re.search(r"\bNone\b", text)
    assert len(page.tables) >= 8
    for cells in page.tables:
        assert cells and all(cells), cells


def test_every_number_has_its_interval_and_n(report):
    _, page, _ = report
    standings = page.sections["standings"]
    assert standings.count("[") >= 2 * 4 + 2 * 4       # score and win share, per strategy and per seat
    assert "n = games" in standings and "1,200" in standings


def test_early_finish_states_its_conditioning(report):
    _, page, _ = report
    text = " ".join(page.sections["early-finish"].split())
    assert "conditional on" in text and "chose to finish" in text


def test_summary_intervals_contain_their_means(report):
    out, _, summary = report
    assert json.loads((out / "summary.json").read_text()) == json.loads(json.dumps(summary))
    found = list(estimates(summary))
    assert len(found) > 60
    for path, e in found:
        lo, hi = e["ci95"]
        assert all(math.isfinite(v) for v in (e["mean"], lo, hi)), path
        assert lo <= e["mean"] <= hi, (path, e)
        assert e["n"] == 1200, path


@pytest.mark.slow
def test_an_interrupted_batch_says_so(tmp_path):
    path = tmp_path / "cut.parquet"
    run_batch(BatchSpec.make(2, ("greedy", "rusher"), 400, seed=1), out=path, chunk_size=100,
              stop_after_chunks=1)
    write_batch_report(scan_batch(path), tmp_path / "r")
    text = " ".join((tmp_path / "r" / "index.html").read_text().split())
    assert "Interrupted batch" in text and "100 of the 400 games" in text


@pytest.mark.slow   # starts headless Chromium (2.7 s); the fast run keeps the page's content tests
def test_chromium_renders_a_page_that_is_not_blank(chromium, report, tmp_path):
    out, _, _ = report
    assert_renders(chromium, out / "index.html", tmp_path)
