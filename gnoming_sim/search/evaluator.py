"""The evaluator: the one answer to "how good is each option here" behind every piece of advice (``analyse``,
``review``, ``why``, the board, the drills' stored values, the studies, the card's derivation), at a level
chosen by one settings record (:class:`Settings`, GNU Backgammon's evaluation setup): ``0-ply`` (each option
valued by the value network after it, :func:`zero_ply`), ``truncated`` (rollouts that play the round out and
end in the value network) or ``rollouts`` (to the end of the game).  :func:`evaluate` answers a settings
record; :class:`Evaluation` adds rollouts batch by batch and stops by the shared stop rules
(:func:`stop_reason`); :func:`rollouts` gives the raw rollouts of some options, common random numbers across
them, for the estimators that pair or pool them; :func:`advice` adds what the printed card says.

The oracle: the **base player** is :data:`BASE` at every seat, the strongest fast player (``net`` beats
``learned``, the next on the ladder, at 2, 4 and 6 players on held-out deals: tuning/net/README.md); the
**criterion** is :data:`HORIZON`, the chance of winning the game, ties by the margin over the rivals
(:mod:`gnoming_sim.search.criterion`).  Another base player is a setting (``policies``, e.g. the card in the
seat to move: :func:`seats_with`), never another code path.  Rollout i is one unit (one deal of the unseen
cards and one play stream, common to every option), estimated by :func:`gnoming_sim.search.estimates.summarize`.
The value network's own answers: every seat's chance of winning (:func:`position_values`) and the 0-ply table.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.search import criterion
from gnoming_sim.stats import Z95

BASE = criterion.BASE                # the oracle's base player (every seat of the rollouts): net
HORIZON = criterion.ORACLE_HORIZON   # the criterion: the chance of winning the game
MAX_DETERMINIZATIONS = 100_000
LEVELS = ("rollouts", "truncated", "0-ply")
STOPS = ("fixed", "half-width", "lead")
FIRST_BATCH = 100      # the first batch of a batch-by-batch evaluation (well under a second)
MAX_BATCH = 1000       # later batches double up to this size
MIN_STOP = 200         # no stop on the lead before this many rollouts: a 100-rollout standard error is itself noisy
DEFAULT_K = 3.0        # the lead, in standard errors of the paired difference, that stops a batch-by-batch evaluation
DEFAULT_CAP = 20_000   # the most rollouts of a batch-by-batch evaluation


@dataclass(frozen=True)
class Settings:
    """One evaluation's setup.

    level       ``rollouts`` (to the end of the game), ``truncated`` (this round, then the value network) or
                ``0-ply`` (the value network after each option, no rollouts)
    policies    the base player: one strategy for every seat, or one per seat (the oracle's by default)
    horizon     the criterion: ``game`` (the chance of winning the game, the oracle's) or ``round``
    budget      rollouts (at 0-ply: deals of the unseen cards); with ``half-width``, the pilot
    stop        ``fixed`` (the budget), ``half-width`` (a pilot sizes one confirmatory batch to reach
                ``half_width``, at most ``cap``) or ``lead`` (batches until the leader is ``k`` standard
                errors of its paired difference ahead of the runner-up, or ``cap``)
    seed        rollout i depends on (seed, i) alone
    first       the index of the first rollout (at 0-ply: of the first deal)
    peek        (level rollouts; tests and teaching) deal the true hidden cards: a perfect-information value
    """
    level: str = "rollouts"
    policies: tuple = ()
    horizon: str = "game"
    budget: int = 2000
    stop: str = "fixed"
    half_width: float | None = None
    k: float = DEFAULT_K
    cap: int = DEFAULT_CAP
    seed: int = 0
    first: int = 0
    peek: bool = False

    def check(self) -> "Settings":
        """Itself, or a GnomingError in one sentence for a setting out of range."""
        if self.level not in LEVELS:
            raise GnomingError(f"level must be one of {', '.join(LEVELS)}, got {self.level!r}")
        if self.stop not in STOPS:
            raise GnomingError(f"stop must be one of {', '.join(STOPS)}, got {self.stop!r}")
        low, most = (1, MAX_DETERMINIZATIONS) if self.level == "0-ply" else (2, math.inf)
        for name, v in (("budget", self.budget), ("cap", self.cap)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not low <= v <= most:
                raise GnomingError(f"the {name} must be a whole number of at least {low}"
                                   f"{'' if most == math.inf else f' and at most {most:,}'}, got {v!r}")
        if isinstance(self.first, bool) or not isinstance(self.first, (int, np.integer)) or self.first < 0:
            raise GnomingError(f"the first rollout's index must be a whole number of at least 0, got {self.first!r}")
        if self.first and self.stop == "half-width":
            raise GnomingError("stop half-width runs its pilot from the first rollout, index 0")
        if self.level != "rollouts" and self.peek:
            raise GnomingError(f"level {self.level} reads the value network from what the player sees: no peek")
        if self.level != "rollouts" and self.horizon != "game":
            raise GnomingError(f"level {self.level} values the chance of winning the game: horizon game only")
        if self.level == "0-ply" and self.stop != "fixed":
            raise GnomingError("level 0-ply runs no rollouts: its stop is its budget of deals")
        if self.stop == "half-width" and not (self.half_width is not None and self.half_width > 0
                                              and math.isfinite(self.half_width)):
            raise GnomingError(f"stop half-width needs a positive half-width, got {self.half_width!r}")
        if self.stop == "lead" and not (self.k > 0 and math.isfinite(self.k)):
            raise GnomingError(f"stop lead needs a positive k, got {self.k!r}")
        return self

    @property
    def base(self) -> list:
        return list(self.policies) or [BASE]


def seats_with(pos, strategy, base=BASE) -> list:
    """One policy per seat of ``pos``: ``strategy`` (a name or a Strategy) in the seat to move, ``base``
    elsewhere: the rollouts in which the player to move goes on playing ``strategy``."""
    return [strategy if p == pos.me else base for p in range(pos.players)]


def setup(pos, options=None, policies=None, peek: bool = False):
    """The rollout inputs (:class:`gnoming_sim.search.estimates.Setup`) of ``pos``: every legal option, or
    those of ``options`` (option keys, such as ``"pos3"``/``"draw"``/``"discard"``, in that order)."""
    from gnoming_sim.search.estimates import setup as _setup

    s = _setup(pos, [BASE] if policies is None else policies, peek)
    if options is None:
        return s
    keys = [o.key for o in s.options]
    missing = [k for k in options if k not in keys]
    if missing:
        raise GnomingError(f"{', '.join(map(repr, missing))} is not a legal option here; the options are "
                           f"{', '.join(keys)}")
    return s.only([keys.index(k) for k in options])


def rollouts(pos, settings: "Settings", options=None, threads: int | None = None):
    """``(setup, out float64[budget, K, N_X], cov float64[budget, N_C])``: the raw rollouts ``first ..
    first + budget - 1`` of the options keyed in ``options`` (every legal one by default, in that order) at
    the settings' level (``rollouts`` or ``truncated``), common random numbers across the options (rollout i of
    every option shares its deal and play stream, whichever options are asked for), for the estimators that
    pair or pool them."""
    from gnoming_sim.search.estimates import run_rollouts

    st = settings.check()
    if st.level == "0-ply":
        raise GnomingError("level 0-ply runs no rollouts: call evaluate()")
    s = setup(pos, options, st.base, st.peek)
    out, cov = run_rollouts(s, st.budget, st.seed, st.first, st.horizon, True, st.peek, threads,
                            truncated=st.level == "truncated")
    return s, out, cov


def win_samples(pos, settings: "Settings", options=None, threads: int | None = None):
    """(keys, win float64[budget, K] in {0, shares, 1}): :func:`rollouts`' win credit of each rollout and option,
    for the estimators that pool decisions (the rules, the card's derivation, the agreement table)."""
    from gnoming_sim.search.rollout import X_WIN

    s, out, _ = rollouts(pos, settings, options, threads)
    return [o.key for o in s.options], out[:, :, X_WIN].copy()


def lead_in_se(result: dict) -> float:
    """The leader's lead over the runner-up in standard errors of their paired difference (the difference's
    95% half-width / 1.96, as the rollouts' summary gives it; inf: no rival, or a lead with no spread)."""
    if "lead" not in result:
        return math.inf
    se = result["half_width"] / Z95
    if not se > 0:
        return math.inf if result["lead"] > 0 else 0.0
    return result["lead"] / se


def stop_reason(result: dict, n: int, settings: Settings) -> str:
    """The shared stop rules after ``n`` rollouts summarized in ``result``: ``"no rival"`` (no option differs
    from the best in any rollout), ``"separated"`` (stop ``lead``: at least :data:`MIN_STOP` rollouts and the
    lead at least k standard errors; the lead is looked at after every batch, so k = 1.96 would call a leader
    that is not truly ahead separated more often than 5% of the time: the default k is 3), ``"reached"`` (stop
    ``half-width``: the lead's half-width at most the target), ``"cap"``, or ``""``: go on."""
    if "lead" not in result:
        return "no rival"
    if settings.stop == "lead" and n >= MIN_STOP and lead_in_se(result) >= settings.k:
        return "separated"
    if settings.stop == "half-width" and result["half_width"] <= settings.half_width:
        return "reached"
    if n >= (settings.cap if settings.stop != "fixed" else settings.budget):
        return "cap"
    return ""


def schedule(cap: int, first: int = FIRST_BATCH, most: int = MAX_BATCH) -> list[int]:
    """The batch sizes: ``first``, then doubling up to ``most``, summing to ``cap``."""
    sizes, done, size = [], 0, first
    while done < cap:
        step = min(size, cap - done)
        sizes.append(step)
        done += step
        size = min(2 * size, most)
    return sizes


class Evaluation:
    """The rollouts of ``pos`` under ``settings`` (level ``rollouts`` or ``truncated``) added batch by batch
    (:func:`schedule` up to the cap): :meth:`step` runs the next batch and summarizes all so far with the
    rollouts' own estimator (:func:`gnoming_sim.search.estimates.summarize`); :attr:`stopped` says why it
    stopped (:func:`stop_reason`).  Rollout i depends on (seed, i) alone, so the batches joined are the
    rollouts of one call of that size, and the summary after N rollouts is ``analyse --rollouts N``'s."""

    def __init__(self, pos, settings: Settings, threads: int | None = None, first: int = FIRST_BATCH, options=None):
        if settings.level == "0-ply" or settings.peek:
            raise GnomingError("a batch-by-batch evaluation runs rollouts of what the player sees: call evaluate()")
        self.pos, self.settings, self.threads = pos, settings.check(), threads
        self.setup = setup(pos, options, settings.base)
        self.sizes = schedule(settings.cap if settings.stop != "fixed" else settings.budget, first)
        self.out = self.cov = None
        self.n = 0
        self.batches = 0          # batches run
        self.result = None        # the latest summary
        self.stopped = ""         # why it stopped (stop_reason); "" while running
        self.started = time.perf_counter()

    def step(self) -> dict | None:
        """Run the next batch (unless stopped) and return the summary, None once stopped."""
        from gnoming_sim.search.estimates import run_rollouts, summarize

        if self.stopped or self.batches >= len(self.sizes):
            return None
        size = self.sizes[self.batches]
        st = self.settings
        out, cov = run_rollouts(self.setup, size, st.seed, st.first + self.n, st.horizon, threads=self.threads,
                                truncated=st.level == "truncated")
        self.batches += 1
        self.out = out if self.out is None else np.concatenate([self.out, out])
        self.cov = cov if self.cov is None else np.concatenate([self.cov, cov])
        self.n += size
        self.result = summarize(self.out, self.cov, self.setup, self.pos, st.horizon)
        self.stopped = stop_reason(self.result, self.n, st)
        return self.result

    def run(self) -> dict:
        """Batches until a stop rule says stop: the last summary, with ``stopped`` and ``rollouts``."""
        while self.step() is not None:
            pass
        return dict(self.result, stopped=self.stopped, rollouts=self.n)


def evaluate(pos, settings: Settings, threads: int | None = None, progress=None, second_policies=None,
             samples: bool = False) -> dict:
    """Every legal option of ``pos`` valued as ``settings`` say: at 0-ply :func:`zero_ply`'s table (with
    ``samples``, every deal's value too); with rollouts, stop ``lead`` batch by batch (:class:`Evaluation`),
    rollouts from another index than 0 on their fixed budget, else ``analyse``'s fixed budget or its pilot-sized
    confirmatory batch (:func:`gnoming_sim.search.estimates.estimate`, with its ``progress`` and its sensitivity
    check under ``second_policies``)."""
    from gnoming_sim.search.estimates import estimate, summarize

    st = settings.check()
    if st.level == "0-ply":
        return zero_ply(pos, determinizations=st.budget, seed=st.seed, first=st.first, policies=st.base,
                        threads=threads, samples=samples)
    if st.stop == "lead":
        return Evaluation(pos, st, threads).run()
    if st.first:   # analyse's rollouts start at index 0
        s, out, cov = rollouts(pos, st, None, threads)
        return summarize(out, cov, s, pos, st.horizon)
    return estimate(pos, st.base, seed=st.seed, rollouts=st.budget,
                    half_width=st.half_width if st.stop == "half-width" else None, max_rollouts=st.cap,
                    horizon=st.horizon, peek=st.peek, threads=threads, second_policies=second_policies,
                    progress=progress, truncated=st.level == "truncated")


def advice(pos, res: dict) -> dict:
    """What the advice shows beside the options' values, the same in ``analyse`` and on the board: the printed
    card's cell and answer for this position with how the evaluation ranks it (``card``; None where the card
    has no cell for this decision: absent; :mod:`gnoming_sim.search.card`), the finishing gap a placement reads
    (``finish_gap``), and the position's ID (``position_id``)."""
    from gnoming_sim.search.card import card_view, compare
    from gnoming_sim.search.finishing import finish_gap_of
    from gnoming_sim.search.options import legal_options
    from gnoming_sim.game.position_id import encode

    out = {}
    if pos.decision == "place":
        gap = finish_gap_of(pos)      # the gap the finish rule (report) and the card read
        if gap is not None:
            out["finish_gap"] = gap
    view = card_view(pos)
    if view is not None:
        out["card"] = compare(view, res, legal_options(pos))
    out["position_id"] = encode(pos)
    return out


def position_values(pos) -> dict:
    """Every seat's chance of winning the game (%) and expected final game score against the table's mean
    (points) from ``pos`` as the player to move sees it: ``{"win": [...], "margin": [...]}`` by seat."""
    from gnoming_sim.kernel import value as V
    from gnoming_sim.kernel.value_weights import weights
    from gnoming_sim.search.zero_ply import value_here

    s = setup(pos)
    win, margin = np.zeros(V.MAX_SEATS), np.zeros(V.MAX_SEATS)
    P = value_here(s.start, s.roll, weights(), win, margin)
    return {"win": [100 * float(v) for v in win[:P]], "margin": [float(v) for v in margin[:P]]}


def zero_ply(pos, *, determinizations: int = 64, seed: int = 0, first: int = 0, policies=None,
             threads: int | None = None, samples: bool = False) -> dict:
    """Every legal option of ``pos`` valued at 0-ply: the value network's chance of winning (%) at the next
    decision of another seat, the mean over ``determinizations`` deals of the unseen cards (common to every
    option); each option's mean, its difference behind the best with a paired 95% interval over the
    determinizations (an interval of the sampling of unseen cards: the network's own error is not in it),
    and the expected final margin against the table's mean in points.  Deal i is the stream of ``(seed,
    first + i)``; ``samples``: also ``win`` float64[n, K], every deal's value (a probability) of every option."""
    from gnoming_sim.kernel.game_loop import run_blocks
    from gnoming_sim.kernel.value_weights import weights
    from gnoming_sim.search.zero_ply import N_Z, Z_MARGIN, Z_WIN, zero_ply_batch

    if isinstance(determinizations, bool) or not isinstance(determinizations, (int, np.integer)) \
            or not 1 <= determinizations <= MAX_DETERMINIZATIONS:
        raise GnomingError(f"determinizations must be a whole number in 1..{MAX_DETERMINIZATIONS}, "
                           f"got {determinizations!r}")
    s = setup(pos, policies=policies)
    n, K = int(determinizations), len(s.options)
    out = np.zeros((n, K, N_Z))
    w = weights()
    seed = np.uint64(seed)
    run_blocks(lambda lo, hi: zero_ply_batch(np.int64(first + lo), seed, s.start, s.roll, w, out[lo:hi]), n, 16,
               threads)
    win = 100 * out[:, :, Z_WIN]
    best = int(np.argmax(win.mean(0)))
    rows = []
    for k, opt in enumerate(s.options):
        d = win[:, best] - win[:, k]
        se = d.std(ddof=1) / np.sqrt(n) if n > 1 else 0.0
        m = float(win[:, k].mean())
        mse = win[:, k].std(ddof=1) / np.sqrt(n) if n > 1 else 0.0
        rows.append({"key": opt.key, "option": opt.label, "n": n, "mean": m,
                     "ci95": [m - Z95 * mse, m + Z95 * mse], "diff": float(d.mean()),
                     "diff_ci95": [float(d.mean() - Z95 * se), float(d.mean() + Z95 * se)],
                     "margin": float(out[:, k, Z_MARGIN].mean()), "best": k == best})
    order = sorted(range(K), key=lambda k: -rows[k]["mean"])
    for rank, k in enumerate(order):
        rows[k]["rank"] = rank + 1
    res = {"level": "0-ply", "n": n, "n_unit": "determinizations", "unit": "pp of win chance", "options": rows,
           "best": s.options[best].key}
    if samples:
        res["win"] = out[:, :, Z_WIN].copy()
    return res


def predict(w: np.ndarray, x: np.ndarray, players: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's forward pass over rows ``x`` float[n, MAX_SEATS, NI]: (win float64[n, MAX_SEATS], margin)."""
    return _predict(np.ascontiguousarray(w, dtype=np.float64), np.ascontiguousarray(x, dtype=np.float64),
                    players.astype(np.int64))


def _predict(w, x, players):
    from gnoming_sim.kernel import value as V

    win = np.zeros((x.shape[0], V.MAX_SEATS))
    margin = np.zeros((x.shape[0], V.MAX_SEATS))
    V.predict_rows(w, x, players, win, margin)
    return win, margin


def calibration(w: np.ndarray, data: dict, bins: int = 10) -> tuple[list, list]:
    """How the network's chance of winning for the player to move compares with what happened, per table size,
    on ``data`` (positions of games no fit saw; the unit of every interval is the game, since a game's
    positions share its outcome): ``(rows, reliability)``.

    ``rows``: per table size, the games and positions, the Brier score of the network and of the
    uninformed 1/P with 95% intervals, their difference, and the calibration slope and intercept (a
    logistic regression of the outcome on the logit of the prediction, game-clustered standard errors:
    slope 1 and intercept 0 are perfect calibration).  ``reliability``: per table size and bin of the
    prediction, the mean predicted and observed win chance with the observed one's interval."""
    import statsmodels.api as sm

    win, _ = predict(w, data["x"], data["players"])
    rows, rel = [], []
    for P in sorted(set(data["players"].tolist())):
        sel = data["players"] == P
        p = np.clip(win[sel, 0], 1e-6, 1 - 1e-6)
        y = data["win"][sel, 0].astype(np.float64)
        g = data["game"][sel]
        _, cluster = np.unique(g, return_inverse=True)
        n_games = int(cluster.max() + 1)

        def by_game(v):
            s = np.bincount(cluster, weights=v, minlength=n_games) / np.bincount(cluster, minlength=n_games)
            m = s.mean()
            e = s.std(ddof=1) / np.sqrt(n_games)
            return float(m), [float(m - Z95 * e), float(m + Z95 * e)]

        brier, brier_ci = by_game((p - y) ** 2)
        base, base_ci = by_game((1 / P - y) ** 2)
        gain, gain_ci = by_game((1 / P - y) ** 2 - (p - y) ** 2)
        X = sm.add_constant(np.log(p / (1 - p)))
        fit = sm.GLM(y, X, family=sm.families.Binomial()).fit(cov_type="cluster", cov_kwds={"groups": cluster})
        ci = fit.conf_int()
        rows.append({"players": P, "games": n_games, "positions": int(sel.sum()),
                     "brier": brier, "brier_ci95": brier_ci, "brier_uninformed": base, "brier_uninformed_ci95": base_ci,
                     "brier_gain": gain, "brier_gain_ci95": gain_ci,
                     "slope": float(fit.params[1]), "slope_ci95": [float(ci[1, 0]), float(ci[1, 1])],
                     "intercept": float(fit.params[0]), "intercept_ci95": [float(ci[0, 0]), float(ci[0, 1])]})
        edges = np.quantile(p, np.linspace(0, 1, bins + 1))
        which = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, bins - 1)
        for b in range(bins):
            m = which == b
            if not m.any():
                continue
            k = np.unique(cluster[m]).size
            obs = float(y[m].mean())
            # the games of a bin are the unit; positions of one game in one bin are few, so the interval is
            # the positions' binomial one widened by the positions per game (a design effect of at most that)
            deff = m.sum() / k
            e = np.sqrt(max(obs * (1 - obs), 1e-12) / m.sum() * deff)
            rel.append({"players": P, "bin": b, "predicted": float(p[m].mean()), "observed": obs,
                        "observed_ci95": [max(0.0, obs - Z95 * e), min(1.0, obs + Z95 * e)],
                        "positions": int(m.sum()), "games": int(k)})
    return rows, rel


__all__ = ["BASE", "HORIZON", "Settings", "Evaluation", "evaluate", "rollouts", "win_samples",
           "setup", "seats_with", "advice", "stop_reason", "lead_in_se", "schedule", "predict", "calibration",
           "position_values", "zero_ply", "LEVELS", "STOPS"]
