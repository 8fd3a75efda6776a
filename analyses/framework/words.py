"""The words a study may say about its estimates, one function each, used by every study (issue 31):

* :func:`equivalence`: what the paired difference of the two strongest rungs (:data:`.design.TOP_DIFFERENCE`,
  ``net - learned``) says, by :func:`gnoming_sim.stats.equivalence_word` (TOST at the answer's stated precision
  target): "holds", "differs" or "not shown to differ"; summary.json's ``settled`` carries that word;
* :func:`convergence`: what that word says of the answer along the ladder: "converged" (the two strongest
  rungs agree within the target), "still moves" (they differ) or "convergence not shown";
* :func:`holds_under`: an answer's "holds under" from that word: both rungs (:data:`.design.STRONG_LADDER`)
  only when equivalence is shown;
* :func:`by_size`: whether the table sizes of a pooled figure agree (:func:`gnoming_sim.stats.heterogeneity`,
  Cochran's Q); when they do not, :func:`size_clause` states the answer per table size and says the pooled
  figure is no one table's answer;
* :data:`PREVIEW` and :func:`as_preview`: what a ``--quick`` report says instead of a verdict its samples
  cannot support; :func:`verdict_words` finds a verdict that slipped through.
"""
from __future__ import annotations

import math
import re

from gnoming_sim.stats import DIFFERS, HOLDS, equivalence_word, heterogeneity

from .design import SECOND, STRONG
from .estimates import Estimate
from .render import format_estimate, format_value

PREVIEW = "preview at quick sizes, no verdict"
SETTLED_MEANS = (f"the {STRONG} - {SECOND} difference by an equivalence test (TOST at 5%) at the answer's precision "
                 "target: 'holds' (within +-target: the answer has converged along the ladder), 'differs' (not shown "
                 "within it, and its 95% interval excludes 0: the answer still moves), 'not shown to differ' (neither: "
                 "too wide to tell)")
CONVERGED, MOVES, NOT_SHOWN = "converged", "still moves", "convergence not shown"


def equivalence(d: Estimate | None, target: float | None) -> str | None:
    """The word for the strongest two rungs' paired difference ``d`` at ``target`` (None without ``d``)."""
    if d is None:
        return None
    return equivalence_word(d.mean, d.lo, d.hi, target)


def convergence(word: str | None) -> str | None:
    """What the equivalence ``word`` of the two strongest rungs says of an answer: :data:`CONVERGED` (they agree
    within its target), :data:`MOVES` (they differ) or :data:`NOT_SHOWN` (too wide to tell); None unjudged."""
    if word is None:
        return None
    return {HOLDS: CONVERGED, DIFFERS: MOVES}.get(word, NOT_SHOWN)


def holds_under(word: str | None, d: Estimate | None, target: float, kind: str, strong: str = STRONG,
                other: str = SECOND) -> str:
    """An answer's "holds under" from the equivalence ``word`` of ``strong - other`` (``d``, at ``target``): the
    players the figure is conditional on, and whether it has converged along the ladder (:func:`convergence`)."""
    t = format_value(target, _abs(kind))
    if word == HOLDS:
        return f"{other} and {strong}: {CONVERGED} (equal within \u00b1{t} by TOST)"
    diff = f"{strong} \u2212 {other} {format_estimate(d, kind)}" if d is not None else "not measured"
    if word == DIFFERS:
        return f"{strong} only: {MOVES} ({other} differs: {diff})"
    return f"{strong}; {NOT_SHOWN} ({other} not shown to differ: {diff}, nor within \u00b1{t})"


def _abs(kind: str) -> str:
    """The unsigned format of a kind (a target is a half-width: no sign)."""
    return {"dpct": "pct", "signed": "points"}.get(kind, kind)


def by_size(parts: dict) -> dict | None:
    """Whether the parts of a pooled figure (table size -> :class:`Estimate`) agree, by Cochran's Q:
    ``{"agree", "q", "df", "p", "sizes"}`` (None with fewer than two sizes)."""
    parts = {k: e for k, e in parts.items() if e is not None and e.finite}
    if len(parts) < 2:
        return None
    keys = list(parts)
    h = heterogeneity([parts[k].mean for k in keys], [parts[k].lo for k in keys], [parts[k].hi for k in keys])
    return {"agree": h.agree, "q": h.q, "df": h.df, "p": h.p, "sizes": parts}


def size_json(reading: dict | None) -> dict | None:
    """:func:`by_size` for summary.json."""
    if reading is None:
        return None
    return {"agree": reading["agree"], "q": _num(reading["q"]), "df": reading["df"], "p": _num(reading["p"]),
            "test": "Cochran's Q over the table sizes (statsmodels combine_effects), chi-square, 5%",
            "by_players": {str(k): e.to_json() for k, e in reading["sizes"].items()}}


def _num(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def size_clause(reading: dict | None, kind: str) -> str:
    """Where the table sizes differ: the answer per size, and that the pooled figure is not one answer ("" where
    they agree or there is nothing to test); to end an answer's sentence with."""
    if reading is None or reading["agree"]:
        return ""
    sizes = list(reading["sizes"].items())
    first, rest = sizes[0], sizes[1:]
    parts = [f"{format_value(first[1].mean, kind)} at {first[0]} players"]
    parts += [f"{format_value(e.mean, kind)} at {k}" for k, e in rest]
    p = reading["p"]
    ptext = "p < 0.001" if p < 0.001 else f"p = {p:.3f}"
    return (f"; by table size {', '.join(parts)}: the sizes differ (Q = {reading['q']:.0f} on {reading['df']} df, "
            f"{ptext}), so the pooled figure is no one table's answer")


VERDICTS = re.compile(r"\b(clear|clearly|settled)\b", re.IGNORECASE)


def verdict_words(text: str) -> list[str]:
    """The verdict words in ``text`` ("clear", "clearly", "settled"): a ``--quick`` headline holds none."""
    return VERDICTS.findall(text)


def as_preview(item: dict) -> dict:
    """A finding's or answer's summary.json form in a ``--quick`` report: marked, and its display says so."""
    return {**item, "preview": True, "display": f"{PREVIEW[0].upper()}{PREVIEW[1:]}: {item['display']}"}
