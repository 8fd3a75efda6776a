"""Rules and deck configuration: defaults, TOML loading, and every user mistake -> GnomingError."""
from __future__ import annotations

import dataclasses

import pytest

from gnoming_sim import PUBLISHED
from gnoming_sim import Deck
from gnoming_sim import GnomingError
from gnoming_sim import RuleConfig
from gnoming_sim.game import cards
from gnoming_sim.game.deck import check_players, load_deck
from gnoming_sim.game.rules import load_rules


# ------------------------------------------------------------------ rules
def test_rule_defaults_follow_rules_md():
    r = RuleConfig()
    assert r.rotate_start is True
    assert r.discard_draw_must_be_kept is True
    assert r.mulligan_limit == 1
    assert r.hazard_placeable is True
    assert r.reshuffle_when_empty is True
    assert r.max_turns == 500
    assert r.mulligans_per_line == 1
    assert r.finisher_tie_is_lowest is True
    assert (r.early_finish_bonus, r.hazard_value, r.mulligan_value, r.negative_multiplier) == (5, 10, 0, 1)
    assert load_rules(None) == r


def test_rule_config_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        RuleConfig().max_turns = 3


def test_rules_from_toml(write_toml):
    path = write_toml("rotate_start = false\nmax_turns = 300\n")
    r = RuleConfig.from_toml(path)
    assert r == RuleConfig(rotate_start=False, max_turns=300)


def test_rules_from_toml_rules_table(write_toml):
    path = write_toml("[rules]\nmulligan_limit = 0\n")
    assert load_rules(path).mulligan_limit == 0


def test_rules_round_trip_through_toml(write_toml):
    r = RuleConfig(hazard_placeable=False, mulligans_per_line=2)
    assert RuleConfig.from_toml(write_toml(r.to_toml())) == r


def test_card_values_round_trip_through_toml(write_toml):
    r = RuleConfig(hazard_value=15, mulligan_value=-3, negative_multiplier=2)
    assert "hazard_value = 15\nmulligan_value = -3\nnegative_multiplier = 2\n" in r.to_toml()
    assert RuleConfig.from_toml(write_toml(r.to_toml())) == r
    assert RuleConfig.from_toml(write_toml("[rules]\nhazard_value = 15\n")) == RuleConfig(hazard_value=15)


def test_describe_lists_every_option_with_default():
    rows = RuleConfig(max_turns=42).describe()
    assert [row[0] for row in rows] == [f.name for f in dataclasses.fields(RuleConfig)]
    assert ("max_turns", 42, 500) == rows[[r[0] for r in rows].index("max_turns")][:3]
    assert all(row[3] for row in rows)


def test_unknown_rules_key_is_named(write_toml):
    path = write_toml("rotate_start = true\nbounce_forever = true\n")
    with pytest.raises(GnomingError, match="bounce_forever"):
        RuleConfig.from_toml(path)


@pytest.mark.parametrize("text, name", [
    ('rotate_start = "yes"\n', "rotate_start"),
    ("rotate_start = 1\n", "rotate_start"),
    ("max_turns = 2.5\n", "max_turns"),
    ("max_turns = true\n", "max_turns"),
    ("max_turns = 0\n", "max_turns"),
    ("mulligan_limit = -1\n", "mulligan_limit"),
])
def test_bad_rules_value_is_named(write_toml, text, name):
    with pytest.raises(GnomingError, match=name):
        RuleConfig.from_toml(write_toml(text))


@pytest.mark.parametrize("name, low, high", [("hazard_value", 1, 50), ("mulligan_value", -20, 20),
                                             ("negative_multiplier", 0, 3), ("early_finish_bonus", 0, 50)])
def test_card_value_options_take_their_range_and_no_more(name, low, high):
    assert getattr(RuleConfig(**{name: low}), name) == low and getattr(RuleConfig(**{name: high}), name) == high
    for bad in (low - 1, high + 1):
        with pytest.raises(GnomingError) as info:
            RuleConfig(**{name: bad})
        assert str(info.value) == f"rules option '{name}' must be {low}..{high}, got {bad}"
    with pytest.raises(GnomingError, match=f"rules option '{name}' must be an integer, got 1.5"):
        RuleConfig(**{name: 1.5})


def test_malformed_rules_toml(write_toml):
    with pytest.raises(GnomingError, match="not valid TOML"):
        RuleConfig.from_toml(write_toml("rotate_start = = false\n"))


def test_missing_rules_file(tmp_path):
    with pytest.raises(GnomingError, match="not found"):
        RuleConfig.from_toml(tmp_path / "nope.toml")


def test_to_array_has_one_entry_per_option():
    a = RuleConfig(max_turns=77).to_array()
    assert a.dtype.kind == "i" and len(a) == len(dataclasses.fields(RuleConfig))
    assert 77 in a
    from gnoming_sim.game.rules import R_HAZARD_VALUE, R_MULLIGAN_VALUE, R_NEGATIVE_MULTIPLIER
    b = RuleConfig(hazard_value=15, mulligan_value=-3, negative_multiplier=2).to_array()
    assert (b[R_HAZARD_VALUE], b[R_MULLIGAN_VALUE], b[R_NEGATIVE_MULTIPLIER]) == (15, -3, 2)


# ------------------------------------------------------------------ decks
def test_published_deck_matches_rules_md():
    assert PUBLISHED.size == 110
    assert PUBLISHED.count(cards.HAZARD) == 3
    assert PUBLISHED.count(cards.MULLIGAN) == 3
    assert sum(PUBLISHED.count(v) for v in range(3, 9)) == 82
    assert sum(PUBLISHED.count(v) for v in range(-4, 0)) == 22
    assert all(PUBLISHED.count(v) == 0 for v in (0, 1, 2, 9))
    assert load_deck(None) is PUBLISHED
    assert len(PUBLISHED.to_array()) == 110


def test_deck_from_toml_cards_table(write_toml):
    path = write_toml('name = "tiny"\n[cards]\n"6" = 40\n"-2" = 10\nH = 1\nmulligan = 2\n')
    deck = Deck.from_toml(path)
    assert deck.name == "tiny"
    assert deck.size == 53
    assert deck.to_dict() == {"-2": 10, "6": 40, "H": 1, "M": 2}


def test_deck_from_toml_top_level_keys(write_toml):
    deck = load_deck(write_toml('"5" = 60\nM = 3\n'))
    assert deck.size == 63 and deck.count(5) == 60


def test_unknown_card_name_is_named(write_toml):
    with pytest.raises(GnomingError, match="joker"):
        Deck.from_toml(write_toml('[cards]\n"6" = 50\njoker = 2\n'))


def test_card_value_out_of_range(write_toml):
    with pytest.raises(GnomingError, match=r"card '99' is not a card of the game \(allowed: -4..-1, 3..8, H/hazard, M/mulligan\)"):
        Deck.from_toml(write_toml('[cards]\n"6" = 50\n"99" = 2\n'))


def test_negative_count_is_rejected(write_toml):
    with pytest.raises(GnomingError, match=r"count of card '3' must be 0..1000, got -1"):
        Deck.from_toml(write_toml('[cards]\n"6" = 50\n"3" = -1\n'))


def test_non_integer_count_is_rejected(write_toml):
    with pytest.raises(GnomingError, match="integer"):
        Deck.from_toml(write_toml('[cards]\n"6" = "many"\n'))


def test_malformed_deck_toml(write_toml):
    with pytest.raises(GnomingError, match="not valid TOML"):
        Deck.from_toml(write_toml("[cards\n"))


def test_deck_too_small_for_seven_players():
    # 7 layouts of 9 + 2 discard seeds + 1 per hazard = 65 + hazards
    deck = Deck.from_mapping({6: 60, "H": 2})
    deck.validate_for(2)
    with pytest.raises(GnomingError, match="7 players need at least 67"):
        deck.validate_for(7)
    Deck.from_mapping({6: 65, "H": 2}).validate_for(7)


@pytest.mark.parametrize("players", [2, 3, 7])
def test_published_deck_deals_every_table(players):
    PUBLISHED.validate_for(players)


@pytest.mark.parametrize("players", [1, 8, 0, -3])
def test_player_count_out_of_range(players):
    with pytest.raises(GnomingError, match="between 2 and 7"):
        check_players(players)
    with pytest.raises(GnomingError, match="between 2 and 7"):
        PUBLISHED.validate_for(players)


def test_player_count_must_be_integer():
    with pytest.raises(GnomingError):
        check_players(4.0)
    with pytest.raises(GnomingError):
        check_players(True)
