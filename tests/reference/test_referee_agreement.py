"""Differential test: the jitted kernel against the pure-Python referee (RULES.md).

Every traced game is replayed by the referee, which checks each action's legality, card
conservation at every turn, and every score; the rare rule paths are counted, and each
must actually occur in the sample.
"""
import pytest

from gnoming_sim.experiments.compare import HOUSE_RULES
from gnoming_sim.game.deck import Deck
from gnoming_sim.game.rules import RuleConfig

from _referee_harness import referee_check
from _examples import games

GAMES_PER_TABLE = {2: 4000, 3: 4000, 4: 3500, 5: 3000, 6: 3000, 7: 2500}  # 20,000 games


@pytest.fixture(scope="module")
def default_counts():
    total = None
    for players, games in GAMES_PER_TABLE.items():
        c = referee_check(players, games, seed=1000 + players, processes=2)
        total = c if total is None else total.merge(c)
    return total


@pytest.mark.slow
def test_twenty_thousand_random_games_agree_with_the_referee(default_counts):
    assert default_counts.games == sum(GAMES_PER_TABLE.values()) >= 20_000
    assert default_counts.rounds == 3 * default_counts.games


@pytest.mark.slow   # rests on the 20,000-game replay
@pytest.mark.parametrize("path", [
    "bounce_chains_ge2", "hazard_flips", "hazard_flip_declined", "hazard_flip_refused_final_card",
    "forced_discards", "reshuffles", "shared_wins", "finisher_ties_lowest", "finisher_bonus_minus",
    "finisher_bonus_plus", "setup_hazards", "hazards_placed", "mulligans_placed",
    "mulligan_limit_blocked", "final_lap_turns",
])
def test_rare_paths_occur_and_are_validated(default_counts, path):
    assert getattr(default_counts, path) > 0, f"{path} never happened in {default_counts.games} games"


def test_stalled_rounds_when_the_deck_runs_dry():
    """A deck of exactly 9P+2 cards: the first blind draw finds nothing to reshuffle."""
    tiny = Deck.from_mapping({"3": 6, "4": 6, "5": 6, "-1": 2}, name="tiny")
    c = referee_check(2, 300, seed=7, deck=tiny)
    assert c.stalls_no_cards > 0 and c.stalled_rounds == c.stalls_no_cards + c.stalls_max_turns


def test_stalled_rounds_at_the_turn_cap():
    c = referee_check(4, 400, seed=8, rules=RuleConfig(max_turns=12))
    assert c.stalls_max_turns > 0


NON_DEFAULT = [
    RuleConfig(rotate_start=False, finisher_tie_is_lowest=False),
    RuleConfig(discard_draw_must_be_kept=False, hazard_placeable=False),
    RuleConfig(mulligan_limit=0, mulligans_per_line=2),
    RuleConfig(mulligan_limit=2, mulligans_per_line=3, max_turns=60),
    RuleConfig(reshuffle_when_empty=False),
    RuleConfig(mulligans_per_line=0, mulligan_limit=1, rotate_start=False,
               discard_draw_must_be_kept=False, finisher_tie_is_lowest=False),
    RuleConfig(bouncing=False),
    RuleConfig(early_finish_bonus=10, finisher_tie_is_lowest=False),
    RuleConfig(early_finish_bonus=0),
    RuleConfig(hazard_value=15),
    RuleConfig(hazard_value=25, mulligan_value=4, negative_multiplier=2),
    RuleConfig(hazard_value=1, mulligan_value=-3, negative_multiplier=0, mulligans_per_line=2),
]


@pytest.mark.parametrize("rules", NON_DEFAULT, ids=lambda r: ",".join(
    f"{k}={v}" for k, v in r.to_dict().items() if v != getattr(RuleConfig(), k)))
# make test-fast plays each rules set at 5 players; make test at 2 and 7 as well
@pytest.mark.parametrize("players", [pytest.param(2, marks=pytest.mark.slow), 5, pytest.param(7, marks=pytest.mark.slow)])
def test_non_default_rules_agree_with_the_referee(rules, players):
    c = referee_check(players, games(250), seed=77 + players, rules=rules)
    assert c.games == games(250)


def test_mulligan_rich_house_deck():
    """Many mulligans and hazards: the limit and hazard flips are hit constantly."""
    deck = Deck.from_mapping({"3": 10, "5": 10, "7": 10, "-2": 6, "H": 12, "M": 12}, name="wild")
    c = referee_check(4, 400, seed=3, deck=deck, rules=RuleConfig(mulligans_per_line=2))
    assert c.mulligan_limit_blocked > 0 and c.hazard_flips > 0
    c2 = referee_check(3, 300, seed=4, deck=deck, rules=RuleConfig(reshuffle_when_empty=False))
    assert c2.stalled_rounds > 0


@pytest.mark.parametrize("players", [pytest.param(2, marks=pytest.mark.slow), 4, pytest.param(7, marks=pytest.mark.slow)])
def test_heuristic_presets_play_legally(players):
    """Every preset at one table, seats varied: the referee accepts every game."""
    seats = (["greedy", "builder", "rusher", "cautious", "random"] * 2)[:players]
    c = referee_check(players, games(600), seed=90 + players, strategies=seats)
    assert c.games == games(600) and c.bounces > 0


def test_heuristic_presets_under_non_default_rules():
    rules = RuleConfig(mulligan_limit=0, mulligans_per_line=2, discard_draw_must_be_kept=False,
                       hazard_placeable=True, finisher_tie_is_lowest=False)
    c = referee_check(4, 400, seed=5, rules=rules, strategies=["cautious", "builder", "greedy", "rusher"])
    assert c.games == 400


@pytest.mark.slow
@pytest.mark.parametrize("variant", HOUSE_RULES, ids=lambda v: v.name)
def test_every_house_rules_variant_agrees_with_the_referee(variant):
    """The report's house-rules section plays these: 2,000 games each, heuristic and random seats."""
    c = referee_check(4, 2000, seed=404, rules=variant.rules, deck=variant.deck,
                      strategies=["builder", "greedy", "rusher", "random"], processes=2)
    assert c.games == 2000
    if not variant.rules.bouncing:
        assert c.bounces == 0


def test_every_kind_of_player_under_other_card_values():
    """The heuristic, learned and card-starred players price cards by the rules' values: the referee accepts
    their games, and every score, under values other than the published ones."""
    rules = RuleConfig(hazard_value=20, mulligan_value=3, negative_multiplier=2)
    c = referee_check(4, 300, seed=34, rules=rules, strategies=["expert", "learned", "card-starred", "random"])
    assert c.games == 300 and c.hazards_placed > 0


@pytest.mark.parametrize("players", [pytest.param(2, marks=pytest.mark.slow), 4, pytest.param(6, marks=pytest.mark.slow)])
def test_learned_player_plays_legally(players):
    """The learned player beside heuristic seats (and alone at 2 players): the referee accepts every game."""
    seats = ["learned", "expert", "learned", "builder", "random", "learned"][:players]
    c = referee_check(players, games(300), seed=60 + players, strategies=seats)
    assert c.games == games(300) and c.bounces > 0


@pytest.mark.parametrize("players", [pytest.param(2, marks=pytest.mark.slow), 4, pytest.param(6, marks=pytest.mark.slow)])
def test_card_starred_player_plays_legally(players):
    """The card-starred player (the card's starred cells, expert elsewhere) beside other seats: the referee accepts every game."""
    seats = ["card-starred", "expert", "learned", "card-starred", "random", "builder"][:players]
    c = referee_check(players, games(300), seed=90 + players, strategies=seats)
    assert c.games == games(300) and c.bounces > 0


@pytest.mark.parametrize("players", [pytest.param(2, marks=pytest.mark.slow), 4])
def test_card_player_plays_legally(players):
    """The card player (every resolved cell of the printed card, its defaults elsewhere): the referee accepts every game."""
    seats = ["card", "expert", "card-starred", "random"][:players]
    c = referee_check(players, games(300), seed=95 + players, strategies=seats)
    assert c.games == games(300) and c.bounces > 0


@pytest.mark.parametrize("players,rules", [(3, RuleConfig()), (4, RuleConfig(discard_draw_must_be_kept=False))])
def test_monte_carlo_games_agree_with_the_referee(players, rules):
    """The MC bot (small budget) beside heuristic and random seats: the referee accepts every game."""
    from gnoming_sim.experiments.mc_eval import mc_strategy

    seats = [mc_strategy(budget=2), "expert", "random", "builder"][:players]
    c = referee_check(players, 3, seed=17, rules=rules, strategies=seats)
    assert c.games == 3 and c.turns > 0


@pytest.mark.parametrize("players,deck", [
    (4, None),
    (3, Deck.from_mapping({"3": 12, "4": 12, "5": 12, "6": 12, "7": 12, "-1": 4, "-3": 4, "H": 14, "M": 3},
                          name="hazards")),
])
def test_adaptive_monte_carlo_games_agree_with_the_referee(players, deck):
    """mcx (small caps, bounces and hazard flips by rollouts too): the referee accepts every
    game, hazard flips included (a deck rich in hazards)."""
    from gnoming_sim.kernel.policy import registry

    small = registry.Strategy("mcx-small", registry.get("mcx").kind, "mcx, small caps",
                              dict(registry.get("mcx").params, mc_budget=8.0, mc_max=16.0, mc_min=2.0,
                                   mc_bounce=1.0, mc_hazard_flip=1.0))
    seats = [small, "expert", small, "random"][:players]
    c = referee_check(players, 3, seed=19, deck=deck, strategies=seats)
    assert c.games == 3 and c.turns > 0
    if deck is not None:
        assert c.hazard_flips > 0


def test_monte_carlo_over_net_games_agree_with_the_referee():
    """mc-net (small budget; net in its rollouts and for its other decisions, bounces by rollouts too) beside
    net, expert and random seats: the referee accepts every game."""
    from gnoming_sim.kernel.policy import registry

    small = registry.Strategy("mc-net-small", registry.get("mc-net").kind, "mc-net, budget 2",
                              dict(registry.get("mc-net").params, mc_budget=2.0, mc_bounce=1.0))
    c = referee_check(4, 3, seed=23, strategies=[small, "net", "expert", "random"])
    assert c.games == 3 and c.turns > 0
