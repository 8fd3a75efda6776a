"""card_options: at every covered decision of a traced game, the option each of a cell's actions
would play is a legal option; the current action's is what the card played in the game; an action played as
itself is of that action (take: its pile; finish: covers the last face-down card; face-down: a face-down slot;
throw away: the discard; best use: a position of the cell's use); the card is a parameter (a card with one cell
changed answers that cell's new action)."""
from __future__ import annotations

import numpy as np
import pytest

from gnoming_sim.game.cards import HIDDEN
from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.fields import F_SCORE
from gnoming_sim.game.record_trace import decisions
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.kernel.engine import simulate
from gnoming_sim.kernel.policy import card as C
from gnoming_sim.search.card import card_options
from gnoming_sim.search.options import legal_options
from gnoming_sim.tune.card.iterate import card_strategy, cell_words, committed_cells


@pytest.fixture(scope="module")
def covered():
    out = []
    for P in (2, 5):
        res = simulate(P, ["card"] + ["net"] * (P - 1), games=2, seed=7, trace=True, rotate=True, threads=1)
        me = list(res.strategy_names).index("card")
        for g in range(2):
            seat = int(np.argmax(res.seat_strategy[g] == me))
            for d in decisions(res.deals[g], res.traces[g], P, seat, RuleConfig(), PUBLISHED,
                               res.round_stats[g, :, :, F_SCORE]):
                co = card_options(d.position)
                if co:
                    out.append((d, co))
    return out


def _of_action(pos, entry, action, key, opts) -> bool:
    table, cell = entry["table"], entry["cell"]
    if table == "source":
        return (key == entry["pile"]) if action == "take" else (key != entry["pile"])
    if table == "finish":
        return opts[key].finishes == (action == "finish")
    if action == "throw away":
        return key == "discard"
    q = int(key[3:])
    row = np.asarray(pos.layouts[pos.me])
    if action == "face-down":
        return row[q] == HIDDEN
    use = C.USE_NAMES.index(cell_words(cell)["use"])     # best use: a line completed or paired, or a face-up card
    return use < C.U_FACEDOWN and (use in (C.U_COMPLETE, C.U_PAIR) or row[q] != HIDDEN)


def test_every_action_plays_a_legal_option_of_that_action(covered):
    tables = {e["table"] for _, co in covered for e in co}
    assert tables == {"source", "place", "finish"}, tables
    differ = 0
    for d, co in covered:
        opts = {o.key: o for o in legal_options(d.position)}
        for e in co:
            names = C.ACTION_NAMES[C.TABLE_NAMES.index(e["table"])]
            assert list(e["actions"]) == list(names) and e["current"] in names
            assert set(e["actions"].values()) <= set(opts), (e, list(opts))
            assert e["direct"], e                         # the current action or another is always playable
            for a in e["direct"]:
                assert _of_action(d.position, e, a, e["actions"][a], opts), (a, e)
            differ += len(set(e["actions"].values())) > 1
        if len(co) == 1:                                  # the card's own answer: what it played in the game
            assert co[0]["actions"][co[0]["current"]] == d.played, (d.where, co, d.played)
    assert differ >= 20


def test_the_card_is_a_parameter(covered):
    """A card with one cell set to another action answers it there (the decisions of that cell now play the
    option that action played)."""
    d, co = next((d, co) for d, co in covered if len(co) == 1 and len(set(co[0]["actions"].values())) > 1)
    e = co[0]
    other = next(a for a in e["direct"] if e["actions"][a] != e["actions"][e["current"]])
    cells = committed_cells()
    cells[e["cell"]] = C.ACTION_NAMES[C.TABLE_NAMES.index(e["table"])].index(other) + 1
    [mine] = card_options(d.position, card_strategy(cells))
    assert mine["current"] == other and mine["actions"] == e["actions"]
