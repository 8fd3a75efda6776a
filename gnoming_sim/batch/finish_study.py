"""Finish or play on (issue 13, item 6): sample the decisions in which a preset could finish the
round by putting the card in hand on its last face-down card, roll "finish" out against the best
way of not finishing, and tabulate when finishing pays and what each preset's own rule loses.

One decision is one unit: a first batch of rollouts picks the best non-finishing option and the
rollout choice, a second, independent batch estimates the paired difference finish - best
non-finishing option and the regret of the preset's own choice (so neither is flattered by the
selection).  One decision is drawn at random from each game (the chances of one game share its
deal and players, so they are not independent), so the table's intervals are over independent
decisions; the regret per round scales the mean regret by the chances per round.  The report's
section ``finish-play-on`` (``analyses/finish_play_on``) is the full study; this is its quick look.

    python -m gnoming_sim.batch.finish_study            # the headline table (a few minutes)
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from gnoming_sim.search.analyse import adjusted_means, design, run_rollouts, setup
from gnoming_sim.batch.stats import mean_ci
from gnoming_sim.game.replay import finish_decisions
from gnoming_sim.game.rules import RuleConfig

GAP_BINS = [-np.inf, -10, -5, 0, 5, np.inf]
GAP_LABELS = ["<= -10", "-10..-5", "-5..0", "0..5", "> 5"]


def decisions(preset: str, players: int, games: int, seed: int, rules=None, deck=None, limit: int = 200):
    """Up to ``limit`` (position, chosen option key) pairs from games of ``preset`` at every seat, one
    drawn at random from each game that has a finishing chance; with the rounds played and the
    finishing chances found in the games scanned (for the regret per round)."""
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.kernel.engine import simulate

    rules = rules or RuleConfig()
    deck = deck or PUBLISHED
    res = simulate(players=players, strategies=[preset], games=games, seed=seed, rules=rules, deck=deck,
                   trace=True, threads=1)
    rng = np.random.default_rng(seed)
    found, rounds, chances = [], 0, 0
    for g in range(games):
        if len(found) >= limit:
            break
        rounds += 3
        here = game_chances(res, g, rules, deck, f"{preset} game {g}")
        chances += len(here)
        if here:
            found.append(here[int(rng.integers(len(here)))])
    return found, rounds, chances


def game_chances(res, g: int, rules, deck, origin: str = "") -> list:
    """Every (position, chosen option key) of game ``g`` of a traced
    :func:`~gnoming_sim.kernel.engine.simulate` result in which the player to move could finish."""
    from gnoming_sim.game.fields import F_SCORE

    return list(finish_decisions(res.deals[g], res.traces[g], res.players, res.round_stats[g, :, :, F_SCORE],
                                 rules, deck, origin))


def evaluate(pos, chosen: str, policy: str, rollouts: int, seed: int, threads: int | None = None,
             horizon: str = "round") -> dict:
    """One decision, on two independent batches of ``rollouts``: the first picks the best
    non-finishing option and the rollout choice (finish or that option); the second estimates,
    free of that selection, finish - best non-finishing option and the regret of the game's own
    choice ``chosen`` (its value minus the rollout choice's; negative when the game did better).

    The criterion is the player's round score (``diff``, ``regret``: points, lower is better).
    With ``horizon="game"`` the rollouts play the game out and the same batches also give the
    win credit criterion, selected on its own (``diff_win``: finish minus the best play-on in the
    chance of winning the game, higher is better; ``regret_win``: the rollout choice's chance
    minus the game's choice's, a loss when positive)."""
    from gnoming_sim.search.rollout import X_SCORE, X_WIN

    s = setup(pos, [policy])
    keys = [o.key for o in s.options]
    fin = next(k for k, o in enumerate(s.options) if o.finishes)
    game = keys.index(chosen)
    criteria = [(X_SCORE, 1.0)] + ([(X_WIN, -1.0)] if horizon == "game" else [])   # (output, sign: lower is better)
    out, cov = run_rollouts(s, rollouts, seed, horizon=horizon, threads=threads)
    Z = design(cov, s, pos)
    picks = []
    for x, sign in criteria:
        est, _ = adjusted_means(sign * out[:, :, x], Z)
        alt = min((k for k in range(len(keys)) if k != fin), key=lambda k: est[k])
        picks.append((alt, fin if est[fin] < est[alt] else alt))
    out, cov = run_rollouts(s, rollouts, seed, first=rollouts, horizon=horizon, threads=threads)
    cols = []
    for (x, sign), (alt, pick) in zip(criteria, picks):
        y = out[:, :, x]
        cols += [y[:, fin] - y[:, alt], sign * (y[:, game] - y[:, pick])]
    d, se = adjusted_means(np.column_stack(cols), design(cov, s, pos))
    row = {**_features(pos), "diff": float(d[0]), "diff_se": float(se[0]), "finish_pays": bool(d[0] < 0),
           "preset_finished": game == fin, "rollout_finishes": picks[0][1] == fin,
           "regret": float(d[1]), "regret_se": float(se[1]), "n": rollouts}
    if horizon == "game":
        row.update(diff_win=float(d[2]), diff_win_se=float(se[2]), finish_pays_win=bool(d[2] > 0),
                   rollout_finishes_win=picks[1][1] == fin, regret_win=float(d[3]), regret_win_se=float(se[3]))
    return row


def _features(pos) -> dict:
    """What the player to move sees of the race: visible scores (face-down cards count 0), the gap
    to the best visible rival, and the others' face-down cards (all, fewest, the best rival's)."""
    from gnoming_sim.kernel.scoring import visible_score

    mpl = pos.rules.mulligans_per_line
    mine = int(visible_score(pos.layouts[pos.me], mpl))
    others = [o for o in range(pos.players) if o != pos.me]
    rivals = [int(visible_score(pos.layouts[o], mpl)) for o in others]
    fd = pos.face_down()
    best = others[int(np.argmin(rivals))]
    return {"players": pos.players, "own_visible": mine, "best_rival_visible": min(rivals),
            "gap": mine - min(rivals), "others_face_down": int(fd.sum() - fd[pos.me]),
            "others_face_down_min": int(fd[others].min()), "best_rival_face_down": int(fd[best])}


def study(presets=("greedy", "builder", "rusher", "cautious"), players=(3, 4), games: int = 400,
          per_cell: int = 120, rollouts: int = 400, seed: int = 13) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per decision, per-preset regret) for every (preset, players) cell."""
    rows, regret = [], []
    for p in players:
        for name in presets:
            found, rounds, chances = decisions(name, p, games, seed, limit=per_cell)
            cell = [dict(evaluate(pos, chosen, name, rollouts, seed + i), preset=name) for i, (pos, chosen) in
                    enumerate(found)]
            rows += cell
            r = np.array([c["regret"] for c in cell]) if cell else np.zeros(0)
            per_round = chances / rounds if rounds else float("nan")
            regret.append({"preset": name, "players": p, "decisions": len(cell), "decisions_per_round": per_round,
                           "regret_per_decision": _ci(r), "regret_per_round": _ci(r * per_round)})
    return pd.DataFrame(rows), pd.DataFrame(regret)


def _ci(x: np.ndarray) -> dict:
    """:func:`gnoming_sim.batch.stats.mean_ci` as a dict; no interval from fewer than 2 decisions."""
    m, lo, hi, n = mean_ci(x)
    return {"mean": m, "ci95": [lo, hi] if n >= 2 else [float("nan")] * 2, "n": n}


def boundary(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean (finish - play on) by players and gap (own visible - best rival visible), with 95% intervals
    over decisions, and the share of decisions where finishing is the better option."""
    f = frame.assign(gap_bin=pd.cut(frame["gap"], GAP_BINS, labels=GAP_LABELS))
    out = []
    for (p, b), g in f.groupby(["players", "gap_bin"], observed=True):
        c = _ci(g["diff"].to_numpy())
        out.append({"players": p, "gap": b, "n": c["n"], "finish_minus_play_on": c["mean"],
                    "ci95": c["ci95"], "share_finish_pays": float(g["finish_pays"].mean()),
                    "preset_finish_share": float(g["preset_finished"].mean())})
    return pd.DataFrame(out)


def main():   # pragma: no cover - a study run, not a test
    frame, regret = study()
    pd.set_option("display.width", 200)
    print(boundary(frame).to_string(index=False))
    print()
    for r in regret.to_dict("records"):
        a, b = r["regret_per_round"]["ci95"]
        print(f"{r['preset']:>9} {r['players']}p: {r['decisions']} decisions ({r['decisions_per_round']:.3f} per round); "
              f"regret {r['regret_per_round']['mean']:.3f} points per round (95% CI {a:.3f}..{b:.3f})")


if __name__ == "__main__":
    main()
