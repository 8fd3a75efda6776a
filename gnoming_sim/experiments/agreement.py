"""How often the card plays the oracle's answer, and what it gives up where it does not.

The input is the oracle-valued decision set (:mod:`gnoming_sim.experiments.oracle_decisions`: decisions from
``net`` self-play at 3 to 6 players, every legal option's win chance by :mod:`gnoming_sim.search.evaluator`, one row
per decision: ``position_id``, ``keys``, ``mean`` in %, ``diff_se`` the paired standard error of each option's
difference to the best in pp, with ``players``, ``game`` and ``weight`` where it has them).  The card's answer is
asked **now**, of the card this checkout plays (:func:`gnoming_sim.search.card.card_view`), never read from
the set, so the table always measures the committed card.  No rollouts are run: a decision costs one card lookup.

Per decision the card covers (a take or draw, where a kept card goes, finish or play on, a drawn hazard, a
mulligan: card_view's tables, its place table split by the card in hand):

* **agrees**: the card's option is the oracle's best or not separated from it, the test of
  :func:`gnoming_sim.search.card.compare` (called here, not copied: the best, equal in every rollout, or
  the difference's 95% interval holding 0);
* **loss**: the best option's win chance minus the card's (pp; 0 where the card's is the best).

The best and the loss come from the same rollouts, so the loss is biased **up** (the largest of several noisy
means overstates the best).  The held-out loss beside it is measured on other rollouts: two halves of the set's
where it stores them (``mean_a``/``diff_se_a`` choose, ``mean_b`` measures), else a fresh valuation of the set's
best and the card's option (:mod:`gnoming_sim.experiments.agreement_fresh`); it is unbiased for the loss
against the chosen best, so biased **down** against the true best: the two bracket the true loss.  ``met``
judges the targets by the same-rollout loss (the conservative side), ``met_held_out`` by the held-out one.

Shares and means are weighted by ``weight`` (the set oversamples rare kinds; the weight restores the natural
mix of net's decisions) with standard errors clustered by game (:func:`gnoming_sim.stats.cluster_ratio`); a
share's interval is Wilson's (:func:`gnoming_sim.stats.wilson`) at the effective number of decisions.
"""
from __future__ import annotations

import hashlib
import json
import math

import numpy as np
import pandas as pd

from gnoming_sim.game.cards import HAZARD, MULLIGAN
from gnoming_sim.stats import Z95, cluster_ratio, wilson

# the decision kinds the card covers, in the table's order: key -> the decision in words (schema.md)
KINDS = {"take": "take or draw", "place": "where a kept card goes", "finish": "finish or play on",
         "hazard": "a drawn hazard", "mulligan": "a mulligan"}
TARGETS = {"agree": 0.90, "mean_loss_pp": 0.3}   # per covered decision
BIAS_NOTE = ("the oracle's best and the loss come from the same rollouts: the largest of several noisy means "
             "overstates the best, so the loss is biased up (against the card) and a close option's agreement "
             "rests on the interval test")


def kind_of(view: dict, pos) -> str:
    """The decision kind of a covered decision: card_view's table, a placement split by the card in hand (a
    hazard is only ever drawn blind: it never lies on a discard pile)."""
    table = view["table"]
    if table == "source":
        return "take"
    if table == "finish":
        return "finish"
    if int(pos.hand) == HAZARD:
        return "hazard"
    if int(pos.hand) == MULLIGAN:
        return "mulligan"
    return "place"


def as_analysis(keys, mean, diff_se, labels=None) -> dict:
    """Stored option values as an analysis (:func:`gnoming_sim.search.estimates.summarize`'s shape, the fields
    :func:`~gnoming_sim.search.card.compare` reads): the best is the highest win chance; each other
    option's ``diff`` is how far it is behind (pp, positive: worse) with ``diff +- Z95 * diff_se``."""
    mean = np.asarray(mean, dtype=np.float64)
    se = np.asarray(diff_se, dtype=np.float64)
    best = int(np.argmax(mean))
    rows = []
    for k, key in enumerate(keys):
        d = float(mean[best] - mean[k])
        rows.append({"key": key, "option": (labels or {}).get(key, key), "mean": float(mean[k]), "best": k == best,
                     "diff": d, "diff_ci95": [d - Z95 * float(se[k]), d + Z95 * float(se[k])], "diff_on": "win",
                     "same_as_best": bool(k != best and d == 0.0 and se[k] == 0.0)})
    return {"options": rows, "best": keys[best], "unit": "pp of win chance"}


def verdict(view: dict, options, keys, mean, diff_se) -> dict:
    """The card's answer ``view`` at one decision against its stored option values: ``{"card_key", "best_key",
    "agrees", "loss_pp", "half_width_pp"}`` (``half_width_pp``: of the card's difference interval, 0 where it is
    the best; ``options``: the position's legal options, which map the card's answer to a key)."""
    from gnoming_sim.search.card import compare

    res = as_analysis(list(keys), mean, diff_se, {o.key: o.label for o in options})
    c = compare(view, res, options)
    means = {r["key"]: r["mean"] for r in res["options"]}
    loss = 0.0 if c["option"] == c["best"] else means[c["best"]] - means[c["option"]]
    lo, hi = c["diff_ci95"]
    return {"card_key": c["option"], "best_key": c["best"], "agrees": bool(c["agrees"]), "loss_pp": float(loss),
            "half_width_pp": float(hi - lo) / 2}


def judged(card_key: str, keys, mean, diff_se) -> dict:
    """:func:`~gnoming_sim.search.card.compare`'s verdict on the option keyed ``card_key`` among stored values
    (the one test of agreement, also where no position is at hand: the options stand in as keys)."""
    from gnoming_sim.game.position import Option
    from gnoming_sim.search.card import compare

    keys = list(keys)
    options = [Option(k, k, i, -1) for i, k in enumerate(keys)]
    view = {"table": "", "cells": [], "choice": (keys.index(card_key), -1)}
    return compare(view, as_analysis(keys, mean, diff_se), options)


def held_out(card_key: str, keys, mean_a, diff_se_a, mean_b) -> dict:
    """The same verdict with half A of the rollouts choosing the best (and judging agreement) and half B
    measuring the loss: ``{"agrees_ho", "loss_ho_pp"}`` (the loss may be negative: noise, not a gain)."""
    keys = list(keys)
    c = judged(card_key, keys, mean_a, diff_se_a)
    b = np.asarray(mean_b, dtype=np.float64)
    loss = 0.0 if c["option"] == c["best"] else float(b[keys.index(c["best"])] - b[keys.index(card_key)])
    return {"agrees_ho": bool(c["agrees"]), "loss_ho_pp": loss}


def card_answers(decisions: pd.DataFrame, card=None) -> pd.DataFrame:
    """One row per decision of ``decisions`` the card covers: ``decision`` (the set's row label), ``kind``,
    ``players``, ``game``, ``weight``, the card's and the best option, ``agrees``, ``loss_pp`` (and
    ``agrees_ho``/``loss_ho_pp`` where the set stores halves).  ``card``: a function position -> the card's
    view (default :func:`gnoming_sim.search.card.card_view`, the committed card)."""
    from gnoming_sim.search.card import card_view
    from gnoming_sim.search.options import legal_options
    from gnoming_sim.game.position_id import decode

    look = card_view if card is None else card
    halves = {"mean_a", "diff_se_a", "mean_b"} <= set(decisions.columns)
    rows = []
    # a decision is named by the set's row label, so a subsample (report --quick) keeps the names fresh tables use
    for i, d in zip(decisions.index.tolist(), decisions.to_dict("records")):
        pos = decode(d["position_id"])
        view = look(pos)
        if view is None:
            continue
        v = verdict(view, legal_options(pos), d["keys"], d["mean"], d["diff_se"])
        row = {"decision": i, "position_id": d["position_id"], "kind": kind_of(view, pos),
               "players": int(pos.players), "game": d.get("game", i), "weight": float(d.get("weight", 1.0)), **v}
        if halves:
            row.update(held_out(v["card_key"], d["keys"], d["mean_a"], d["diff_se_a"], d["mean_b"]))
        rows.append(row)
    cols = ["decision", "position_id", "kind", "players", "game", "weight", "card_key", "best_key", "agrees", "loss_pp",
            "half_width_pp"]
    return pd.DataFrame(rows, columns=cols + (["agrees_ho", "loss_ho_pp"] if halves else []))


# ------------------------------------------------------------------ estimates
def _clustered(values, weights, games) -> tuple[float, float]:
    """The weighted mean of ``values`` and its standard error clustered by game (nan under two games)."""
    num, den = _by_game(values, weights, games)
    if num.size < 2:
        return float(num.sum() / den.sum()), math.nan
    m, se, _ = cluster_ratio(num, den)
    return float(m), float(se)


def _finite(x: float):
    return float(x) if math.isfinite(x) else None


def _by_game(values, weights, games):
    """Per game: the weighted sum of ``values`` and of the weights (the clusters of :func:`cluster_ratio`)."""
    f = pd.DataFrame({"num": np.asarray(values, dtype=np.float64) * weights, "den": weights, "g": list(games)})
    s = f.groupby("g", sort=False)[["num", "den"]].sum()
    return s["num"].to_numpy(), s["den"].to_numpy()


def share(agrees, weights, games) -> dict:
    """The weighted share of decisions where the card agrees, with Wilson's interval at the effective number
    of decisions (the weights' and the games' design effect): ``{"p", "ci95", "n", "n_eff", "unit"}``."""
    w = np.asarray(weights, dtype=np.float64)
    n = int(w.size)
    if n == 0:
        return {"p": None, "ci95": [None, None], "n": 0, "n_eff": 0.0, "unit": "decisions"}
    p, se = _clustered(np.asarray(agrees, dtype=np.float64), w, games)
    kish = float(w.sum() ** 2 / (w ** 2).sum())
    n_eff = min(float(n), p * (1 - p) / se ** 2) if 0 < p < 1 and se > 0 else kish
    _, lo, hi = wilson(p * n_eff, n_eff)
    return {"p": p, "ci95": [_finite(lo), _finite(hi)], "n": n, "n_eff": round(n_eff, 1), "unit": "decisions"}


def mean_loss(loss, weights, games) -> dict:
    """The weighted mean loss per decision (pp of win chance) with a normal interval clustered by game."""
    w = np.asarray(weights, dtype=np.float64)
    n = int(w.size)
    if n == 0:
        return {"mean": None, "ci95": [None, None], "n": 0, "unit": "pp"}
    m, se = _clustered(loss, w, games)
    return {"mean": m, "ci95": [_finite(m - Z95 * se), _finite(m + Z95 * se)], "n": n, "unit": "pp"}


def _row(part: pd.DataFrame, halves: bool) -> dict:
    out = {"covered": int(len(part)), "agree": share(part["agrees"], part["weight"], part["game"]),
           "mean_loss": mean_loss(part["loss_pp"], part["weight"], part["game"]),
           # the stricter reading: the card plays the very option the set ranks first
           "plays_best": share(part["card_key"] == part["best_key"], part["weight"], part["game"])}
    if halves:
        out["held_out"] = {"mean_loss": mean_loss(part["loss_ho_pp"], part["weight"], part["game"])}
        if "agrees_ho" in part.columns:
            out["held_out"]["agree"] = share(part["agrees_ho"], part["weight"], part["game"])
    return out


def met(row: dict, targets: dict = TARGETS) -> bool:
    """Whether a row meets the targets by its estimates (share at least, mean loss at most)."""
    p, m = row["agree"]["p"], row["mean_loss"]["mean"]
    eps = 1e-9   # a share of exactly 90% computed as 0.8999...
    return p is not None and m is not None and p >= targets["agree"] - eps and m <= targets["mean_loss_pp"] + eps


def table(answers: pd.DataFrame) -> dict:
    """Per kind (in :data:`KINDS`' order, the kinds with decisions) and overall: covered decisions, agreement
    share, mean loss (and their held-out versions where the answers have them), and whether each meets the
    targets."""
    halves = "loss_ho_pp" in answers.columns
    by_kind = []
    for k, words in KINDS.items():
        part = answers[answers["kind"] == k]
        if len(part):
            row = {"kind": words, "key": k, **_row(part, halves)}
            by_kind.append(row | {"met": met(row)})
    overall = _row(answers, halves)
    overall["met"] = met(overall)
    return {"by_kind": by_kind, "overall": overall}


# ------------------------------------------------------------------ provenance
def card_provenance(path=None) -> dict:
    """The card measured: card_cells.json's hash, how it was derived (its ``card_provenance`` where the card was
    re-derived on itself, else its derivation's ``provenance``) and every seed either names (the card starts from
    the derived tables)."""
    from gnoming_sim.kernel.policy import registry

    path = registry.CARD_CELLS if path is None else path
    raw = path.read_bytes()
    data = json.loads(raw)
    derived, card = data.get("provenance", {}), data.get("card_provenance")
    if card:
        how = f"policy iteration with the oracle, {card.get('rounds', '?')} rounds from the derived card"
    else:
        how = f"derived: {derived.get('self_play', '?')} self-play, {derived.get('rollouts', '?')} rollouts"
    return {"sha256": hashlib.sha256(raw).hexdigest()[:12], "command": (card or derived).get("command", ""),
            "method": how, "seeds": sorted(set(_seeds(derived) + _seeds(card or {})))}


def _seeds(obj) -> list[int]:
    """Every integer under a key naming a seed (``seed``, ``seeds``, ``*_seed``) in a provenance record."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if "seed" in str(k).lower() and isinstance(v, int) and not isinstance(v, bool):
                out.append(v)
            elif "seed" in str(k).lower() and isinstance(v, list):
                out += [x for x in v if isinstance(x, int) and not isinstance(x, bool)]
            else:
                out += _seeds(v)
    elif isinstance(obj, list):
        for v in obj:
            out += _seeds(v)
    return out


def card_words(prov: dict) -> str:
    """One line naming the card measured (schema's ``card``)."""
    seeds = ", ".join(map(str, prov["seeds"])) or "none stated"
    return f"card_cells.json {prov['sha256']} ({prov['method']}; derivation seed {seeds})"


KEYS = ["decision", "position_id", "best_key", "card_key"]   # what a fresh row (agreement_fresh) is the loss of


def matched(answers: pd.DataFrame, fresh: pd.DataFrame | None) -> pd.DataFrame | None:
    """The fresh verdict of every row of ``answers`` (``loss_ho_pp``: the fresh loss; ``agrees_ho``: the card's
    option is the set's best, or by :func:`gnoming_sim.experiments.agreement.judged` on the fresh rollouts of the
    two), or None unless ``fresh`` holds every row with the same best and card option
    (a fresh table of another card, or of another set, is not used)."""
    if fresh is None or not len(answers):
        return None
    m = answers[KEYS].merge(fresh[KEYS + ["loss_fresh_pp", "se_pp"]], on=KEYS, how="left")
    if m["loss_fresh_pp"].isna().any():
        return None
    # the card agrees where it plays the set's best, else by compare's test between the two on the fresh
    # rollouts (where the card's option comes out ahead it is their best: the set's best was noise)
    agrees = [True if r.card_key == r.best_key else
              judged("card", ["set", "card"], [0.0, -r.loss_fresh_pp], [0.0, r.se_pp])["agrees"]
              for r in m.itertuples(index=False)]
    return pd.DataFrame({"loss_ho_pp": m["loss_fresh_pp"].to_numpy(), "agrees_ho": agrees}, index=answers.index)


def agreement(decisions: pd.DataFrame, card=None, *, seed: int | None = None, rollouts: int | None = None,
              card_prov: dict | None = None, fresh: pd.DataFrame | None = None) -> dict:
    """summary["agreement"] (notes/schema.md) of the decision set ``decisions`` against the card (``card``: a
    function position -> view; default the committed card): per kind and overall, covered decisions, the
    agreement share with its interval, the mean loss per covered decision with its interval; the targets and
    whether the overall estimates meet them.  ``seed``/``rollouts``: the set's (else read from its columns).
    ``fresh``: :func:`gnoming_sim.experiments.agreement_fresh.fresh_losses`' table, the held-out loss, used where
    it holds every covered decision with this card's answer."""
    answers = card_answers(decisions, card)
    held = "halves"
    if "loss_ho_pp" not in answers.columns:
        ho = matched(answers, fresh)
        held = "fresh" if ho is not None else ("stale" if fresh is not None else "none")
        if ho is not None:
            answers = answers.assign(loss_ho_pp=ho["loss_ho_pp"], agrees_ho=ho["agrees_ho"])
    return summarize(answers, decisions, card=card, seed=seed, rollouts=rollouts, card_prov=card_prov, held=held)


def _met_held_out(row: dict):
    """The targets judged by the held-out mean loss (None without one)."""
    if "held_out" not in row:
        return None
    return met({"agree": row["agree"], "mean_loss": row["held_out"]["mean_loss"]})


HELD = {"halves": "half A of the rollouts chooses the best and judges agreement, half B measures the loss",
        "fresh": "the set's best and the card's option valued again on fresh rollouts: the card agrees there unless "
                 "separated worse, and its loss is unbiased against the set's best, so a lower bound of the true "
                 "loss (the same-rollout loss an upper one)",
        "stale": f"the fresh valuation on file is of another card or set, so not used: {BIAS_NOTE}",
        "none": f"not stored (the set keeps only the means): {BIAS_NOTE}"}


def summarize(answers: pd.DataFrame, decisions: pd.DataFrame, *, card=None, seed=None, rollouts=None,
              card_prov=None, held: str | None = None) -> dict:
    """:func:`agreement`'s dict from the per-decision ``answers`` (:func:`card_answers`)."""
    prov = card_prov if card_prov is not None else (card_provenance() if card is None else None)
    if rollouts is None and "rollouts" in decisions.columns and len(decisions):
        rollouts = int(decisions["rollouts"].median())
    t = table(answers)
    if held is None:
        held = "halves" if "agrees_ho" in answers.columns else "none"
    return {"seed": seed, "card": card_words(prov) if prov else "a card given to the call",
            "card_provenance": prov, "players": sorted(int(p) for p in answers["players"].unique()),
            "rollouts": rollouts, "decisions": int(len(decisions)), "covered": int(len(answers)),
            **t, "targets": dict(TARGETS), "met": bool(t["overall"]["met"]),
            "met_every_kind": bool(all(r["met"] for r in t["by_kind"])),
            "met_held_out": _met_held_out(t["overall"]),
            "weighted": "by the set's weight column (net's natural mix)" if "weight" in decisions.columns
            else "unweighted",
            "held_out_kind": held, "held_out": HELD[held],
            # how far apart two options must be before the test separates them: the median half-width of the
            # card's difference interval where it is not the best
            "median_half_width_pp": _median(answers.loc[answers["card_key"] != answers["best_key"], "half_width_pp"])}


def _median(x):
    return float(np.median(x)) if len(x) else None


def check_held_out(set_seed: int, card_seeds) -> None:
    """ValueError unless the decision set's seed is none of the card derivation's seeds."""
    if int(set_seed) in {int(s) for s in card_seeds}:
        raise ValueError(f"the decision set's seed {set_seed} is one the card's derivation used: not held out")


__all__ = ["KINDS", "TARGETS", "agreement", "card_answers", "verdict", "held_out", "table", "summarize", "share",
           "mean_loss", "card_provenance", "check_held_out", "kind_of", "as_analysis"]
