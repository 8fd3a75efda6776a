"""Win credit from round scores by the game loop's own settling code (RULES.md §6), for games
read back from a file (the Parquet rows hold round scores, not the credit): no second copy of
the rule outside the kernel and the referee."""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.fields import F_SCORE
from gnoming_sim.game.rules import ROUNDS
from gnoming_sim.kernel.game_loop import settle_game
from gnoming_sim.kernel.jit import jit


@jit(py=True, nrt=True)   # allocates the totals workspace
def _settle_each(out, win):
    P = win.shape[1]
    totals = np.empty(P, dtype=np.int32)
    for g in range(win.shape[0]):
        settle_game(P, out[g], totals, win[g])


def win_credit(round_scores) -> np.ndarray:
    """float64 (games, players): each seat's win credit (1/k for a win shared by k) from the round
    scores, int (games, 3, players), exactly as the engine credits the games it plays."""
    scores = np.asarray(round_scores)
    if scores.ndim != 3 or scores.shape[1] != ROUNDS:
        raise ValueError(f"round scores must have shape (games, {ROUNDS}, players), got {scores.shape}")
    games, _, players = scores.shape
    out = np.zeros((games, ROUNDS, players, F_SCORE + 1), dtype=np.int32)   # the fields the settling reads
    out[..., F_SCORE] = scores
    win = np.empty((games, players), dtype=np.float64)
    if games:
        _settle_each(out, win)
    return win
