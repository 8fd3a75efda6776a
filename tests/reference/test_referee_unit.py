"""Referee unit tests on hand-built traces: legal games pass, tampered ones are caught.

Legal traces come from a tiny scripted driver below (random but legal choices from a
seeded ``random.Random``), written for these tests only; each tamper test changes one
thing in such a trace and checks that the referee names the broken rule.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from gnoming_sim.game import trace as T
from gnoming_sim.reference.scoring import round_rows, score_layout, score_parts, visible_score, win_credit
from gnoming_sim.game.cards import HAZARD as H
from gnoming_sim.game.cards import MAX_VALUE
from gnoming_sim.game.cards import MULLIGAN as M
from gnoming_sim.game.fields import F_BONUS, F_FINISHER, F_SCORE, F_TURNS, N_FIELDS
from gnoming_sim.reference.referee import RefereeCounts, RefereeError, replay_game
from gnoming_sim.game.rules import RuleConfig

# a small house deck: reshuffles, hazards, mulligans and bounces all happen often
SMALL_DECK = sorted([v for v in (3, 4, 5, 6, 7, 8) for _ in range(4)] + [-1, -2, -2, -3] + [H, H, M, M])


# ---------------------------------------------------------------- scripted driver
class _Script:
    """Plays one legal game with random choices and writes its trace, deals and results."""

    def __init__(self, seed, players=2, rules=RuleConfig(), deck=SMALL_DECK, p_pile=0.3, p_bounce=0.8):
        self.rng = random.Random(seed)
        self.P, self.rules, self.deck = players, rules, deck
        self.p_pile, self.p_bounce = p_pile, p_bounce
        self.recs, self.deals, self.stats = [], [], []
        self.notes = {}  # record index -> what the driver knew there (for the tamper tests)

    def play(self):
        starter = 0
        for r in range(3):
            if r and self.rules.rotate_start:
                starter = (starter + 1) % self.P
            self.round(r, starter)
        totals = [sum(self.stats[r][s][F_SCORE] for r in range(3)) for s in range(self.P)]
        credit = win_credit(totals, [row[F_SCORE] for row in self.stats[2]])
        return dict(deals=np.array(self.deals, dtype=np.int8), trace=np.array(self.recs, dtype=np.int32),
                    rules=self.rules, players=self.P, round_stats=np.array(self.stats, dtype=np.int32),
                    totals=np.array(totals), win_credit=np.array(credit)), self.notes

    def rec(self, kind, seat, a=0, b=0, note=None):
        if note is not None:
            self.notes[len(self.recs)] = note
        self.recs.append([kind, seat, a, b])

    def round(self, r, starter):
        order = list(self.deck)
        self.rng.shuffle(order)
        self.deals.append(order)
        P = self.P
        self.lay = [order[9 * s:9 * s + 9] for s in range(P)]
        self.up = [[False] * 9 for _ in range(P)]
        self.draw = order[9 * P:][::-1]
        self.piles = [[], []]
        self.rec(T.ROUND, starter, r, P)
        for p in (0, 1):
            card = self.draw.pop()
            while card == H:
                self.rec(T.SETUP_HAZARD, -1, 0, H)
                card = self.draw.pop()
            self.rec(T.SETUP_DISCARD, -1, p, card)
            self.piles[p].append(card)
        for k in range(P):
            seat = (starter + k) % P
            for pos in self.rng.sample(range(9), 2):
                self.up[seat][pos] = True
                self.rec(T.INIT_FLIP, seat, pos, self.lay[seat][pos])
        self.finisher, turns, stalled = None, [0] * P, False
        self.at_finish, self.n = None, 0
        seat, n = starter, 0
        while self.finisher is None or seat != self.finisher:
            if n == self.rules.max_turns:
                self.rec(T.STALL, -1, T.STALL_MAX_TURNS)
                stalled = True
                break
            turns[seat] += 1
            self.rec(T.TURN, seat, n, int(self.finisher is not None))
            self.n = n
            if not self.turn(seat):
                stalled = True
                break
            seat, n = (seat + 1) % P, n + 1
        self.rec(T.ROUND_END, -1, r, int(stalled))
        self.stats.append(round_rows(self.lay, self.finisher, stalled, turns, starter, self.rules,
                                     self.at_finish))

    def down(self, seat):
        return [p for p in range(9) if not self.up[seat][p]]

    def placeable(self, seat, card):
        if card == H:
            return self.rules.hazard_placeable
        ups = sum(1 for p in range(9) if self.up[seat][p] and self.lay[seat][p] == M)
        return card != M or not self.rules.mulligan_limit or ups < self.rules.mulligan_limit

    def turn(self, seat):
        piles = [p for p in (0, 1) if self.piles[p] and self.placeable(seat, self.piles[p][-1])]
        if piles and self.rng.random() < self.p_pile:
            source = self.rng.choice(piles) + 1
            card = self.piles[source - 1].pop()
        else:
            if not self.draw and not self.refill(seat):
                return False
            source, card = 0, self.draw.pop()
        self.rec(T.DRAW, seat, source, card, "blocked" if card == M and not self.placeable(seat, M) else None)
        if source or (self.placeable(seat, card) and self.rng.random() < 0.8):
            card = self.place(seat, card)
        else:
            self.rec(T.NOKEEP, seat)
        self.discard(seat, card)
        if self.finisher is None and not self.down(seat):
            self.finisher = seat
            self.at_finish = (self.n, [visible_score(self.lay[s], self.up[s], self.rules)
                                       for s in range(self.P)], [len(self.down(s)) for s in range(self.P)])
            self.rec(T.FINISH, seat)
        return True

    def refill(self, seat):
        if not self.rules.reshuffle_when_empty:
            self.rec(T.STALL, -1, T.STALL_NO_RESHUFFLE)
            return False
        new = self.piles[0][:-1] + self.piles[1][:-1]
        self.rng.shuffle(new)
        self.piles = [p[-1:] for p in self.piles]
        self.rec(T.RESHUFFLE, seat, len(new))
        for card in new:
            self.rec(T.CARD, -1, card)
        self.draw = new[::-1]
        if not new:
            self.rec(T.STALL, -1, T.STALL_NO_CARDS)
        return bool(new)

    def put(self, seat, pos, card):
        old, was_down = self.lay[seat][pos], not self.up[seat][pos]
        self.lay[seat][pos], self.up[seat][pos] = card, True
        return old, was_down

    def place(self, seat, card):
        down = self.down(seat)
        pos = self.rng.choice(down) if down and self.rng.random() < 0.9 else self.rng.randrange(9)
        old, was_down = self.put(seat, pos, card)
        self.rec(T.PLACE, seat, pos, old, (was_down, self.matches(seat, old)))
        filled = {pos}
        while was_down and self.matches(seat, old) and self.rng.random() < self.p_bounce:
            free = [p for p in range(9) if p not in filled]
            target = self.rng.choice([p for p in free if not self.up[seat][p]] or free)
            bounced = old
            old, was_down = self.put(seat, target, bounced)
            self.rec(T.BOUNCE, seat, target, old)
            filled.add(target)
        return old

    def matches(self, seat, card):
        return 0 <= card <= MAX_VALUE and any(
            self.up[seat][p] and self.lay[seat][p] == card for p in range(9))

    def discard(self, seat, card):
        if card == H:
            self.rec(T.DISCARD, seat, T.DISCARD_REMOVED, H)
            for k in range(1, self.P):
                other = (seat + k) % self.P
                down = self.down(other)
                if len(down) < 2:
                    last = (down[0], self.lay[other][down[0]]) if down else None
                    self.rec(T.HAZARD_FLIP, other, T.HFLIP_NOT_ALLOWED, 0, last)
                elif self.rng.random() < 0.2:
                    self.rec(T.HAZARD_FLIP, other, T.HFLIP_DECLINED)
                else:
                    pos = self.rng.choice(down)
                    self.up[other][pos] = True
                    self.rec(T.HAZARD_FLIP, other, pos, self.lay[other][pos])
            return
        empty = [p for p in (0, 1) if not self.piles[p]]
        pile = empty[0] if len(empty) == 1 else self.rng.randrange(2)
        self.piles[pile].append(card)
        self.rec(T.DISCARD, seat, pile, card, "forced" if len(empty) == 1 else None)


def scripted(seed, **kw):
    return _Script(seed, **kw).play()[0]


def replay(game, **kw):
    return replay_game(**game, deck=SMALL_DECK, seed=1, game=2, **kw)


def find_game(predicate, **kw):
    """The first scripted game (seeds 0, 1, ...) with a record where ``predicate(recs, i, note)``.

    Returns (game, records as lists, index of that record, its note).
    """
    for seed in range(3000):
        game, notes = _Script(seed, **kw).play()
        recs = game["trace"].tolist()
        for i in range(len(recs)):
            if predicate(recs, i, notes.get(i)):
                return game, recs, i, notes.get(i)
    raise AssertionError("no scripted game has the wanted feature")


def with_trace(game, recs):
    return {**game, "trace": np.array(recs, dtype=np.int32)}


def rejects(game, recs, match):
    with pytest.raises(RefereeError, match=match) as info:
        replay(with_trace(game, recs))
    assert "seed=1 game=2 round=" in str(info.value)


# ---------------------------------------------------------------- scoring (RULES.md §5)
@pytest.mark.parametrize("layout, parts, total", [
    ([6, 6, 6, 3, 4, 5, -1, H, M], (-6, 12, -1, 10), 15),
    ([5, 5, M, 7, 8, 5, 3, 4, 5], (-10, 22, 0, 0), 12),
    ([M, 4, 4, 6, 3, 7, 6, 8, -2], (-10, 18, -2, 0), 6),
    ([7] * 9, (-42, 0, 0, 0), -42),
])
def test_scoring_worked_examples(layout, parts, total):
    assert score_parts(layout) == parts
    assert score_layout(layout) == total


def test_scoring_mulligans_per_line_option():
    two_mulligans = [M, M, 5, 3, 4, 6, 7, 8, -1]
    def per_line(k):
        return RuleConfig(mulligans_per_line=k)
    assert score_layout(two_mulligans, per_line(1)) == 5 + 3 + 4 + 6 + 7 + 8 - 1
    assert score_layout(two_mulligans, per_line(2)) == -5 + 3 + 4 + 6 + 7 + 8 - 1
    all_mulligans = [M, M, M, 3, 4, 6, 7, 8, -1]
    assert score_layout(all_mulligans, per_line(3)) == 0 + 3 + 4 + 6 + 7 + 8 - 1
    assert score_layout([M, 4, 4, 6, 3, 7, 6, 8, -2], per_line(0)) == 4 + 4 + 6 + 3 + 7 + 6 + 8 - 2


def _rows(layouts, finisher, stalled=False, rules=RuleConfig()):
    return round_rows(layouts, finisher, stalled, [3, 2], 1, rules)


def test_finisher_bonus_lowest_highest_tie_and_stall():
    low, high = [7] * 9, [8, 3, 4, 5, 6, 8, 3, 4, 5]
    rows = _rows([low, high], 0)
    assert rows[0][F_BONUS] == -5 and rows[0][F_SCORE] == -42 - 5 and rows[0][F_FINISHER] == 1
    assert rows[1][F_BONUS] == 0 and rows[1][F_FINISHER] == 0 and rows[1][F_TURNS] == 2
    assert _rows([low, high], 1)[1][F_BONUS] == 5
    assert _rows([low, low], 1)[1][F_BONUS] == -5
    assert _rows([low, low], 1, rules=RuleConfig(finisher_tie_is_lowest=False))[1][F_BONUS] == 5
    stalled = _rows([low, high], 0, stalled=True)
    assert stalled[0][F_BONUS] == 0 and stalled[0][F_FINISHER] == 1
    assert len(rows[0]) == N_FIELDS


def test_win_credit_tie_breaks():
    assert win_credit([10, 12], [5, 0]) == [1.0, 0.0]
    assert win_credit([10, 10, 9], [0, 0, 9]) == [0.0, 0.0, 1.0]
    assert win_credit([10, 10, 11], [3, 1, -9]) == [0.0, 1.0, 0.0]
    assert win_credit([10, 10, 10], [1, 1, 2]) == [0.5, 0.5, 0.0]


# ---------------------------------------------------------------- legal games pass
def _golden_game():
    """A hand-written 2-player game under max_turns=1: one turn per round, then a stall.

    Each round deals the same order: seat 0 gets ``5 5 6 / 6 3 4 / 7 8 -1``, seat 1 gets
    ``3 4 5 / 6 7 8 / -2 H M``, the discard piles are seeded with 7 and 8, then 5 is on top.
    After round 0 seat 0 holds ``6 5 6 / 5 3 4 / 7 8 -1``: no matched line, 44 - 1 = 43.
    """
    order = [5, 5, 6, 6, 3, 4, 7, 8, -1] + [3, 4, 5, 6, 7, 8, -2, H, M] + [7, 8, 5, 3, 4]
    flips = [[T.INIT_FLIP, 0, 1, 5], [T.INIT_FLIP, 0, 2, 6], [T.INIT_FLIP, 1, 0, 3], [T.INIT_FLIP, 1, 1, 4]]
    setup = [[T.SETUP_DISCARD, -1, 0, 7], [T.SETUP_DISCARD, -1, 1, 8]]
    stall = [[T.STALL, -1, T.STALL_MAX_TURNS, 0]]
    recs = [[T.ROUND, 0, 0, 2], *setup, *flips,
            [T.TURN, 0, 0, 0], [T.DRAW, 0, T.SRC_DRAW, 5],
            [T.PLACE, 0, 3, 6],    # reveals a 6, which matches the face-up 6 at position 2
            [T.BOUNCE, 0, 0, 5],   # the 6 replaces a face-down 5, which matches the 5s
            [T.BOUNCE, 0, 1, 5],   # the 5 lands on a face-up 5: the chain ends
            [T.DISCARD, 0, 1, 5], *stall, [T.ROUND_END, -1, 0, 1],
            [T.ROUND, 1, 1, 2], *setup, *flips[2:], *flips[:2],
            [T.TURN, 1, 0, 0], [T.DRAW, 1, T.SRC_PILE0, 7], [T.PLACE, 1, 8, M],
            [T.DISCARD, 1, 0, M],  # pile 0 is empty: the discard must go there
            *stall, [T.ROUND_END, -1, 1, 1],
            [T.ROUND, 0, 2, 2], *setup, *flips,
            [T.TURN, 0, 0, 0], [T.DRAW, 0, T.SRC_DRAW, 5], [T.NOKEEP, 0, 0, 0], [T.DISCARD, 0, 0, 5],
            *stall, [T.ROUND_END, -1, 2, 1]]
    #               score, matched, unmatched, negatives, hazards, finisher, bonus, turns, stalled, start,
    #               lines, finish_turn, visible_at_finish, facedown_at_finish (nobody finished)
    stats = [[[43, 0, 44, -1, 0, 0, 0, 1, 1, 0, 0, -1, 0, -1], [41, 0, 33, -2, 10, 0, 0, 0, 1, 0, 0, -1, 0, -1]],
             [[43, 0, 44, -1, 0, 0, 0, 0, 1, 1, 0, -1, 0, -1], [48, 0, 40, -2, 10, 0, 0, 1, 1, 1, 0, -1, 0, -1]],
             [[43, 0, 44, -1, 0, 0, 0, 1, 1, 0, 0, -1, 0, -1], [41, 0, 33, -2, 10, 0, 0, 0, 1, 0, 0, -1, 0, -1]]]
    return dict(deals=np.array([order] * 3, dtype=np.int8), trace=np.array(recs, dtype=np.int32),
                rules=RuleConfig(max_turns=1), players=2, round_stats=np.array(stats, dtype=np.int32),
                totals=np.array([129, 130]), win_credit=np.array([1.0, 0.0]))


def test_hand_written_game_passes():
    counts = replay_game(**_golden_game(), seed=0, game=0)
    assert (counts.bounces, counts.bounce_chains_ge2, counts.forced_discards) == (2, 1, 1)
    assert (counts.stalls_max_turns, counts.stalled_rounds, counts.turns) == (3, 3, 3)


def test_hand_written_game_with_a_wrong_field_fails():
    game = _golden_game()
    game["round_stats"][0, 0, F_TURNS] = 0
    with pytest.raises(RefereeError, match="seed=0 game=0 round=0 .*turns=0 \\(expected 1\\)"):
        replay_game(**game, seed=0, game=0)


def test_scripted_two_player_games_pass_and_cover_the_rare_paths():
    total = RefereeCounts()
    for seed in range(150):
        total += replay(scripted(seed))
    assert total.games == 150 and total.rounds == 450
    for name in ("bounces", "bounce_chains_ge2", "reshuffles", "hazard_flips", "hazard_flip_declined",
                 "hazard_flip_refused_final_card", "hazards_removed_in_play", "setup_hazards",
                 "forced_discards", "final_lap_turns", "mulligans_placed", "hazards_placed",
                 "finisher_bonus_minus", "finisher_bonus_plus"):
        assert getattr(total, name) > 0, name


@pytest.mark.parametrize("players", [3, 5])
def test_scripted_games_with_more_players_pass(players):
    deck = SMALL_DECK * 2
    for seed in range(20):
        game = scripted(seed, players=players, deck=deck)
        replay_game(**game, deck=deck)


@pytest.mark.parametrize("rules", [
    RuleConfig(max_turns=7),
    RuleConfig(reshuffle_when_empty=False),
    RuleConfig(rotate_start=False, discard_draw_must_be_kept=False, hazard_placeable=False),
    RuleConfig(mulligan_limit=0, mulligans_per_line=2, finisher_tie_is_lowest=False),
], ids=["max_turns", "no_reshuffle", "options_off", "no_mulligan_limit"])
def test_scripted_games_under_other_rules_pass(rules):
    total = RefereeCounts()
    for seed in range(40):
        total += replay(scripted(seed, rules=rules))
    if rules.max_turns == 7:
        assert total.stalls_max_turns > 100 and total.turns <= 7 * 120  # a few rounds end in time
    if not rules.reshuffle_when_empty:
        assert total.stalled_rounds > 0 and total.reshuffles == 0


def test_reshuffle_with_nothing_to_reshuffle_stalls():
    # 18 + 2 cards: the draw pile is empty at once, and the discard piles hold one card each
    deck = sorted([3, 4, 5, 6, 7, 8, 3, 4, 5, 6, 7, 8, -1, -2, -3, 3, 4, 5, 6, 7])
    game = scripted(0, deck=deck, p_pile=0.0)
    counts = replay_game(**game, deck=deck)
    assert counts.stalls_no_cards == 3 and counts.stalled_rounds == 3 and counts.turns == 3


def test_counts_merge():
    a, b = RefereeCounts(games=1, bounces=2), RefereeCounts(games=2, bounces=5)
    a += b
    assert (a.games, a.bounces) == (3, 7)
    assert a.merge(b) is a and a.games == 5


# ---------------------------------------------------------------- tampered traces fail
def test_wrong_drawn_card():
    game, recs, i, _ = find_game(lambda recs, i, note: recs[i][0] == T.DRAW)
    recs[i][3] = recs[i][3] + 1 if recs[i][3] < 8 else 3
    rejects(game, recs, "drawn card is")


def test_bounce_onto_a_filled_position():
    game, recs, i, _ = find_game(lambda recs, i, note: recs[i][0] == T.BOUNCE and recs[i - 1][0] == T.PLACE)
    recs[i][2] = recs[i - 1][2]
    rejects(game, recs, "already filled this turn")


def test_bounce_onto_an_earlier_bounce_target():
    game, recs, i, _ = find_game(lambda recs, i, note: recs[i][0] == T.BOUNCE and recs[i - 1][0] == T.BOUNCE)
    recs[i][2] = recs[i - 1][2]
    rejects(game, recs, "already filled this turn")


def test_bounce_of_a_non_matching_card():
    def revealed_non_match(recs, i, note):
        return recs[i][0] == T.PLACE and note == (True, False) and recs[i + 1][0] == T.DISCARD
    game, recs, i, _ = find_game(revealed_non_match)
    target = (recs[i][2] + 1) % 9
    recs.insert(i + 1, [T.BOUNCE, recs[i][1], target, 0])
    rejects(game, recs, "matches no face-up positive card")


def test_bounce_of_a_card_that_was_face_up():
    def face_up_replaced(recs, i, note):
        return recs[i][0] == T.PLACE and note is not None and not note[0] and recs[i + 1][0] == T.DISCARD
    game, recs, i, _ = find_game(face_up_replaced)
    recs.insert(i + 1, [T.BOUNCE, recs[i][1], (recs[i][2] + 1) % 9, 0])
    rejects(game, recs, "was face up")


def test_nokeep_after_a_discard_draw():
    game, recs, i, _ = find_game(lambda recs, i, note: recs[i][0] == T.DRAW and recs[i][2] != T.SRC_DRAW)
    seat, drawn = recs[i][1], recs[i][3]
    end = next(j for j in range(i, len(recs)) if recs[j][0] == T.DISCARD)
    recs[i + 1:end + 1] = [[T.NOKEEP, seat, 0, 0], [T.DISCARD, seat, recs[end][2], drawn]]
    rejects(game, recs, "must be kept")


def test_discard_to_the_non_empty_pile_when_one_is_empty():
    game, recs, i, _ = find_game(lambda recs, i, note: note == "forced")
    recs[i][2] = 1 - recs[i][2]
    rejects(game, recs, "the other one is not empty")


def test_hazard_flip_of_the_final_face_down_card():
    game, recs, i, (pos, card) = find_game(
        lambda recs, i, note: recs[i][0] == T.HAZARD_FLIP and isinstance(note, tuple))
    recs[i][2:] = [pos, card]
    rejects(game, recs, "who has 1 face-down cards")


def test_hazard_flip_refused_to_a_player_who_may_flip():
    game, recs, i, _ = find_game(lambda recs, i, note: recs[i][0] == T.HAZARD_FLIP and recs[i][2] >= 0)
    recs[i][2:] = [T.HFLIP_NOT_ALLOWED, 0]
    rejects(game, recs, "refused to seat")


def test_placing_a_mulligan_over_the_limit():
    game, recs, i, _ = find_game(lambda recs, i, note: note == "blocked" and recs[i + 1][0] == T.NOKEEP)
    seat = recs[i][1]
    recs.insert(i + 1, [T.PLACE, seat, 0, 0])
    del recs[i + 2]
    rejects(game, recs, "may not be placed")


def test_missing_final_lap_turn():
    game, recs, i, _ = find_game(lambda recs, i, note: recs[i][0] == T.TURN and recs[i][3] == 1)
    end = next(j for j in range(i, len(recs)) if recs[j][0] == T.ROUND_END)
    del recs[i:end]
    rejects(game, recs, "expected TURN, got ROUND_END")


def test_missing_finish():
    game, recs, i, _ = find_game(lambda recs, i, note: recs[i][0] == T.FINISH)
    del recs[i]
    rejects(game, recs, "no face-down card left but no FINISH")


def test_wrong_turn_number():
    game, recs, i, _ = find_game(lambda recs, i, note: recs[i][0] == T.TURN and recs[i][2] == 3)
    recs[i][2] = 4
    rejects(game, recs, "TURN number is 4, expected 3")


def test_tampered_reshuffle():
    game, recs, i, _ = find_game(lambda recs, i, note: recs[i][0] == T.RESHUFFLE and recs[i][2] >= 2)
    recs[i + 1][2] = -4 if recs[i + 1][2] != -4 else 8
    rejects(game, recs, "reshuffled cards")


def test_wrong_score():
    game = scripted(3)
    game["round_stats"][1, 0, F_SCORE] += 1
    with pytest.raises(RefereeError, match="round=1 .*round_stats of seat 0: score="):
        replay(game)


def test_wrong_totals_and_win_credit():
    game = scripted(4)
    bad = {**game, "totals": game["totals"] + 1}
    with pytest.raises(RefereeError, match="totals"):
        replay(bad)
    bad = {**game, "win_credit": game["win_credit"][::-1] * 0.5}
    with pytest.raises(RefereeError, match="win credit"):
        replay(bad)


def test_deal_that_is_not_a_permutation_of_the_deck():
    game = scripted(5)
    game["deals"][2, 0] = 99 if game["deals"][2, 0] != 99 else 3
    with pytest.raises(RefereeError, match="round=2 .*not a permutation"):
        replay(game)


def test_truncated_and_overlong_traces():
    game = scripted(6)
    recs = game["trace"].tolist()
    rejects(game, recs[:-1], "trace ended, expected ROUND_END")
    padded = recs + [[0, 0, 0, 0]] * 3
    replay(with_trace(game, padded))
    rejects(game, recs + [[T.TURN, 0, 0, 0]], "records after the last ROUND_END")
