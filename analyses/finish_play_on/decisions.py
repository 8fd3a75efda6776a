"""The finish-or-play-on study's driver: the finishing chances of a traced game, and one
decision rolled out.

One decision is one unit: a first batch of rollouts picks the best non-finishing option and the
rollout choice, a second, independent batch estimates the paired difference finish - best
non-finishing option and the regret of the preset's own choice (so neither is flattered by the
selection).  The rollouts are the evaluator's (:func:`gnoming_sim.search.evaluator.rollouts`, one settings
record per batch).  :mod:`.design` draws the decisions and the study turns their rows into findings.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from gnoming_sim.search.estimates import adjusted_means, design
from gnoming_sim.search.evaluator import Settings, rollouts as roll
from gnoming_sim.search.finishing import finish_decisions


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

    st = Settings(policies=(policy,), horizon=horizon, budget=rollouts, seed=seed)
    s, out, cov = roll(pos, st, None, threads)
    keys = [o.key for o in s.options]
    fin = next(k for k, o in enumerate(s.options) if o.finishes)
    game = keys.index(chosen)
    criteria = [(X_SCORE, 1.0)] + ([(X_WIN, -1.0)] if horizon == "game" else [])   # (output, sign: lower is better)
    Z = design(cov, s, pos)
    picks = []
    for x, sign in criteria:
        est, _ = adjusted_means(sign * out[:, :, x], Z)
        alt = min((k for k in range(len(keys)) if k != fin), key=lambda k: est[k])
        picks.append((alt, fin if est[fin] < est[alt] else alt))
    _, out, cov = roll(pos, replace(st, first=rollouts), None, threads)
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
    """What the player to move sees of the race: visible scores (face-down cards count 0), the card in
    hand, the gap (:func:`~gnoming_sim.search.finishing.finish_gap_of`: the finished layout's score, the
    card in hand counted, minus the best rival's visible score; the definition the card and ``analyse``
    use), the gap before the card (``gap_visible``: own visible score minus the best rival's) and the
    others' face-down cards (all, fewest, the best rival's)."""
    from gnoming_sim.kernel.scoring import visible_score
    from gnoming_sim.search.finishing import finish_gap_of

    rules = pos.rules.to_array()
    mine = int(visible_score(pos.layouts[pos.me], rules))
    others = [o for o in range(pos.players) if o != pos.me]
    rivals = [int(visible_score(pos.layouts[o], rules)) for o in others]
    fd = pos.face_down()
    best = others[int(np.argmin(rivals))]
    return {"players": pos.players, "own_visible": mine, "best_rival_visible": min(rivals),
            "hand": int(pos.hand), "gap": finish_gap_of(pos), "gap_visible": mine - min(rivals),
            "others_face_down": int(fd.sum() - fd[pos.me]),
            "others_face_down_min": int(fd[others].min()), "best_rival_face_down": int(fd[best])}


def evaluate_ladder(pos, chosen: str, select_policy: str, rungs: dict, select_rollouts: int, rollouts: dict,
                    seed: int, threads: int | None = None) -> dict:
    """One decision along the ladder: finish against the best way of playing on, under each rung's base policy.

    A selection batch of ``select_rollouts`` (every option, ``select_policy`` at every seat, the
    game played out) picks the best non-finishing option by the chance of winning, and the
    rollout choice (finish or that option).  Then, for every rung ``r`` (``rungs[r]`` the base
    policy at every seat after the decision), a fresh batch of ``rollouts[r]`` rollouts (indices
    after the selection batch's, the same for every rung: common random numbers across rungs)
    rolls out finish, that option and the game's own choice alone, and estimates, free of the
    selection: ``win_<r>`` finish - play on in the chance of winning the game (higher favours
    finishing), ``margin_<r>`` the same in the rivals' mean round score minus the player's own
    (points, bonus included; higher favours finishing), ``points_<r>`` the player's own round
    score (lower favours finishing), ``regret_<r>`` the rollout choice's chance of winning minus
    the game's own choice's (a loss when positive), each with its standard error ``*_se``.
    """
    from gnoming_sim.search.rollout import X_RIVALS, X_SCORE, X_WIN

    s, out, cov = roll(pos, Settings(policies=(select_policy,), budget=select_rollouts, seed=seed), None, threads)
    keys = [o.key for o in s.options]
    fin = next(k for k, o in enumerate(s.options) if o.finishes)
    game = keys.index(chosen)
    est, _ = adjusted_means(out[:, :, X_WIN], design(cov, s, pos))
    alt = max((k for k in range(len(keys)) if k != fin), key=lambda k: est[k])
    pick = fin if est[fin] > est[alt] else alt
    keep = [fin, alt] + ([game] if game not in (fin, alt) else [])
    row = {**_features(pos), "preset_finished": game == fin, "rollout_finishes": pick == fin,
           "options": len(keys), "select_n": select_rollouts}
    for rung, policy in rungs.items():
        n = rollouts[rung]
        st = Settings(policies=(policy,), budget=n, seed=seed, first=select_rollouts)
        r, y, c = roll(pos, st, [keys[k] for k in keep], threads)
        g = keep.index(game)
        p = 0 if pick == fin else 1
        win, score, rivals = y[:, :, X_WIN], y[:, :, X_SCORE], y[:, :, X_RIVALS]
        margin = rivals - score
        cols = np.column_stack([win[:, 0] - win[:, 1], margin[:, 0] - margin[:, 1], score[:, 0] - score[:, 1],
                                win[:, p] - win[:, g]])
        d, se = adjusted_means(cols, design(c, r, pos))
        for j, name in enumerate(("win", "margin", "points", "regret")):
            row[f"{name}_{rung}"] = float(d[j])
            row[f"{name}_{rung}_se"] = float(se[j])
        row[f"n_{rung}"] = n
    return row
