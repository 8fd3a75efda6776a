"""The value player (``value``, :mod:`gnoming_sim.search.value_player`) against ``net``: one X seat among
``players - 1`` net seats, X moving one seat per game, on held-out deals (global games from
:data:`gnoming_sim.experiments.heldout.HELD_OUT_FIRST`, which no training saw), against net itself in X's
seat on the same deals (paired by deal): the difference in X's chance of winning (pp) and in its game score
(points, lower is better), 95% intervals over deals; and X's games per second with one X seat.

    python -m gnoming_sim.experiments.value_eval --out tuning/value/strength.json   # 4,000 deals; 8 and 32 deals a decision
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from gnoming_sim.experiments.heldout import HELD_OUT_FIRST
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.stats import Z95, paired_diff_ci


def seat_outcomes(x, players: int, games: int, seed: int = 0, threads: int | None = None, seats=None):
    """(win float64[games], score float64[games], seats bool[games, players], seconds): X's win credit and game
    score per held-out deal, X in the seat ``seats`` marks (None: X moving one seat per deal among net seats;
    with ``seats`` every seat plays X, and the marked seat's outcome is read: net's own in X's seat) (``games``
    rounded up to whole rotations)."""
    import gnoming_sim.search  # noqa: F401  (registers the value player's batch kernel)

    n = players * -(-games // players)
    lineup = [x] + ["net"] * (players - 1) if seats is None else [x] * players
    t0 = time.perf_counter()
    res = simulate(players=players, strategies=lineup, games=n, seed=seed, rotate=True,
                   first_game=HELD_OUT_FIRST, threads=threads)
    seconds = time.perf_counter() - t0
    me = res.seat_strategy == 0 if seats is None else seats
    return (res.win_credit * me).sum(axis=1), (res.totals * me).sum(axis=1).astype(np.float64), me, seconds


def against_net(x, players: int = 4, games: int = 4000, seed: int = 0, threads: int | None = None) -> dict:
    """X against net in X's seat, paired by deal: win chance (pp) and game score (points), with 95% intervals."""
    simulate(players=players, strategies=[x] + ["net"] * (players - 1), games=1, seed=seed)   # compile or load
    win, score, seats, seconds = seat_outcomes(x, players, games, seed, threads)
    win0, score0, _, _ = seat_outcomes("net", players, games, seed, threads, seats)
    dw, lw, hw, n = paired_diff_ci(100 * win, 100 * win0, z=Z95)
    ds, ls, hs, _ = paired_diff_ci(score, score0, z=Z95)
    return {"x": x if isinstance(x, str) else x.name, "players": players, "deals": n, "seed": seed,
            "win_pp": {"diff": dw, "ci95": [lw, hw]}, "score_points": {"diff": ds, "ci95": [ls, hs]},
            "x_win": float(100 * win.mean()), "net_win": float(100 * win0.mean()),
            "games_per_second": n / seconds}


def main(argv=None) -> None:
    from gnoming_sim.kernel.policy import registry

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--deals", default="8,32", help="the value player's deals per decision, comma-separated")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    rows = []
    for d in map(int, a.deals.split(",")):
        x = registry.get("value") if d == registry.VALUE_DEALS else registry.value_from_file(name=f"value{d}", deals=d)
        rows.append(dict(against_net(x, a.players, a.games), value_deals=d))
        r = rows[-1]
        w, p = r["win_pp"], r["score_points"]
        print(f"{r['x']} ({d} deals) - net, {a.players} players, {r['deals']} held-out deals: win "
              f"{w['diff']:+.2f} pp [{w['ci95'][0]:+.2f}, {w['ci95'][1]:+.2f}], game score "
              f"{p['diff']:+.2f} points [{p['ci95'][0]:+.2f}, {p['ci95'][1]:+.2f}] (lower is better); "
              f"{r['games_per_second']:.0f} games/s", flush=True)
    if a.out:
        with open(a.out, "w") as fh:
            json.dump({"script": "python -m gnoming_sim.experiments.value_eval", "args": vars(a), "rows": rows}, fh,
                      indent=1)


if __name__ == "__main__":
    main()
