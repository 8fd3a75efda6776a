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

from gnoming_sim.stats import Estimate, standard_errors
from gnoming_sim.analyses.framework.paired import cell_rng, round_rows, with_rounds
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
    held, plain, slot, ok, *_ = dealt_edit(round_rows(deals, rounds), players, focal, cell_rng(seed, 1), card=card)
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
    but the card they trade with (at the bottom of the draw pile).  Arm placed is arm ordinary with the
    mulligan moved from the bottom to a random depth of the draw pile: the same card at the slot."""
    deals = deal_orders(2000, 3)
    rounds, focal = focal_of(np.arange(2000), 5)
    rows = round_rows(deals, rounds)
    held, plain, slot, ok, placed, _ = dealt_edit(rows, 5, focal, cell_rng(3, 0))
    g = np.arange(2000)
    assert ok.mean() > 0.99
    assert (held[g, slot] == MULLIGAN)[ok].all() and (plain[g, slot] != MULLIGAN)[ok].all()
    assert ((held != plain).sum(axis=1)[ok] == 2).all()
    assert ((placed != plain).sum(axis=1)[ok] == 2).all() and (placed[g, slot] == plain[g, slot]).all()
    for arm in (held, plain, placed):
        assert (np.sort(arm, axis=1) == np.sort(rows, axis=1)).all()   # still the deck
    # placed: the moved mulligan lies at a random depth of the pile, not at its bottom
    moved = (placed != plain) & (placed == MULLIGAN)
    depth = np.argmax(moved, axis=1)[ok] - draw_pile_start(rows, 5)[ok]
    assert depth.min() < 3 and 20 < np.median(depth) < 40 < 50 < depth.max()   # uniform over a 61-card pile


@pytest.mark.parametrize("players", [2, 4, 7])
def test_no_table_size_loses_dealt_mulligan_deals(players):
    """The mulligan comes from the draw pile when it holds one, else from another layout or a discard seed
    (audit item 11: dropping deals without one in the pile lost 20% of them at 7 players).  Only deals whose
    holder already holds every mulligan are skipped: a few in 10,000 at any size."""
    deals = deal_orders(4000, 3)
    rounds, focal = focal_of(np.arange(4000), players)
    rows = round_rows(deals, rounds)
    held, _, slot, ok, _, src = dealt_edit(rows, players, focal, cell_rng(3, 0))
    assert ok.mean() > 0.997
    start = draw_pile_start(rows, players)
    pile_has = ((rows == MULLIGAN) & (np.arange(rows.shape[1]) >= start[:, None])).any(axis=1)
    assert (src[pile_has] >= start[pile_has]).all()             # from the pile whenever it can
    other = ok & ~pile_has
    if players == 7:
        assert other.mean() > 0.1                                # the deals the old design dropped
    g = np.arange(4000)
    assert (held[g, slot] == MULLIGAN)[ok].all()
    assert ((src[other] < start[other]) & (src[other] // 9 != focal[other])).all()   # never the holder's own


def test_the_edits_are_the_same_for_a_game_whatever_chunk_plays_it():
    """Rungs of different sizes play the same game numbers: an edit keyed by game number is the same in any chunk."""
    from gnoming_sim.analyses.hazard_risk.design import drawn_arms
    from gnoming_sim.analyses.mulligan_value.design import DEALT, edit_arms

    whole = deal_orders(60, 5, PUBLISHED)
    tail = deal_orders(20, 5, PUBLISHED, first_game=40)
    assert np.array_equal(whole[40:], tail)
    a, _ = edit_arms(DEALT, 4, 0, whole, None, seed=5)
    b, _ = edit_arms(DEALT, 4, 40, tail, None, seed=5)
    h, fa = drawn_arms(4, 0, whole, None, seed=5)
    k, fb = drawn_arms(4, 40, tail, None, seed=5)
    assert np.array_equal(fa["depth"][40:], fb["depth"])
    for arm in ("mulligan", "ordinary", "placed"):
        assert np.array_equal(a[arm][40:], b[arm])
    for arm in ("hazard", "ordinary"):
        assert np.array_equal(h[arm][40:], k[arm])


def test_the_drawn_hazard_depth_covers_the_rounds_reach():
    """The planted hazard's depth is uniform up to the deepest card 99% of rounds reach, not the first 16 cards
    (audit item 3: a 0-15 window put three quarters of the draws early in the round)."""
    from gnoming_sim.analyses.hazard_risk.design import DEPTH, drawn_arms

    deals = deal_orders(3000, 2, PUBLISHED)
    _, facts = drawn_arms(2, 0, deals, None, seed=2)
    assert facts["depth"].min() == 0 and facts["depth"].max() == DEPTH[2] - 1 > 30
    assert abs(np.mean(facts["depth"] >= DEPTH[2] // 2) - 0.5) < 0.05


def test_the_hazard_cost_uses_every_draw_of_each_table():
    """Each table's estimate rests on all of its own draws (not the deals both tables drew it), and the rung
    difference is the delta-method one over every deal: known answers on made-up rows."""
    import pandas as pd
    from gnoming_sim.analyses.hazard_risk.findings import _differences, _ladder, ratio_difference

    rng = np.random.default_rng(0)
    n = 4000
    def frame(drawn, shift):
        win_o = rng.random(n)
        return pd.DataFrame({"players": 4, "game": np.arange(n), "drawn": drawn, "fd": rng.integers(0, 8, n),
                             "kept": rng.random(n) < 0.3, "win_o": win_o, "win_h": win_o - shift * drawn,
                             "margin_o": 0.0, "margin_h": 3.0 * drawn, "score_o": 0.0, "score_h": 5.0 * drawn})
    mix = frame(rng.random(n) < 0.5, 0.05)
    strong = frame(rng.random(n) < 0.4, 0.08)
    ladder = _ladder({"mix": mix, "learned": strong}, [4])
    assert ladder["mix"]["all"]["win"].n == int(mix["drawn"].sum())
    assert ladder["learned"]["all"]["win"].n == int(strong["drawn"].sum())
    assert ladder["learned"]["all"]["win"].mean == pytest.approx(-0.08)
    d = ratio_difference(strong, mix, "win")
    assert d.mean == pytest.approx(-0.03) and d.n == n and d.half_width < 1e-9
    assert ratio_difference(mix, mix, "margin").mean == pytest.approx(0.0)
    assert _differences({"mix": mix, "learned": strong}, [4])["learned-mix"]["all"]["win"].n == n


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


@pytest.fixture(scope="module")
def quick_results():
    from gnoming_sim.analyses.framework.study import Context, play_study

    ctx = Context(seed=3, quick=True)
    return {study.key: play_study(study, ctx).result for study in (MulliganValue(), HazardRisk())}


@pytest.mark.slow   # plays both studies quick
def test_estimands_hold_the_three_rungs_and_their_differences(quick_results):
    from gnoming_sim.analyses.framework.design import SECOND, STRONG, STRONG_LADDER, TOP_DIFFERENCE
    from gnoming_sim.analyses.framework.study import RUNGS

    for key, question in (("mulligan_value", "mulligan"), ("hazard_risk", "hazard")):
        result = quick_results[key]
        block = result.estimands[question]
        assert set(block) == {"win_chance", "margin"}
        for name, e in block.items():
            assert set(e["players"]) == set(RUNGS) == {"mix", *STRONG_LADDER}
            assert set(e["differences"]) == {f"{SECOND}-mix", f"{STRONG}-mix", TOP_DIFFERENCE}
            assert e["convergence"] in ("converged", "still moves", "convergence not shown", "not tested")
            assert e["unit"] == ("probability" if name == "win_chance" else "points")
            # the equivalence word at the stated target, and whether the table sizes agree
            assert e["settled"] in ("holds", "differs", "not shown to differ", "not tested")
            assert e["equivalence_target"] > 0 and "equivalence_power" in e      # the power beside it
            assert e["by_table_size"] is None or isinstance(e["by_table_size"]["agree"], bool)
            for est in [*e["players"].values(), *e["differences"].values()]:
                lo, hi = est["ci95"]
                assert lo <= est["mean"] <= hi and est["n"] > 0
        assert 1 <= len(result.answers) <= 2
        for answer in result.answers:
            assert STRONG in answer.holds_under and 10 <= answer.rank <= 30 and answer.convergence
            assert answer.estimate.lo <= answer.estimate.mean <= answer.estimate.hi
        targets = [p for p in result.precision if p.target is not None]
        assert len(targets) == 6 and all(p.what for p in targets)   # win chance and margin at each rung


@pytest.mark.slow   # plays both studies quick
def test_the_mulligan_rows_have_both_controls_and_the_fate_of_the_card(quick_results):
    from gnoming_sim.analyses.framework.design import STRONG_LADDER

    mv = quick_results["mulligan_value"]
    ladder = mv.context["ladder"]
    assert set(ladder["mix"]["all"]) == {"p", "o"}
    assert all(set(ladder[rung]["all"]) == {"p"} for rung in STRONG_LADDER)   # the rungs play the placed control only
    assert set(mv.summary["ladder"]["by_player"]["mix"]["all"]) == {"placed", "ordinary"}
    fates = mv.context["fates"]
    for rung in ("mix", *STRONG_LADDER):
        f = fates[rung]["all"]
        assert 0 < f["blind_to_rival"].mean <= f["overwritten"].mean < 1 and 0 < f["to_rival"].mean < 1


def test_strong_arms_get_the_very_deals_and_edits_of_the_mix():
    from gnoming_sim.analyses.framework.design import STRONG_LADDER, strong_arm
    from gnoming_sim.analyses.hazard_risk.design import DRAWN, drawn_arms, tables as hazard_tables
    from gnoming_sim.analyses.mulligan_value.design import DEALT, edit_arms, tables as mulligan_tables

    deals = deal_orders(40, 5, PUBLISHED)
    arms, _ = edit_arms(DEALT, 4, 0, deals, None, seed=5)
    harms, _ = drawn_arms(4, 0, deals, None, seed=5)
    assert not np.array_equal(arms["mulligan"], arms["ordinary"])
    for player in STRONG_LADDER:
        assert np.array_equal(arms["mulligan"], arms[strong_arm("mulligan", player)])
        assert np.array_equal(arms["ordinary"], arms[strong_arm("ordinary", player)])
        assert np.array_equal(arms["placed"], arms[strong_arm("placed", player)])
        for arm in ("hazard", "ordinary", "no-flips"):
            assert np.array_equal(harms[arm], harms[strong_arm(arm, player)])
    for tables in (mulligan_tables(600), hazard_tables(600)):
        mix = {(t.experiment, t.players, t.first_game, t.arm): t for t in tables if "@" not in t.arm}
        for player in STRONG_LADDER:
            strong = [t for t in tables if t.arm.endswith(strong_arm("", player))]
            assert strong and all(set(t.seats) <= {player, player + "/no-flip"} for t in strong)
            for t in strong:   # every strong arm plays the first deals of a mix arm's block (same game numbers)
                mate = mix[(t.experiment, t.players, t.first_game, t.arm.removesuffix(strong_arm("", player)))]
                assert 0 < t.games <= mate.games
    assert any(t.experiment == DRAWN and t.seats[0].endswith("/no-flip") for t in hazard_tables(60))


def test_a_deck_without_mulligans_or_hazards_says_so(tmp_path):
    deck = Deck.from_mapping({"3": 30, "5": 30, "-2": 20, "8": 20}, name="plain")
    summary = build_report(tmp_path, quick=True, seed=1, deck=deck, studies=(MulliganValue(), HazardRisk()))
    assert "no mulligans" in summary["mulligan_value"]["skipped"]
    assert "no hazards" in summary["hazard_risk"]["skipped"]
    assert "nothing to measure" in (tmp_path / "index.html").read_text(encoding="utf-8")


def test_both_hazard_arms_play_alike_until_the_draw():
    """The drawer is fixed before the arms diverge: where nobody draws the planted hazard, the hazard and
    ordinary arms play the very same round (every seat's score equal), so a table's own draws select
    nothing the edit caused."""
    from gnoming_sim.analyses.hazard_risk.design import drawn_arms
    from gnoming_sim.analyses.framework.trace_follow import FO_FIRST_SEAT

    games, players = 300, 4
    deals = deal_orders(games, 8, PUBLISHED)
    arms, facts = drawn_arms(players, 0, deals, None, seed=8)
    res = {a: simulate(players, ("expert",) * players, games, seed=8, deals=arms[a], trace=(a == "hazard"), rotate=True)
           for a in ("hazard", "ordinary")}
    follow = follow_cards(res["hazard"].traces, res["hazard"].deals, players, facts["rounds"], facts["pos"])
    undrawn = follow[:, FO_FIRST_SEAT] < 0
    g = np.arange(games)
    scores = {a: r.round_stats[g, facts["rounds"], :, F.F_SCORE] for a, r in res.items()}
    assert 0.2 < undrawn.mean() < 0.99
    assert (scores["hazard"][undrawn] == scores["ordinary"][undrawn]).all()
    assert (scores["hazard"][~undrawn] != scores["ordinary"][~undrawn]).any(axis=1).mean() > 0.5
