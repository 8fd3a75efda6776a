"""0-ply against the oracle's rollouts on held-out decisions: tuning/value/accuracy.json.

The decisions are drawn from the oracle decision set (analyses/data/oracle/decisions.parquet: net self-play at 3-6
players, game numbers and a seed the value network's training never used), ``PER_KIND`` of each kind, and
each is valued twice: by the oracle (``ROLLOUTS`` full-game rollouts of net, common random numbers, ranked by
win chance) and by 0-ply (:func:`gnoming_sim.search.evaluator.zero_ply`, ``DETERMINIZATIONS`` deals).  Per
kind: the share of decisions where 0-ply's choice is the rollouts' best or not separated from it (its paired
95% interval behind the best holds 0), its mean loss on the rollouts (the best's value minus its choice's: a
maximum over noisy means, so biased up; net's own choice on the same rollouts is given beside it as the
yardstick).  Intervals are over decisions.

    python tuning/value/accuracy.py [--per-kind N] [--rollouts R]
"""
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from gnoming_sim.analyses.agreement.study import DECISIONS as ORACLE_DECISIONS
from gnoming_sim.search import evaluator
from gnoming_sim.game.position_id import decode

HERE = Path(__file__).resolve().parent
PER_KIND = 30
ROLLOUTS = 2000
DETERMINIZATIONS = 64
SEED = 2026_12_07


def _arg(name, default):
    args = sys.argv[1:]
    return int(args[args.index(name) + 1]) if name in args else default


def main() -> None:
    per_kind, rollouts = _arg("--per-kind", PER_KIND), _arg("--rollouts", ROLLOUTS)
    d = pd.read_parquet(ORACLE_DECISIONS)
    rng = np.random.default_rng(SEED)
    picks = []
    for kind, grp in d.groupby("kind", sort=True):
        picks += list(rng.choice(grp.index.to_numpy(), size=min(per_kind, len(grp)), replace=False))
    rows = []
    t0 = time.perf_counter()
    for j, i in enumerate(picks):
        rec = d.loc[i]
        pos = decode(rec["position_id"])
        truth = evaluator.evaluate(pos, evaluator.Settings(budget=rollouts, seed=SEED + j))
        zp = evaluator.zero_ply(pos, determinizations=DETERMINIZATIONS, seed=SEED + j)
        by_key = {o["key"]: o for o in truth["options"]}
        best = truth["best"]

        def loss(key):
            return float(by_key[best]["mean"] - by_key[key]["mean"]) if key in by_key else float("nan")

        zkey = zp["best"]
        lo = by_key[zkey]["diff_ci95"][0]
        rows.append({"kind": rec["kind"], "players": int(rec["players"]), "options": len(by_key),
                     "best": best, "zero_ply": zkey, "net": rec["net_key"],
                     "zero_ply_loss": loss(zkey), "net_loss": loss(rec["net_key"]),
                     "zero_ply_agrees": bool(zkey == best or lo <= 0),
                     "net_agrees": bool(rec["net_key"] == best or by_key.get(rec["net_key"], {"diff_ci95": [1]})
                                        ["diff_ci95"][0] <= 0),
                     "zero_ply_within_half_pp": bool(loss(zkey) <= 0.5)})
        print(json.dumps({"decision": j, **rows[-1], "seconds": round(time.perf_counter() - t0)}), flush=True)
    summarise(pd.DataFrame(rows), rollouts, round(time.perf_counter() - t0))


def summarise(df: pd.DataFrame, rollouts: int, seconds: int) -> None:
    """accuracy.json and accuracy.csv from the decisions' rows (shares with Wilson intervals, losses with t
    intervals over decisions)."""
    from scipy import stats
    from statsmodels.stats.proportion import proportion_confint

    out = {"rollouts": rollouts, "determinizations": DETERMINIZATIONS, "seed": SEED,
           "seconds": seconds, "by_kind": []}
    for kind, g in list(df.groupby("kind")) + [("all", df)]:
        n = len(g)

        def mean_ci(x):
            x = np.asarray(x, dtype=float)
            x = x[np.isfinite(x)]
            m = x.mean()
            lo, hi = stats.t.interval(0.95, len(x) - 1, loc=m, scale=x.std(ddof=1) / np.sqrt(len(x)))
            return [round(float(m), 3), round(float(lo), 3), round(float(hi), 3)]

        def share(x):
            k = int(np.sum(x))
            lo, hi = proportion_confint(k, n, method="wilson")
            return [round(100 * k / n, 1), round(100 * lo, 1), round(100 * hi, 1)]

        out["by_kind"].append({"kind": kind, "decisions": n,
                               "zero_ply_agrees": share(g["zero_ply_agrees"]),
                               "zero_ply_within_half_pp": share(g["zero_ply_within_half_pp"]),
                               "zero_ply_loss_pp": mean_ci(g["zero_ply_loss"]),
                               "net_agrees": share(g["net_agrees"]),
                               "net_loss_pp": mean_ci(g["net_loss"])})
    (HERE / "accuracy.json").write_text(json.dumps(out, indent=1) + "\n")
    df.to_csv(HERE / "accuracy.csv", index=False)
    for r in out["by_kind"]:
        print(json.dumps(r))


if __name__ == "__main__":
    if "--summarise" in sys.argv[1:]:   # the committed rows again (no rollouts)
        old = json.loads((HERE / "accuracy.json").read_text())
        summarise(pd.read_csv(HERE / "accuracy.csv"), old["rollouts"], old["seconds"])
    else:
        main()
