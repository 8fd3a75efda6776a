"""The words a study may say about its estimates, one function each, used by every study:

* :func:`equivalence`: what the paired difference of the two strongest rungs (:data:`.design.TOP_DIFFERENCE`,
  ``net - learned``) says, by :func:`gnoming_sim.stats.equivalence_word` (TOST at the answer's margin, the
  difference that would change a decision): "holds", "differs", "not shown to differ", or "not tested" where
  the test has under 80% power at that margin (:func:`power`); summary.json's ``settled`` carries that word;
* :func:`convergence`: what that word says of the answer along the ladder: "converged" (the two strongest
  rungs agree within the margin), "still moves" (they differ), "convergence not shown" (a test with power that
  neither passed nor failed) or "not tested" (no label: the test could not pass); :func:`power_text` says the
  power and margin beside it;
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

import numpy as np
from scipy.stats import norm

from gnoming_sim.stats import NOT_SHOWN as NOT_SHOWN_WORD
from gnoming_sim.stats import (DIFFERS, HOLDS, NOT_TESTED, POWER_NEEDED, Z95, equivalence_word, heterogeneity,
                               tost_margin_for_power, tost_power)

from .design import SECOND, STRONG
from gnoming_sim.stats import Estimate
from .render import format_estimate, format_value

PREVIEW = "preview at quick sizes, no verdict"
SETTLED_MEANS = (f"the {STRONG} - {SECOND} difference by an equivalence test (TOST at 5%) at the answer's margin (the "
                 "difference that would change a decision), judged only where the test has at least "
                 f"{POWER_NEEDED:.0%} power at that margin with the study's n (equivalence_power): 'holds' (within "
                 "+-margin: the answer has converged along the ladder), 'differs' (not shown within it, and its 95% "
                 "interval excludes 0: the answer still moves), 'not shown to differ' (neither), 'not tested' (under "
                 f"{POWER_NEEDED:.0%} power: no label)")
CONVERGED, MOVES, NOT_SHOWN, UNTESTED = "converged", "still moves", "convergence not shown", "not tested"


def equivalence(d: Estimate | None, target: float | None) -> str | None:
    """The word for the strongest two rungs' paired difference ``d`` at the margin ``target`` (None without
    ``d``): "not tested" where the test's power at that margin is under 80% (:func:`power`)."""
    if d is None:
        return None
    return equivalence_word(d.mean, d.lo, d.hi, target)


def power(d: Estimate | None, target: float | None) -> float | None:
    """The power of the equivalence test of ``d`` at the margin ``target`` were the truth 0, with ``d``'s own
    standard error (its n): :func:`gnoming_sim.stats.tost_power`; None without both."""
    if d is None or target is None or not d.finite:
        return None
    return tost_power(_se(d), target)


def equivalence_by_size(parts: dict, target: float) -> str | None:
    """The word for an answer whose published rule or effect is per table size (``parts``: size -> the
    strongest two rungs' paired difference there), judged on every size, never on their average, each size's
    word from :func:`gnoming_sim.stats.equivalence_word` (the one function that says the words): "not tested"
    where the joint test has under 80% power (the product of the sizes' powers, :func:`power_by_size`);
    "holds" only where every size holds (an intersection-union test: each at 5%, no correction needed);
    "differs" where a size differs by its interval widened for Bonferroni over the sizes; else "not shown to
    differ".  None without parts."""
    parts = {k: d for k, d in parts.items() if d is not None}
    if not parts:
        return None
    if (power_by_size(parts, target) or 0.0) < POWER_NEEDED:
        return NOT_TESTED
    z = float(norm.isf(0.025 / len(parts)))
    words = [equivalence_word(d.mean, d.mean - z * _se(d), d.mean + z * _se(d), target, z=z, power_needed=0.0)
             for d in parts.values()]
    if all(w == HOLDS for w in words):
        return HOLDS
    return DIFFERS if DIFFERS in words else NOT_SHOWN_WORD


def top_by_size(diffs: dict, measure: str) -> dict:
    """Table size -> the strongest two rungs' paired difference there (``diffs``: "a-b" -> size -> measure ->
    :class:`Estimate`, the sizes as strings, "all" left out): what :func:`equivalence_by_size` judges."""
    top = diffs.get(f"{STRONG}-{SECOND}", {})
    return {int(p): c[measure] for p, c in sorted(top.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0)
            if p != "all" and measure in c}


def power_by_size(parts: dict, target: float) -> float | None:
    """The power of :func:`equivalence_by_size`'s joint test were every size's truth 0: the product of the
    sizes' powers (independent decisions per size); None where a size is unmeasured."""
    powers = [power(d, target) for d in parts.values()]
    if not powers or any(p is None for p in powers):
        return None
    return float(np.prod(powers))


def _se(d: Estimate) -> float:
    return (d.hi - d.lo) / (2 * Z95)


def power_json(d: Estimate | None, target: float | None) -> dict:
    """summary.json's power fields of an equivalence test: the power at the margin, the margin that would
    have 80% power, and the n that would give 80% at this margin (n scaled by the squared ratio of the SEs)."""
    pw = power(d, target)
    if pw is None:
        return {"equivalence_power": None}
    se = _se(d)
    need = tost_margin_for_power(se)
    n_needed = math.ceil(d.n * (need / target) ** 2) if se > 0 else d.n
    return {"equivalence_power": pw, "margin_for_80_power": need, "n_for_80_power": n_needed}


def power_text(d: Estimate | None, target: float, kind: str) -> str:
    """"power 3% at +-0.5%": what the equivalence test could do (summary.json's :func:`power_json` adds the n
    that 80% would need)."""
    pw = power(d, target)
    t = format_value(target, _abs(kind))
    if pw is None:
        return f"not measured at \u00b1{t}"
    return f"power {_pct(pw)} at \u00b1{t}"


def _pct(p: float) -> str:
    return "under 1%" if 0 < p < 0.005 else f"{100 * p:.0f}%"


def convergence(word: str | None) -> str | None:
    """What the equivalence ``word`` of the two strongest rungs says of an answer: :data:`CONVERGED` (they agree
    within its margin), :data:`MOVES` (they differ), :data:`NOT_SHOWN` (a test with power, neither) or
    :data:`UNTESTED` (the test had under 80% power: no label); None unjudged."""
    if word is None:
        return None
    return {HOLDS: CONVERGED, DIFFERS: MOVES, NOT_TESTED: UNTESTED}.get(word, NOT_SHOWN)


def holds_under(word: str | None, d: Estimate | None, target: float, kind: str, strong: str = STRONG,
                other: str = SECOND) -> str:
    """An answer's "holds under" from the equivalence ``word`` of ``strong - other`` (``d``, at ``target``): the
    players the figure is conditional on, and whether it has converged along the ladder (:func:`convergence`)."""
    t = format_value(target, _abs(kind))
    pw = power_text(d, target, kind)
    if word == HOLDS:
        return f"{other} and {strong}: {CONVERGED} (equal within \u00b1{t} by TOST; {pw})"
    diff = f"{strong} \u2212 {other} {format_estimate(d, kind)}" if d is not None else "not measured"
    if word == DIFFERS:
        return f"{strong} only: {MOVES} ({other} differs: {diff}; {pw})"
    if word == NOT_TESTED:
        return f"{strong}; {UNTESTED} along the ladder ({pw}; {diff})"
    return f"{strong}; {NOT_SHOWN} ({other} not shown to differ: {diff}, nor within \u00b1{t}; {pw})"


def holds_under_by_size(word: str | None, parts: dict, target: float, kind: str, strong: str = STRONG,
                        other: str = SECOND, what: str = "") -> str:
    """:func:`holds_under` for an answer judged at every table size (:func:`equivalence_by_size`): the joint
    power at the margin, and the size that decides (the one that differs most, else the one furthest from 0) with
    its ``strong - other`` difference (of ``what``, where that is not the answer's own figure: the published rule
    it rests on).  Every size's difference is in summary.json (``differences_by_size``)."""
    t = format_value(target, _abs(kind))
    parts = {k: d for k, d in parts.items() if d is not None}
    pw = power_by_size(parts, target)
    pw_text = (f"joint power {_pct(pw)} at \u00b1{t} over {len(parts)} table sizes" if pw is not None
               else f"not measured at \u00b1{t}")
    if not parts:
        return f"{strong}; along the ladder not measured"
    key = ((lambda k: abs(parts[k].mean) / max(_se(parts[k]), 1e-300)) if word == DIFFERS
           else (lambda k: abs(parts[k].mean)))
    k = max(parts, key=key)
    diff = f"{what}{strong} \u2212 {other} {format_estimate(parts[k], kind)} at {k} players"
    if word == HOLDS:
        return f"{other} and {strong}: {CONVERGED} at every table size (each within \u00b1{t} by TOST; {pw_text})"
    if word == DIFFERS:
        return f"{strong} only: {MOVES} ({other} differs: {diff}; {pw_text})"
    if word == NOT_TESTED:
        return f"{strong}; {UNTESTED} along the ladder ({pw_text}; furthest: {diff})"
    return f"{strong}; {NOT_SHOWN} ({pw_text}; furthest: {diff})"


def power_by_size_json(parts: dict, target: float, judged: str = "at every table size (not the average)") -> dict:
    """summary.json's power fields of :func:`equivalence_by_size`: the joint power and each size's."""
    return {"equivalence_power": power_by_size(parts, target), "judged": judged,
            "equivalence_power_by_size": {str(k): power(d, target) for k, d in parts.items()},
            "differences_by_size": {str(k): d.to_json() for k, d in parts.items() if d is not None}}


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
