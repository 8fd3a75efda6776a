"""House-rules comparison: paired differences on the same deals, unpaired across decks."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from gnoming_sim.experiments.compare import BASELINE, HOUSE_RULES, Variant, WILD_DECK, compare
from gnoming_sim.game.deck import Deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.rules import RuleConfig

SEATS = ("builder", "greedy", "rusher", "cautious")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_variant_equal_to_the_baseline_changes_nothing_exactly():
    """Same rules, same deck: same deals, same games, so every paired change is exactly 0."""
    c = compare([Variant("same")], 4, SEATS, games=300, seed=4)
    ch = c.changes[1]
    assert ch["paired"]
    for m in ("turns", "stalled", "score", "close", "skill_gap", "minus5", "seat_spread"):
        assert ch[m]["mean"] == 0 and ch[m]["lo"] == 0 and ch[m]["hi"] == 0, m
    assert c.estimates[0] == c.estimates[1]


def test_a_bigger_bonus_moves_the_score_by_the_bonus_difference():
    """With the same finishes, a +-10 bonus changes each finish's bonus by +-5: the paired change
    of the mean score must be close to 5 x (share of +bonus finishes - share of -bonus finishes)
    per game and seat — and well away from 0 (strategies hardly change with the bonus)."""
    c = compare([Variant("b10", RuleConfig(early_finish_bonus=10))], 4, SEATS, games=1500, seed=5)
    ch = c.changes[1]["score"]
    assert ch["lo"] > 0.5, ch


def test_paired_interval_is_narrower_than_unpaired_on_the_same_deals():
    c = compare([Variant("nb", RuleConfig(bouncing=False))], 4, SEATS, games=1500, seed=6)
    a, b = c.values[1].score, c.values[0].score
    paired = np.std(a - b, ddof=1)
    unpaired = math.hypot(np.std(a, ddof=1), np.std(b, ddof=1))
    assert paired < 0.8 * unpaired  # common random numbers pay
    width = c.changes[1]["score"]["hi"] - c.changes[1]["score"]["lo"]
    assert width == pytest.approx(2 * 1.96 * paired / math.sqrt(1500), rel=1e-9)


def test_another_deck_is_compared_unpaired():
    c = compare([Variant("wild", deck=WILD_DECK)], 4, SEATS, games=400, seed=7)
    assert c.changes[1]["paired"] is False
    assert c.to_dict()["variants"][1]["deck_cards"] == 116


def test_no_reshuffle_stalls_and_the_measure_sees_it():
    from gnoming_sim.kernel.engine import simulate
    from gnoming_sim.game.fields import F_STALLED

    small = Deck.from_mapping({"3": 6, "4": 6, "5": 6, "6": 6}, name="small")  # 4 cards to draw
    rules = RuleConfig(reshuffle_when_empty=False)
    c = compare([Variant("dry", rules, small)], 2, ("random", "random"), games=300, seed=8)
    direct = simulate(players=2, strategies=["random"], games=300, seed=8, rules=rules, deck=small, rotate=True)
    assert c.estimates[1]["stalled"]["mean"] == pytest.approx(direct.round_stats[:, :, 0, F_STALLED].mean())
    assert c.estimates[1]["stalled"]["mean"] > 0.05
    assert c.estimates[0]["stalled"]["mean"] == 0


def test_skill_gap_needs_two_heuristic_strategies():
    c = compare([Variant("same")], 2, ("random", "greedy"), games=100, seed=1)
    assert c.estimates[0]["skill_gap"] is None and c.strongest is None


@pytest.mark.parametrize("bad", [[Variant("baseline")], [Variant("a"), Variant("a")], [Variant("x,y")], []])
def test_bad_variant_lists_are_one_line_errors(bad):
    with pytest.raises(GnomingError):
        compare(bad, 4, SEATS, games=10, seed=0)


def test_the_example_files_are_the_report_variants():
    files = {"no bouncing": "nobounce.toml", "hazards unplaceable": "hazards-unplaceable.toml",
             "no reshuffle": "no-reshuffle.toml", "discard draw need not be kept": "free-discard-draw.toml",
             "fixed start seat": "fixed-start.toml", "early-finish bonus 10": "bonus10.toml"}
    for v in HOUSE_RULES:
        if v.name in files:
            assert RuleConfig.from_toml(EXAMPLES / files[v.name]) == v.rules, v.name
            assert v.deck.to_dict() == BASELINE.deck.to_dict()
        else:
            assert Deck.from_toml(EXAMPLES / "wild-deck.toml").to_dict() == v.deck.to_dict()
    assert len(HOUSE_RULES) >= 6


def test_the_seat_spread_interval_holds_its_estimate_where_the_true_spread_is_near_zero():
    """A highest-minus-lowest seat share is biased upwards in its bootstrap replicates: with 60 games and no
    seat advantage the percentile interval can lie above the estimate; the reported interval holds it (the
    house-rules study under strong play reported 0.033 with [0.050, 0.267] before the fix)."""
    import numpy as np

    from gnoming_sim.experiments.compare import _bootstrap_spread, _percentiles, _spread

    rng = np.random.default_rng(0)
    for _ in range(50):
        winner = rng.integers(0, 4, 60)
        seat_win = np.zeros((60, 4))
        seat_win[np.arange(60), winner] = 1.0
        est = _percentiles(_spread(seat_win), _bootstrap_spread(seat_win, None, False, 1))
        assert est["lo"] <= est["mean"] <= est["hi"]
