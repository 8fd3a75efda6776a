"""Grading one seat's decisions of a game (``gnoming-sim review``), by the value network and rollouts.

Each decision (:class:`gnoming_sim.game.record_trace.Decision`: a :class:`Position` and the option
played) is valued by the evaluator (:mod:`gnoming_sim.search.evaluator`, one :class:`Settings` record per
decision: its base player, :data:`~gnoming_sim.search.evaluator.BASE`, ``net``, at every seat; its criterion,
:data:`~gnoming_sim.search.evaluator.HORIZON`, the chance of winning the game), common random numbers:

1. *screening* at 0-ply (:func:`gnoming_sim.search.evaluator.evaluate`, level ``0-ply``): every legal option
   valued by the value network at the next decision of another seat, the mean over ``screen`` deals of the
   unseen cards (no rollout); the first :data:`CANDIDATES` options of its ranking other than the move played, and up to
   :data:`MORE_CANDIDATES` more that it puts within :data:`SCREEN_MARGIN` pp of its best, are the
   *candidates*.  The screening only picks them: it never decides a mark or a loss (a drill counts an option
   it screened out, which 0-ply puts behind the candidates, as not the best);
2. *selection*: the candidates and the move played, ``confirm // 2`` *truncated* rollouts each (this round
   played out by the base player, then the value network's chance of winning at the next round's first
   decision; in the last round full rollouts: :func:`gnoming_sim.search.evaluator.rollouts`, level
   ``truncated``); the *alternative* is the candidate the criterion ranks first on them (:func:`choose`).  The options' table
   shows these rollouts;
3. *measurement*: the move played and the alternative alone, ``confirm`` further fresh truncated rollouts.

Truncated rollouts carry none of the later rounds' luck: on 30 positions of the oracle decision set their
paired differences' variance was a median 7.1 times smaller than full rollouts' in round 1 and 3.9 times in
round 2 (the same in round 3, where they are full rollouts), so the same budget separates smaller losses.
What they measure is the win chance as the value network reads it at the end of this round (calibrated on
held-out games: tuning/value/calibration.json).

The *loss* is the alternative's win chance minus the played move's on the measurement rollouts, paired,
with the regression estimator's standard error (:func:`gnoming_sim.search.estimates.adjusted_each`).  The
choice never sees the rollouts that measure it, so the loss is not inflated by it (no winner's curse) and
its standard error is an ordinary paired one, valid however close the options are.  The loss is negative
where the move played wins more.
The *best move* shown is the alternative where the loss is positive, else the move played.  A decision
is *forced* (never graded, never marked) when it has one legal option or when every option has the same
0-ply value in every deal and the same outcome in every selection rollout.

Marks.  Each graded decision tests "the move played loses win chance" (the one-sided normal p-value of its
loss); the game's p-values go through Benjamini-Hochberg (:func:`gnoming_sim.stats.bh`) at
:data:`MARK_RATE`: at most that share of a game's marks are expected to be false, and a game of flawless
moves gets any mark with probability at most :data:`MARK_RATE` (the decisions' rollouts are independent).
A decision the correction keeps is *separated*, and marked by its *shrunk* loss (:func:`shrunk_losses`:
the game's losses shrunk together, so that the marks read the same numbers as the error rate, and a
loss kept because its noise ran high is not read at its face value): ``??`` from 8 pp, ``?`` from 4 pp,
``?!`` below (:data:`MARKS`).  The least loss that can be separated is about 3 standard errors (BH's first
step over 10-60 decisions: z 2.6-3.3); at the default budget (500 measurement rollouts, a standard error
of about 2.1 pp) about 6 pp.  gnubg's 2 pp threshold for ``?!`` could be reached only with about ten
times the rollouts, so ``?!`` is any separated loss whose shrunk size is under 4 pp: the rollouts show a
loss, too small (or too uncertain) to be called a mistake.

Error rate.  Every graded loss counts, separated or not (:func:`shrunk_losses`): each is shrunk to its
nonparametric empirical-Bayes posterior mean (:func:`gnoming_sim.stats.eb_posterior_means`: the prior
fitted to the game's losses, the truth at least 0, a move cannot lose against the best by less than
nothing); none is zeroed for being unseparated.  The error rate is the mean of these per graded decision,
in pp of win chance, its 95% interval the t interval of that mean (:func:`gnoming_sim.stats.mean_ci_t`)
cut at 0, and the verdict the band of :data:`VERDICTS` it falls in.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.search import evaluator
from gnoming_sim.search.estimates import Setup, adjusted_each, design, luck, summarize
from gnoming_sim.search.evaluator import Settings
from gnoming_sim.stats import Z95, bh, eb_posterior_means, mean_ci_t

SCREEN = 64           # deals of the unseen cards behind each decision's 0-ply screening, every option
SCREEN_MARGIN = 3.0   # pp: options 0-ply puts this close to its best are confirmed too ...
MORE_CANDIDATES = 2   # ... up to this many more
CONFIRM = 1000        # fresh truncated rollouts that measure the loss (half as many more choose the alternative)
REFINE_P = 0.1        # a decision whose measured loss has a one-sided p-value below this ...
SURE_P = 0.001        # ... and not below this (a loss that clear is kept as measured) is measured again ...
REFINE = 4            # ... on this many times CONFIRM fresh rollouts (:func:`measure_again`, :func:`refine`)
DEFAULT_POLICY = evaluator.BASE   # the oracle's base player, every seat
HORIZON = evaluator.HORIZON       # the oracle's criterion: the loss is in win chance, to the end of the game
CANDIDATES = 2        # alternatives confirmed: the first of the screening ranking other than the move played
STRIDE = 1 << 24      # rollout indices per decision: decision i uses i * STRIDE onwards
MARK_RATE = 0.05      # Benjamini-Hochberg false discovery rate of a game's marks
# GNU Backgammon's thresholds and rating bands are in equity (-1..1), which moves 2 units per unit of
# win chance in a plain game: halved, they are win chance.  (mark, symbol, the least shrunk loss of a
# separated decision, in win chance, a probability): gnubg's bad 0.08 and very bad 0.16; its doubtful 0.04
# (2 pp) cannot be separated at the default budget (about 6 pp can), so ?! is any separated loss below 4 pp
MARKS = (("blunder", "??", 0.08), ("mistake", "?", 0.04), ("inaccuracy", "?!", 0.0))
# (verdict, the error rate below which it is given, in pp of win chance per graded decision): gnubg's
# bands of 2, 5, 8, 12, 18, 25 and 35 millipoints of equity per move, halved
VERDICTS = (("Supernatural", 0.1), ("World class", 0.25), ("Expert", 0.4), ("Advanced", 0.6),
            ("Intermediate", 0.9), ("Casual player", 1.25), ("Beginner", 1.75), ("Awful!", float("inf")))


def mark_of(loss: float, separated: bool) -> tuple[str, str]:
    """(mark, symbol) of a separated decision's shrunk loss in win chance (a probability): at least ``?!``
    when separated, ``("ok", "")`` when not."""
    if separated:
        return next(((name, symbol) for name, symbol, least in MARKS if loss >= least), MARKS[-1][:2])
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
    s = evaluator.setup(pos, policies=policies)
    keys = [o.key for o in s.options]
    base = {"where": decision.where, "round": decision.round + 1, "turn": decision.turn,
            "decision": pos.decision, "describe": pos.describe(), "position": pos.to_dict(),
            "played": decision.played, "options": [], "forced": False, "forced_reason": None,
            "mark": None, "symbol": "", "separated": None, "best": None, "loss_win": None,
            "loss_points": None, "n_screen": 0, "n_confirm": 0, "n_measure": 0}
    if decision.played not in keys:
        raise GnomingError(f"{decision.where}: the move played ({decision.played}) is not among the legal options "
                           f"({', '.join(keys)})")
    base["played_label"] = s.options[keys.index(decision.played)].label
    if len(keys) == 1:
        return {**base, "forced": True, "forced_reason": "the only legal move", "best": keys[0],
                "options": [{"key": keys[0], "option": s.options[0].label}]}
    st = Settings(level="truncated", policies=tuple(policies), seed=seed, first=index * STRIDE)
    # 1. screening at 0-ply: every option valued by the value network after it, on ``screen`` deals of the
    # unseen cards (no rollout); it only picks the candidates, never a mark
    zp = evaluator.evaluate(pos, replace(st, level="0-ply", budget=screen), threads, samples=True)
    base["n_screen"] = screen
    rows0 = {r["key"]: r for r in zp["options"]}
    k_played = keys.index(decision.played)
    screened = sorted(range(len(keys)), key=lambda k: rows0[keys[k]]["rank"])
    near = [k for k in screened if k != k_played
            and rows0[keys[k]]["mean"] >= rows0[keys[screened[0]]]["mean"] - SCREEN_MARGIN]
    cands = [k for k in screened if k != k_played][:CANDIDATES]
    cands += [k for k in near if k not in cands][:MORE_CANDIDATES]   # options 0-ply cannot tell from the best
    keep = sorted(set(cands) | {k_played})
    select = max(2, confirm // 2)
    # 2. selection: the candidates and the move played on truncated rollouts (this round played out, then
    # the value network), indices of their own
    sub, out2, cov2 = evaluator.rollouts(pos, replace(st, budget=select), [keys[k] for k in keep], threads)
    res2 = summarize(out2, cov2, sub, pos, HORIZON)
    base["n_confirm"] = select
    if "lead" not in res2 and np.ptp(zp["win"], axis=1).max() == 0:
        return {**base, "forced": True, "forced_reason": "every option gives the same game in every rollout",
                "best": decision.played, "options": [_row(r, "confirm") for r in res2["options"]]}
    sub_keys = [o.key for o in sub.options]
    jc = [sub_keys.index(keys[k]) for k in cands]
    lucks = [luck(out2, k) for k in range(len(keep))]
    p_win, _ = adjusted_each(out2[:, :, X_WIN], design(cov2, sub, pos), lucks)
    margin2, _ = adjusted_each(out2[:, :, X_SCORE] - out2[:, :, X_RIVALS], design(cov2, sub, pos), lucks)
    alt = cands[choose({"win": [rows0[keys[k]]["mean"] for k in cands], "margin": [0.0] * len(cands), "n": 0},
                       {"win": 100 * p_win[jc], "margin": margin2[jc], "n": select})]
    ja = sub_keys.index(keys[alt])
    behind, behind_se = _win_loss(out2, cov2, sub, pos, ja)   # for the table: the selection batch
    rows = []
    for k, r in enumerate(res2["options"]):
        row = _row(r, "confirm")
        row["p_win_adj"] = float(p_win[k])
        row["behind_alternative"] = {"est": float(behind[k]), "ci95": [float(behind[k] - Z95 * behind_se[k]),
                                                                      float(behind[k] + Z95 * behind_se[k])]}
        rows.append(row)
    # the options screened only: their 0-ply value, and how far 0-ply puts them behind the alternative (an
    # interval of the deals only: the network's own error is not in it, so a drill never counts them right)
    for k in keys:
        if k not in sub_keys:
            r0 = rows0[k]
            rows.append({"key": k, "option": r0["option"], "batch": "screen", "n": screen, "rank": r0["rank"],
                         "mean": r0["mean"], "ci95": r0["ci95"], "p_win": r0["mean"] / 100,
                         "zero_ply_behind_alternative": (rows0[keys[alt]]["mean"] - r0["mean"]) / 100})
    rows.sort(key=lambda r: (r["batch"] != "confirm", -(r.get("p_win_adj", r["p_win"]))))
    # 3. measurement: the move played and the alternative alone, on truncated rollouts neither the screening nor
    # the selection saw; the loss is an ordinary paired estimate there
    st = replace(st, budget=confirm, first=st.first + select)
    pair, out3, cov3 = evaluator.rollouts(pos, st, [keys[k_played], keys[alt]], threads)
    ls, se3 = _win_loss(out3, cov3, pair, pos, 1)   # the played move's win chance behind the alternative
    res3 = summarize(out3, cov3, pair, pos, HORIZON)
    base["n_measure"] = confirm
    points = res3["options"][0]["points"]["mean"] - res3["options"][1]["points"]["mean"]
    record = judge(float(ls[0]), float(se3[0]))
    if measure_again(record["p_value"]):
        # 4. a loss the measurement suggests is measured again, on REFINE times the rollouts, fresh
        _, out4, cov4 = evaluator.rollouts(pos, replace(st, budget=REFINE * confirm, first=st.first + confirm),
                                           [keys[k_played], keys[alt]], threads)
        l4, se4 = _win_loss(out4, cov4, pair, pos, 1)
        record = refine(record, float(l4[0]), float(se4[0]))
        base["n_measure"] += REFINE * confirm
    return {**base, "options": rows, "alternative": keys[alt], "alternative_label": s.options[alt].label,
            **record,
            "loss_points": {"est": float(points), "note": "own game score after this round, played minus the "
                                                          "alternative (positive: more points; information, "
                                                          "not graded)"}}


def choose(screen: dict, select: dict) -> int:
    """The alternative: the candidate :func:`gnoming_sim.search.criterion.best` ranks first on the
    screening and the selection rollouts pooled by rollouts.  ``screen`` and ``select``: the candidates'
    ``win`` (percent) and ``margin`` (arrays over the candidates) and ``n`` rollouts.  The loss is then
    measured on rollouts neither saw, so this choice cannot inflate it."""
    from gnoming_sim.search import criterion

    n_s, n_o = screen["n"], select["n"]
    pooled = [{"win": (n_s * screen["win"][k] + n_o * select["win"][k]) / (n_s + n_o),
               "margin": (n_s * screen["margin"][k] + n_o * select["margin"][k]) / (n_s + n_o)}
              for k in range(len(screen["win"]))]
    return criterion.best(pooled, HORIZON)


def judge(loss: float, se: float) -> dict:
    """One graded decision's record from its confirmation estimate of ``loss``, the win chance of the best
    alternative minus the played move's (negative: the move played is the better): ``loss_win`` (est, se,
    95% CI) and the one-sided p-value of "the move played loses win chance".  The mark, the best move and
    the shrunk loss are given over the whole game (:func:`mark_game`, :func:`summary`)."""
    from scipy.special import ndtr   # the normal distribution function (scipy.stats.norm.sf(z) = ndtr(-z))

    p = float(ndtr(-loss / se)) if se > 0 else (0.0 if loss > 0 else 1.0)
    return {"loss_win": {"est": loss, "se": se, "ci95": [loss - Z95 * se, loss + Z95 * se]}, "p_value": p,
            "mark": "ok", "symbol": "", "separated": False}


def measure_again(p: float) -> bool:
    """Whether a decision whose first measurement has one-sided p-value ``p`` is measured again: a loss the
    measurement suggests (p below :data:`REFINE_P`) but does not make plain (p not below :data:`SURE_P`)."""
    return SURE_P <= p < REFINE_P


def refine(first: dict, loss: float, se: float) -> dict:
    """The record of a decision measured twice: the first measurement (``first``, :func:`judge`'s) had a
    one-sided p-value in [:data:`SURE_P`, :data:`REFINE_P`), and ``loss``/``se`` are a fresh measurement on
    :data:`REFINE` times its rollouts, which alone gives the loss.  Its p-value is SURE_P + (REFINE_P - SURE_P)
    times the fresh one's: the chance, with no loss, of a first p-value below SURE_P, or in that range and a
    second as small; so with no loss it is uniform (as the game's Benjamini-Hochberg marks need;
    tests/search/test_review_power.py checks it by simulation), and a decision measured once keeps its own."""
    out = judge(loss, se)
    out["p_value"] = SURE_P + (REFINE_P - SURE_P) * out["p_value"]
    out["first_measure"] = first["loss_win"]
    return out


def mark_game(graded: list[dict], rate: float = MARK_RATE) -> None:
    """Mark the graded decisions of one game in place: Benjamini-Hochberg over their p-values at ``rate``;
    a kept (*separated*) decision is marked by its shrunk loss (:func:`shrunk_losses` over the game's
    graded decisions, :func:`mark_of`), every other one is ``ok``."""
    done = [g for g in graded if not g["forced"]]
    reject, adjusted = bh([g["p_value"] for g in done], rate)
    # the shrunk losses (which :func:`summary` reads too), needed here only when a decision is separated
    shrunk = shrunk_losses([g["loss_win"]["est"] for g in done], [g["loss_win"]["se"] for g in done]) \
        if any(reject) else [None] * len(done)
    for g, r, a, x in zip(done, reject, adjusted, shrunk):
        g["separated"], g["p_adjusted"] = bool(r), float(a)
        if x is not None:
            g["loss_win"]["shrunk"] = float(x)
        g["mark"], g["symbol"] = mark_of(float(x), True) if r else ("ok", "")
        if "alternative" in g:   # the best move: the alternative where it wins more, else the move played
            better = g["loss_win"]["est"] > 0
            g["best"] = g["alternative"] if better else g["played"]
            g["best_label"] = g["alternative_label"] if better else g["played_label"]


def shrunk_losses(loss, se) -> np.ndarray:
    """Each decision's loss against the best move, from its loss against the alternative ``loss``
    (negative where the move played wins more) and standard error ``se``: its nonparametric
    empirical-Bayes posterior mean with the truth at least 0 (:func:`gnoming_sim.stats.eb_posterior_means`;
    a move cannot lose against the best by less than nothing).  No loss is zeroed for being unseparated:
    a flawless player's noise is shrunk toward 0, a steady loser's losses toward their common size, and a
    lone blunder keeps most of its size."""
    return eb_posterior_means(loss, se, lower=0.0)


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
    shrunk = np.array([g["loss_win"]["shrunk"] for g in done]) if all("shrunk" in g["loss_win"] for g in done) \
        else shrunk_losses([g["loss_win"]["est"] for g in done], [g["loss_win"]["se"] for g in done])
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
                       "horizon": HORIZON, "seed": seed, "screen": screen, "confirm": confirm,
                       "screening": "0-ply (the value network after each option, the mean over deals of the unseen "
                                    "cards)",
                       "rollouts": "truncated: this round played out, then the value network (full in the last "
                                   "round)",
                       "candidates": CANDIDATES, "mark_rate": MARK_RATE,
                       "measure": confirm, "select": max(2, confirm // 2),
                       "refine": {"below_p": REFINE_P, "not_below_p": SURE_P, "times": REFINE,
                                  "rollouts": REFINE * confirm},
                       "procedure": "the alternative chosen on the screening and selection rollouts, its loss "
                                    "measured on fresh ones (an ordinary paired standard error), measured again "
                                    f"on {REFINE * confirm:,} fresh rollouts where its one-sided p-value is below "
                                    f"{REFINE_P:g} and not below {SURE_P:g} (the p-value then {SURE_P:g} + "
                                    f"{REFINE_P - SURE_P:g} x the second's); marks under "
                                    f"Benjamini-Hochberg at a false discovery rate of {MARK_RATE:.0%} per game, "
                                    "read from the shrunk loss; error rate from every loss, shrunk, never zeroed",
                       "marks": [{"mark": m, "symbol": s, "least_loss_pp": 100 * t} for m, s, t in MARKS],
                       "verdicts": [{"verdict": v, "below_pp": None if b == float("inf") else b}
                                    for v, b in VERDICTS]}}
