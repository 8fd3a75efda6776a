"""The legal answers of a position's pending decision, from the kernel: the position's rollout
start (:mod:`.start`, the one builder) is entered on a table and the kernel's own
:func:`gnoming_sim.kernel.step.legal_actions` says what may be chosen — the same rule code the
games and the rollouts play by.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.game.cards import HIDDEN, card_name
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.naming import pile_name, position_name
from gnoming_sim.game.observation import CHOICE_NOKEEP, N_SOURCES
from gnoming_sim.game.position import Option, Position
from gnoming_sim.game.rules import LAYOUT


def legal_mask(pos: Position) -> np.ndarray:
    """int8[N_CHOICES]: the kernel's legal mask of ``pos``'s pending decision (a placement's after
    the card in hand is drawn again from its source)."""
    from gnoming_sim.kernel.policy.dispatch import N_PARAMS, new_memo
    from gnoming_sim.kernel.state import new_table
    from gnoming_sim.kernel.game_loop import step_once as step
    from gnoming_sim.kernel.step import legal_actions
    from gnoming_sim.search.start import enter, start_of_position

    start = start_of_position(pos)
    rules = pos.rules.to_array()
    t = new_table(pos.players, pos.deck.size, np.zeros(1, dtype=np.int64), np.zeros((1, N_PARAMS)),
                  np.zeros(pos.players, dtype=np.int16), np.zeros((0, 4), dtype=np.int32), new_memo())
    enter(t, rules, start, start.unseen.copy(), False)
    if pos.decision == "place":
        step(t, rules, pos.source)
    legal_actions(t, rules)
    return t.legal.copy()


def legal_options(pos: Position) -> list[Option]:
    """The legal answers to ``pos``'s pending decision, in a fixed order (draw: draw pile, pile 0,
    pile 1; place: positions 0..8, then throwing the card away; hazard flip: face-down positions,
    then declining), each with how the rollouts step it."""
    mask = legal_mask(pos)
    if pos.decision == "draw":
        opts = [Option("draw", "draw pile", 0, -1)]
        for k in range(2):
            if mask[1 + k]:
                top = pos.piles[k][-1]
                opts.append(Option(f"pile{k}", f"{pile_name(k)} ({card_name(top)})", 1 + k, -1))
        assert len(mask[:N_SOURCES].nonzero()[0]) == len(opts)
        return opts
    row = pos.layouts[pos.me]
    if pos.decision == "hazard_flip":
        opts = [Option(f"flip{q}", f"flip {position_name(q)}", -1, -1, flip=q) for q in range(LAYOUT) if mask[q]]
        return opts + [Option("decline", "decline the flip", -1, -1, flip=LAYOUT)]
    opts = []
    fd_me = int((row == HIDDEN).sum())
    for q in range(LAYOUT):
        if mask[q]:
            down = row[q] == HIDDEN
            finishes = bool(down and fd_me == 1 and pos.finisher < 0)
            what = "face down" if down else f"over {card_name(int(row[q]))}"
            label = f"put at {position_name(q)}, {what}{', finishes' if finishes else ''}"
            opts.append(Option(f"pos{q}", label, pos.source, q, finishes))
    if mask[CHOICE_NOKEEP]:
        opts.append(Option("discard", f"throw away {card_name(pos.hand)}", pos.source, LAYOUT))
    if not opts:
        raise GnomingError(f"{pos.origin or 'position'}: key 'decision.card': {card_name(pos.hand)} taken from a "
                           "pile cannot be placed, and must be kept")
    return opts
