"""HTML rendering: the jinja2 environment (autoescape on), number formats, figure encoding, tables of estimates."""
from __future__ import annotations

import base64
import functools
import io
import math
import re
from pathlib import Path

import jinja2
from markupsafe import Markup

from gnoming_sim.stats import Estimate

# report.html and _macros.html live here; a study names its template relative to the
# analyses folder ("tournament/template.html")
TEMPLATES = Path(__file__).parent / "templates"
ANALYSES = Path(__file__).parent.parent
MINUS = "\u2212"


_BASE_DIGITS = {"pct": 1, "dpct": 1, "signed": 2, "points": 2, "score": 1, "elo": 0}


def format_value(x: float, kind: str = "points", digits: int | None = None) -> str:
    """One number for a reader.

    ``kind``: ``pct`` (a share, as percent), ``dpct`` (a change of a share, in percentage
    points with an explicit sign), ``points`` (2 decimals), ``signed``
    (points with an explicit sign), ``score`` (1 decimal), ``elo`` (a rating on the Elo
    scale: whole points, explicit sign), ``count`` (thousands separators), ``int``.  ``digits`` overrides the decimals of the first four.  A
    non-finite value renders as an em dash: the studies drop such rows before they
    reach a table, so one showing up is a bug, not data.
    """
    if x is None or not math.isfinite(float(x)):
        return "\u2014"
    x = float(x)
    d = _BASE_DIGITS.get(kind, 2) if digits is None else digits
    if kind == "pct":
        text = f"{100 * x:.{d}f}%"
    elif kind == "dpct":
        text = f"{100 * x:+.{d}f}%"
    elif kind in ("signed", "elo"):
        text = f"{x:+.{d}f}"
    elif kind == "count":
        text = f"{int(round(x)):,}"
    elif kind == "int":
        text = f"{int(round(x))}"
    else:
        text = f"{x:.{d}f}"
    return text.replace("-", MINUS)


def digits_for(e: Estimate, kind: str) -> int | None:
    """Decimals that keep an interval visibly wide: at least the kind's own, and enough
    for the first significant digit of the half-width (at most 4)."""
    base = _BASE_DIGITS.get(kind)
    half = e.half_width * (100 if kind in ("pct", "dpct") else 1)
    if base is None or not math.isfinite(half) or half <= 0:
        return base
    return max(base, min(4, -math.floor(math.log10(half))))


def format_mean(e: Estimate, kind: str = "points") -> str:
    return format_value(e.mean, kind, digits_for(e, kind))


def format_interval(e: Estimate, kind: str = "points") -> str:
    """``[lo, hi]`` in the estimate's format (``pct`` intervals drop the % signs but the last)."""
    d = digits_for(e, kind)
    lo, hi = format_value(e.lo, kind, d), format_value(e.hi, kind, d)
    if kind == "pct":
        lo = lo.rstrip("%")
    return f"[{lo}, {hi}]"


def format_estimate(e: Estimate, kind: str = "points") -> str:
    return f"{format_mean(e, kind)} {format_interval(e, kind)}"


def format_half_width(half: float, kind: str = "points") -> str:
    """A half-width to two significant digits: ``0.023 percentage points``, ``1.1 points``."""
    if kind == "pct":
        half, unit = 100 * half, " percentage points"
    elif kind == "plain":   # a number without a unit (a calibration slope)
        unit = ""
    else:
        unit = " Elo points" if kind == "elo" else " points"
    if not math.isfinite(half) or half <= 0:
        return f"0{unit}"
    digits = max(0, 1 - math.floor(math.log10(half)))
    return f"\u00b1{half:.{digits}f}{unit}"


@functools.cache
def environment() -> jinja2.Environment:
    """The report's jinja2 environment, built once a process (its templates compile once: building it afresh
    for each page cost a tenth of a second a page).  Shared: change it only through ``overlay``."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(TEMPLATES), str(ANALYSES)]),
        autoescape=True,   # every string from a study is text, never markup
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["value"] = format_value
    env.filters["mean"] = format_mean
    env.filters["halfwidth"] = format_half_width
    env.filters["interval"] = format_interval
    env.filters["estimate"] = format_estimate
    env.filters["count"] = lambda n: format_value(n, "count")
    return env


def figure_png(fig) -> bytes:
    """PNG bytes of a matplotlib Figure (no pyplot: the Agg canvas is chosen by savefig)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
    return buf.getvalue()


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


FOLD_ROWS = 8   # a table with more body rows than this is folded under its caption
_TABLE = re.compile(r'(<div class="scroll">)?<table\b.*?</table>', re.S)
_CAPTION = re.compile(r"<caption\b[^>]*>(.*?)</caption>", re.S)
_TAGS = re.compile(r"<[^>]+>")


def fold_tables(html: str) -> Markup:
    """``html`` (a study's rendered section) with every table in its own horizontally scrolling box, so a wide
    table never makes the page scroll sideways, and every table of more than :data:`FOLD_ROWS` rows folded
    under a ``<details>`` named by its caption (the report opens with the rules; the long tables wait below
    them).  Tables are not nested in the report's templates; a table already boxed is left as it is."""
    def wrap(match: re.Match) -> str:
        if match.group(1):
            return match.group(0)
        table = match.group(0)
        boxed = f'<div class="scroll">{table}</div>'
        rows = table.split("<tbody", 1)[-1].count("<tr")   # the body's rows (all rows without a tbody)
        if rows <= FOLD_ROWS:
            return boxed
        caption = _CAPTION.search(table)
        name = " ".join(_TAGS.sub("", caption.group(1)).split()) if caption else "Table"
        return (f'<details class="table"><summary>{name} <span class="rows">({rows} rows)</span></summary>'
                f"{boxed}</details>")
    return Markup(_TABLE.sub(wrap, str(html)))


def grid(rows: list[dict], row: str, column: str, order=None) -> list[dict]:
    """A page table of ``rows``: one ``{row: value, "cells": {its column value: the row}}`` per value of
    ``row``, in ``order`` (default: sorted)."""
    out: dict = {}
    for r in rows:
        out.setdefault(r[row], {row: r[row], "cells": {}})["cells"][r[column]] = r
    return [out[k] for k in (sorted(out) if order is None else order) if k in out]


def estimates_frame(rows: list[dict]):
    """Rows of values and estimates as a DataFrame (a report's CSV table): each :class:`Estimate` spread into
    ``k, k_lo, k_hi, k_n`` columns, lists and tuples joined with spaces, dicts and None left out."""
    import pandas as pd

    flat = []
    for r in rows:
        out = {}
        for k, v in r.items():
            if isinstance(v, Estimate):
                out.update({k: v.mean, f"{k}_lo": v.lo, f"{k}_hi": v.hi, f"{k}_n": v.n})
            elif isinstance(v, (list, tuple)):
                out[k] = " ".join(map(str, v))
            elif v is not None and not isinstance(v, dict):
                out[k] = v
        flat.append(out)
    return pd.DataFrame(flat)
