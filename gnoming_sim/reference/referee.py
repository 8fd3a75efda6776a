"""Referee: replay one game's action trace against an independent reading of RULES.md.

The referee keeps its own table (layouts with face-up flags, the draw pile, both
discard piles, removed cards), built from the deals alone.  Every trace record is
checked for legality and for agreement with that table, then applied; at each round's
end the referee scores the layouts itself and compares every ``round_stats`` field,
and at the game's end the totals and the win credit.  It shares no rule code with the
kernel: plain Python lists and ints, written straight from the spec.

Readings the spec leaves open, fixed here:
- turns are numbered from 0 in each round; at most ``max_turns`` TURN records per round,
  the STALL (``STALL_MAX_TURNS``) comes in place of TURN number ``max_turns``;
- a turn that ends in a STALL still counts in ``F_TURNS`` (its TURN record was written);
- a round that stalls in the final lap keeps its finisher (``F_FINISHER`` = 1) but pays
  no bonus;
- the setup seeds pile 0 first, then pile 1; initial flips go seat by seat from the starter.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from gnoming_sim.game import trace as T
from gnoming_sim.reference.scoring import finisher_is_lowest, round_rows, visible_score
from gnoming_sim.reference.scoring import win_credit as expected_win_credit
from gnoming_sim.game.cards import HAZARD, MAX_VALUE, MULLIGAN
from gnoming_sim.game.fields import F_BONUS, F_SCORE
from gnoming_sim.game.fields import NAMES as FIELD_NAMES
from gnoming_sim.game.rules import LAYOUT, ROUNDS, RuleConfig

FIRST_TURN = 0  # number of the first TURN of a round
_ZERO_RECORD = [0, 0, 0, 0]


class RefereeError(AssertionError):
    """A trace broke a rule, or disagreed with the referee's own state or scores.

    ``record``: the index of the record at fault (-1: none); ``reason``: the message without the
    game, round and record it names (for a caller that names them its own way)."""

    record: int = -1
    reason: str = ""


class _TraceEnd(Exception):
    """A prefix replay (:func:`replay_prefix`) reached the end of its records."""


@dataclass
class RefereeCounts:
    """How often the rare paths of the rules were taken; add with ``+=`` or :meth:`merge`."""

    games: int = 0
    rounds: int = 0
    turns: int = 0
    bounce_chains_ge2: int = 0
    bounces: int = 0
    hazard_flips: int = 0
    hazard_flip_declined: int = 0
    hazard_flip_refused_final_card: int = 0
    hazard_flip_none_left: int = 0
    hazards_removed_in_play: int = 0
    setup_hazards: int = 0
    forced_discards: int = 0
    reshuffles: int = 0
    stalled_rounds: int = 0
    stalls_max_turns: int = 0
    stalls_no_cards: int = 0
    shared_wins: int = 0
    finisher_ties_lowest: int = 0
    finisher_bonus_minus: int = 0
    finisher_bonus_plus: int = 0
    mulligans_placed: int = 0
    mulligan_limit_blocked: int = 0
    hazards_placed: int = 0
    final_lap_turns: int = 0

    def merge(self, other: "RefereeCounts") -> "RefereeCounts":
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))
        return self

    __iadd__ = merge


def replay_game(deals, trace, rules: RuleConfig, players: int, round_stats, totals, win_credit,
                *, seed=None, game=None, deck=None, check_conservation=True) -> RefereeCounts:
    """Replay one game and check it; return the rare-path counts, raise RefereeError on any fault.

    Parameters
    ----------
    deals : int8 array (3, n_cards)
        Deck order of each round (seat s's layout at 9*s .. 9*s+8, then the draw pile, top first).
    trace : int32 array (n_records, 4)
        The game's records, :mod:`gnoming_sim.game.trace` format; trailing all-zero records are ignored.
    round_stats : int32 array (3, players, N_FIELDS)
    totals : int array (players,)
    win_credit : float array (players,)
    deck : optional sorted multiset of the deck; default ``sorted(deals[0])``.
    """
    replay = _Replay(deals, trace, rules, players, seed, game, deck, check_conservation)
    replay.run(_as_list(round_stats), _as_list(totals), _as_list(win_credit))
    return replay.counts


def replay_prefix(deals, trace, rules: RuleConfig, players: int, deck=None) -> list:
    """Replay the start of a game, as far as its records go (a game record that stops mid-game),
    checking every record as :func:`replay_game` does; return the referee's own round-stats rows
    (``[round][seat] -> fields``) of every round the records finish.  RefereeError on any fault."""
    replay = _Replay(deals, trace, rules, players, None, None, deck, True)
    replay.prefix = True
    try:
        replay.run(None, None, None)
    except _TraceEnd:
        pass
    return replay.scored


def _as_list(x):
    return x.tolist() if hasattr(x, "tolist") else list(x)


class _Replay:
    """One game's replay: a cursor over the records plus the referee's own table."""

    def __init__(self, deals, trace, rules, players, seed, game, deck, check_conservation):
        self.rules, self.players = rules, players
        self.seed, self.game = seed, game
        self.check_conservation = check_conservation
        self.deals = _as_list(deals)
        self.deck = sorted(_as_list(deck) if deck is not None else self.deals[0])
        self.recs = _as_list(trace)
        while self.recs and list(self.recs[-1]) == _ZERO_RECORD:
            self.recs.pop()
        self.i = 0  # index of the next record
        self.counts = RefereeCounts(games=1)
        self.round = self.turn = -1
        self.prefix = False     # replay_prefix: the records may stop anywhere, scores are computed
        self.scored = []        # replay_prefix: the round-stats rows of each finished round

    # ------------------------------------------------------------------ cursor
    def fail(self, message: str):
        last = self.i - 1
        where = ""
        if 0 <= last < len(self.recs):
            kind, seat, a, b = self.recs[last]
            where = f" [record {last}: {T.NAMES.get(kind, kind)} seat={seat} a={a} b={b}]"
        err = RefereeError(f"seed={self.seed} game={self.game} round={self.round} "
                           f"turn={self.turn}: {message}{where}")
        err.record, err.reason = last, message
        raise err

    def peek(self):
        return self.recs[self.i][0] if self.i < len(self.recs) else None

    def take(self, kind: int, seat: int):
        """Read the next record, which must be ``kind`` by ``seat``; return its (a, b)."""
        if self.i >= len(self.recs):
            if self.prefix:
                raise _TraceEnd
            self.fail(f"trace ended, expected {T.NAMES[kind]}")
        k, s, a, b = self.recs[self.i]
        self.i += 1
        if k != kind:
            self.fail(f"expected {T.NAMES[kind]}, got {T.NAMES.get(k, k)}")
        if s != seat:
            self.fail(f"{T.NAMES[kind]} by seat {s}, expected seat {seat}")
        return a, b

    def expect(self, what: str, got, want):
        if got != want:
            self.fail(f"{what} is {got}, expected {want}")

    # ------------------------------------------------------------------ game
    def run(self, round_stats, totals, credit):
        if len(self.deals) != ROUNDS:
            self.fail(f"deals hold {len(self.deals)} rounds, expected {ROUNDS}")
        starter = 0
        for r in range(ROUNDS):
            if r > 0 and self.rules.rotate_start:
                starter = (starter + 1) % self.players
            self.play_round(r, starter, None if self.prefix else round_stats[r])
        if self.i != len(self.recs):
            self.fail(f"{len(self.recs) - self.i} records after the last ROUND_END")
        if not self.prefix:
            self.check_game(round_stats, totals, credit)

    def check_game(self, round_stats, totals, credit):
        self.turn = -1
        scores = [[round_stats[r][s][F_SCORE] for s in range(self.players)] for r in range(ROUNDS)]
        want_totals = [sum(scores[r][s] for r in range(ROUNDS)) for s in range(self.players)]
        self.expect("totals", list(totals), want_totals)
        want_credit = expected_win_credit(want_totals, scores[ROUNDS - 1])
        off = any(abs(got - want) > 1e-9 for got, want in zip(credit, want_credit))
        if off or len(credit) != self.players:
            self.fail(f"win credit is {list(credit)}, expected {want_credit}")
        if sum(1 for c in want_credit if c > 0) >= 2:
            self.counts.shared_wins += 1

    # ------------------------------------------------------------------ round
    def play_round(self, r: int, starter: int, stats):
        self.round, self.turn = r, -1
        a, b = self.take(T.ROUND, starter)
        self.expect("ROUND index", a, r)
        self.expect("ROUND player count", b, self.players)
        self.deal(r)
        self.seed_piles()
        for k in range(self.players):
            seat = (starter + k) % self.players
            first = self.initial_flip(seat, None)
            self.initial_flip(seat, first)
        stalled = self.play_turns(starter)
        self.turn = -1
        if self.check_conservation:
            self.check_cards()
        a, b = self.take(T.ROUND_END, -1)
        self.expect("ROUND_END index", a, r)
        self.expect("ROUND_END stalled flag", b, int(stalled))
        self.counts.rounds += 1
        self.check_scores(stats, stalled, starter)

    def deal(self, r: int):
        row = self.deals[r]
        if sorted(row) != self.deck:
            self.fail(f"the deal of round {r} is not a permutation of the deck")
        if len(row) < LAYOUT * self.players + 2:
            self.fail(f"{len(row)} cards cannot deal {self.players} layouts and two discard piles")
        self.layouts = [row[LAYOUT * s:LAYOUT * s + LAYOUT] for s in range(self.players)]
        self.up = [[False] * LAYOUT for _ in range(self.players)]
        self.down = [LAYOUT] * self.players
        self.draw_pile = row[LAYOUT * self.players:][::-1]  # top card last
        self.piles = [[], []]  # top card last
        self.removed = []
        self.finisher = None
        self.at_finish = None
        self.turns = [0] * self.players

    def seed_piles(self):
        for pile in (0, 1):
            card = self.pop_setup_card()
            while card == HAZARD:
                a, b = self.take(T.SETUP_HAZARD, -1)
                self.expect("SETUP_HAZARD", (a, b), (0, HAZARD))
                self.removed.append(card)
                self.counts.setup_hazards += 1
                card = self.pop_setup_card()
            a, b = self.take(T.SETUP_DISCARD, -1)
            self.expect("SETUP_DISCARD (pile, card)", (a, b), (pile, card))
            self.piles[pile].append(card)

    def pop_setup_card(self) -> int:
        if not self.draw_pile:
            self.fail("the draw pile ran out while seeding the discard piles")
        return self.draw_pile.pop()

    def initial_flip(self, seat: int, first):
        pos, card = self.take(T.INIT_FLIP, seat)
        if not 0 <= pos < LAYOUT or pos == first:
            self.fail(f"initial flip at position {pos} (first flip was {first})")
        self.expect("initially flipped card", card, self.layouts[seat][pos])
        self.reveal(seat, pos)
        return pos

    def reveal(self, seat: int, pos: int):
        self.up[seat][pos] = True
        self.down[seat] -= 1

    def play_turns(self, starter: int) -> bool:
        """Play the round's turns; return True if it stalled."""
        seat, n = starter, 0
        while not (self.finisher is not None and seat == self.finisher):
            self.turn = FIRST_TURN + n
            if n == self.rules.max_turns:
                a, b = self.take(T.STALL, -1)
                self.expect("STALL reason", (a, b), (T.STALL_MAX_TURNS, 0))
                self.count_stall("stalls_max_turns")
                return True
            if not self.play_turn(seat):
                return True
            seat, n = (seat + 1) % self.players, n + 1
        return False

    def count_stall(self, name=None):
        self.counts.stalled_rounds += 1
        if name:
            setattr(self.counts, name, getattr(self.counts, name) + 1)

    def check_scores(self, stats, stalled: bool, starter: int):
        want = round_rows(self.layouts, self.finisher, stalled, self.turns, starter, self.rules,
                          self.at_finish)
        if stats is None:   # replay_prefix: the referee's scores are the result
            self.scored.append(want)
            return
        for seat in range(self.players):
            got = list(stats[seat])
            if got != want[seat]:
                bad = [f"{FIELD_NAMES[f]}={g} (expected {w})"
                       for f, (g, w) in enumerate(zip(got, want[seat])) if g != w] or [f"{len(got)} fields"]
                self.fail(f"round_stats of seat {seat}: {', '.join(bad)}; layout {self.layouts[seat]}")
        if self.finisher is not None and not stalled:
            pre = [row[F_SCORE] - row[F_BONUS] for row in want]
            lowest, tied = finisher_is_lowest(pre, self.finisher, self.rules.finisher_tie_is_lowest)
            self.counts.finisher_ties_lowest += tied
            self.counts.finisher_bonus_minus += lowest
            self.counts.finisher_bonus_plus += not lowest

    # ------------------------------------------------------------------ turn
    def play_turn(self, seat: int) -> bool:
        """Replay one turn; return False if the round stalled in it."""
        final_lap = self.finisher is not None
        a, b = self.take(T.TURN, seat)
        self.expect("TURN number", a, self.turn)
        self.expect("TURN final-lap flag", b, int(final_lap))
        self.turns[seat] += 1
        self.counts.turns += 1
        self.counts.final_lap_turns += final_lap
        if self.check_conservation:
            self.check_cards()
        drawn = self.draw(seat)
        if drawn is None:
            return False
        card, source = drawn
        self.discard(seat, self.play(seat, card, source))
        self.check_finish(seat)
        return True

    def check_cards(self):
        everything = self.draw_pile + self.piles[0] + self.piles[1] + self.removed
        for layout in self.layouts:
            everything += layout
        everything.sort()
        if everything != self.deck:
            self.fail("card conservation broken: layouts + draw pile + discard piles + removed != deck")

    def draw(self, seat: int):
        """Replay the draw (with any reshuffle or stall); return (card, source), or None on a stall."""
        kind = self.peek()
        reshuffled = kind == T.RESHUFFLE
        if reshuffled and not self.reshuffle(seat):
            return None
        if kind == T.STALL:
            a, b = self.take(T.STALL, -1)
            self.expect("STALL reason", (a, b), (T.STALL_NO_RESHUFFLE, 0))
            if self.rules.reshuffle_when_empty or self.draw_pile:
                self.fail("STALL_NO_RESHUFFLE while a reshuffle or a draw was possible")
            self.count_stall()
            return None
        source, card = self.take(T.DRAW, seat)
        if reshuffled and source != T.SRC_DRAW:
            self.fail("after a RESHUFFLE the draw must be from the draw pile")
        self.expect("drawn card", card, self.pop_source(source))
        if source != T.SRC_DRAW and self.rules.discard_draw_must_be_kept and not self.placeable(seat, card):
            self.fail(f"drew {card} from a discard pile, but it must be kept and cannot be placed")
        return card, source

    def pop_source(self, source: int) -> int:
        if source == T.SRC_DRAW:
            if not self.draw_pile:
                self.fail("draw from an empty draw pile without a RESHUFFLE")
            return self.draw_pile.pop()
        if source not in (T.SRC_PILE0, T.SRC_PILE1):
            self.fail(f"unknown draw source {source}")
        pile = self.piles[source - T.SRC_PILE0]
        if not pile:
            self.fail(f"draw from empty discard pile {source - T.SRC_PILE0}")
        return pile.pop()

    def reshuffle(self, seat: int) -> bool:
        """Replay RESHUFFLE and its CARD records; return False if nothing was left (the STALL read)."""
        n, b = self.take(T.RESHUFFLE, seat)
        if not self.rules.reshuffle_when_empty:
            self.fail("RESHUFFLE although reshuffle_when_empty is off")
        if self.draw_pile:
            self.fail(f"RESHUFFLE while the draw pile still holds {len(self.draw_pile)} cards")
        under = self.piles[0][:-1] + self.piles[1][:-1]
        self.expect("RESHUFFLE (size, b)", (n, b), (len(under), 0))
        new = [self.take(T.CARD, -1) for _ in range(n)]
        if any(b != 0 for _, b in new) or sorted(a for a, _ in new) != sorted(under):
            self.fail("the reshuffled cards are not the discard piles less their top cards")
        self.piles = [pile[-1:] for pile in self.piles]
        self.draw_pile = [a for a, _ in reversed(new)]
        self.counts.reshuffles += 1
        if n == 0:
            a, b = self.take(T.STALL, -1)
            self.expect("STALL reason", (a, b), (T.STALL_NO_CARDS, 0))
            self.count_stall("stalls_no_cards")
            return False
        return True

    def up_mulligans(self, seat: int) -> int:
        return sum(1 for c, u in zip(self.layouts[seat], self.up[seat]) if u and c == MULLIGAN)

    def placeable(self, seat: int, card: int) -> bool:
        if card == HAZARD:
            return self.rules.hazard_placeable
        limit = self.rules.mulligan_limit
        return not (card == MULLIGAN and limit and self.up_mulligans(seat) >= limit)

    # ------------------------------------------------------------------ play
    def play(self, seat: int, card: int, source: int) -> int:
        """Replay PLACE + BOUNCE* or NOKEEP; return the card that must be discarded."""
        can_place = self.placeable(seat, card)
        if card == MULLIGAN and not can_place:
            self.counts.mulligan_limit_blocked += 1
        if self.peek() == T.NOKEEP:
            self.expect("NOKEEP (a, b)", self.take(T.NOKEEP, seat), (0, 0))
            if source != T.SRC_DRAW and self.rules.discard_draw_must_be_kept:
                self.fail("NOKEEP of a card drawn from a discard pile, which must be kept")
            return card
        pos, replaced = self.take(T.PLACE, seat)
        if not 0 <= pos < LAYOUT:
            self.fail(f"PLACE at position {pos}")
        if not can_place:
            self.fail(f"placed {card}, which may not be placed here (mulligan limit / hazard rule)")
        self.expect("replaced card", replaced, self.layouts[seat][pos])
        self.counts.mulligans_placed += card == MULLIGAN
        self.counts.hazards_placed += card == HAZARD
        was_down = self.put(seat, pos, card)
        return self.bounce_chain(seat, pos, replaced, was_down)

    def put(self, seat: int, pos: int, card: int) -> bool:
        """Put ``card`` face up at ``pos``; return whether the card it replaced was face down."""
        was_down = not self.up[seat][pos]
        self.layouts[seat][pos] = card
        if was_down:
            self.reveal(seat, pos)
        return was_down

    def matches(self, seat: int, card: int) -> bool:
        """Is ``card`` positive and equal to some face-up (hence positive) card in the layout?"""
        if not 0 <= card <= MAX_VALUE:
            return False
        return any(u and c == card for c, u in zip(self.layouts[seat], self.up[seat]))

    def bounce_chain(self, seat: int, pos: int, candidate: int, was_down: bool) -> int:
        """Replay the BOUNCE records after a placement; return the last replaced card."""
        filled = {pos}
        links = 0
        while self.peek() == T.BOUNCE:
            target, replaced = self.take(T.BOUNCE, seat)
            if not self.rules.bouncing:
                self.fail("a bounce although the rules option 'bouncing' is off")
            if not was_down:
                self.fail(f"bounce of {candidate}, which was face up before this turn")
            if not self.matches(seat, candidate):
                self.fail(f"bounce of {candidate}, which matches no face-up positive card")
            if not 0 <= target < LAYOUT or target in filled:
                self.fail(f"bounce onto position {target}, already filled this turn ({sorted(filled)})")
            self.expect("card replaced by the bounce", replaced, self.layouts[seat][target])
            was_down = self.put(seat, target, candidate)
            filled.add(target)
            candidate = replaced
            links += 1
        self.counts.bounces += links
        self.counts.bounce_chains_ge2 += links >= 2
        return candidate

    # ------------------------------------------------------------------ discard
    def discard(self, seat: int, card: int):
        pile, got = self.take(T.DISCARD, seat)
        self.expect("discarded card", got, card)
        if card == HAZARD:
            self.expect("DISCARD pile of a hazard", pile, T.DISCARD_REMOVED)
            self.removed.append(card)
            self.counts.hazards_removed_in_play += 1
            self.hazard_flips(seat)
            return
        if pile not in (0, 1):
            self.fail(f"discard to pile {pile}")
        empty = [p for p in (0, 1) if not self.piles[p]]
        if len(empty) == 1:
            self.expect("discard pile (the other one is not empty)", pile, empty[0])
            self.counts.forced_discards += 1
        self.piles[pile].append(card)

    def hazard_flips(self, discarder: int):
        for k in range(1, self.players):
            seat = (discarder + k) % self.players
            pos, card = self.take(T.HAZARD_FLIP, seat)
            down = self.down[seat]
            if pos == T.HFLIP_NOT_ALLOWED:
                if down > 1:
                    self.fail(f"hazard flip refused to seat {seat}, who has {down} face-down cards")
                self.expect("HAZARD_FLIP card", card, 0)
                self.counts.hazard_flip_refused_final_card += down == 1
                self.counts.hazard_flip_none_left += down == 0
                continue
            if down < 2:
                self.fail(f"hazard flip decision by seat {seat}, who has {down} face-down cards")
            if pos == T.HFLIP_DECLINED:
                self.expect("HAZARD_FLIP card", card, 0)
                self.counts.hazard_flip_declined += 1
                continue
            if not 0 <= pos < LAYOUT or self.up[seat][pos]:
                self.fail(f"hazard flip of position {pos}, which is not face down")
            self.expect("hazard-flipped card", card, self.layouts[seat][pos])
            self.reveal(seat, pos)
            self.counts.hazard_flips += 1

    def check_finish(self, seat: int):
        done = self.down[seat] == 0 and self.finisher is None
        if self.peek() == T.FINISH:
            self.expect("FINISH (a, b)", self.take(T.FINISH, seat), (0, 0))
            if not done:
                self.fail(f"FINISH by seat {seat} with {self.down[seat]} face-down cards "
                          f"(finisher so far: {self.finisher})")
            self.finisher = seat
            self.at_finish = (self.turn,
                              [visible_score(self.layouts[s], self.up[s], self.rules) for s in range(self.players)],
                              list(self.down))
        elif done:
            self.fail(f"seat {seat} has no face-down card left but no FINISH was recorded")
