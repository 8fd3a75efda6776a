"""A small inline SVG figure: one estimate per row (a table size), a dot with its 95% interval as a whisker,
the zero line, and the value printed at the row's end.  The report's rules summary shows one beside each rule
(its value by table size); inline SVG scales with the page, so it fits a phone's width as well as a desktop's.

>>> svg = interval_rows([("3 players", 2.4, 1.9, 3.0), ("4 players", 2.0, 1.5, 2.5)], "pp a decision")
"""
from __future__ import annotations

import math
from typing import Sequence

from markupsafe import Markup, escape

MINUS = "\u2212"
WIDTH, LABEL, VALUE, ROW, TOP = 320, 96, 46, 24, 8   # viewBox units (text is 14 units high)


def _signed(x: float, digits: int) -> str:
    return f"{x:+.{digits}f}".replace("-", MINUS)


def interval_rows(rows: Sequence[tuple[str, float, float, float]], unit: str, title: str = "") -> Markup:
    """An ``<svg>`` of ``rows`` (label, mean, lo, hi), one row each, on one shared axis that holds 0.

    ``unit`` names the axis ("pp a decision"); ``title`` is the figure's accessible name.  Rows whose numbers
    are not finite are left out; with none left the figure is empty markup."""
    rows = [r for r in rows if all(math.isfinite(float(v)) for v in r[1:])]
    if not rows:
        return Markup("")
    lo = min(0.0, *(r[2] for r in rows))
    hi = max(0.0, *(r[3] for r in rows))
    span = (hi - lo) or 1.0
    lo, hi = lo - 0.06 * span, hi + 0.06 * span
    x0, x1 = LABEL, WIDTH - VALUE
    x = lambda v: x0 + (v - lo) / (hi - lo) * (x1 - x0)   # noqa: E731
    height = TOP + ROW * len(rows) + 20
    half = max((r[3] - r[2]) / 2 for r in rows)
    digits = 1 if half >= 0.1 else 2
    parts = [f'<svg class="mini" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{escape(title or unit)}" '
             f'xmlns="http://www.w3.org/2000/svg">',
             f"<title>{escape(title or unit)}</title>",
             f'<line x1="{x(0):.1f}" y1="{TOP - 4}" x2="{x(0):.1f}" y2="{TOP + ROW * len(rows)}" class="zero"/>']
    for i, (label, mean, a, b) in enumerate(rows):
        y = TOP + ROW * i + ROW / 2
        parts += [f'<text x="0" y="{y + 4:.1f}" class="label">{escape(label)}</text>',
                  f'<line x1="{x(a):.1f}" y1="{y:.1f}" x2="{x(b):.1f}" y2="{y:.1f}" class="whisker"/>',
                  f'<circle cx="{x(mean):.1f}" cy="{y:.1f}" r="3.5" class="dot"/>',
                  f'<text x="{WIDTH}" y="{y + 4:.1f}" text-anchor="end" class="value">{_signed(mean, digits)}</text>']
    # the unit at the axis's end away from the zero mark
    at_right = x(0) < (x0 + x1) / 2
    parts += [f'<text x="{x(0):.1f}" y="{height - 3}" text-anchor="middle" class="axis">0</text>',
              f'<text x="{x1 if at_right else x0:.1f}" y="{height - 3}" text-anchor="{"end" if at_right else "start"}" '
              f'class="axis">{escape(unit)}</text>', "</svg>"]
    return Markup("".join(parts))
