"""The value network's answers for a position (:mod:`gnoming_sim.kernel.value`, its weights read by
:mod:`gnoming_sim.kernel.value_weights`): every seat's chance of winning from the position as it stands
(:func:`position_values`), and every option valued at 0-ply (:func:`zero_ply`: :mod:`gnoming_sim.search.zero_ply`).
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel import value as V
from gnoming_sim.kernel.value_weights import WEIGHTS, read_weights, weights
from gnoming_sim.stats import Z95

MAX_DETERMINIZATIONS = 100_000


def position_values(pos) -> dict:
    """Every seat's chance of winning the game (%) and expected final game score against the table's mean
    (points) from ``pos`` as the player to move sees it: ``{"win": [...], "margin": [...]}`` by seat."""
    from gnoming_sim.search.analyse import setup
    from gnoming_sim.search.oracle import BASE
    from gnoming_sim.search.zero_ply import value_here

    s = setup(pos, BASE)
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
    from gnoming_sim.search.analyse import setup
    from gnoming_sim.search.oracle import BASE
    from gnoming_sim.search.zero_ply import N_Z, Z_MARGIN, Z_WIN, zero_ply_batch

    if isinstance(determinizations, bool) or not isinstance(determinizations, (int, np.integer)) \
            or not 1 <= determinizations <= MAX_DETERMINIZATIONS:
        raise GnomingError(f"determinizations must be a whole number in 1..{MAX_DETERMINIZATIONS}, "
                           f"got {determinizations!r}")
    s = setup(pos, BASE if policies is None else policies)
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
    res = {"level": "0-ply", "n": n, "unit": "determinizations", "options": rows, "best": s.options[best].key}
    if samples:
        res["win"] = out[:, :, Z_WIN].copy()
    return res


def predict(w: np.ndarray, x: np.ndarray, players: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's forward pass over rows ``x`` float[n, MAX_SEATS, NI]: (win float64[n, MAX_SEATS], margin)."""
    return _predict(np.ascontiguousarray(w, dtype=np.float64), np.ascontiguousarray(x, dtype=np.float64),
                    players.astype(np.int64))


def _predict(w, x, players):
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


__all__ = ["predict", "calibration", "read_weights", "weights", "position_values", "zero_ply", "WEIGHTS"]
