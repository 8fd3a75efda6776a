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


def test_the_skill_gap_is_between_the_strongest_and_weakest_strategies_at_the_table():
    """`compare --seats net,expert,builder,greedy` named expert and greedy, leaving net out: only heuristics
    counted.  Every strategy counts, by its baseline win share as simulate gives it (a strategy in
    two seats: their mean); one strategy at the table has no gap, and no rotation."""
    c = compare([Variant("same")], 4, ("random", "greedy", "builder", "greedy"), games=200, seed=1)
    shares = {name: e["win_share"] for name, e in c.by_strategy[0].items()}
    assert list(shares) == ["random", "greedy", "builder"] and c.rotate
    assert (c.strongest, c.weakest) == (max(shares, key=shares.get), min(shares, key=shares.get))
    assert c.weakest == "random"   # not a heuristic: left out before
    gap = c.estimates[0]["skill_gap"]
    assert gap["mean"] == pytest.approx(shares[c.strongest] - shares[c.weakest])
    assert gap["lo"] < gap["mean"] < gap["hi"]
    one = compare([Variant("same")], 2, ("greedy", "greedy"), games=50, seed=1)
    assert one.estimates[0]["skill_gap"] is None and one.strongest is None and one.rotate is False


def test_each_strategy_s_standings_are_simulate_s_for_the_same_games():
    """Per variant, each strategy's win share and game score with their intervals and n: the numbers simulate
    prints for those games (one tally; chunking changes nothing)."""
    from gnoming_sim.batch.runner import BatchSpec, run_batch

    seats = ("random", "greedy", "builder", "greedy")
    c = compare([Variant("b10", RuleConfig(early_finish_bonus=10))], 4, seats, games=150, seed=2, chunk_size=40)
    for variant, by_strategy in zip(c.variants, c.by_strategy):
        summary = run_batch(BatchSpec.make(4, seats, 150, seed=2, rules=variant.rules)).summary
        assert by_strategy == summary["by_strategy"], variant.name
        assert all(e["n_games"] == 150 and e["win_ci95"][0] < e["win_share"] < e["win_ci95"][1] or
                   e["win_share"] == 0 for e in by_strategy.values())
    assert c.to_dict()["variants"][1]["by_strategy"] == c.by_strategy[1]


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


def _seat_wins(rng, shares, games):
    """Per-game win credit of one winner a game drawn with these seat shares."""
    winner = rng.choice(len(shares), size=games, p=shares)
    seat_win = np.zeros((games, len(shares)))
    seat_win[np.arange(games), winner] = 1.0
    return seat_win


@pytest.mark.parametrize("shares,games", [((0.25, 0.25, 0.25, 0.25), 60), ((0.25, 0.25, 0.25, 0.25), 2000),
                                          ((0.32, 0.25, 0.23, 0.20), 400), ((0.5, 0.5), 200),
                                          ((0.2, 0.2, 0.15, 0.15, 0.15, 0.15), 1000)])
def test_the_seat_spread_interval_covers_the_true_spread_by_simulation(shares, games):
    """The seat spread's 95% interval covers the true spread (highest minus lowest share) in at least 95% of 400
    simulated studies (0.93 allowed for the simulation's own noise, 1.1 points), with no seat advantage (where the
    percentile bootstrap it replaced covered 0 in none: its interval lay above the biased estimate) and with one;
    it always holds its estimate."""
    from gnoming_sim.experiments.compare import spread_interval

    rng = np.random.default_rng(3)
    truth = max(shares) - min(shares)
    hits = 0
    for _ in range(400):
        est = spread_interval(_seat_wins(rng, shares, games))
        assert est["lo"] <= est["mean"] <= est["hi"]
        hits += est["lo"] <= truth <= est["hi"]
    assert hits / 400 >= 0.93


@pytest.mark.parametrize("paired", [True, False])
def test_the_seat_spread_changes_interval_covers_the_true_change_by_simulation(paired):
    """A variant's change of the spread (0.24 under the variant, 0 under the baseline; the same games or other
    games) is covered by its 95% interval in at least 95% of 400 simulated studies (0.93 allowed)."""
    from gnoming_sim.experiments.compare import spread_interval

    rng = np.random.default_rng(4)
    hits = 0
    for _ in range(400):
        base = _seat_wins(rng, (0.25, 0.25, 0.25, 0.25), 400)
        if paired:   # the same games: the variant moves some wins from the last seat to the first
            var = base.copy()
            move = (var[:, 3] == 1) & (rng.random(400) < 0.48)
            var[move, 3], var[move, 0] = 0.0, 1.0
        else:
            var = _seat_wins(rng, (0.37, 0.25, 0.25, 0.13), 400)
        ch = spread_interval(var, base, paired)
        assert ch["lo"] <= ch["mean"] <= ch["hi"]
        hits += ch["lo"] <= 0.24 <= ch["hi"]
    assert hits / 400 >= 0.93
