"""The report's page never scrolls sideways, at 1,400 px (a desktop) and 390 px (a phone), in
Chromium (pytest-playwright on the system Chromium of tests/conftest.py, as the board's page tests).  Checked on
the committed reports/index.html and on a report rendered from the fixture's pocket rules section
(tests/analyses/data/summary_rules.json), with its folded tables closed and then all opened: the page is no
wider than the window, and no element reaches past it unless a box of its own scrolls it (a wide table).

The committed page is checked as build_report writes it today, which is the same once `make report` has
rewritten it: today's stylesheet (analyses/framework/templates/_style.html) in place of the one it was written
with, and its studies' tables boxed and folded (render.fold_tables); its content (the widest tables and
sentences of a full report) must fit."""
from __future__ import annotations

from pathlib import Path

import pytest
from _rules_fixture import ROOT, fixture_report

pytest.importorskip("playwright")
pytest.importorskip("pytest_playwright")

pytestmark = pytest.mark.slow   # a report rendered, then 8 page loads in Chromium: about 10 s

WIDTHS = (1400, 390)

# the page's width, and every element whose box reaches past the window with no scrolling box around it
OVERFLOW = """() => {
  const vw = window.innerWidth, wide = [];
  const boxed = el => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') {
        const r = a.getBoundingClientRect();
        if (r.left >= -1 && r.right <= vw + 1) return true;
      }
    }
    return false;
  };
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if ((r.right > vw + 1 || r.left < -1) && !boxed(el))
      wide.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${el.className && typeof el.className === 'string' ? '.' + el.className : ''} ${Math.round(r.left)}..${Math.round(r.right)}`);
  }
  return {scroll: document.scrollingElement.scrollWidth, width: vw, wide: wide.slice(0, 10), count: wide.length};
}"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    from gnoming_sim.analyses.framework.render import environment, fold_tables

    out = tmp_path_factory.mktemp("layout")
    css = environment().get_template("_style.html").render()
    head, rest = (ROOT / "reports" / "index.html").read_text(encoding="utf-8").split("<style>", 1)
    page = f"{head}<style>\n{css}\n</style>{rest.split('</style>', 1)[1]}"
    top, rest = page.split("</nav>", 1)                      # the studies' sections: between the contents and
    studies, made = rest.split('<section id="how-made">', 1)  # how the report was made
    committed = out / "committed.html"
    committed.write_text(f'{top}</nav>{fold_tables(studies)}<section id="how-made">{made}', encoding="utf-8")
    return {"committed": committed, "fixture": fixture_report(out / "fixture")}


def _check(page, path: Path, width: int) -> list[str]:
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(path.resolve().as_uri())
    problems = []
    for state in ("closed", "opened"):
        if state == "opened":
            page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
        got = page.evaluate(OVERFLOW)
        if got["scroll"] > got["width"]:
            problems.append(f"{state}: the page is {got['scroll']} px wide in a {got['width']} px window")
        if got["count"]:
            problems.append(f"{state}: {got['count']} elements reach past the window: {got['wide']}")
    return problems


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("which", ["committed", "fixture"])
def test_the_report_never_scrolls_sideways(page, pages, which, width):
    problems = _check(page, pages[which], width)
    assert not problems, "\n".join(problems)


def test_the_first_screen_shows_the_ladder_then_the_rules_with_their_figures(page, pages):
    """At 1,400 x 900 the ladder of advice is on the first screen; each of the eight pocket rules has its figure."""
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(pages["fixture"].resolve().as_uri())
    box = page.locator("#ladder-lead").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 900
    assert page.locator("#the-rules svg.mini").count() == 8
    assert page.locator("#rule-1").bounding_box()["y"] > box["y"]


def test_the_check_sees_a_page_that_scrolls_sideways(page, tmp_path):
    """The check fails a page with a wide table outside a scrolling box (plant: a 2,000 px table)."""
    wide = tmp_path / "wide.html"
    wide.write_text('<!doctype html><meta name="viewport" content="width=device-width">'
                    '<table style="width:2000px"><tr><td>x</td></tr></table>', encoding="utf-8")
    assert _check(page, wide, 390)
