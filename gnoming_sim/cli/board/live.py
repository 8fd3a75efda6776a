"""A live analysis: one position's rollouts in growing batches, summarized after each by ``analyse``'s
own estimator, until the leader is separated or a cap is reached: the evaluator's batch-by-batch evaluation
(:class:`gnoming_sim.search.evaluator.Evaluation`, stop ``lead``) with a Stop button and the page's view.

Oracle and criterion are the oracle's (:mod:`gnoming_sim.search.evaluator`: ``net`` at every seat, ranked by the
chance of winning the game, unless the page asks for another horizon).  Rollout i depends on (seed, i) alone,
so the batches 0..99, 100..299, ... joined are the rollouts of one ``analyse --rollouts N`` call, and the
summary after N rollouts is ``analyse``'s table for ``--rollouts N --second-policy none`` to the last digit
(tests/board/test_board_api.py checks it).

Stopping is the evaluator's shared rule (:func:`gnoming_sim.search.evaluator.stop_reason`): the leader's lead
over the runner-up at least ``k`` standard errors of their paired difference (GNU Backgammon's "stop when the
best is k joint standard errors ahead"; never before :data:`MIN_STOP` rollouts; the default k is 3, since the
lead is looked at after every batch), or ``cap`` rollouts, or at once when no option differs from the best in
any rollout.  ``separated`` in each update is ``analyse``'s own verdict (the 95% interval of the lead above 0).
Each update carries the printed card's answer for the position beside the rollouts' ranking
(:func:`gnoming_sim.search.evaluator.advice`, as ``analyse`` prints it).

Cancelling.  The work runs batch by batch; :meth:`Live.cancel` (a dropped connection, a new position, the
page's Stop) is looked at before each batch, so no batch starts after it.
"""
from __future__ import annotations

import threading
import time

from gnoming_sim.game.position import Position
from gnoming_sim.cli.group import finite
from gnoming_sim.search import evaluator
from gnoming_sim.search.evaluator import DEFAULT_CAP, DEFAULT_K, FIRST_BATCH, MIN_STOP, Evaluation, Settings, \
    advice, lead_in_se, schedule

WHY_CAP = 4000         # the --why explanation's rollouts: the analysis's own, at most this many

__all__ = ["Live", "lead_in_se", "schedule", "warm_up", "DEFAULT_CAP", "DEFAULT_K", "MIN_STOP", "WARM_POSITION"]


class Live(Evaluation):
    """One live analysis of ``pos`` (``analyse``'s options: policies, seed, horizon); :meth:`step` runs the
    next batch and returns its update (a dict for the page), None once stopped or cancelled."""

    def __init__(self, pos: Position, policies=(evaluator.BASE,), seed: int = 0, horizon: str = evaluator.HORIZON,
                 k: float = DEFAULT_K, cap: int = DEFAULT_CAP, threads: int | None = None,
                 first: int = FIRST_BATCH):
        super().__init__(pos, Settings(policies=tuple(policies), horizon=horizon, stop="lead", k=k, cap=cap,
                                       seed=seed), threads, first)
        self.explain = True       # tell the --why text once stopped (the server's request may turn it off)
        self._cancel = threading.Event()
        self._advice = None

    # the settings the page reads, as the evaluation holds them
    policies = property(lambda self: list(self.settings.policies))
    seed = property(lambda self: self.settings.seed)
    horizon = property(lambda self: self.settings.horizon)
    k = property(lambda self: self.settings.k)
    cap = property(lambda self: self.settings.cap)

    # ------------------------------------------------------------ control
    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def done(self) -> bool:
        return bool(self.stopped) or self.cancelled

    # ------------------------------------------------------------ work
    def step(self) -> dict | None:
        """Run one batch (unless stopped or cancelled) and return the update."""
        if self.cancelled or super().step() is None:
            return None
        return self.update(lead_in_se(self.result))

    def update(self, lead: float) -> dict:
        """The page's view of the latest summary: every option's row, the leader, the lead, the state, and the
        card's answer here."""
        r = self.result
        keep = ("key", "option", "rank", "best", "mean", "ci95", "diff", "diff_ci95", "diff_on", "margin",
                "points", "n", "finishes", "same_as_best")
        rows = [{k: row.get(k) for k in keep} for row in sorted(r["options"], key=lambda x: x["rank"])]
        best = next(row for row in rows if row["best"])
        said = advice(self.pos, r)
        return finite({"n": self.n, "batch": self.batches, "options": rows, "best": r["best"],
                       "best_label": best["option"], "runner_up": r.get("runner_up"),
                       "lead": r.get("lead"), "lead_ci95": r.get("lead_ci95"), "lead_se": lead,
                       "separated": r.get("separated"), "k": self.k, "cap": self.cap, "stopped": self.stopped,
                       "horizon": self.horizon, "criterion": r["criterion"], "unit": r["unit"],
                       "metric": r["metric"], "points_metric": r["points_metric"], "seed": self.seed,
                       "policies": self.policies, "seconds": time.perf_counter() - self.started,
                       "card": said.get("card")})

    def why(self) -> dict | None:
        """``analyse --why``'s explanation of the leader against the runner-up, on the analysis's first
        rollouts (at most :data:`WHY_CAP`): its text lines, and the rollouts it used."""
        from gnoming_sim.cli.why_text import render_text, tell_samples
        from gnoming_sim.search.why import explain

        r = self.result
        if r is None or not r.get("runner_up") or self.cancelled:
            return None
        n = min(self.n, WHY_CAP)
        why = tell_samples(explain(self.pos, [r["best"], r["runner_up"]], self.policies, seed=self.seed,
                                   rollouts=n, horizon=self.horizon, threads=self.threads), self.pos)
        return {"rollouts": n, "text": "\n".join(render_text(why)).strip("\n")}


# a small position the server analyses once as it starts, so the kernels are loaded (or compiled) before
# the page asks: the first update of the user's position then comes after its own rollouts alone
WARM_POSITION = {"players": 2, "me": 0, "layouts": [["5", "?", "?", "?", "3", "?", "?", "?", "?"],
                                                     ["7", "?", "?", "?", "8", "?", "?", "?", "?"]],
                 "piles": [["4"], ["6"]], "decision": {"kind": "draw"}}


def warm_up(policies, rules, deck, threads: int | None = None, asked: threading.Event | None = None) -> None:
    """Load every kernel the 0-ply first look, a live analysis and its explanation run, on
    :data:`WARM_POSITION`; the explanation's kernels are left for later once ``asked`` is set (a user's
    analysis is waiting)."""
    from gnoming_sim.cli.board.inputs import draw_pile_for, position_of
    from gnoming_sim.search.evaluator import zero_ply

    data = {**WARM_POSITION, "draw_pile": draw_pile_for(WARM_POSITION, deck)}
    pos = position_of(data, rules, deck, "warm-up position")
    zero_ply(pos, determinizations=16, policies=policies, threads=threads)   # the page's first request
    live = Live(pos, policies, 0, evaluator.HORIZON, DEFAULT_K, 40, threads, first=20)
    while live.step() is not None:
        pass
    if asked is None or not asked.is_set():
        live.why()
