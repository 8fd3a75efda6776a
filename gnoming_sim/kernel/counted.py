"""Games played with the rule counters read back: how often a net-with-cells seat (``KIND_NET_CELLS``) met a set
cell, and how often its answer there differed from net's own (``dispatch.MEMO_RULE``, counted in the game's memo).

:func:`play_range_counted` plays exactly the games of :func:`gnoming_sim.kernel.game_loop.play_range_base` (the
same tables, deals and streams; the game outputs are not changed) and writes each game's two counters.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.rules import ROUNDS
from gnoming_sim.kernel.game_loop import play_game_base
from gnoming_sim.kernel.jit import jit
from gnoming_sim.kernel.policy.dispatch import MEMO_RULE, new_memo
from gnoming_sim.kernel.state import new_table


@jit(py=True, nrt=True)
def play_range_counted(g, res, counts, lo, hi):
    """Games ``lo .. hi - 1`` of ``g`` (``game_loop.Games``, no traces) into ``res`` (``game_loop.Results``), and
    ``counts`` int64[G, 2]: per game, the decisions where a set cell applied and those it changed (summed over the
    table's ``KIND_NET_CELLS`` seats).  Serial: blocks are handed to threads by ``game_loop.run_blocks``."""
    N = g.deck.shape[0]
    for i in range(lo, hi):
        memo = new_memo()
        t = new_table(g.players, N, g.kinds, g.params, g.seat_strategy[i], np.empty((0, 4), dtype=np.int32), memo)
        if g.orders.shape[0] > 0:
            order = g.orders[i]
        else:
            order = np.empty((ROUNDS, N), dtype=np.int8)
        play_game_base(t, g.first_game + i, g.seed, g.rules, g.deck, g.deck_counts, order, g.use_given, res.out[i],
                       res.totals[i], res.win[i])
        counts[i, 0] = memo.plan[MEMO_RULE]
        counts[i, 1] = memo.plan[MEMO_RULE + 1]


__all__ = ["play_range_counted"]
