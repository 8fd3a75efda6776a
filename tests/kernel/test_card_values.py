"""The card-value options (hazard_value, mulligan_value, negative_multiplier): worked
examples, the kernel's scoring against the referee's on random layouts and values, the unseen-card
bookkeeping and the estimates reading them, and a batch played under them."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gnoming_sim.game.cards import HAZARD as H, HIDDEN, MULLIGAN as M, SLOT_OFFSET, card_cost
from gnoming_sim.game.deck import PUBLISHED
from gnoming_sim.game.fields import F_HAZARDS, F_NEGATIVES, F_UNMATCHED
from gnoming_sim.game.observation import (O_HAZARD_VALUE, O_MULLIGAN_VALUE, O_NEGATIVE_MULTIPLIER, U_COUNT, U_FACES,
                                          U_NEGATIVES)
from gnoming_sim.game.rules import R_HAZARD_VALUE, R_MULLIGAN_VALUE, R_NEGATIVE_MULTIPLIER, RuleConfig
from gnoming_sim.kernel import scoring as kernel_scoring
from gnoming_sim.kernel.engine import deck_counts, score_layout, score_layout_parts, simulate
from gnoming_sim.kernel.policy import heuristic as HEU
from gnoming_sim.kernel.policy.dispatch import N_PARAMS
from gnoming_sim.kernel.policy.estimate import estimate
from gnoming_sim.reference import scoring as referee_scoring
from _observations import observation

from _examples import examples

EXAMPLE_1 = [6, 6, 6, 3, 4, 5, -1, H, M]   # rules.md worked example 1: 15 under the published values
CARDS = [-4, -3, -2, -1, 3, 4, 5, 6, 7, 8, H, M]


def items(layout):
    """A layout of card codes as score_layout takes it: values, 'H' and 'M'."""
    return ["H" if c == H else "M" if c == M else c for c in layout]


def values(rules: RuleConfig):
    """(hazard_value, mulligan_value, negative_multiplier) as the kernels get them: int64s of the rules array."""
    a = rules.to_array()
    return a[R_HAZARD_VALUE], a[R_MULLIGAN_VALUE], a[R_NEGATIVE_MULTIPLIER]


# ---------------------------------------------------------------- worked examples (rules.md)
@pytest.mark.parametrize("options, total", [
    ({}, 15),
    ({"hazard_value": 15}, 20),                 # the hazard +15
    ({"negative_multiplier": 2}, 14),           # the -1 scores -2
    ({"negative_multiplier": 0}, 16),           # the -1 scores nothing
    ({"mulligan_value": 3}, 18),                # the mulligan lies in no matched line
    ({"hazard_value": 1, "mulligan_value": -2, "negative_multiplier": 3}, -6 + 12 - 3 + 1 - 2),
])
def test_example_one_under_other_card_values(options, total):
    rules = RuleConfig(**options)
    assert score_layout(items(EXAMPLE_1), rules) == referee_scoring.score_layout(EXAMPLE_1, rules) == total


def test_a_hazard_scores_hazard_value_in_the_parts():
    parts = score_layout_parts(items(EXAMPLE_1), RuleConfig(hazard_value=15))
    assert (parts["matched"], parts["unmatched"], parts["negatives"], parts["hazards"]) == (-6, 12, -1, 15)
    two = score_layout_parts(items([H, 3, 4, 5, H, 6, 7, 8, 3]), RuleConfig(hazard_value=15))
    assert two["hazards"] == 30 and two["total"] == 30 + 3 + 4 + 5 + 6 + 7 + 8 + 3


def test_a_mulligan_in_a_matched_line_still_scores_nothing():
    covered = items([5, 5, M, 7, 8, 5, 3, 4, 5])   # example 2: the mulligan completes a row and a column
    assert score_layout(covered, RuleConfig(mulligan_value=7)) == score_layout(covered) == 12
    loose = items([8, M, M, 8, 8, 8, 4, 5, 6])     # example 5: two mulligans, no matched line through either
    assert score_layout(loose, RuleConfig(mulligan_value=3)) == 15 + 2 * 3
    assert score_layout_parts(loose, RuleConfig(mulligan_value=3))["unmatched"] == 8 + 4 + 5 + 6 + 6


# ---------------------------------------------------------------- kernel against referee
rules_st = st.builds(RuleConfig, mulligans_per_line=st.integers(0, 3), hazard_value=st.integers(1, 50),
                     mulligan_value=st.integers(-20, 20), negative_multiplier=st.integers(0, 3))


@settings(max_examples=examples(1500), deadline=None)
@given(layout=st.lists(st.sampled_from(CARDS), min_size=9, max_size=9), rules=rules_st,
       up=st.lists(st.booleans(), min_size=9, max_size=9))
def test_kernel_and_referee_score_alike_under_any_card_values(layout, rules, up):
    parts = np.zeros(kernel_scoring.N_PARTS, dtype=np.int32)
    total = kernel_scoring.score_parts(np.array(layout, dtype=np.int8), rules.to_array(), parts)
    want = referee_scoring.score_parts(layout, rules)
    assert tuple(int(p) for p in parts[:4]) == want and total == sum(want)
    seen = np.array([c if u else HIDDEN for c, u in zip(layout, up)], dtype=np.int8)
    assert kernel_scoring.visible_score(seen, rules.to_array()) == referee_scoring.visible_score(layout, up, rules)


# ---------------------------------------------------------------- what the players see
@settings(max_examples=examples(200), deadline=None)
@given(rules=rules_st, seen=st.lists(st.integers(0, 109), max_size=60, unique=True))
def test_the_unseen_cards_are_priced_by_the_rules(rules, seen):
    """The running face-value sums, priced by unseen_cost, equal the sum of card_cost over the unseen cards."""
    deck = PUBLISHED.to_array().astype(np.int8)
    unseen = np.delete(deck, seen)
    counts = deck_counts(unseen)
    assert counts[U_COUNT] == unseen.size and counts[U_NEGATIVES] == int(unseen[unseen < 0].sum())
    assert kernel_scoring.unseen_cost(counts, *values(rules)) == sum(card_cost(int(c), rules) for c in unseen)


def _with_values(pub, rules):
    pub = pub.copy()
    pub[O_HAZARD_VALUE], pub[O_MULLIGAN_VALUE], pub[O_NEGATIVE_MULTIPLIER] = values(rules)
    return pub


def test_the_heuristics_mean_unseen_cost_reads_the_card_values():
    obs = observation([[HIDDEN] * 9, [HIDDEN] * 9])
    unknown = obs.unknown.copy()
    unknown[H + SLOT_OFFSET] = 2
    unknown[-2 + SLOT_OFFSET] = 3
    unknown[U_COUNT] += 5
    unknown[U_FACES] += -6
    unknown[U_NEGATIVES] = -6
    prm = np.zeros(N_PARAMS)
    base = 4 * (3 + 4 + 5 + 6 + 7 + 8)
    for rules, total in [(RuleConfig(), base + 20 - 6), (RuleConfig(hazard_value=30, negative_multiplier=2),
                                                        base + 60 - 12)]:
        o = obs._replace(pub=_with_values(obs.pub, rules), unknown=unknown)
        assert HEU.unseen_mean(o, prm) == total / 29


def test_the_estimate_prices_a_face_up_hazard_at_hazard_value():
    row = np.array([H, HIDDEN, HIDDEN, HIDDEN, -3, HIDDEN, HIDDEN, M, HIDDEN], dtype=np.int8)
    mpl = np.int64(1)

    def est(**options):
        return estimate(row, -1, 0, 0.0, mpl, 0.0, 0.0, *values(RuleConfig(**options)))

    assert est() == 10 - 3
    assert est(hazard_value=15) == 15 - 3
    assert est(mulligan_value=4, negative_multiplier=2) == 10 + 4 - 6


# ---------------------------------------------------------------- a batch under the options
def test_a_batch_under_hazard_value_15_scores_hazards_at_15():
    rules = RuleConfig(hazard_value=15, negative_multiplier=2)
    res = simulate(players=4, strategies=["random", "expert", "learned", "card-starred"], games=40, seed=34, rules=rules)
    stats = res.round_stats
    assert (stats[..., F_HAZARDS] % 15 == 0).all() and (stats[..., F_HAZARDS] > 0).any()
    assert (stats[..., F_NEGATIVES] % 2 == 0).all() and (stats[..., F_NEGATIVES] < 0).any()
    assert (stats[..., F_UNMATCHED] >= 0).all()
