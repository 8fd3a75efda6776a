"""One traced game told as readable text, turn by turn (``gnoming-sim play``).

Pure Python over what :func:`gnoming_sim.kernel.engine.simulate` returns with ``trace=True``:
the deal of each round (``deals``), the action trace (format in :mod:`gnoming_sim.game.trace`)
and the scores (``round_stats``).  The trace walker (:func:`gnoming_sim.game.replay.walk`)
keeps the table, so the story knows which cards are face down; layouts are drawn as 3×3
grids, face-down cards as ``?``.  The scores printed are the engine's; the matched lines
beside them are recomputed here.
"""
from __future__ import annotations

from gnoming_sim.game import fields
from gnoming_sim.game import trace as T
from gnoming_sim.reference.scoring import LINES, line_value
from gnoming_sim.game.cards import HAZARD, MULLIGAN, card_name, is_negative, is_positive
from gnoming_sim.game.naming import LINE_NAMES, pile_name, position_name, turn_name
from gnoming_sim.game.replay import Table, walk
from gnoming_sim.game.rules import LAYOUT, ROUNDS

ENDS_A_TURN = (T.TURN, T.FINISH, T.STALL, T.ROUND_END)
_ABOUT_THE_TABLE = (T.ROUND, T.RESHUFFLE, T.STALL, T.ROUND_END)   # lines about no seat in particular
_STALLS = {
    T.STALL_NO_CARDS: "the draw pile is empty and reshuffling the discards leaves nothing to draw",
    T.STALL_MAX_TURNS: "the turn limit (max_turns) is reached",
    T.STALL_NO_RESHUFFLE: "the draw pile is empty and reshuffle_when_empty is off",
}


def _signed(x: int) -> str:
    return f"({x})" if x < 0 else str(x)


def describe(card: int) -> str:
    """A card in a sentence: ``"a 7"``, ``"a -2"``, ``"a hazard"``, ``"a mulligan"``."""
    if card == HAZARD:
        return "a hazard"
    if card == MULLIGAN:
        return "a mulligan"
    return f"an {card}" if card in (8, 11, 18) else f"a {card}"


def grid_lines(cards, up) -> list[str]:
    """Three text lines of a layout; a card whose ``up`` flag is false shows as ``?``."""
    names = [card_name(c) if u else "?" for c, u in zip(cards, up)]
    return [" ".join(f"{n:>3}" for n in names[r * 3:r * 3 + 3]) for r in range(3)]


def grids_side_by_side(labels, grids, indent: str = "  ") -> list[str]:
    """Grids (lists of 3 lines) next to each other, each under its label."""
    widths = [max(len(label), *(len(x) for x in g)) for label, g in zip(labels, grids)]
    rows = [[label for label in labels]] + [[g[r] for g in grids] for r in range(3)]
    return [(indent + "   ".join(c.ljust(w) for c, w in zip(row, widths))).rstrip() for row in rows]


def _grids(table: Table, seats, reveal_all: bool = False) -> list[list[str]]:
    return [grid_lines(table.layout(s), [True] * LAYOUT if reveal_all else table.face_up(s)) for s in seats]


class Narrator:
    """Turns one game's trace into lines of text; one ``_on_<KIND>`` method per record kind."""

    def __init__(self, result, index: int = 0):
        if result.traces is None or result.deals is None:
            raise ValueError("narration needs a result simulated with trace=True")
        self.res = result
        self.i = index
        self.game = result.first_game + index
        self.players = result.players
        self.seats = [result.strategy_names[k] for k in result.seat_strategy[index]]
        self.stats = result.round_stats[index]
        self.table: Table | None = None
        self.round = 0
        self.game_turn = 0      # turns told so far, over all rounds: the number `analyse --turn` takes
        self.starter = 0
        self.drawn = 0          # the card drawn this turn
        self.candidate = 0      # the card last replaced in the layout (what a bounce moves)
        self.grid_seat: int | None = None   # whose layout to draw when the turn ends
        self.out: list[str] = []
        # per line of ``out``: (round index or None, seat or None) it is about, for filters
        self.tags: list[tuple[int | None, int | None]] = []
        self.in_round = False
        self.about: int | None = None   # the seat the lines being told are about (None: the table)
        self.final_layouts: list[list[list[int]]] = []   # per round, per seat: the revealed layout

    def who(self, seat: int) -> str:
        return f"seat {seat} ({self.seats[seat]})"

    def say(self, text: str = "", indent: int = 0) -> None:
        self._add(["  " * indent + text if text else ""])

    def _add(self, lines: list[str], seat: int | None = -1) -> None:
        """Append lines tagged with the round being told and ``seat`` (default: ``self.about``)."""
        self.out += lines
        tag = (self.round if self.in_round else None, self.about if seat == -1 else seat)
        self.tags += [tag] * len(lines)

    def lines(self) -> list[str]:
        self._intro()
        for _, (kind, seat, a, b), table in walk(self.res.deals[self.i], self.res.traces[self.i], self.players):
            self.table = table        # as it stands after the record being told
            if kind in ENDS_A_TURN:
                self._flush_grid()
            if kind == T.ROUND:
                self.in_round = True
            self.about = seat if seat >= 0 and kind not in _ABOUT_THE_TABLE else None
            getattr(self, f"_on_{T.NAMES[kind].lower()}")(seat, a, b)
            if kind == T.ROUND_END:
                self.in_round = False
        self.about = None
        self._outro()
        return self.out

    def filtered(self, round_index: int | None = None, seat: int | None = None) -> list[str]:
        """The story restricted to one round (index 0..2) and/or one seat's own turns, flips and
        scores; the game's frame and the table-wide lines (setup, reveal) stay."""
        lines = self.out or self.lines()
        return [line for line, (r, s) in zip(lines, self.tags)
                if (round_index is None or r is None or r == round_index)
                and (seat is None or s is None or s == seat)]

    # --------------------------------------------------------------- game frame
    def _intro(self) -> None:
        res = self.res
        changed = [f"{n}={v}" for n, v, d, _ in res.rules.describe() if v != d]
        self.say(f"Gnoming A Round: game {self.game} of seed {res.seed}, {self.players} players")
        self.say(", ".join(self.who(s) for s in range(self.players)))
        self.say(f"deck {res.deck.name} ({res.deck.size} cards); rules: "
                 + (", ".join(changed) if changed else "the defaults"))

    def _outro(self) -> None:
        totals = [int(v) for v in self.res.totals[self.i]]
        credit = [float(v) for v in self.res.win_credit[self.i]]
        self.say()
        self.say("== Game over ==")
        for s in range(self.players):
            rounds = " + ".join(_signed(int(self.stats[r, s, fields.F_SCORE])) for r in range(ROUNDS))
            self.say(f"{self.who(s)}: {rounds} = {totals[s]}", 1)
        winners = [s for s in range(self.players) if credit[s] > 0]
        if len(winners) == 1:
            self.say(f"Winner: {self.who(winners[0])} with {totals[winners[0]]} (lowest wins).")
        else:
            self.say("Shared win: " + ", ".join(self.who(s) for s in winners)
                     + f" with {totals[winners[0]]} and the same last-round score.")

    # --------------------------------------------------------------- round setup
    def _on_round(self, starter: int, rnd: int, players: int) -> None:
        self.round, self.starter = rnd, starter
        self.say()
        self.say(f"== Round {rnd + 1} of {ROUNDS}: {self.who(starter)} starts ==")
        left = len(self.table.draw_pile())
        self.say(f"Each player is dealt 9 cards face down; the other {left} form the draw pile.")

    def _on_setup_hazard(self, seat: int, a: int, card: int) -> None:
        self.say("A hazard turned up for a discard pile is removed from the game.", 1)

    def _on_setup_discard(self, seat: int, pile: int, card: int) -> None:
        self.say(f"Discard {pile_name(pile)} starts with {describe(card)}.", 1)

    def _on_init_flip(self, seat: int, pos: int, card: int) -> None:
        first = int(self.table.fd[seat]) == LAYOUT - 1   # this flip is the seat's first
        if first:
            self.say(f"{self.who(seat)} turns up {describe(card)} at {position_name(pos)}", 1)
        else:
            self.out[-1] += f" and {describe(card)} at {position_name(pos)}."
        if not first and seat == self._last_setup_seat():
            self._show_table()

    def _last_setup_seat(self) -> int:
        return (self.starter + self.players - 1) % self.players

    def _show_table(self, reveal_all: bool = False) -> None:
        labels = [f"seat {s} {self.seats[s]}" for s in range(self.players)]
        self._add(grids_side_by_side(labels, _grids(self.table, range(self.players), reveal_all)), seat=None)

    # --------------------------------------------------------------- turns
    def _on_turn(self, seat: int, number: int, final: int) -> None:
        lap = ", final lap" if final else ""
        self.say(f"{turn_name(self.game_turn, self.round, number).capitalize()}: {self.who(seat)}{lap}")
        self.game_turn += 1

    def _on_reshuffle(self, seat: int, n: int, b: int) -> None:
        self.say(f"The draw pile is empty: {n} discards (all but each pile's top card) "
                 "are shuffled into a new draw pile.", 1)

    def _on_card(self, seat: int, card: int, b: int) -> None:
        pass  # the new draw pile's order: not part of the story

    def _on_stall(self, seat: int, reason: int, b: int) -> None:
        self.say(f"The round stalls: {_STALLS.get(reason, 'no card can be drawn')}. No early-finish bonus.", 1)

    def _on_draw(self, seat: int, source: int, card: int) -> None:
        self.drawn = card
        if source == T.SRC_DRAW:
            self.say(f"draws {describe(card)} from the draw pile", 1)
        else:
            self.say(f"takes {describe(card)} from discard {pile_name(source - 1)}", 1)

    def _on_place(self, seat: int, pos: int, old: int) -> None:
        was_down = self.table.was_down
        self.candidate = old
        what = f"revealing {describe(old)}" if was_down else f"replacing a face-up {card_name(old)}"
        self.say(f"places it at {position_name(pos)}, {what}", 1)

    def _on_nokeep(self, seat: int, a: int, b: int) -> None:
        self.say("does not keep it", 1)

    def _on_bounce(self, seat: int, pos: int, old: int) -> None:
        moved = self.candidate
        was_down = self.table.was_down
        self.candidate = old
        what = f"revealing {describe(old)}" if was_down else f"replacing a face-up {card_name(old)}"
        self.say(f"the {card_name(moved)} matches: it bounces to {position_name(pos)}, {what}", 1)

    def _on_discard(self, seat: int, pile: int, card: int) -> None:
        if pile == T.DISCARD_REMOVED:
            self.say(f"discards {describe(card)}: it leaves the game, "
                     "and each other player may turn up one face-down card", 1)
        else:
            self.say(f"discards {describe(card)} onto {pile_name(pile)}", 1)
        self.grid_seat = seat  # drawn once the turn's hazard flips are told

    def _flush_grid(self) -> None:
        if self.grid_seat is not None:
            self._add(["    " + x for x in _grids(self.table, [self.grid_seat])[0]], seat=self.grid_seat)
            self.grid_seat = None

    def _on_hazard_flip(self, seat: int, pos: int, card: int) -> None:
        if pos == T.HFLIP_DECLINED:
            self.say(f"{self.who(seat)} declines to flip", 2)
        elif pos == T.HFLIP_NOT_ALLOWED:
            left = int(self.table.fd[seat])
            why = "no face-down card left" if left == 0 else "its last face-down card cannot be flipped"
            self.say(f"{self.who(seat)} cannot flip: {why}", 2)
        else:
            self.say(f"{self.who(seat)} turns up {describe(card)} at {position_name(pos)}", 2)

    def _on_finish(self, seat: int, a: int, b: int) -> None:
        self.say(f"{self.who(seat)} has no face-down card left and finishes the round: "
                 "every other player takes one more turn.", 1)

    # --------------------------------------------------------------- reveal and scoring
    def _on_round_end(self, seat: int, rnd: int, stalled: int) -> None:
        hidden = int(self.table.fd.sum())
        self.final_layouts.append([self.table.layout(s) for s in range(self.players)])
        self.say()
        self.say(f"Reveal: {hidden} face-down card{'s' if hidden != 1 else ''} turned up in place.")
        self._show_table(reveal_all=True)
        self.say(f"Scoring, round {rnd + 1}:")
        for s in range(self.players):
            self._score_seat(s, rnd)
        self.about = None

    def _score_seat(self, seat: int, rnd: int) -> None:
        """The seat's score, then each matched line and each part of the score on its own line."""
        self.about = seat
        row = self.stats[rnd, seat]
        lay = self.table.layout(seat)
        self.say(f"{self.who(seat)}: {int(row[fields.F_SCORE])}", 1)
        covered: set[int] = set()
        for name, line in zip(LINE_NAMES, LINES):
            value = line_value(lay, line, self.res.rules.mulligans_per_line)
            if value is not None:
                covered.update(line)
                cards = " ".join(card_name(lay[p]) for p in line)
                self.say(f"{name:<6} {cards:<9} matched at {value}: {-value}", 2)
        for label, value, detail in self._parts(row, lay, covered, self.res.rules):
            self.say(f"{label:<20}{value:>5}  {detail}".rstrip(), 2)

    @staticmethod
    def _parts(row, lay, covered, rules) -> list[tuple[str, int, str]]:
        """(label, engine's value, the cards behind it) for each part of a round score."""
        unmatched = [str(c) for p, c in enumerate(lay) if is_positive(c) and p not in covered]
        if rules.mulligan_value != 0:   # a mulligan in no matched line then counts too
            unmatched += [f"M({rules.mulligan_value})" for p, c in enumerate(lay) if c == MULLIGAN and p not in covered]
        negatives = " ".join(str(c) for c in lay if is_negative(c))
        if negatives and rules.negative_multiplier != 1:
            negatives = f"({negatives}) x {rules.negative_multiplier}"
        hazards = lay.count(HAZARD)
        parts = [
            ("matched lines", int(row[fields.F_MATCHED]), "" if covered else "(no line matched)"),
            ("unmatched positives", int(row[fields.F_UNMATCHED]), " + ".join(unmatched)),
            ("negative cards", int(row[fields.F_NEGATIVES]), negatives),
            ("hazards", int(row[fields.F_HAZARDS]), f"{hazards} x +{rules.hazard_value}" if hazards else ""),
        ]
        if row[fields.F_FINISHER]:
            bonus = int(row[fields.F_BONUS])
            if row[fields.F_STALLED]:
                why = "finished, but the round stalled"
            elif bonus < 0:
                why = "finished with the lowest score"
            elif bonus > 0:
                why = "finished, not with the lowest score"
            else:
                why = "finished (the rules set the bonus to 0)"
            parts.append(("finisher bonus", bonus, why))
        return parts


def narrate(result, index: int = 0, round_index: int | None = None, seat: int | None = None) -> str:
    """The story of game ``index`` of a traced result, as one text; ``round_index`` (0..2) and
    ``seat`` keep only that round and that seat's own lines (see :meth:`Narrator.filtered`)."""
    narrator = Narrator(result, index)
    narrator.lines()
    return "\n".join(narrator.filtered(round_index, seat)) + "\n"
