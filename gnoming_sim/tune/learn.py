"""Training the learned player (``KIND_LEARNED``, :mod:`gnoming_sim.kernel.policy.learned`) by expert iteration.

One iteration:

1. **Targets.**  Self-play rounds at each table size of ``players``, every seat playing the current
   learned strategy (the first iteration: ``expert``, whose observation-level states it starts from);
   at a random sample of the placement and draw-source decisions, every legal answer's features and
   its value by ``budget`` Monte Carlo rollouts from the decider's observation
   (:func:`gnoming_sim.search.sampler.learned_targets`, the rollouts of the ``mc`` player:
   :func:`gnoming_sim.search.bot.option_values`).
2. **Fit.**  Per decision the answers' values and features are centred (the state's own worth cancels:
   only differences between answers are fitted), and the weights are the ridge least-squares solution
   of value on features, one model for placements (and bounces) and one for the draw source
   (:func:`fit`: a linear solve, no iterative optimiser).
3. **Check.**  One learned seat among ``players - 1`` expert seats at 4 players, seats rotating, on
   validation deals (:data:`VALIDATION_FIRST`, apart from the held-out deals of
   :mod:`gnoming_sim.experiments.heldout`): the learned seat's game score minus the experts' mean,
   with its 95% interval, logged per iteration (the training curve).

The streams depend only on ``seed`` and the iteration, so a run is reproducible at any thread count.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import numpy as np

from gnoming_sim.stats import Z95, mean_ci
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.kernel.policy import learned as L
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.registry import KIND_LEARNED, Strategy
from gnoming_sim.kernel.state import DEC_PLACE, DEC_SOURCE
from gnoming_sim.search.sampler import learned_targets

VALIDATION_FIRST = 2**59   # the training check's deals (held-out checks start at 2**60)
ITERATION_STRIDE = 2**32   # iteration i's target rounds start at i * 2**32


@dataclass
class TrainConfig:
    iterations: int = 4
    games: int = 2000          # target rounds per table size per iteration
    players: tuple = (2, 4, 6)
    budget: int = 16           # rollouts per answer
    p_sample: float = 0.2      # share of eligible decisions turned into targets
    ridge: float = 1.0         # ridge penalty (in units of one decision's squared value)
    check_games: int = 4000    # validation games at 4 players per iteration
    seed: int = 1
    threads: int | None = None
    log: list = field(default_factory=list)


def fit(feats: np.ndarray, vals: np.ndarray, nopt: np.ndarray, nf: int, ridge: float) -> tuple[np.ndarray, float]:
    """Ridge least squares of the centred answer values on the centred features: (weights float64[nf],
    share of the centred variance explained)."""
    K = feats.shape[1]
    valid = np.arange(K)[None, :] < nopt[:, None]
    X = feats[:, :, :nf]
    w = valid / nopt[:, None]
    xm = (X * w[:, :, None]).sum(axis=1, keepdims=True)
    ym = (vals * w).sum(axis=1, keepdims=True)
    Xc = (X - xm)[valid]
    yc = (vals - ym)[valid]
    A = Xc.T @ Xc + ridge * np.eye(nf)
    coef = np.linalg.solve(A, Xc.T @ yc)
    resid = yc - Xc @ coef
    r2 = 1.0 - float(resid @ resid) / max(float(yc @ yc), 1e-12)
    return coef, r2


# the start point, in every table-size bucket: expert's placement and draw rules, roughly (its estimate change,
# its reveal bonus, its keep threshold; take a pile when the placement beats a blind draw by its take threshold)
START = {"place.delta": 1.0, "place.hid": -4.25, "place.nokeep": 0.21, "place.fin": 5.0, "place.fin_lowest": -10.0,
         "source.value": 1.0, "source.draw": -3.47}


def start_weights() -> np.ndarray:
    """float64[N_WEIGHTS]: :data:`START` in every bucket, 0 elsewhere."""
    w = np.zeros(L.N_WEIGHTS)
    for i, name in enumerate(L.WEIGHT_NAMES):
        w[i] = START.get(name.split(".", 1)[1], 0.0)
    return w


def strategy_of(weights: np.ndarray, name: str = "learned-train") -> Strategy:
    base = registry.get("expert")
    params = dict(base.params)
    params.update({n: float(v) for n, v in zip(L.WEIGHT_NAMES, weights)})
    return Strategy(name, KIND_LEARNED, "learned player in training", params)


def check(strategy, games: int, seed: int, players: int = 4, threads=None, first: int = VALIDATION_FIRST) -> dict:
    """One ``strategy`` seat among expert seats, seats rotating: its game score minus the experts' mean."""
    games = players * max(1, games // players)
    res = simulate(players=players, strategies=[strategy] + ["expert"] * (players - 1), games=games, seed=seed,
                   rotate=True, first_game=first, threads=threads)
    tot = res.totals.astype(np.float64)
    me = res.seat_strategy == 0
    d = (tot * me).sum(axis=1) - (tot * ~me).sum(axis=1) / (players - 1)
    m, lo, hi, n = mean_ci(d, z=Z95)
    win = float((res.win_credit * me).sum(axis=1).mean())
    return {"margin": m, "lo": lo, "hi": hi, "games": n, "win": win}


def train(cfg: TrainConfig, progress=print) -> np.ndarray:
    """Run ``cfg.iterations`` iterations; return the final weights (float64[N_WEIGHTS]); ``cfg.log`` gets
    one row per iteration."""
    start = registry.get("expert")
    weights = start_weights()
    t0 = time.perf_counter()
    for it in range(cfg.iterations):
        policy = start if it == 0 else strategy_of(weights)
        parts = []
        for p in cfg.players:
            parts.append(learned_targets(p, policy, cfg.games, seed=cfg.seed, budget=cfg.budget,
                                         p_sample=cfg.p_sample, first_game=it * ITERATION_STRIDE, threads=cfg.threads))
        kind = np.concatenate([d["kind"] for d in parts])
        feats = np.concatenate([d["feats"] for d in parts])
        vals = np.concatenate([d["vals"] for d in parts])
        nopt = np.concatenate([d["nopt"] for d in parts])
        bucket = np.array([L.bucket_of(p) for p in np.concatenate([d["players"] for d in parts])], dtype=np.int64)
        weights = weights.copy()
        r2 = {}
        for b in sorted(set(bucket.tolist())):
            at = b * L.N_WEIGHTS_ONE
            pl = (kind == DEC_PLACE) & (bucket == b)
            sr = (kind == DEC_SOURCE) & (bucket == b)
            weights[at:at + L.NF_P], r2[f"r2_place_{L.BUCKETS[b]}"] = fit(feats[pl], vals[pl], nopt[pl], L.NF_P,
                                                                         cfg.ridge)
            if it > 0:
                # the first iteration's source rows carry the start weights' placement values: the source model
                # is fitted from the second iteration on, to values of the placement model it will be used with
                weights[at + L.NF_P:at + L.N_WEIGHTS_ONE], r2[f"r2_source_{L.BUCKETS[b]}"] = fit(
                    feats[sr], vals[sr], nopt[sr], L.NF_S, cfg.ridge)
        pl = kind == DEC_PLACE
        sr = kind == DEC_SOURCE
        c = check(strategy_of(weights), cfg.check_games, cfg.seed + 1000 + it, threads=cfg.threads)
        row = {"iteration": it + 1, "placement_targets": int(pl.sum()), "source_targets": int(sr.sum()),
               **{k: round(v, 4) for k, v in r2.items()},
               "margin_vs_expert_4p": round(c["margin"], 3), "lo": round(c["lo"], 3), "hi": round(c["hi"], 3),
               "check_games": c["games"], "win_4p": round(c["win"], 4),
               "seconds": round(time.perf_counter() - t0, 1)}
        cfg.log.append(row)
        progress(json.dumps(row))
    return weights


__all__ = ["TrainConfig", "train", "fit", "check", "strategy_of", "VALIDATION_FIRST"]


def weights_json(weights: np.ndarray, cfg: TrainConfig, command: str, seconds: float) -> str:
    """The weights file (:func:`gnoming_sim.kernel.policy.registry.learned_from_file` reads it) with its
    provenance: the command, the settings, the training log."""
    last = cfg.log[-1] if cfg.log else {}
    desc = (f"learned linear evaluator, one ply: fitted by `{command}` ({cfg.iterations} iterations of rollout "
            f"targets at {', '.join(map(str, cfg.players))} players, {seconds:.0f} s); validation at 4 players, one "
            f"seat among three experts: {last.get('margin_vs_expert_4p', float('nan')):+.2f} "
            f"[{last.get('lo', float('nan')):+.2f}, {last.get('hi', float('nan')):+.2f}] points per game vs expert "
            f"(95%, n = {last.get('check_games', 0)} games; lower is better)")
    data = {"description": desc,
            "weights": {n: round(float(v), 6) for n, v in zip(L.WEIGHT_NAMES, weights)},
            "provenance": {"command": command, "seconds": round(seconds, 1),
                           "settings": {"iterations": cfg.iterations, "games": cfg.games,
                                        "players": list(cfg.players), "budget": cfg.budget,
                                        "p_sample": cfg.p_sample, "ridge": cfg.ridge,
                                        "check_games": cfg.check_games, "seed": cfg.seed},
                           "log": cfg.log}}
    return json.dumps(data, indent=1) + "\n"


def curve_png(log: list[dict]) -> bytes:
    """The training curve: the validation margin against expert per iteration, with its 95% interval."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    it = [r["iteration"] for r in log]
    with matplotlib.rc_context({"text.parse_math": False}):
        fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
        ax.errorbar(it, [r["margin_vs_expert_4p"] for r in log],
                    yerr=[[r["margin_vs_expert_4p"] - r["lo"] for r in log], [r["hi"] - r["margin_vs_expert_4p"] for r in log]],
                    marker="o", capsize=3)
        ax.axhline(0.0, color="grey", lw=0.8, ls="--")
        ax.set_xlabel("iteration")
        ax.set_ylabel("game score minus experts', per game\n(one learned seat among 3 experts; lower is better)")
        ax.set_title(f"gnoming-sim train: validation at 4 players, n = {log[-1]['check_games']} games each, 95%",
                     fontsize=10)
        ax.set_xticks(it)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        plt.close(fig)
    return buf.getvalue()
