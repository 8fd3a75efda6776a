"""Grading one seat's decisions of a game (``gnoming-sim review``), by rollouts to the end of the game.

Each decision (:class:`gnoming_sim.game.record_trace.Decision`: a :class:`Position` and the option
played) is analysed with the pieces of :mod:`gnoming_sim.search.analyse` (horizon ``game``, the
base policy :data:`~gnoming_sim.search.analyse.DEFAULT_POLICY` (``net``) at every seat, common random numbers):

1. *screening*: every legal option, ``screen`` rollouts each, ranked by the one ranking of
   :mod:`gnoming_sim.search.criterion` (the chance of winning the game; equal chances by the margin over
   the rivals), the same as ``analyse --horizon game``; the first :data:`CANDIDATES` options of that
   ranking other than the move played are the *alternatives*;
2. *confirmation*: the alternatives and the move played, ``confirm`` *fresh* rollouts each (rollout indices
   of their own), in two halves.

The *loss* is the best alternative's win chance minus the played move's, paired, with the regression
estimator's standard error (:func:`gnoming_sim.search.analyse.adjusted_each`), cross-fitted
(:func:`cross_fit`): in each half the best alternative is chosen on the screening and the *other* half
pooled, and its loss measured on this half; the two are averaged.  The choice never sees the rollouts
that measure it, so the loss is not inflated by it (no winner's curse); it is negative where the move
played wins more.  The *best move* shown is that alternative where the loss is positive, else the move
played.  A decision is *forced* (never graded, never marked) when it has one legal option or when every
option gives the same outcome in every screening rollout.

Marks.  Each graded decision tests "the move played loses win chance" (the one-sided normal p-value of its
loss); the game's p-values go through Benjamini-Hochberg (:func:`gnoming_sim.stats.bh`) at
:data:`MARK_RATE`: at most that share of a game's marks are expected to be false, and a game of flawless
moves gets any mark with probability at most :data:`MARK_RATE`.  A decision the correction keeps is
*separated*, and marked by its loss (:data:`MARKS`).  The least loss that can be separated is about
3.3 standard errors (BH's first step over ~50 decisions): at the default budget about 5-6 pp, so a ``?!``
(2-4 pp) is given only with a larger ``confirm``.

Error rate.  Every graded loss counts, separated or not (:func:`shrunk_losses`): each is shrunk (normal
empirical Bayes) toward the game's mean loss, itself never below 0, then cut at 0 (a move cannot lose
against the best by less than nothing); none is zeroed for being unseparated.  The error rate is the mean
of these per graded decision, in pp of win chance, its 95% interval the t interval of that mean
(:func:`gnoming_sim.stats.mean_ci_t`) cut at 0, and the verdict the band of :data:`VERDICTS` it falls in.
"""
from __future__ import annotations

import math

import numpy as np

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.search.analyse import (DEFAULT_POLICY, Setup, adjusted_each, design, luck, run_rollouts, setup,
                                        summarize)
from gnoming_sim.stats import Z95, bh, mean_ci_t

SCREEN = 100          # rollouts per option, every option
CONFIRM = 500         # fresh rollouts per confirmed option
CANDIDATES = 2        # alternatives confirmed: the first of the screening ranking other than the move played
STRIDE = 1 << 24      # rollout indices per decision: decision i uses i * STRIDE onwards
MARK_RATE = 0.05      # Benjamini-Hochberg false discovery rate of a game's marks
# GNU Backgammon's thresholds and rating bands are in equity (-1..1), which moves 2 units per unit of
# win chance in a plain game: halved, they are win chance.  (mark, symbol, the least separated loss in
# win chance, a probability): gnubg's doubtful 0.04, bad 0.08, very bad 0.16
MARKS = (("blunder", "??", 0.08), ("mistake", "?", 0.04), ("inaccuracy", "?!", 0.02))
# (verdict, the error rate below which it is given, in pp of win chance per graded decision): gnubg's
# bands of 2, 5, 8, 12, 18, 25 and 35 millipoints of equity per move, halved
VERDICTS = (("Supernatural", 0.1), ("World class", 0.25), ("Expert", 0.4), ("Advanced", 0.6),
            ("Intermediate", 0.9), ("Casual player", 1.25), ("Beginner", 1.75), ("Awful!", float("inf")))


def mark_of(loss: float, separated: bool) -> tuple[str, str]:
    """(mark, symbol) of a loss in win chance (a probability): ``("ok", "")`` below the thresholds or
    when the loss is not separated from 0."""
    if separated:
        for name, symbol, least in MARKS:
            if loss >= least:
                return name, symbol
    return "ok", ""


def verdict_of(error_rate_pp: float) -> str:
    return next(name for name, below in VERDICTS if error_rate_pp < below)


def _win_loss(out, cov, s: Setup, pos, best: int):
    """(loss, se) per option of the win chance behind option ``best`` (positive: worse), paired."""
    from gnoming_sim.search.rollout import X_WIN

    y = out[:, :, X_WIN]
    Z = design(cov, s, pos)
    K = y.shape[1]
    return adjusted_each(y[:, [best]] - y, Z, [np.column_stack([luck(out, k), luck(out, best)]) for k in range(K)])


def grade(decision, policies=DEFAULT_POLICY, seed: int = 0, index: int = 0, screen: int = SCREEN,
          confirm: int = CONFIRM, threads: int | None = None) -> dict:
    """The grading of one decision (see the module docstring): its options, the move played, the loss."""
    from gnoming_sim.search.rollout import X_RIVALS, X_SCORE, X_WIN

    pos = decision.position
    policies = [policies] if isinstance(policies, str) else list(policies)
    s = setup(pos, policies)
    keys = [o.key for o in s.options]
    base = {"where": decision.where, "round": decision.round + 1, "turn": decision.turn,
            "decision": pos.decision, "describe": pos.describe(), "position": pos.to_dict(),
            "played": decision.played, "options": [], "forced": False, "forced_reason": None,
            "mark": None, "symbol": "", "separated": None, "best": None, "loss_win": None,
            "loss_points": None, "n_screen": 0, "n_confirm": 0}
    if decision.played not in keys:
        raise GnomingError(f"{decision.where}: the move played ({decision.played}) is not among the legal options "
                           f"({', '.join(keys)})")
    base["played_label"] = s.options[keys.index(decision.played)].label
    if len(keys) == 1:
        return {**base, "forced": True, "forced_reason": "the only legal move", "best": keys[0],
                "options": [{"key": keys[0], "option": s.options[0].label}]}
    first = index * STRIDE
    out, cov = run_rollouts(s, screen, seed, first, "game", threads=threads)
    res1 = summarize(out, cov, s, pos, "game")
    base["n_screen"] = screen
    rows1 = {r["key"]: r for r in res1["options"]}
    if "margin" not in res1:
        return {**base, "forced": True, "forced_reason": "every option gives the same game in every rollout",
                "best": decision.played, "options": [_row(r, "screen") for r in res1["options"]]}
    screened = sorted(range(len(keys)), key=lambda k: res1["options"][k]["rank"])   # criterion.order
    k_played = keys.index(decision.played)
    cands = [k for k in screened if k != k_played][:CANDIDATES]   # the alternatives, by screening
    keep = sorted(set(cands) | {k_played})
    sub = s.only(keep)
    out2, cov2 = run_rollouts(sub, confirm, seed, first + screen, "game", threads=threads)
    res2 = summarize(out2, cov2, sub, pos, "game")
    base["n_confirm"] = confirm
    sub_keys = [o.key for o in sub.options]
    j = sub_keys.index(decision.played)
    jc = [sub_keys.index(keys[k]) for k in cands]
    half = confirm // 2
    folds = []
    for rows_ in (slice(0, half), slice(half, confirm)):
        o, c = out2[rows_], cov2[rows_]
        z = design(c, sub, pos)
        lucks = [luck(o, k) for k in range(len(keep))]
        w, _ = adjusted_each(100.0 * o[:, :, X_WIN], z, lucks)
        m, _ = adjusted_each(o[:, :, X_SCORE] - o[:, :, X_RIVALS], z, lucks)
        ls, se_ = _win_loss(o, c, sub, pos, j)   # each option's win chance behind the move played, negated below
        folds.append({"win": w[jc], "margin": m[jc], "loss": -ls[jc], "se": se_[jc], "n": o.shape[0]})
    scr = {"win": np.array([res1["options"][k]["mean"] for k in cands]),
           "margin": np.array([res1["options"][k]["margin"]["mean"] for k in cands]), "n": screen}
    loss, se, chosen = cross_fit(scr, folds)
    p_win, _ = adjusted_each(out2[:, :, X_WIN], design(cov2, sub, pos), [luck(out2, k) for k in range(len(keep))])
    # the alternative shown: the folds' choice, or where they differ the one with the higher win chance
    alt = cands[max(set(chosen), key=lambda c: p_win[jc[c]])]
    ja = sub_keys.index(keys[alt])
    behind, behind_se = _win_loss(out2, cov2, sub, pos, ja)   # for the table: the whole batch, the alternative
    rows = []
    for k, r in enumerate(res2["options"]):
        row = _row(r, "confirm")
        row["p_win_adj"] = float(p_win[k])
        row["behind_alternative"] = {"est": float(behind[k]), "ci95": [float(behind[k] - Z95 * behind_se[k]),
                                                                      float(behind[k] + Z95 * behind_se[k])]}
        rows.append(row)
    # the options screened only: each one's paired interval behind the alternative on the screening rollouts
    # (what a drill needs to tell whether the rollouts can tell it from the best)
    behind1, behind1_se = _win_loss(out, cov, s, pos, alt)
    for k in keys:
        if k not in sub_keys:
            j1 = keys.index(k)
            rows.append({**_row(rows1[k], "screen"), "screen_behind_alternative": {
                "est": float(behind1[j1]), "ci95": [float(behind1[j1] - Z95 * behind1_se[j1]),
                                                    float(behind1[j1] + Z95 * behind1_se[j1])]}})
    rows.sort(key=lambda r: (r["batch"] != "confirm", -(r.get("p_win_adj", r["p_win"]))))
    points = res2["options"][j]["points"]["mean"] - res2["options"][ja]["points"]["mean"]
    return {**base, "options": rows, "alternative": keys[alt], "alternative_label": s.options[alt].label,
            **judge(loss, se),
            "loss_points": {"est": float(points), "note": "own game score, played minus the alternative "
                                                          "(positive: more points; information, not graded)"}}


def cross_fit(screen: dict, folds: list[dict]) -> tuple[float, float, tuple[int, int]]:
    """The loss against the best alternative, chosen on other rollouts than those that measure it.

    ``screen``: the screening estimates of the candidate alternatives (``win``, ``margin``: arrays over the
    candidates; ``n`` rollouts).  ``folds``: the two halves of the confirmation batch, each with the
    candidates' ``win`` and ``margin`` and their ``loss`` against the move played (win chance of the
    candidate minus the played move's, a probability) with its ``se``, over ``n`` rollouts.  In fold f
    the alternative is the best (:func:`gnoming_sim.search.criterion.order`) of the screening and the
    *other* fold pooled by rollouts, and its loss is fold f's own; the two losses are averaged.
    Returns (loss, standard error, the candidate chosen in each fold)."""
    from gnoming_sim.search import criterion

    losses, variances, chosen = [], [], []
    for f in (0, 1):
        other = folds[1 - f]
        n_s, n_o = screen["n"], other["n"]
        pooled = [{"win": (n_s * screen["win"][k] + n_o * other["win"][k]) / (n_s + n_o),
                   "margin": (n_s * screen["margin"][k] + n_o * other["margin"][k]) / (n_s + n_o)}
                  for k in range(len(screen["win"]))]
        a = criterion.best(pooled, "game")
        chosen.append(a)
        losses.append(float(folds[f]["loss"][a]))
        variances.append(float(folds[f]["se"][a]) ** 2)
    return float(np.mean(losses)), float(np.sqrt(sum(variances)) / 2), (chosen[0], chosen[1])


def judge(loss: float, se: float) -> dict:
    """One graded decision's record from its confirmation estimate of ``loss``, the win chance of the best
    alternative minus the played move's (negative: the move played is the better): ``loss_win`` (est, se,
    95% CI) and the one-sided p-value of "the move played loses win chance".  The mark, the best move and
    the shrunk loss are given over the whole game (:func:`mark_game`, :func:`summary`)."""
    from scipy.stats import norm

    p = float(norm.sf(loss / se)) if se > 0 else (0.0 if loss > 0 else 1.0)
    return {"loss_win": {"est": loss, "se": se, "ci95": [loss - Z95 * se, loss + Z95 * se]}, "p_value": p,
            "mark": "ok", "symbol": "", "separated": False}


def mark_game(graded: list[dict], rate: float = MARK_RATE) -> None:
    """Mark the graded decisions of one game in place: Benjamini-Hochberg over their p-values at ``rate``;
    a kept (*separated*) decision is marked by its loss (:func:`mark_of`), every other one is ``ok``."""
    done = [g for g in graded if not g["forced"]]
    reject, adjusted = bh([g["p_value"] for g in done], rate)
    for g, r, a in zip(done, reject, adjusted):
        g["separated"], g["p_adjusted"] = bool(r), float(a)
        g["mark"], g["symbol"] = mark_of(g["loss_win"]["est"], bool(r))
        if "alternative" in g:   # the best move: the alternative where it wins more, else the move played
            better = g["loss_win"]["est"] > 0
            g["best"] = g["alternative"] if better else g["played"]
            g["best_label"] = g["alternative_label"] if better else g["played_label"]


def shrunk_losses(loss, se) -> np.ndarray:
    """Each decision's loss against the best move, from its loss against the best alternative ``loss``
    (negative where the move played wins more) and standard error ``se``: the normal empirical-Bayes
    posterior mean, prior N(mu, tau^2) with mu the game's mean loss cut at 0 and tau^2 by moments (the
    spread of the losses beyond their noise), then its positive part (a move cannot lose against the best
    by less than nothing).  No loss is zeroed for being unseparated: a flawless player's noise is shrunk
    toward 0, a steady loser's losses toward their common size."""
    L = np.asarray(loss, dtype=np.float64)
    v = np.asarray(se, dtype=np.float64) ** 2
    if L.size == 0:
        return L
    mu = max(0.0, float(L.mean()))
    tau2 = max(0.0, float(np.mean((L - mu) ** 2) - v.mean()))
    w = np.where(tau2 + v > 0, tau2 / np.where(tau2 + v > 0, tau2 + v, 1.0), 1.0)
    return np.maximum(0.0, mu + w * (L - mu))


def _row(r: dict, batch: str) -> dict:
    """One option of a graded decision's table: its win chance (``p_win``, raw; ``mean``, adjusted, in
    percent), its rank by the criterion and its own mean game score (information)."""
    return {"key": r["key"], "option": r["option"], "batch": batch, "n": r["n"], "rank": r["rank"],
            "mean": r["mean"], "ci95": r["ci95"], "points": r["points"], "margin": r["margin"],
            "p_win": r["p_win"]["p"], "p_win_ci95": r["p_win"]["ci95"]}


def summary(graded: list[dict]) -> dict:
    """The review's summary over the graded decisions (marked by :func:`mark_game`): the error rate (mean
    shrunk loss in win chance per graded decision, pp; see the module docstring) with its 95% interval,
    the win chance lost, the marks, the verdict."""
    done = [g for g in graded if not g["forced"]]
    loss = [g["loss_win"]["est"] for g in done]
    shrunk = shrunk_losses(loss, [g["loss_win"]["se"] for g in done])
    for g, x in zip(done, shrunk):
        g["loss_win"]["shrunk"] = float(x)
    counts = {name: sum(1 for g in done if g["mark"] == name) for name in ("ok", "inaccuracy", "mistake", "blunder")}
    rate = max(0.0, 100 * float(np.mean(shrunk))) if done else 0.0
    _, lo, hi, _ = mean_ci_t(100 * shrunk) if len(done) > 1 else (0, math.nan, math.nan, 0)
    ci = [max(0.0, lo), max(0.0, hi)] if len(done) > 1 else [float("nan")] * 2
    return {"decisions": len(graded), "graded": len(done), "forced": len(graded) - len(done),
            "error_rate_pp": rate, "error_rate_ci95": ci, "win_chance_lost_pp": 100 * float(np.sum(shrunk)),
            "marks": counts, "mark_rate": MARK_RATE,
            "verdict": verdict_of(rate) if done else "no decision to grade"}


def review(decisions, policies=DEFAULT_POLICY, seed: int = 0, screen: int = SCREEN, confirm: int = CONFIRM,
           threads: int | None = None, progress=None) -> dict:
    """Grade every decision (``progress(k)`` after each); ``{"decisions": [...], "summary": {...}}``."""
    graded = []
    for i, d in enumerate(decisions):
        graded.append(grade(d, policies, seed, i, screen, confirm, threads))
        if progress is not None:
            progress(i + 1)
    mark_game(graded)
    return {"decisions": graded, "summary": summary(graded),
            "method": {"policies": [getattr(p, "name", p) for p in
                                    ([policies] if isinstance(policies, str) else policies)],
                       "horizon": "game", "seed": seed, "screen": screen, "confirm": confirm,
                       "candidates": CANDIDATES, "mark_rate": MARK_RATE,
                       "procedure": "best chosen on the screening rollouts, its loss measured on fresh ones; "
                                    f"marks under Benjamini-Hochberg at a false discovery rate of {MARK_RATE:.0%} "
                                    "per game; error rate from every loss, shrunk, never zeroed",
                       "marks": [{"mark": m, "symbol": s, "least_loss_pp": 100 * t} for m, s, t in MARKS],
                       "verdicts": [{"verdict": v, "below_pp": None if b == float("inf") else b}
                                    for v, b in VERDICTS]}}
