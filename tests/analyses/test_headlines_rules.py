"""The README block leads with the player's rules (each at most 40 words, plain words, its value
and table sizes), then the card and what following it wins or loses, then how often it agrees with the full
analysis; the dealt mulligan, the seats and net's own finishes go to the designers' part, per table size where
the sizes differ.  Checked on the committed summary and on it with the fixture's rules, agreement and card
margins (tests/analyses/data/summary_rules.json, in the shape those studies write)."""
from __future__ import annotations

import copy

import pytest
from _rules_fixture import committed, sections, with_rules

from gnoming_sim.analyses import lead
from gnoming_sim.analyses.headlines import DESIGNERS, WORD_BUDGET, headline_markdown, player_part, words

MINUS = "\u2212"


def _signed(x: float, d: int = 1) -> str:
    return f"{x:+.{d}f}".replace("-", MINUS)


@pytest.fixture(scope="module")
def fixture() -> dict:
    return with_rules()


@pytest.mark.parametrize("which", ["committed", "fixture"])
def test_every_sentence_of_the_player_part_is_short_and_the_block_keeps_its_budget(which, fixture):
    summary = committed() if which == "committed" else fixture
    block = headline_markdown(summary)
    assert words(block) <= WORD_BUDGET
    player = player_part(block)
    assert player != block and DESIGNERS in block            # the designers' part comes after the player's
    long = [s for s in lead.sentences(player) if words(s) > lead.MAX_RULE_WORDS]
    assert not long, long


def test_the_rules_lead_in_order_in_plain_words(fixture):
    block = headline_markdown(fixture)
    rules = {r["key"]: r for r in fixture["player_rules"]["rules"]}
    numbered = [line for line in player_part(block).splitlines() if line[:1].isdigit()]
    assert [line.split(". ", 1)[0] for line in numbered] == ["1", "2", "3", "4"]
    for line, key in zip(numbered, ("finish", "hazard", "take", "mulligan")):
        sentence = line.split(". ", 1)[1]
        assert not lead.jargon(sentence), sentence
        assert words(sentence) <= lead.MAX_RULE_WORDS
        assert sentence == rules[key]["text"]
        if not rules[key]["printed"]:
            assert sentence.startswith("Where a mulligan goes: no single rule")
    assert block.index("1. ") < block.index("**The card**") < block.index("**The card and the full analysis**") \
        < block.index(DESIGNERS)


def test_a_rule_text_with_method_words_or_too_long_is_stated_from_its_fields(fixture):
    """A rule's text that uses a method word or runs past 40 words is not printed; the sentence is made from
    the rule, its played value and its table sizes (plant: the check of lead.jargon)."""
    summary = copy.deepcopy(fixture)
    finish = summary["player_rules"]["rules"][0]
    finish["text"] = "Finish at a gap of at most 4 (95% interval of the regret [0, 0.1], Holm-adjusted)."
    sentence = lead.rules_of(summary)[0]["sentence"]
    assert lead.jargon(finish["text"]) and not lead.jargon(sentence)
    played = finish["played"]
    assert sentence.startswith(finish["rule"].rstrip("."))
    assert f"{_signed(played['mean'])} [{_signed(played['ci95'][0])}, {_signed(played['ci95'][1])}]" in sentence
    assert "a game played" in sentence and "3 to 6 players" in sentence
    finish["text"] = " ".join(["word"] * 41)
    assert lead.rules_of(summary)[0]["sentence"].startswith(finish["rule"].rstrip("."))
    mulligan = summary["player_rules"]["rules"][3]
    mulligan["text"] = "Where a mulligan goes: no single rule within the regret tolerance (Holm)."
    assert lead.rules_of(summary)[3]["sentence"] == "Where a mulligan goes: no single rule; the report gives the figures."
    for word in ("interval", "significant", "Holm", "regret", "pooled", "Q = 36", "df"):
        assert lead.jargon(f"a {word} b"), word
    assert not lead.jargon("different pdf Holmes")


def test_the_card_line_states_its_margins_at_4_players(fixture):
    block = headline_markdown(fixture)
    card = block.split("**The card** ", 1)[1].split("\n", 1)[0]
    margins = fixture["guide"]["card_margins"]["4"]
    for rival in ("builder", "greedy", "expert", "net"):
        e = margins[rival]["points"]
        assert f"{_signed(e['mean'])} [{_signed(e['ci95'][0])}, {_signed(e['ci95'][1])}]" in card, rival
        assert f"against {rival}" in card
    assert card.index("builder") < card.index("greedy") < card.index("expert") < card.index("net")
    assert "n = 3,750 deals each" in card


def test_the_agreement_line_states_the_share_the_loss_and_the_targets(fixture):
    line = lead.agreement_sentence(fixture)
    overall = fixture["agreement"]["overall"]
    assert f"On {overall['covered']:,} new positions at 3 to 6 players" in line
    assert "91.1% [90.2, 92.0]" in line and "0.19 [0.16, 0.22]" in line
    assert "(targets 90% and 0.3: met)" in line
    assert line in headline_markdown(fixture)
    failed = copy.deepcopy(fixture)
    failed["agreement"]["met"] = False
    assert "not met" in lead.agreement_sentence(failed)


def test_designers_get_each_table_size_not_a_pooled_lead_where_sizes_differ():
    """The mulligan's sizes differ (Cochran's Q): every size's figure, and not the pooled +0.2 the old answer
    led with; the hazard's sizes agree: one figure for 2 to 7 players, said to be alike."""
    summary = committed()
    mull = summary["estimands"]["mulligan"]["win_chance"]
    assert mull["by_table_size"]["agree"] is False
    [line] = [x for x in lead.designer_lines(summary) if x.startswith("A dealt mulligan")]
    pooled = mull["players"]["net"]
    assert f"{_signed(100 * pooled['mean'])} [" not in line
    for p, e in mull["by_table_size"]["by_players"].items():
        assert f"{_signed(100 * e['mean'])} [" in line and f" at {p}" in line
    haz = summary["estimands"]["hazard"]["win_chance"]
    [line] = [x for x in lead.designer_lines(summary) if x.startswith("A hazard drawn blind")]
    if haz["by_table_size"]["agree"]:
        assert "at 2 to 7 players, where no table size clearly differs" in line
    seats = summary["tournament"]["by_players"]
    [line] = [x for x in lead.designer_lines(summary) if x.startswith("The best seat")]
    assert f"allowing for the {sum(len(v['seats']) for v in seats.values())} seats tested" in line
    for p, v in seats.items():
        best = min(v["seats"], key=lambda s: v["seats"][s]["score_vs_table"]["mean"])
        assert f"seat {best} at {p}" in line
    block = headline_markdown(summary)
    assert block.index(DESIGNERS) < block.index("A dealt mulligan") and "Q = " not in block
    assert "How often net's own finishes earn" in block and "The best seat" in block


def test_a_summary_without_the_new_sections_says_so():
    """A report from before the rules, agreement and card-margin studies (today's committed one, or one made
    with fewer studies): each part says it is not in this report; nothing raises."""
    bare = {"command": "", "wall_s": 1.0, "studies": {"a": {"games": 10}}, "answers": [], "findings": []}
    block = headline_markdown(bare)
    assert "The rules are not in this report" in block
    assert "what following it wins is not in this report" in block
    assert "their agreement is not measured in this report" in block
    partial = with_rules()
    partial["player_rules"]["rules"] = [r for r in partial["player_rules"]["rules"] if r["key"] != "take"]
    take = [r for r in lead.rules_of(partial) if r["key"] == "take"]
    assert take and take[0]["sentence"] == "Take the pile's card or draw: not available in this report."


def test_the_fixture_follows_the_shared_schema():
    new = sections()
    rule_keys = {"key", "decision", "rule", "players", "by_players", "value", "versus", "alternatives", "regret",
                 "family", "printed", "played", "played_per_decision", "predicted_per_decision", "agrees", "text"}
    assert [r["key"] for r in new["player_rules"]["rules"]] == list(lead.RULE_ORDER)
    for r in new["player_rules"]["rules"]:
        assert set(r) == rule_keys, r["key"]
    assert {"seed", "card", "players", "rollouts", "by_kind", "overall", "targets", "met"} == set(new["agreement"])
    assert set(new["guide"]["card_margins"]) == {"2", "4", "6"}
    for size in new["guide"]["card_margins"].values():
        assert set(size) == {"net", "expert", "builder", "greedy"}
        assert all(set(v) == {"points", "win"} for v in size.values())


def test_each_printed_rules_played_gain_is_stated_from_the_summary():
    """The committed report's played gains (a seat following the rule, net elsewhere, against net) appear in the
    README block with their intervals and the deals' n, one per printed rule, and the agreement line gives the
    fresh-rollout loss beside the same-rollout one."""
    summary = committed()
    block = headline_markdown(summary)
    rules = [r for r in summary["player_rules"]["rules"] if r["printed"]]
    assert rules
    for r in rules:
        m, (lo, hi) = r["played"]["mean"], r["played"]["ci95"]
        assert f"{r['key']} {_signed(m)} [{_signed(lo)}, {_signed(hi)}]" in block
    n = sorted({r["played"]["n"] for r in rules})
    assert f"{n[0]:,}" in block and "valued on fresh rollouts" in block
    assert lead.played_sentences({"player_rules": {"rules": []}}) == []
