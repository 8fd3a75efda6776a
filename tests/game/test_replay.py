"""The one trace walker (game/replay.walk): every record of seeded games applies without a
disagreement, every card is somewhere after every record, the table it ends each round with
scores as the engine scored it, and a record that names the wrong card is caught."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from gnoming_sim.game import fields as F
from gnoming_sim.game import trace as T
from gnoming_sim.game.cards import HAZARD, MULLIGAN, NO_CARD
from gnoming_sim.game.deck import PUBLISHED, Deck
from gnoming_sim.game.replay import walk
from gnoming_sim.kernel.engine import score_layout, simulate

# a small deck: the draw pile runs out and is rebuilt from the discards (RESHUFFLE, CARD records)
SMALL = Deck.from_mapping({3: 8, 4: 8, 5: 8, -1: 3, "H": 1, "M": 1}, name="small")
CASES = [(3, ("greedy",), PUBLISHED), (5, ("random",), PUBLISHED), (2, ("random",), SMALL),
         (4, ("builder", "rusher", "cautious", "random"), PUBLISHED)]


def _item(c: int):
    """A card as score_layout takes it: the value, 'H' or 'M'."""
    return {HAZARD: "H", MULLIGAN: "M"}.get(c, c)


def _every_card(table, players) -> Counter:
    cards = [c for s in range(players) for c in table.layout(s)]
    cards += table.pile(0) + table.pile(1) + table.draw_pile() + [HAZARD] * table.removed
    if table.hand != NO_CARD:
        cards.append(table.hand)
    return Counter(cards)


@pytest.mark.parametrize("players, seats, deck", CASES, ids=["greedy-3", "random-5", "small-deck-2", "mixed-4"])
def test_walk_keeps_every_card_and_ends_each_round_as_the_engine_scored_it(players, seats, deck):
    res = simulate(players=players, strategies=seats, games=6, seed=11, trace=True, deck=deck, threads=1)
    whole = Counter(int(c) for c in deck.to_array())
    kinds = Counter()
    for g in range(res.games):
        for _, (kind, seat, a, b), table in walk(res.deals[g], res.traces[g], players):
            kinds[kind] += 1
            if kind not in (T.RESHUFFLE, T.CARD):   # the new draw pile fills record by record
                assert _every_card(table, players) == whole
            if kind == T.ROUND_END:
                for s in range(players):
                    stats = res.round_stats[g, a, s]
                    assert score_layout([_item(c) for c in table.layout(s)], res.rules) == \
                        stats[F.F_SCORE] - stats[F.F_BONUS]
        assert table.turns == int((res.traces[g][:, 0] == T.TURN).sum())
    if deck is SMALL:
        assert kinds[T.RESHUFFLE] > 0 and kinds[T.CARD] > 0   # the walk met a reshuffle


def test_a_record_naming_the_wrong_card_is_caught():
    res = simulate(players=3, strategies=("random",), games=1, seed=2, trace=True)
    trace = res.traces[0].copy()
    i = int(np.flatnonzero(trace[:, 0] == T.DRAW)[0])
    trace[i, 3] = 8 if trace[i, 3] != 8 else 7
    with pytest.raises(ValueError, match=f"trace record {i} DRAW"):
        list(walk(res.deals[0], trace, 3))
