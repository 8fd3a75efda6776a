"""The net player (:mod:`gnoming_sim.kernel.policy.net`) measured: one X among experts on held-out deals,
X against X' paired by deal, and how a player's play moves under a rules variant.

:func:`margins` plays one X seat among ``players - 1`` ``b`` seats (expert), X moving one seat per game,
on held-out deals (global games from :data:`gnoming_sim.experiments.heldout.HELD_OUT_FIRST`): per game,
X's game score minus the mean of the ``b`` seats'.  Every X plays the same deals with X in the same seat,
so two X's margins pair by deal (:func:`paired`: the per-deal difference, its mean and 95% interval).
:func:`variant_play` seats X everywhere and measures turns per round and the share of rounds a player
finished under a rules variant and under the published rules, on the same deals (paired).
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.experiments.heldout import HELD_OUT_FIRST
from gnoming_sim.game.fields import F_BONUS, F_FINISHER, F_STALLED, F_TURNS
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.stats import Z95, mean_ci, paired_diff_ci

__all__ = ["margins", "paired", "variant_play", "games_per_second"]


def _resolve(x):
    from gnoming_sim.experiments.ladder import resolve

    return resolve(x) if isinstance(x, str) else x


def margins(x, players: int = 4, games: int = 400, seed: int = 0, b: str = "expert", rules=None,
            threads: int | None = None, skip: int = 0) -> np.ndarray:
    """float64[games]: per held-out deal, X's game score minus the mean of the ``b`` seats' (lower is better);
    ``games`` rounded up to whole rotations; ``skip``: start after that many deals (a whole number of
    rotations), so blocks of deals put together are the deals of one call."""
    n = players * -(-games // players)
    if skip % players:
        raise ValueError(f"skip {skip} is not a whole number of rotations of {players}")
    res = simulate(players=players, strategies=[_resolve(x)] + [b] * (players - 1), games=n, seed=seed,
                   rules=rules, rotate=True, first_game=HELD_OUT_FIRST + skip, threads=threads)
    tot = res.totals.astype(np.float64)
    me = res.seat_strategy == 0
    return (tot * me).sum(axis=1) - (tot * ~me).sum(axis=1) / (players - 1)


def paired(values: dict, pairs) -> list[dict]:
    """Rows ``{a, b, games, diff, lo, hi}`` (95%): for each (a, b) of ``pairs``, the mean per-deal difference of
    ``values[a] - values[b]`` (X names to :func:`margins` arrays of the same deals); b None: a's margin alone."""
    rows = []
    for a, b in pairs:
        if b is None:
            m, lo, hi, n = mean_ci(values[a], z=Z95)
        else:
            m, lo, hi, n = paired_diff_ci(values[a], values[b], z=Z95)
        rows.append({"a": a, "b": b or "expert seats", "games": n, "diff": m, "lo": lo, "hi": hi})
    return rows


MEASURES = ("turns", "finish", "bonus_won")


def _play_measures(res) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per game: turns per round (all players together), the share of its rounds that a player finished (not
    stalled) and the share of its rounds whose finisher earned the lowest-score bonus, as ``compare`` counts them."""
    st = res.round_stats
    stalled = st[:, :, 0, F_STALLED] != 0
    turns = st[:, :, :, F_TURNS].sum(axis=2).mean(axis=1).astype(np.float64)
    fin = (st[:, :, :, F_FINISHER] != 0) & ~stalled[:, :, None]
    won = (fin & (st[:, :, :, F_BONUS] < 0)).any(axis=2)
    return turns, fin.any(axis=2).mean(axis=1), won.mean(axis=1)


def variant_play(x, variant: RuleConfig, players: int = 4, games: int = 2000, seed: int = 0,
                 threads: int | None = None) -> dict:
    """Every seat X on the same held-out deals under ``variant`` and the published rules: per measure
    (``turns`` per round, ``finish`` rate of the rounds, ``bonus_won``: rounds whose finisher earned the bonus) the
    published mean and the variant's change, 95%."""
    out = {"strategy": _resolve(x).name, "players": players, "games": games}
    runs = [simulate(players=players, strategies=[_resolve(x)], games=games, seed=seed, rules=r,
                     first_game=HELD_OUT_FIRST, threads=threads) for r in (RuleConfig(), variant)]
    base, var = _play_measures(runs[0]), _play_measures(runs[1])
    for j, name in enumerate(MEASURES):
        out[name] = float(base[j].mean())
        d, lo, hi, n = paired_diff_ci(var[j], base[j], z=Z95)
        out[f"{name}_change"], out[f"{name}_lo"], out[f"{name}_hi"] = d, lo, hi
    return out


def games_per_second(x, players: int = 4, games: int = 4000, seed: int = 0, threads: int | None = None) -> float:
    """Games per second with every seat X on held-out deals (:func:`gnoming_sim.experiments.mc_eval.games_per_second`:
    after a one-game warm-up that compiles or loads the kernel)."""
    from gnoming_sim.experiments.mc_eval import games_per_second as timed

    return timed([_resolve(x)], players=players, games=games, seed=seed, threads=threads)
