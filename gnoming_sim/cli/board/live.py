"""A live analysis: one position's rollouts in growing batches, summarized after each by ``analyse``'s
own estimator, until the leader is separated or a cap is reached.

Oracle and criterion are the oracle's (:mod:`gnoming_sim.search.oracle`: ``net`` at every seat, ranked by the
chance of winning the game, unless the page asks for another horizon), run by ``analyse``'s pieces:
:func:`gnoming_sim.search.analyse.setup`, :func:`~gnoming_sim.search.analyse.run_rollouts` and
:func:`~gnoming_sim.search.analyse.summarize`.
Rollout i depends on (seed, i) alone, so the batches 0..99, 100..299, ... joined are the rollouts of one
``analyse --rollouts N`` call, and the summary after N rollouts is ``analyse``'s table for
``--rollouts N --second-policy none`` to the last digit (tests/board/test_api.py checks it).

Stopping.  After each batch, the leader's lead over the runner-up is measured in standard errors of their
paired difference (the difference's 95% half-width / 1.96, as ``analyse`` gives it); the analysis stops
once that lead reaches ``k`` (GNU Backgammon's "stop when the best is k joint standard errors ahead"), or
at ``cap`` rollouts, or at once when no option differs from the best in any rollout.  The stop is never
taken before :data:`MIN_STOP` rollouts.  The lead is looked at after every batch, so with k = 1.96 a
leader that is not truly ahead would be called separated more often than 5% of the time: the default k
is 3.  ``separated`` in each update is ``analyse``'s own verdict (the 95% interval of the lead above 0).

Cancelling.  The work runs batch by batch; :meth:`Live.cancel` (a dropped connection, a new position, the
page's Stop) is looked at before each batch, so no batch starts after it.
"""
from __future__ import annotations

import math
import threading
import time

from gnoming_sim.game.position import Position
from gnoming_sim.cli.group import finite
from gnoming_sim.search import oracle
from gnoming_sim.stats import Z95

FIRST_BATCH = 100      # the first update comes after this many rollouts per option (well under a second)
MAX_BATCH = 1000       # later batches double up to this size
MIN_STOP = 200         # no stop before this many rollouts: a 100-rollout standard error is itself noisy
DEFAULT_K = 3.0
DEFAULT_CAP = 20_000
WHY_CAP = 4000         # the --why explanation's rollouts: the analysis's own, at most this many


def schedule(cap: int, first: int = FIRST_BATCH, most: int = MAX_BATCH) -> list[int]:
    """The batch sizes: ``first``, then doubling up to ``most``, summing to ``cap``."""
    sizes, done, size = [], 0, first
    while done < cap:
        step = min(size, cap - done)
        sizes.append(step)
        done += step
        size = min(2 * size, most)
    return sizes


class Live:
    """One live analysis of ``pos`` (``analyse``'s options: policies, seed, horizon); :meth:`step` runs the
    next batch and returns its update (a dict for the page), None once stopped or cancelled."""

    def __init__(self, pos: Position, policies=(oracle.BASE,), seed: int = 0, horizon: str = oracle.HORIZON,
                 k: float = DEFAULT_K, cap: int = DEFAULT_CAP, threads: int | None = None,
                 first: int = FIRST_BATCH):
        from gnoming_sim.search.analyse import setup

        self.pos, self.policies, self.seed, self.horizon = pos, list(policies), seed, horizon
        self.k, self.cap, self.threads = k, cap, threads
        self.setup = setup(pos, self.policies)
        self.sizes = schedule(cap, first)
        self.out = self.cov = None
        self.n = 0
        self.batches = 0          # batches run (the tests count them after a cancel)
        self.result = None        # the latest summary (analyse's dict)
        self.stopped = ""         # why it stopped: separated, cap, no rival; "" while running
        self.explain = True       # tell the --why text once stopped (the server's request may turn it off)
        self._cancel = threading.Event()
        self.started = time.perf_counter()

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
        import numpy as np

        from gnoming_sim.search.analyse import run_rollouts, summarize

        if self.done or self.batches >= len(self.sizes):
            return None
        size = self.sizes[self.batches]
        out, cov = run_rollouts(self.setup, size, self.seed, self.n, self.horizon, threads=self.threads)
        self.batches += 1
        self.out = out if self.out is None else np.concatenate([self.out, out])
        self.cov = cov if self.cov is None else np.concatenate([self.cov, cov])
        self.n += size
        self.result = summarize(self.out, self.cov, self.setup, self.pos, self.horizon)
        lead = lead_in_se(self.result)
        if "margin" not in self.result:
            self.stopped = "no rival"
        elif self.n >= MIN_STOP and lead >= self.k:
            self.stopped = "separated"
        elif self.n >= self.cap:
            self.stopped = "cap"
        return self.update(lead)

    def update(self, lead: float) -> dict:
        """The page's view of the latest summary: every option's row, the leader, the lead, the state."""
        r = self.result
        keep = ("key", "option", "rank", "best", "mean", "ci95", "diff", "diff_ci95", "diff_on", "margin",
                "points", "n", "finishes", "same_as_best")
        rows = [{k: row.get(k) for k in keep} for row in sorted(r["options"], key=lambda x: x["rank"])]
        best = next(row for row in rows if row["best"])
        return finite({"n": self.n, "batch": self.batches, "options": rows, "best": r["best"],
                       "best_label": best["option"], "runner_up": r.get("runner_up"),
                       "lead": r.get("margin"), "lead_ci95": r.get("margin_ci95"), "lead_se": lead,
                       "separated": r.get("separated"), "k": self.k, "cap": self.cap, "stopped": self.stopped,
                       "horizon": self.horizon, "criterion": r["criterion"], "unit": r["unit"],
                       "metric": r["metric"], "points_metric": r["points_metric"], "seed": self.seed,
                       "policies": self.policies, "seconds": time.perf_counter() - self.started})

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


def lead_in_se(result: dict) -> float:
    """The leader's lead over the runner-up in standard errors of their paired difference (0: none yet;
    inf: a lead with no spread at all)."""
    if "margin" not in result:
        return math.inf
    se = result["half_width"] / Z95
    if not se > 0:
        return math.inf if result["margin"] > 0 else 0.0
    return result["margin"] / se


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
    live = Live(pos, policies, 0, oracle.HORIZON, DEFAULT_K, 40, threads, first=20)
    while live.step() is not None:
        pass
    if asked is None or not asked.is_set():
        live.why()
