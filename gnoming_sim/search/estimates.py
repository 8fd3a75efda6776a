"""The rollout estimates of a decision: run the jitted rollouts of a position and turn them into
estimates with paired 95% intervals.

Estimator.  Rollout i is one independent unit: one determinization of the unseen cards and
one play stream, shared by every option (common random numbers, CRN).  Each option's mean
and each difference to the best option is a *regression estimator* over the rollouts with
two covariates whose means are known exactly from the unseen multiset (so they cancel luck,
as GNU Backgammon's variance reduction does):

* the first unseen card of the draw pile, as one indicator per card code (post-stratification
  on the card the next blind draw gets);
* the cards dealt to the player's own face-down slots (a control variate, mean known from the
  unseen multiset);
* per option, the luck of the rollout's blind draws (:func:`gnoming_sim.search.rollout.roll_on`: card cost minus the mean
  unseen cost at the draw, mean 0), the player's and the others'.

The estimate is the intercept of an OLS fit of the outcome on the centred covariates, and its
standard error the fit's (residual variance / (n - p - 1)) x (X'X)^-1[0, 0]: an ordinary
interval over independent rollouts.  The variance ratio of each step (independent rollouts ->
CRN -> + strata -> + control) is reported beside the estimates.

Adaptive budget (``half_width``): a pilot batch sizes one confirmatory batch from fresh
rollout indices; only the confirmatory batch enters the printed estimates, so its intervals
are fixed-sample intervals (the sample size depends on the pilot alone).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gnoming_sim.stats import DIFFERS, Z95, equivalence_word, mean_ci, wilson
from gnoming_sim.game.cards import HIDDEN, N_SLOTS, SLOT_OFFSET, card_cost
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.position import Position
from gnoming_sim.search import criterion as _criterion

HORIZONS = ("round", "game")
# the base policy of the rollouts and the criterion are the oracle's (gnoming_sim.search.evaluator: the strongest
# fast player at every seat, ranked by the chance of winning the game); DEFAULT_POLICY names that base player
# for the modules that import it from here
DEFAULT_POLICY = _criterion.BASE            # = evaluator.BASE (search/evaluator.py imports this module)
DEFAULT_HORIZON = _criterion.ORACLE_HORIZON  # = evaluator.HORIZON
# a sensitivity check, not advice: the player a verdict can be re-run under when asked (analyse
# --second-policy expert): the strongest heuristic, another kind of player, ten times cheaper
SECOND_POLICY = "expert"
MAX_ROLLOUTS = 400_000
BLOCK = 16   # rollouts a thread takes at a time (at most)
FULL = np.zeros(0)   # Roll.value_w of full rollouts (no value network)


# ------------------------------------------------------------------ running
@dataclass
class Setup:
    """The rollout kernel's inputs for one position (:func:`gnoming_sim.search.rollout.rollout_batch`):
    its start (:class:`gnoming_sim.search.start.Start`), how the rollouts play
    (:class:`gnoming_sim.search.rollout.Roll`) and the options rolled out."""

    start: object
    roll: object
    options: list

    @property
    def unseen(self) -> np.ndarray:
        return self.start.unseen

    @property
    def slots(self) -> np.ndarray:
        return self.start.slots

    def only(self, keep) -> "Setup":
        """The same position with options ``keep`` (indices, in that order) alone: with common random
        numbers rollout i of each kept option is the one the whole setup plays."""
        return Setup(self.start, self.roll._replace(options=np.ascontiguousarray(self.roll.options[list(keep)])),
                     [self.options[k] for k in keep])


def refuse_mc(policies, option: str = "") -> None:
    """GnomingError for a Monte Carlo strategy among ``policies`` (names or strategies): the base decision
    function would play it as its base heuristic, silently.  ``option``: the option that named them."""
    from gnoming_sim.kernel.policy import registry
    from gnoming_sim.kernel.policy.dispatch import KIND_MC

    for p in [policies] if isinstance(policies, str) else policies:
        st = registry.get(p)
        if st.kind == KIND_MC:
            raise GnomingError(f"{option + ': ' if option else ''}'{st.name}' plays by rollouts itself and cannot "
                               f"be a rollout policy; use a heuristic or a one-ply evaluator, such as "
                               f"{DEFAULT_POLICY} or {SECOND_POLICY}")


def setup(pos: Position, policies, peek: bool = False) -> Setup:
    """Validate the policies and build the rollout kernel's inputs for ``pos``."""
    from gnoming_sim.kernel.engine import deck_counts, seat_table, strategy_arrays
    from gnoming_sim.search.options import legal_options
    from gnoming_sim.search.rollout import Roll
    from gnoming_sim.search.start import start_of_position, start_truth

    P = pos.players
    deck_arr = pos.deck.to_array()
    strats, seat_strategy = seat_table(P, policies, 1, 0, False)
    refuse_mc(strats)
    kinds, params = strategy_arrays(strats)
    start = start_of_position(pos)
    unseen = start.unseen
    truth = unseen.copy()
    if peek:
        if pos.truth is None:
            raise GnomingError("--peek needs the true hidden cards: analyse a simulated game (--game/--turn)")
        lay_true, draw_true = pos.truth
        truth = start_truth(start, np.ascontiguousarray(lay_true, dtype=np.int8),
                            np.ascontiguousarray(draw_true, dtype=np.int8), 0)
        if sorted(truth.tolist()) != sorted(unseen.tolist()):
            raise GnomingError("--peek: the true hidden cards do not match the position's unseen cards")
    options = legal_options(pos)
    opt_arr = np.array([(o.src, o.pos, o.flip) for o in options], dtype=np.int64).reshape(-1, 3)
    roll = Roll(truth, opt_arr, kinds, params, seat_strategy[0].copy(), pos.rules.to_array(), deck_arr,
                deck_counts(deck_arr), False, True, True, peek, FULL)
    return Setup(start, roll, options)


def run_rollouts(s: Setup, n: int, seed: int, first: int = 0, horizon: str = DEFAULT_HORIZON, crn: bool = True,
                 peek: bool = False, threads: int | None = None, align: bool = True, truncated: bool = False):
    """(out float64[n, K, N_X], cov float64[n, N_C]) of rollouts ``first .. first + n - 1``; ``truncated`` (the game
    horizon): the later rounds valued by the value network instead of played (:class:`gnoming_sim.search.rollout.Roll`,
    ``value_w``)."""
    import numba

    from gnoming_sim.kernel.engine import numba_threads
    from gnoming_sim.kernel.game_loop import run_blocks
    from gnoming_sim.search.rollout import N_C, N_X, rollout_batch

    K = len(s.options)
    if truncated:
        from gnoming_sim.kernel.value_weights import weights

        if horizon != "game":
            raise GnomingError("truncated rollouts end in the value network's chance of winning the game: "
                               "they go with the game horizon")
    roll = s.roll._replace(horizon_game=horizon == "game", crn=crn, align=align and crn and not peek, peek=peek,
                           value_w=weights() if truncated else FULL)   # a writable copy: one compiled type
    out = np.empty((n, K, N_X), dtype=np.float64)
    cov = np.empty((n, N_C), dtype=np.float64)
    seed = np.uint64(seed)
    with numba_threads(threads):
        block = max(1, min(BLOCK, -(-n // (4 * numba.get_num_threads()))))   # a few rollouts still use every thread
        run_blocks(lambda lo, hi: rollout_batch(first + lo, seed, s.start, roll, out[lo:hi], cov[lo:hi]), n, block)
    return out, cov


# ------------------------------------------------------------------ statistics
CODES_MAX_N = 50_000   # per-code indicators of the own slots only up to this many rollouts (fit cost)


def design(cov: np.ndarray, s: Setup, pos: Position, steps=("strata", "control")) -> np.ndarray:
    """Centred covariates (n x p), each with known mean zero under a uniform determinization.

    ``strata``: one indicator per card code of the first unseen draw-pile card (post-stratification
    on the card the next blind draw gets).  ``control``: the card dealt to each of the player's own
    face-down slots, as one indicator per card code where the batch has at least 10 rollouts per
    covariate (and at most ``CODES_MAX_N``), else as its cost (one column per slot).
    """
    from gnoming_sim.search.rollout import C_OWN, C_TOP

    n = cov.shape[0]
    u = s.unseen.astype(np.int64)
    n_u = u.size
    m = s.slots.shape[0]
    codes, counts = np.unique(u, return_counts=True)
    share = counts / max(n_u, 1)
    cols = []
    if "strata" in steps and n_u > m:
        top = cov[:, C_TOP].astype(np.int64)
        cols += [(top == c) - w for c, w in zip(codes[1:], share[1:])]   # one stratum is the intercept's
    fd_me = int((pos.layouts[pos.me] == HIDDEN).sum())
    if "control" in steps and n_u > 0 and fd_me > 0:
        own = cov[:, C_OWN:C_OWN + fd_me].astype(np.int64)
        p_codes = len(cols) + fd_me * (len(codes) - 1)
        if 10 * (p_codes + 1) <= n <= CODES_MAX_N:
            for j in range(fd_me):
                cols += [(own[:, j] == c) - w for c, w in zip(codes[1:], share[1:])]
        else:
            cost = np.zeros(N_SLOTS)
            cost[codes + SLOT_OFFSET] = [card_cost(int(c), pos.rules) for c in codes]
            mean_cost = float(cost[codes + SLOT_OFFSET] @ share)
            cols += [cost[own[:, j] + SLOT_OFFSET] - mean_cost for j in range(fd_me)]
    Z = np.column_stack(cols).astype(np.float64) if cols else np.zeros((n, 0))
    return Z[:, np.ptp(Z, axis=0) > 0] if Z.shape[1] else Z   # a constant column (--peek) says nothing


def adjusted_means(Y: np.ndarray, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(estimates, standard errors) of E[Y[:, j]] for every column j, by OLS on the centred
    covariates ``Z`` (known mean 0): the intercept, with its usual standard error.  Falls back to
    the plain mean when there are fewer than 10 rollouts per covariate."""
    n, p = Z.shape
    if p == 0 or n < 10 * (p + 1):
        sd = Y.std(axis=0, ddof=1) if n > 1 else np.full(Y.shape[1], np.nan)
        return Y.mean(axis=0), sd / math.sqrt(n)
    X = np.column_stack([np.ones(n), Z])
    inv = np.linalg.pinv(X.T @ X)
    beta = inv @ (X.T @ Y)
    resid = Y - X @ beta
    s2 = (resid * resid).sum(axis=0) / (n - p - 1)
    return beta[0], np.sqrt(np.maximum(s2 * inv[0, 0], 0.0))


def adjusted_each(Y: np.ndarray, Z: np.ndarray, extra: list) -> tuple[np.ndarray, np.ndarray]:
    """:func:`adjusted_means` of each column j of ``Y`` with its own covariates ``extra[j]`` (n x e,
    known mean 0) beside the shared ``Z``."""
    est, se = np.empty(Y.shape[1]), np.empty(Y.shape[1])
    for j in range(Y.shape[1]):
        X = np.column_stack([Z, extra[j]]) if extra[j] is not None else Z
        X = X[:, np.ptp(X, axis=0) > 0] if X.shape[1] else X
        e, s = adjusted_means(Y[:, j:j + 1], X)
        est[j], se[j] = e[0], s[0]
    return est, se


def luck(out: np.ndarray, k: int) -> np.ndarray:
    """The luck covariates of option k (n x 2): the player's and the others' blind-draw luck."""
    from gnoming_sim.search.rollout import X_LUCK, X_LUCK_OTHERS

    return out[:, k, [X_LUCK, X_LUCK_OTHERS]]


def adjusted_mean(y: np.ndarray, Z: np.ndarray) -> tuple[float, float]:
    est, se = adjusted_means(y[:, None], Z)
    return float(est[0]), float(se[0])


def proportion(x: np.ndarray) -> dict:
    """Share of true values of the bool array ``x`` with its Wilson 95% interval (gnoming_sim.stats.wilson)."""
    p, lo, hi = wilson(int(np.count_nonzero(x)), int(x.size))
    return {"p": p, "ci95": [lo, hi], "n": int(x.size)}


def criterion_outcomes(out: np.ndarray, horizon: str) -> tuple[np.ndarray, np.ndarray]:
    """(win chance in percent or None, margin over the rivals in points), rollout by option (n x K)."""
    from gnoming_sim.search.rollout import X_RIVALS, X_SCORE, X_WIN

    margin = out[:, :, X_SCORE] - out[:, :, X_RIVALS]
    return (100.0 * out[:, :, X_WIN] if horizon == "game" else None), margin


def summarize(out: np.ndarray, cov: np.ndarray, s: Setup, pos: Position, horizon: str = DEFAULT_HORIZON) -> dict:
    """Per option: the criterion (:mod:`gnoming_sim.search.criterion`: win chance with the game horizon,
    the margin over the rivals with the round's), adjusted, with how far it is behind the best (positive:
    worse) and a paired 95% interval; the margin and own points beside it; shares; the verdict's facts and
    the variance ratio of each variance-reduction step."""
    from gnoming_sim.search import criterion
    from gnoming_sim.search.rollout import X_BONUS, X_FINISHED, X_GAME, X_LOWEST, X_SCORE, X_WIN

    points_field = X_GAME if horizon == "game" else X_SCORE
    n, K = out.shape[0], out.shape[1]
    Z = design(cov, s, pos)
    lucks = [luck(out, k) for k in range(K)]
    win, margin = criterion_outcomes(out, horizon)
    m_est, m_se = adjusted_each(margin, Z, lucks)
    w_est, w_se = adjusted_each(win, Z, lucks) if win is not None else (None, None)
    p_est, p_se = adjusted_each(out[:, :, points_field], Z, lucks)
    facts = [{"margin": float(m_est[k]), "win": None if w_est is None else float(w_est[k])} for k in range(K)]
    ranked = criterion.order(facts, horizon)
    best = ranked[0]
    # the criterion as a loss (lower is better), rollout by rollout: the verdict's paired differences
    loss = -win if win is not None else margin
    ties = [k for k in range(K) if win is not None and k != best
            and criterion.sort_key(w_est[k], 0, horizon)[0] == criterion.sort_key(w_est[best], 0, horizon)[0]]
    dest, dse = adjusted_each(loss - loss[:, [best]], Z,
                              [np.column_stack([lucks[k], lucks[best]]) for k in range(K)])
    mdest, mdse = adjusted_each(margin - margin[:, [best]], Z,
                                [np.column_stack([lucks[k], lucks[best]]) for k in range(K)])
    c_est, c_se = (w_est, w_se) if win is not None else (m_est, m_se)
    rows = []
    for k, opt in enumerate(s.options):
        on_margin = k in ties   # equal win chance: the margin decides, so it is the difference shown
        dm, de = ((float(mdest[k]), float(mdse[k])) if on_margin else (float(dest[k]), float(dse[k]))) \
            if k != best else (0.0, 0.0)
        c, e = float(c_est[k]), float(c_se[k])
        row = {"key": opt.key, "option": opt.label, "finishes": opt.finishes, "n": n, "rank": ranked.index(k) + 1,
               "mean": c, "ci95": [c - Z95 * e, c + Z95 * e],
               "diff": dm, "diff_ci95": [dm - Z95 * de, dm + Z95 * de], "diff_on": "margin" if on_margin else
               ("win" if win is not None else "margin"), "best": k == best,
               "margin": _est(m_est[k], m_se[k]), "points": _est(p_est[k], p_se[k]),
               "round_score": float(out[:, k, X_SCORE].mean()),
               "p_finish": proportion(out[:, k, X_FINISHED] > 0),
               "p_bonus": proportion(out[:, k, X_BONUS] < 0),
               "p_lowest": proportion(out[:, k, X_LOWEST] > 0)}
        if horizon == "game":
            row["p_win"] = {"p": float(out[:, k, X_WIN].mean()), "n": n,
                            "ci95": _mean_ci(out[:, k, X_WIN])}
        rows.append(row)
    result = {"n": n, "horizon": horizon, "criterion": criterion.CRITERION[horizon], "unit": criterion.UNIT[horizon],
              "metric": "win chance (%)" if horizon == "game" else "margin over the rivals",
              "points_metric": "game score" if horizon == "game" else "round score",
              "options": rows, "best": s.options[best].key}
    for k, row in enumerate(rows):   # an option equal to the best in every rollout is not a rival
        row["same_as_best"] = bool(k != best and np.all(loss[:, k] == loss[:, best])
                                   and np.all(margin[:, k] == margin[:, best]))
    others = [r for r in rows if not r["best"] and not r["same_as_best"]]
    result["equivalent"] = [r["key"] for r in rows if r["same_as_best"]]
    if others:
        second = min(others, key=lambda r: r["rank"])
        lo, hi = second["diff_ci95"]
        word = equivalence_word(second["diff"], lo, hi)   # no target here: "differs" or "not shown to differ"
        result.update(runner_up=second["key"], lead=second["diff"], lead_ci95=[lo, hi],
                      lead_on=second["diff_on"], separated=bool(word == DIFFERS and lo > 0), lead_word=word,
                      half_width=(hi - lo) / 2)
        k2 = rows.index(second)
        y = margin if second["diff_on"] == "margin" else loss
        result["variance"] = variance_steps(y[:, best], y[:, k2], cov, s, pos,
                                            np.column_stack([lucks[best], lucks[k2]]), Z)
    return result


def _est(est: float, se: float) -> dict:
    e, s = float(est), float(se)
    return {"mean": e, "ci95": [e - Z95 * s, e + Z95 * s]}


def _mean_ci(x):
    _, lo, hi, _ = mean_ci(x) if x.size > 1 else (0, math.nan, math.nan, 0)
    return [lo, hi]


def variance_steps(a: np.ndarray, b: np.ndarray, cov: np.ndarray, s: Setup, pos: Position,
                   lucks: np.ndarray | None = None, full: np.ndarray | None = None) -> dict:
    """Variance of the estimated difference b - a at each step, as a ratio to independent rollouts.

    Independent rollouts would have Var(a) + Var(b) per rollout pair (the marginal variances are
    the same under CRN); CRN has Var(b - a); the later steps are the regression estimator's.
    ``full``: ``design(cov, s, pos)`` when the caller has it already (building it is most of the cost)."""
    if full is None:
        full = design(cov, s, pos)
    n = a.size
    d = b - a
    indep = (np.var(a, ddof=1) + np.var(b, ddof=1)) / n
    crn = np.var(d, ddof=1) / n
    steps = {"independent": 1.0, "crn": float(crn / indep) if indep > 0 else float("nan")}
    for name, use in (("crn+strata", ("strata",)), ("crn+strata+control", ("strata", "control"))):
        _, se = adjusted_mean(d, full if use == ("strata", "control") else design(cov, s, pos, use))
        steps[name] = float(se ** 2 / indep) if indep > 0 else float("nan")
    if lucks is not None:
        _, se = adjusted_each(d[:, None], full, [lucks])
        steps["crn+strata+control+luck"] = float(se[0] ** 2 / indep) if indep > 0 else float("nan")
    return steps


# ------------------------------------------------------------------ the estimate
def estimate(pos: Position, policies=DEFAULT_POLICY, seed: int = 0, rollouts: int = 2000,
             half_width: float | None = None, max_rollouts: int = MAX_ROLLOUTS, horizon: str = DEFAULT_HORIZON,
             peek: bool = False, threads: int | None = None, second_policies=None, progress=None,
             truncated: bool = False) -> dict:
    """Roll every legal option of ``pos`` out; see :func:`summarize` for the result's fields.  ``truncated``
    (the game horizon): each rollout plays this round out and ends in the value network at the next round's
    first decision (:func:`run_rollouts`).

    ``policies``: the base policy, one strategy for every seat or one per seat (default the oracle's,
    :data:`gnoming_sim.search.evaluator.BASE`); ``horizon``: the oracle's criterion, the chance of winning the
    game (``"game"``, :data:`gnoming_sim.search.evaluator.HORIZON`), or ``"round"``, the margin over the
    rivals at the end of the round.  With ``half_width``,
    ``rollouts`` is the pilot: it sizes one confirmatory batch (fresh rollouts, at most
    ``max_rollouts``) whose estimates alone are reported.

    ``second_policies`` (None, the default: no check): a sensitivity check, not advice: the same estimate
    again under this base policy (such as :data:`SECOND_POLICY`), on the same rollout seeds;
    ``result["robustness"]`` is then :func:`gnoming_sim.search.robust.compare` of the two (None when turned
    off; ``{"checked": False, ...}`` when it is the base policy itself).  The advice is the oracle's alone.

    ``progress`` (None: none): called as ``progress(done, leader, planned)`` as the rollouts go, with the
    rollouts done so far (every batch and base policy together), the running leader in words and the
    rollouts planned so far (it grows when a pilot sizes its confirmatory batch); the rollouts then run
    in chunks, the same rollouts, so the same numbers (:func:`run_reported`).
    """
    from gnoming_sim.search import robust

    if second_policies is not None:   # refused before the first estimate is run, not after it
        refuse_mc(second_policies, "second policy")
    P = pos.players
    two = second_policies is not None and robust.seat_policies(second_policies, P) != robust.seat_policies(policies, P)
    tally = _Tally(progress, rollouts * (2 if two else 1))
    if two:   # the leader is told under each base policy's name
        tally.label = robust.label(robust.seat_policies(policies, P))
    res = _estimate_one(pos, policies, seed, rollouts, half_width, max_rollouts, horizon, peek, threads, tally,
                        truncated)
    res["robustness"] = None
    if second_policies is not None:
        if not two:
            res["robustness"] = {"checked": False, "policies": [robust.label(res["policies"])] * 2,
                                 "reason": "the second base policy is the base policy itself"}
        else:
            tally.label = robust.label(robust.seat_policies(second_policies, P))
            second = _estimate_one(pos, second_policies, seed, rollouts, half_width, max_rollouts, horizon, peek,
                                   threads, tally, truncated)
            res["robustness"] = {"checked": True, **robust.compare(res, second)}
    return res


def _estimate_one(pos: Position, policies, seed: int, rollouts: int, half_width: float | None, max_rollouts: int,
                  horizon: str, peek: bool, threads: int | None, tally=None, truncated: bool = False) -> dict:
    """One estimate of ``pos`` under one base policy (:func:`estimate` without the robustness check)."""
    policies = [policies] if isinstance(policies, str) else list(policies)
    if horizon not in HORIZONS:
        raise GnomingError(f"--horizon must be one of {', '.join(HORIZONS)}, got {horizon!r}")
    if rollouts < 2:
        raise GnomingError(f"--rollouts must be >= 2, got {rollouts}")
    if half_width is not None and not (half_width > 0 and math.isfinite(half_width)):
        raise GnomingError(f"--half-width must be a positive number, got {half_width}")
    s = setup(pos, policies, peek)
    tally = tally or _Tally(None, 0)
    out, cov = run_reported(s, rollouts, seed, 0, horizon, peek, threads, tally, truncated)
    res = summarize(out, cov, s, pos, horizon)
    adaptive = None
    if half_width is not None and "half_width" in res:   # else no option differs from the best at all
        pilot_hw = res["half_width"]
        need = rollouts if not pilot_hw > 0 else math.ceil(1.1 * rollouts * (pilot_hw / half_width) ** 2)
        need = max(2 * len(s.options) * 10, min(need, max_rollouts))
        tally.plan(need)
        out, cov = run_reported(s, need, seed, rollouts, horizon, peek, threads, tally, truncated)
        res = summarize(out, cov, s, pos, horizon)
        adaptive = {"pilot": rollouts, "pilot_half_width": pilot_hw, "confirmatory": need,
                    "target_half_width": half_width, "reached": bool(res["half_width"] <= half_width),
                    "capped": bool(need >= max_rollouts)}
    if truncated:
        res["level"] = ("truncated rollouts: this round played out, then the value network (full in the last round); "
                        "the mean game score is the score after this round")
    res.update(seed=seed, peek=peek, adaptive=adaptive, policies=[getattr(p, "name", p) for p in policies],
               position=pos.describe(), value="perfect-information value (--peek: true hidden cards)"
               if peek else "imperfect-information value (hidden cards dealt from the unseen cards)")
    return res


class _Tally:
    """The progress of one estimate over its batches and base policies: ``progress(done, leader, planned)``."""

    def __init__(self, progress, planned: int):
        self.progress, self.planned, self.done, self.label = progress, planned, 0, ""

    def plan(self, more: int) -> None:
        """A confirmatory batch sized: ``more`` rollouts per base policy still to come."""
        self.planned += more

    def tell(self, k: int, leader: str) -> None:
        self.done += k
        if self.progress is not None:
            self.progress(self.done, f"{self.label + ': ' if self.label else ''}{leader}", self.planned)


PROGRESS_FIRST = 32       # rollouts of the first chunk of a run with progress ...
PROGRESS_SECONDS = 0.5    # ... then chunks of about this long


def run_reported(s: Setup, n: int, seed: int, first: int, horizon: str, peek: bool, threads: int | None,
                 tally: _Tally, truncated: bool = False):
    """:func:`run_rollouts` (common random numbers), in chunks of about :data:`PROGRESS_SECONDS` when
    ``tally`` has a progress callback, telling it the running leader after each (raw means; the printed
    estimates are the adjusted ones).  Rollout i depends on its index alone, so the chunks give the
    very arrays one call gives."""
    if tally.progress is None:
        return run_rollouts(s, n, seed, first, horizon, True, peek, threads, truncated=truncated)
    import time

    from gnoming_sim.search import criterion

    outs, covs, done, chunk = [], [], 0, min(n, PROGRESS_FIRST)
    total = None
    while done < n:
        k = min(chunk, n - done)
        began = time.perf_counter()
        o, c = run_rollouts(s, k, seed, first + done, horizon, True, peek, threads, truncated=truncated)
        took = time.perf_counter() - began
        outs.append(o)
        covs.append(c)
        done += k
        win, margin = criterion_outcomes(o, horizon)
        part = np.stack([margin.sum(axis=0), (win if win is not None else margin).sum(axis=0)])
        total = part if total is None else total + part
        facts = [{"margin": total[0, j] / done, "win": total[1, j] / done if win is not None else None}
                 for j in range(len(s.options))]
        lead = criterion.best(facts, horizon)
        value = (f"{facts[lead]['win']:.1f}% win" if win is not None else f"margin {facts[lead]['margin']:+.2f}")
        tally.tell(k, f"leader {s.options[lead].key} ({value})")
        chunk = max(PROGRESS_FIRST, int(k * PROGRESS_SECONDS / max(took, 1e-3)))
    return np.concatenate(outs), np.concatenate(covs)


def position_from_game(seed: int, game: int, turn: int, players: int, seats, rules=None, deck=None,
                       rotate: bool = False) -> Position:
    """The draw decision at the start of turn ``turn`` (from 0, over all rounds) of game ``game`` of
    ``seed``, played as ``simulate`` plays it; the true hidden cards ride along for ``--peek``."""
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.game.fields import F_SCORE
    from gnoming_sim.game.replay import from_trace
    from gnoming_sim.game.rules import RuleConfig
    from gnoming_sim.kernel.engine import simulate

    rules = rules or RuleConfig()
    deck = deck or PUBLISHED
    res = simulate(players=players, strategies=list(seats), games=1, seed=seed, rules=rules, deck=deck,
                   first_game=game, rotate=rotate, trace=True, threads=1)
    origin = f"seed {seed} game {game} turn {turn}"
    return from_trace(res.deals[0], res.traces[0], players, res.round_stats[0, :, :, F_SCORE], turn, rules,
                      deck, origin)
