"""The mulligan-value and hazard-risk studies: a known answer, what pairing buys, trace scans
that agree with the engine, and both report sections rendered from a --quick run.

Statistical tests pin their seeds; each states what it expects and why.
"""
from __future__ import annotations

import json
import math
import re
from html.parser import HTMLParser

import numpy as np
import pytest
from _pages import estimates

from gnoming_sim.analyses.framework.estimates import Estimate
from gnoming_sim.analyses.framework.paired import cell_rng, round_rows, standard_errors, with_rounds
from gnoming_sim.analyses.framework.trace_follow import FATE_LAYOUT, FO_END_SEAT, FO_FATE, follow_cards, mulligan_bars
from gnoming_sim.analyses.hazard_risk import HazardRisk
from gnoming_sim.analyses.hazard_risk.design import drawn_edit
from gnoming_sim.analyses.mulligan_value import MulliganValue
from gnoming_sim.analyses.mulligan_value.design import dealt_edit, draw_pile_start, focal_of
from gnoming_sim.analyses.report import build_report
from gnoming_sim.game import fields as F
from gnoming_sim.game.cards import HAZARD, MULLIGAN
from gnoming_sim.game.deck import PUBLISHED, Deck
from gnoming_sim.kernel.engine import deal_orders, simulate

SEATS = ("greedy", "builder", "rusher", "cautious")


def _dealt_arms(games: int, seed: int, card, players: int = 4, deck=PUBLISHED):
    """Play both arms of the dealt experiment; return the focal seat's round scores (held, plain) and ok."""
    deals = deal_orders(games, seed, deck)
    rounds, focal = focal_of(np.arange(games), players)
    held, plain, slot, ok = dealt_edit(round_rows(deals, rounds), players, focal, cell_rng(seed, 1), card=card)
    scores = []
    for rows in (held, plain):
        res = simulate(players, SEATS, games, seed=seed, deck=deck, deals=with_rounds(deals, rounds, rows), rotate=True)
        scores.append(res.round_stats[np.arange(games), rounds, focal, F.F_SCORE].astype(float))
    return scores[0], scores[1], ok, held, plain, slot


# ----------------------------------------------------------------- known answers
def test_placebo_swap_has_known_worth_zero_and_the_interval_covers_it():
    """card=None puts a random ordinary card at the slot in one arm and the deepest ordinary card in
    the other: the two are exchangeable, so the true worth is 0 by construction, while the arms differ
    on most deals (the interval has real width).  Pinned seed: a 95% interval, so 1 seed in 20 would miss."""
    held, plain, ok, *_ = _dealt_arms(3000, seed=11, card=None)
    assert ok.all()
    est = Estimate.of_paired(plain, held)
    assert (held != plain).mean() > 0.3 and est.half_width > 0.1
    assert est.lo <= 0.0 <= est.hi, est


def test_a_zero_card_in_place_of_the_mulligan_in_both_arms_is_worth_exactly_zero():
    """A deck whose ordinary cards are all 0s, with 0s in place of the mulligans: both arms hold a 0 at
    the slot, so every paired difference is 0 and so is the estimate, interval included."""
    deck = Deck.from_mapping({"0": 107, "H": 3}, name="zeros")
    held, plain, ok, *_ = _dealt_arms(600, seed=5, card=0, deck=deck)
    assert ok.all()
    est = Estimate.of_paired(plain, held)
    assert est.mean == 0.0 and est.lo <= 0.0 <= est.hi


def test_the_dealt_arms_differ_in_two_cards_only():
    """Arm mulligan holds the mulligan at the focal slot, arm ordinary an ordinary card; nothing else moves
    but the card they trade with (at the bottom of the draw pile)."""
    deals = deal_orders(2000, 3)
    rounds, focal = focal_of(np.arange(2000), 5)
    held, plain, slot, ok = dealt_edit(round_rows(deals, rounds), 5, focal, cell_rng(3, 0))
    g = np.arange(2000)
    assert ok.mean() > 0.85    # deals with a mulligan in the draw pile
    assert (held[g, slot] == MULLIGAN)[ok].all() and (plain[g, slot] != MULLIGAN)[ok].all()
    assert ((held != plain).sum(axis=1)[ok] == 2).all()
    assert (np.sort(held, axis=1) == np.sort(deals[g, rounds], axis=1)).all()   # still the deck


def test_the_dealt_mulligan_comes_from_the_draw_pile_never_an_opponents_hand():
    """The mulligan moved into the focal layout comes from the draw pile proper (after the discard
    piles' seeds): no other layout and no discard pile loses a card (issue 12 item 7)."""
    players = 7
    deals = deal_orders(2000, 3)
    rounds, focal = focal_of(np.arange(2000), players)
    rows = round_rows(deals, rounds)
    held, _, slot, ok = dealt_edit(rows, players, focal, cell_rng(3, 0))
    moved = held != rows
    start = draw_pile_start(rows, players)
    g = np.arange(2000)
    assert ok.any() and (moved.sum(axis=1)[ok] == 2).all()
    other = moved.copy()
    other[g, slot] = False
    source = np.argmax(other, axis=1)
    assert (source[ok] >= start[ok]).all()
    assert (rows[g, source] == MULLIGAN)[ok].all()


def test_the_drawn_hazard_sits_at_its_depth_with_the_others_buried():
    deals = deal_orders(1000, 4)
    rounds = np.arange(1000) % 3
    depth = np.arange(1000) % 16
    held, plain, pos, ok = drawn_edit(round_rows(deals, rounds), 3, depth)
    g = np.arange(1000)
    assert ok.all() and (pos == 29 + depth).all()
    assert (held[g, pos] == HAZARD).all() and (plain[g, pos] != HAZARD).all()
    assert ((held == HAZARD).sum(axis=1) == 3).all()
    assert (np.nonzero(held == HAZARD)[1].reshape(-1, 3)[:, 1:] >= 100).all()    # the others at the bottom


# ----------------------------------------------------------------- what pairing buys
def test_paired_standard_error_is_below_the_unpaired_one():
    """On the real experiment (a mulligan against an ordinary card), the same deals share most of their
    noise: the paired standard error is well below the unpaired one."""
    held, plain, ok, *_ = _dealt_arms(3000, seed=2, card=MULLIGAN)
    paired, unpaired = standard_errors(plain[ok], held[ok])
    assert 0 < paired < 0.7 * unpaired
    assert Estimate.of_paired(plain[ok], held[ok]).lo > 0   # and a mulligan is worth points


# ----------------------------------------------------------------- the trace scans agree with the engine
def test_trace_scans_agree_with_the_engine():
    """Every hazard followed through the trace ends where round_stats scores it; the mulligan-limit scan
    reconciles every record."""
    players, games = 4, 400
    res = simulate(players, ("greedy", "builder", "rusher", "random"), games, seed=9, trace=True, rotate=True)
    _, bad = mulligan_bars(res.traces, res.deals, players, 1)
    assert bad == 0
    left = np.zeros((games, 3, players), dtype=int)
    for rnd in range(3):
        where = np.argsort(res.deals[:, rnd] != HAZARD, axis=1, kind="stable")[:, :3]
        for j in range(3):
            out = follow_cards(res.traces, res.deals, players, np.full(games, rnd), where[:, j])
            g = np.nonzero(out[:, FO_FATE] == FATE_LAYOUT)[0]
            np.add.at(left, (g, rnd, out[g, FO_END_SEAT]), 1)
    assert (10 * left == res.round_stats[..., F.F_HAZARDS]).all()


# ----------------------------------------------------------------- the report sections
class _Sections(HTMLParser):
    def __init__(self):
        super().__init__()
        self.text: dict[str, str] = {}
        self.images: dict[str, int] = {}
        self._stack: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self._stack.append(attrs.get("id", ""))
            self.text.setdefault(self._stack[-1], "")
        elif tag == "img" and self._stack:
            self.images[self._stack[-1]] = self.images.get(self._stack[-1], 0) + 1

    def handle_endtag(self, tag):
        if tag == "section" and self._stack:
            self._stack.pop()

    def handle_data(self, data):
        for sid in self._stack:
            self.text[sid] += data


@pytest.fixture(scope="module")
def quick_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("mulligan-hazard")
    build_report(out, quick=True, seed=3, studies=(MulliganValue(), HazardRisk()))
    return out


@pytest.mark.slow
def test_both_sections_render(quick_report):
    page = _Sections()
    page.feed((quick_report / "index.html").read_text(encoding="utf-8"))
    for study in (MulliganValue(), HazardRisk()):
        text = page.text[study.id]
        assert study.title in text and "Precision reached" in text and "Conclusions" in text
        assert page.images.get(study.id, 0) >= 3
        assert not re.search(r"\bnan\b|\binf\b|\bNone\b|\u2014", text, flags=re.IGNORECASE)
    assert "paired SE" in page.text["mulligan-value"] and "unpaired SE" in page.text["mulligan-value"]


@pytest.mark.slow   # builds a quick report
def test_summary_keys_and_intervals(quick_report):
    summary = json.loads((quick_report / "summary.json").read_text(encoding="utf-8"))
    mv, hr = summary["mulligan_value"], summary["hazard_risk"]
    for e in (mv["score_change_per_round"], hr["end_with_hazard_probability"]):
        assert set(e) == {"mean", "ci95", "n"} and e["n"] > 0
    assert mv["score_change_per_round"]["mean"] < 0      # a change in score: the mulligan lowers it
    assert 0 < mv["paired_se"] < mv["unpaired_se"]
    found = list(estimates({"mulligan_value": mv, "hazard_risk": hr}))
    assert len(found) > 50
    for path, e in found:
        lo, hi = e["ci95"]
        assert all(math.isfinite(v) for v in (e["mean"], lo, hi)), path
        assert lo <= e["mean"] <= hi and e["n"] > 0, (path, e)


@pytest.mark.slow   # builds a quick report
def test_strong_play_rows_are_ladder_tables_on_the_same_deals(quick_report):
    from gnoming_sim.analyses.framework.design import EXPERT, STRONG, STRONG_LADDER

    summary = json.loads((quick_report / "summary.json").read_text(encoding="utf-8"))
    mv, hr = summary["mulligan_value"]["strong_play"], summary["hazard_risk"]["strong_play"]
    # the "all" mix column of the strong-play table is the study's own headline on the same deals
    assert mv["by_players"]["all"]["mix_score_change_per_round"] == summary["mulligan_value"]["score_change_per_round"]
    assert hr["by_players"]["all"]["end_mix"] == summary["hazard_risk"]["end_with_hazard_probability"]
    assert STRONG == "learned" and STRONG_LADDER == (EXPERT, STRONG)
    for block in (mv, hr):
        assert block["strong_player"] == STRONG and block["ladder"] == list(STRONG_LADDER)
        assert STRONG in block["table"]
        assert {"2", "7", "all"} <= set(block["by_players"])
        for row in block["by_players"].values():   # every rung, the strong player's strong_* keys its own
            assert set(row["by_player"]) == set(STRONG_LADDER)
    top = mv["by_players"]["all"]
    assert top["strong_score_change_per_round"] == top["by_player"][STRONG]["score_change_per_round"]
    assert hr["by_players"]["all"]["end_strong"] == hr["by_players"]["all"]["by_player"][STRONG]["end"]
    found = {f["key"]: f for f in summary["findings"]}
    for key in ("mulligan_value.points_per_round_strong", "hazard_risk.end_with_hazard_probability_strong"):
        assert f"{STRONG}, the learned one-ply evaluator" in found[key]["display"]
        assert EXPERT in found[key]["display"]   # the middle rung, read between mix and the strong player


def test_strong_arms_get_the_very_deals_and_edits_of_the_mix():
    from gnoming_sim.analyses.framework.design import STRONG_LADDER, strong_arm
    from gnoming_sim.analyses.hazard_risk.design import DRAWN, drawn_arms, tables as hazard_tables
    from gnoming_sim.analyses.mulligan_value.design import DEALT, edit_arms, tables as mulligan_tables

    deals = deal_orders(40, 5, PUBLISHED)
    arms, _ = edit_arms(DEALT, 4, 0, deals, cell_rng(5, 0, 4, 0))
    harms, _ = drawn_arms(4, 0, deals, cell_rng(5, 4, 0))
    assert not np.array_equal(arms["mulligan"], arms["ordinary"])
    for player in STRONG_LADDER:
        assert np.array_equal(arms["mulligan"], arms[strong_arm("mulligan", player)])
        assert np.array_equal(arms["ordinary"], arms[strong_arm("ordinary", player)])
        for arm in ("hazard", "ordinary", "no-flips"):
            assert np.array_equal(harms[arm], harms[strong_arm(arm, player)])
    for tables in (mulligan_tables(60), hazard_tables(60)):
        cells = {}
        for t in tables:
            cells.setdefault(t.cell, []).append(t)
        for player in STRONG_LADDER:
            strong = [t for t in tables if t.arm.endswith(strong_arm("", player))]
            assert strong and all(set(t.seats) <= {player, player + "/no-flip"} for t in strong)
            for t in strong:   # every strong arm shares its cell (deals, chunks, edits) with the mix arm
                mates = {u.arm for u in cells[t.cell]}
                assert t.arm.removesuffix(strong_arm("", player)) in mates
            assert any(t.experiment == DRAWN and t.seats[0] == player + "/no-flip" for t in hazard_tables(60))


def test_a_deck_without_mulligans_or_hazards_says_so(tmp_path):
    deck = Deck.from_mapping({"3": 30, "5": 30, "-2": 20, "8": 20}, name="plain")
    summary = build_report(tmp_path, quick=True, seed=1, deck=deck, studies=(MulliganValue(), HazardRisk()))
    assert "no mulligans" in summary["mulligan_value"]["skipped"]
    assert "no hazards" in summary["hazard_risk"]["skipped"]
    assert "nothing to measure" in (tmp_path / "index.html").read_text(encoding="utf-8")
