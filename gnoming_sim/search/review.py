"""Grading one seat's decisions of a game (``gnoming-sim review``), by rollouts to the end of the game.

Each decision (:class:`gnoming_sim.game.record_trace.Decision`: a :class:`Position` and the option
played) is analysed with the pieces of :mod:`gnoming_sim.search.analyse` (horizon ``game``, the
``learned`` base policy at every seat, common random numbers):

1. *screening*: every legal option, ``screen`` rollouts each;
2. *confirmation*: the best :data:`CANDIDATES` options by win chance, the best by points and the move
   played, ``confirm`` fresh rollouts each (rollout indices of their own, so the confirmatory
   intervals are fixed-sample intervals, as analyse's ``half_width`` batch).

The best move is the one with the highest chance of winning the game in the confirmatory batch; the
played move's *loss* is that chance minus its own, with the paired 95% interval of the regression
estimator (:func:`gnoming_sim.search.analyse.adjusted_each`: the same covariates as analyse).  A
decision is *forced* (never graded, never marked) when it has one legal option or when every option
gives the same outcome in every screening rollout.  Marks (:data:`MARKS`) go by the loss, and only
when its interval excludes 0 (*separated*); an unseparated loss counts as none.  The summary's error
rate is the mean separated loss per graded decision, in points of win chance (pp), with a 95% interval
over the graded decisions (how much the rate would move over other positions of this player's; the
marks' own rollout noise is in each loss's interval), and its verdict the band of :data:`VERDICTS` it
falls in.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.batch.stats import Z95, mean_ci
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.search.analyse import (DEFAULT_POLICY, Setup, adjusted_each, design, luck, run_rollouts, setup,
                                        summarize)

SCREEN = 100          # rollouts per option, every option
CONFIRM = 500         # fresh rollouts per candidate
CANDIDATES = 2        # the best options by win chance confirmed (beside the best by points and the move played)
STRIDE = 1 << 24      # rollout indices per decision: decision i uses i * STRIDE onwards
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
    """The grading of one decision (see the module docstring): its options, the move played, the mark."""
    from gnoming_sim.search.rollout import X_WIN

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
    by_win = sorted(range(len(keys)), key=lambda k: -rows1[keys[k]]["p_win"]["p"])
    keep = sorted(set(by_win[:CANDIDATES]) | {keys.index(res1["best"]), keys.index(decision.played)})
    sub = s.only(keep)
    out2, cov2 = run_rollouts(sub, confirm, seed, first + screen, "game", threads=threads)
    res2 = summarize(out2, cov2, sub, pos, "game")
    base["n_confirm"] = confirm
    p_win, _ = adjusted_each(out2[:, :, X_WIN], design(cov2, sub, pos),
                             [luck(out2, k) for k in range(len(keep))])
    bw = int(np.argmax(p_win))
    loss, se = _win_loss(out2, cov2, sub, pos, bw)
    sub_keys = [o.key for o in sub.options]
    rows = []
    for j, r in enumerate(res2["options"]):
        row = _row(r, "confirm")
        row["p_win_adj"] = float(p_win[j])
        row["loss_win"] = {"est": float(loss[j]), "ci95": [float(loss[j] - Z95 * se[j]), float(loss[j] + Z95 * se[j])]}
        row["best_win"] = j == bw
        rows.append(row)
    rows += [_row(rows1[k], "screen") for k in keys if k not in sub_keys]
    rows.sort(key=lambda r: (r["batch"] != "confirm", -(r.get("p_win_adj", r["p_win"]))))
    j = sub_keys.index(decision.played)
    lo, hi = loss[j] - Z95 * se[j], loss[j] + Z95 * se[j]
    separated = bool(j != bw and lo > 0)
    mark, symbol = mark_of(float(loss[j]), separated) if j != bw else ("ok", "")
    pr = res2["options"][j]
    points_sep = bool(not pr["best"] and pr["diff_ci95"][0] > 0)
    return {**base, "options": rows, "best": sub_keys[bw], "best_label": sub.options[bw].label,
            "best_points": res2["best"], "mark": mark, "symbol": symbol, "separated": separated,
            "loss_win": {"est": float(loss[j]) if j != bw else 0.0, "ci95": [float(lo), float(hi)] if j != bw
                         else [0.0, 0.0]},
            "loss_points": {"est": float(pr["diff"]), "ci95": [float(v) for v in pr["diff_ci95"]],
                            "separated": points_sep}}


def _row(r: dict, batch: str) -> dict:
    return {"key": r["key"], "option": r["option"], "batch": batch, "n": r["n"], "mean": r["mean"],
            "ci95": r["ci95"], "diff": r["diff"], "diff_ci95": r["diff_ci95"], "best_points": r["best"],
            "p_win": r["p_win"]["p"], "p_win_ci95": r["p_win"]["ci95"]}


def summary(graded: list[dict]) -> dict:
    """The review's summary: decisions graded and forced, the error rate (mean separated loss in win
    chance per graded decision, pp), the win chance and points lost, the marks, the verdict."""
    done = [g for g in graded if not g["forced"]]
    lost = [g["loss_win"]["est"] if g["separated"] else 0.0 for g in done]
    points = [g["loss_points"]["est"] for g in done if g["loss_points"]["separated"]]
    counts = {name: sum(1 for g in done if g["mark"] == name) for name in ("ok", "inaccuracy", "mistake", "blunder")}
    rate = 100 * float(np.mean(lost)) if done else 0.0
    ci = [100 * float(v) for v in mean_ci(np.asarray(lost))[1:3]] if len(done) > 1 else [float("nan")] * 2
    return {"decisions": len(graded), "graded": len(done), "forced": len(graded) - len(done),
            "error_rate_pp": rate, "error_rate_ci95": ci, "win_chance_lost_pp": 100 * float(np.sum(lost)),
            "points_lost": float(np.sum(points)), "points_lost_n": len(points), "marks": counts,
            "verdict": verdict_of(rate) if done else "no decision to grade"}


def review(decisions, policies=DEFAULT_POLICY, seed: int = 0, screen: int = SCREEN, confirm: int = CONFIRM,
           threads: int | None = None, progress=None) -> dict:
    """Grade every decision (``progress(k)`` after each); ``{"decisions": [...], "summary": {...}}``."""
    graded = []
    for i, d in enumerate(decisions):
        graded.append(grade(d, policies, seed, i, screen, confirm, threads))
        if progress is not None:
            progress(i + 1)
    return {"decisions": graded, "summary": summary(graded),
            "method": {"policies": [getattr(p, "name", p) for p in
                                    ([policies] if isinstance(policies, str) else policies)],
                       "horizon": "game", "seed": seed, "screen": screen, "confirm": confirm,
                       "candidates": CANDIDATES,
                       "marks": [{"mark": m, "symbol": s, "least_loss_pp": 100 * t} for m, s, t in MARKS],
                       "verdicts": [{"verdict": v, "below_pp": None if b == float("inf") else b}
                                    for v, b in VERDICTS]}}
