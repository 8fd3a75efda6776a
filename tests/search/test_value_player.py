"""The value player (``value``): the value network's best option at 0-ply (gnoming_sim/search/value_player.py)."""
import json

import numpy as np
import pytest

import gnoming_sim  # noqa: F401  (registers the value player's batch kernel)
from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.kernel.engine import deck_counts, seat_table, simulate
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.dispatch import KIND_NET, KIND_VALUE, M_BUDGET, N_PARAMS, V_W0, base_kind
from gnoming_sim.kernel.value import N_WEIGHTS
from gnoming_sim.kernel.value_weights import weights


def _small(deals=2):
    return registry.value_from_file(name=f"value{deals}", deals=deals)


def test_the_preset_carries_the_installed_network_and_plays_net_elsewhere():
    s = registry.get("value")
    v = s.param_vector()
    assert s.kind == KIND_VALUE and v.shape == (N_PARAMS,)
    assert np.array_equal(v[V_W0:V_W0 + N_WEIGHTS], weights())
    assert v[M_BUDGET] == registry.VALUE_DEALS
    net = registry.get("net").param_vector()
    assert np.array_equal(v[:V_W0][np.arange(V_W0) != M_BUDGET], net[:V_W0][np.arange(V_W0) != M_BUDGET])
    assert base_kind(KIND_VALUE, v) == KIND_NET


def test_weights_of_another_network_are_refused_in_one_sentence(tmp_path):
    bad = tmp_path / "w.json"
    bad.write_text(json.dumps({"format": 1, "weights": [0.0] * 3}))
    with pytest.raises(GnomingError, match="value network's weights") as e:
        registry.value_from_file(bad)
    assert "\n" not in str(e.value)


def test_games_are_reproducible_at_any_thread_count_and_differ_from_net():
    seats = [_small(), "net", "net"]
    a = simulate(players=3, strategies=seats, games=6, seed=5, rotate=True, threads=1)
    b = simulate(players=3, strategies=seats, games=6, seed=5, rotate=True, threads=2)
    assert np.array_equal(a.totals, b.totals) and np.array_equal(a.round_stats, b.round_stats)
    c = simulate(players=3, strategies=["net"] * 3, games=6, seed=5, rotate=True)
    assert not np.array_equal(a.round_stats, c.round_stats)   # the value seat decides for itself


def test_decisions_do_not_change_when_hidden_cards_are_permuted():
    """Every decision the value seats take themselves, asked again with every hidden card permuted (all
    face-down cards, their own included, and the draw pile) from the same random state, is answered the same
    (the harness catches a player that reads the true cards: tests/search/test_mcx.py's peek case)."""
    from gnoming_sim.search.bot import N_COST
    from gnoming_sim.search.probe import check_game_value

    players = 3
    strats, seat_strategy = seat_table(players, [_small(), "net", _small()], 1, 0, False)
    kinds = np.array([s.kind for s in strats], dtype=np.int64)
    params = np.array([s.param_vector() for s in strats], dtype=np.float64).reshape(-1, N_PARAMS)
    deck = PUBLISHED.to_array()
    counts = deck_counts(deck)
    rules = np.concatenate([RuleConfig().to_array(), counts])
    out = np.zeros(2 * N_COST, dtype=np.int64)
    for game in range(2):
        check_game_value(game, np.uint64(3), seat_strategy[0].copy(), kinds, params, rules, deck, counts,
                         1000 + 100_000 * game, out)
    decided, differed = out[:N_COST], out[N_COST:]
    assert decided[0] > 0 and decided[1] >= 20, decided   # draw sources and placements of its own
    assert differed.sum() == 0, differed


def test_the_rules_without_the_decks_counts_are_refused_not_played():
    """A value seat asked with the plain rules vector (no deck's counts after it, which a round its option
    ends needs) raises, never deals a round from an empty deck."""
    from gnoming_sim.cli.board import play_table as PT
    from gnoming_sim.search.value_player import decide_value

    setup = PT.setup_of({"players": 2, "seat": 0, "opponents": "value", "seed": 3}, RuleConfig(), PUBLISHED,
                        lambda text, name: None)
    g = PT.PlayGame(setup, PUBLISHED)
    while not (g.state() == "others" and g.pending() in (2, 3)):
        g.act(g.strategy_move()) if g.state() == "you" else g.other_step()
    with pytest.raises(ValueError, match="deck's counts"):
        decide_value(g.t, g.rules)
    assert decide_value(g.t, np.concatenate([g.rules, g.counts])) >= 0
