"""A game played on the board: one seat clicked by a person, the others played by registered strategies.

The table lives here, on the server, and moves only through the engine's one kernel
(:func:`gnoming_sim.kernel.step.start_round`, :func:`~gnoming_sim.kernel.step.legal_actions` and
:func:`~gnoming_sim.kernel.game_loop.step_once`; the opponents decide by
:func:`~gnoming_sim.kernel.game_loop.decide_once`, the Monte Carlo bot by
:func:`gnoming_sim.search.bot.decide_mc`), dealt and seeded as ``simulate`` and ``play`` deal and seed game 0
of the seed: a game whose person plays as its strategy would is that game, record for record.

What leaves the server is :meth:`PlayGame.view`: the person's observation alone (every layout as seen, the
discard piles, the draw pile's size, the scores, the card in the person's hand) and the story ``play`` tells
(:mod:`gnoming_sim.reference.narrate`), sent only at the end of a turn of another seat, when every card that
seat drew has been shown.  No face-down card, no draw-pile order, no rival's hidden card.

The game's history is a list of moves (:data:`OTHERS` for a step of another seat, :data:`NEXT_ROUND`, else
the person's action): saved with the setup (:meth:`PlayGame.saved`) and replayed by :func:`resume`, which
checks every move against the kernel's legal mask, so a file edited into an impossible game is refused in
one sentence.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from gnoming_sim.game import trace as T
from gnoming_sim.game.cards import NO_CARD, card_name
from gnoming_sim.game.deck import Deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.fields import F_SCORE, N_FIELDS
from gnoming_sim.game.naming import pile_name
from gnoming_sim.cli.board.play_words import ask, describe_action
from gnoming_sim.game.observation import CHOICE_DECLINE, CHOICE_NOKEEP, N_CHOICES, N_SOURCES
from gnoming_sim.game.rules import LAYOUT, MAX_PLAYERS, MIN_PLAYERS, ROUNDS, RuleConfig

FORMAT = "gnoming-sim board game"
OTHERS = -1          # a move of the history: one step of another seat
NEXT_ROUND = -2      # ... the next round dealt
TRACE_CAP = 1 << 16  # records: a whole game, stalls and reshuffles included
KINDS = {1: "init_flip", 2: "draw", 3: "place", 4: "bounce", 5: "discard", 6: "hazard_flip"}
HUMAN = "you"


@dataclass(frozen=True)
class Setup:
    """What the page chose, all a resume needs: the table size, the person's seat, every seat's strategy
    (the person's seat: :data:`HUMAN`), the seed, the rules, a strategies file's text (or None)."""

    players: int
    seat: int
    seats: tuple
    seed: int
    rules: RuleConfig
    strategies: dict | None = None   # {name, text}: the strategies file the opponents come from

    def to_dict(self) -> dict:
        return {"players": self.players, "seat": self.seat, "seats": list(self.seats), "seed": self.seed,
                "rules": self.rules.to_dict(), "strategies": self.strategies}


def setup_of(body: dict, rules: RuleConfig, deck: Deck, load_strategies) -> Setup:
    """The :class:`Setup` a request asks for, each field checked in one sentence: ``players`` 2..7, ``seat``,
    ``opponents`` (one strategy name for every other seat, or a list of one per other seat; default ``net``),
    ``seed``; ``load_strategies(text, name)`` registers a strategies file's strategies."""
    from gnoming_sim.kernel.policy import registry

    players = _whole(body.get("players", 4), "players", MIN_PLAYERS, MAX_PLAYERS)
    seat = _whole(body.get("seat", 0), "seat", 0, players - 1)
    seed = _whole(body.get("seed", 0), "seed", 0, 2**64 - 1)
    strategies = body.get("strategies")
    if strategies is not None:
        if not isinstance(strategies, dict) or not isinstance(strategies.get("text"), str):
            raise GnomingError("strategies: send {name, text}, the strategies file's text")
        name = strategies.get("name") if isinstance(strategies.get("name"), str) else "strategies file"
        strategies = {"name": name[:200], "text": strategies["text"]}
        load_strategies(strategies["text"], strategies["name"])
    opp = body.get("opponents", "net")
    names = [opp] * (players - 1) if isinstance(opp, str) else opp
    if not isinstance(names, list) or len(names) != players - 1 or not all(isinstance(n, str) for n in names):
        raise GnomingError(f"opponents: one strategy name, or a list of {players - 1} (one per other seat)")
    for n in names:
        try:
            registry.get(n.strip())
        except GnomingError as exc:
            raise GnomingError(f"opponents: {exc}") from None
    seats = [n.strip() for n in names]
    seats.insert(seat, HUMAN)
    deck.validate_for(players)
    return Setup(players, seat, tuple(seats), seed, rules, strategies)


def _whole(value, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise GnomingError(f"{what} must be a whole number in {low}..{high}, got {value!r}")
    return value


class PlayGame:
    """One game at the board (see the module docstring); every method that moves it returns nothing and
    raises a one-sentence GnomingError for a move the rules refuse."""

    def __init__(self, setup: Setup, deck: Deck):
        from gnoming_sim.kernel.engine import deal_orders, deck_counts, strategy_arrays
        from gnoming_sim.kernel.policy import registry
        from gnoming_sim.kernel.policy.dispatch import new_memo
        from gnoming_sim.kernel.rng import STREAM_PLAY, seed_stream
        from gnoming_sim.kernel.state import new_table

        self.setup, self.deck = setup, deck
        P = setup.players
        others = [n for s, n in enumerate(setup.seats) if s != setup.seat]
        names = sorted(set(others))
        strats = [registry.get(n) for n in names]
        kinds, params = strategy_arrays(strats)
        # the person's seat is never asked to decide: it sits as the first opponent's strategy
        seat_strategy = np.array([names.index(setup.seats[s] if s != setup.seat else others[0]) for s in range(P)],
                                 dtype=np.int16)
        # the families that decide above the kernel play by their own decision functions, as in `simulate`
        self.seat_kind = [int(kinds[j]) for j in seat_strategy]
        self.rules = setup.rules.to_array()
        self.counts = deck_counts(deck.to_array())
        self.order = deal_orders(1, setup.seed, deck)[0]
        self.tr = np.zeros((TRACE_CAP, 4), dtype=np.int32)
        self.t = new_table(P, deck.size, kinds, params, seat_strategy, self.tr, new_memo())
        seed_stream(self.t.rng, np.uint64(setup.seed), np.int64(0), np.int64(STREAM_PLAY))
        self.out = np.zeros((ROUNDS, P, N_FIELDS), dtype=np.int32)
        self.totals = np.zeros(P, dtype=np.int32)
        self.win = np.zeros(P, dtype=np.float64)
        self.round, self.scored, self.over = -1, False, False
        self.moves: list[int] = []
        self._next_round()

    # ------------------------------------------------------------ the table's facts
    @property
    def st(self):
        return self.t.st

    def pending(self) -> int:
        from gnoming_sim.kernel.state import S_PENDING

        return int(self.st[S_PENDING])

    def decider(self) -> int:
        from gnoming_sim.kernel.state import S_SEAT

        return int(self.st[S_SEAT])

    def state(self) -> str:
        """``you`` (the person decides), ``others`` (another seat does), ``round_over`` or ``game_over``."""
        if self.over:
            return "game_over"
        if self.pending() == 0:
            return "round_over"
        return "you" if self.decider() == self.setup.seat else "others"

    def legal(self) -> np.ndarray:
        from gnoming_sim.kernel.step import legal_actions

        legal_actions(self.t, self.rules)
        return self.t.legal.copy()

    # ------------------------------------------------------------ moving it
    def _step(self, action: int) -> None:
        from gnoming_sim.kernel.game_loop import step_once

        step_once(self.t, self.rules, np.int64(action))
        if self.pending() == 0:
            self._score_round()

    def strategy_move(self) -> int:
        """What the deciding seat's strategy plays at the pending decision (the person's seat: the first
        opponent's strategy): the opponents' moves, and a test's stand-in for the person."""
        from gnoming_sim.kernel.game_loop import decide_once
        from gnoming_sim.kernel.kinds import KIND_MC, KIND_VALUE

        kind = self.seat_kind[self.decider()]
        if kind == KIND_MC:   # the Monte Carlo bot's rollouts
            from gnoming_sim.search.bot import decide_mc

            return int(decide_mc(self.t, self.rules))
        if kind == KIND_VALUE:   # the value player's 0-ply: the rules with the deck's counts after them, as its games
            from gnoming_sim.search.value_player import decide_value

            return int(decide_value(self.t, np.concatenate([self.rules, self.counts])))
        return int(decide_once(self.t, self.rules))

    def _next_round(self) -> None:
        from gnoming_sim.kernel.step import start_round

        self.round += 1
        starter = self.round % self.setup.players if self.setup.rules.rotate_start else 0
        start_round(self.t, self.rules, np.int64(self.round), np.int64(starter), self.order[self.round], self.counts)
        self.scored = False

    def _score_round(self) -> None:
        from gnoming_sim.kernel.game_loop import score_round, settle_game
        from gnoming_sim.kernel.state import NOT_STALLED, S_STALLED, S_STARTER
        from gnoming_sim.kernel.table import emit

        r = self.round
        score_round(self.t, self.rules, np.int64(r), self.st[S_STARTER], self.out)
        emit(self.t, np.int64(T.ROUND_END), np.int64(-1), np.int64(r),
             np.int64(1 if self.st[S_STALLED] != NOT_STALLED else 0))
        self.t.scores[:] += self.out[r, :, F_SCORE]
        self.scored = True
        if r == ROUNDS - 1:
            settle_game(np.int64(self.setup.players), self.out, self.totals, self.win)
            self.over = True

    def act(self, action: int) -> None:
        """The person's ``action`` on the pending decision (the kernel's encoding), if the rules allow it."""
        state = self.state()
        if state != "you":
            raise GnomingError({"others": f"it is seat {self.decider()}'s turn ({self.setup.seats[self.decider()]}): "
                                          "wait for it",
                                "round_over": "the round is over: deal the next one",
                                "game_over": "the game is over"}[state])
        kind = self.pending()
        if kind == 1:   # the initial flips: a pair of distinct face-down positions
            a, b = divmod(action, LAYOUT) if 0 <= action < LAYOUT * LAYOUT else (-1, -1)
            legal = self.legal()
            if a == b or not (0 <= a < LAYOUT and legal[a] and legal[b]):
                raise GnomingError("turn up two different face-down cards of your layout")
        else:
            legal = self.legal()
            last = N_SOURCES if kind == 2 else N_CHOICES
            if not (0 <= action < last and legal[action]):
                raise GnomingError(self.refusal(kind, action, legal))
        self.moves.append(int(action))
        self._step(action)

    def refusal(self, kind: int, action: int, legal) -> str:
        """The sentence for ``action`` refused at a decision of ``kind``: what was asked and what the rules
        allow now (the kernel's legal mask, in words)."""
        asked = describe_action(kind, action, self.hand())
        allowed = [describe_action(kind, a, self.hand()) for a in range(N_SOURCES if kind == 2 else N_CHOICES)
                   if legal[a]]
        return f"{asked} is not allowed now; the rules allow: {', '.join(allowed)}"

    def others(self) -> bool:
        """Play another seat's turn (its steps up to the person's decision, the next turn's start or the
        round's end); False when it is not another seat's move."""
        from gnoming_sim.kernel.state import DEC_SOURCE

        played = False
        while self.state() == "others" and not (played and self.pending() == DEC_SOURCE):
            self.other_step()
            played = True
        return played

    def other_step(self) -> None:
        """One step of another seat: its strategy's move."""
        if self.state() != "others":
            raise GnomingError("another seat's move where none is to move")
        self.moves.append(OTHERS)
        self._step(self.strategy_move())

    def next_round(self) -> None:
        if self.state() != "round_over":
            raise GnomingError("the round is not over" if not self.over else "the game is over")
        self.moves.append(NEXT_ROUND)
        self._next_round()

    # ------------------------------------------------------------ what the person sees
    def hand(self) -> int:
        from gnoming_sim.kernel.state import S_HAND

        if self.state() == "you" and self.pending() in (3, 4, 5):
            return int(self.st[S_HAND])
        return NO_CARD

    def position(self):
        """The pending decision of the person as a :class:`~gnoming_sim.game.position.Position` (what the
        evaluator and the card read), or None for a decision no position holds (initial flips, a bounce, the
        discard pile's choice)."""
        from gnoming_sim.game.position import Position
        from gnoming_sim.kernel.state import (S_ACTOR, S_DEND, S_DPTR, S_FINISHER, S_PLEN0, S_ROUND, S_SRC, S_STARTER,
                                              S_TURN)

        kind = self.pending() if self.state() == "you" else 0
        if kind not in (2, 3, 6):
            return None
        st = self.st
        piles = tuple(tuple(int(c) for c in self.t.piles[k, :st[S_PLEN0 + k]]) for k in range(2))
        decision = {2: "draw", 3: "place", 6: "hazard_flip"}[kind]
        return Position(self.setup.players, self.setup.seat, int(st[S_STARTER]), int(st[S_ROUND]), int(st[S_TURN]),
                        int(st[S_FINISHER]), tuple(int(v) for v in self.t.scores), self.t.vis.copy(), piles,
                        self.removed(), int(st[S_DEND] - st[S_DPTR]), decision,
                        self.hand() if kind == 3 else NO_CARD, int(st[S_SRC]) if kind == 3 else -1,
                        int(st[S_ACTOR]) if kind == 6 else -1, self.setup.rules, self.deck, None,
                        "your game").validate("your game")

    def removed(self) -> int:
        """Hazards removed from play this round, counted from the trace since the round's deal (the table's
        own counter runs on over the rounds)."""
        tr = self.trace()
        start = np.flatnonzero(tr[:, 0] == T.ROUND)
        tail = tr[start[-1]:] if start.size else tr
        return int(((tail[:, 0] == T.SETUP_HAZARD) | ((tail[:, 0] == T.DISCARD) & (tail[:, 2] == T.DISCARD_REMOVED))).sum())

    def story(self) -> list[str]:
        """The game so far as ``play`` tells it (the reveal and the scoring of each round over; the game's
        end once it is over)."""
        from gnoming_sim.reference.narrate import Narrator

        res = SimpleNamespace(traces=[self.trace()], deals=[self.order], players=self.setup.players,
                              strategy_names=list(self.setup.seats), seat_strategy=[list(range(self.setup.players))],
                              round_stats=[self.out], first_game=0, seed=self.setup.seed,
                              rules=self.setup.rules, deck=self.deck, totals=[self.totals],
                              # before the end the frame's last lines are cut: any winner will do for them
                              win_credit=[self.win if self.over else np.ones(self.setup.players)])
        lines = Narrator(res).lines()
        if not self.over:   # the frame's "Game over" waits for the game's end
            lines = lines[:_game_over_line(lines)]
        return lines

    def trace(self) -> np.ndarray:
        return self.tr[:int(self.t.tn[0])].copy()

    def record(self):
        """The game so far as the record ``review`` reads (:func:`gnoming_sim.game.record_trace.from_trace`)."""
        from gnoming_sim.game.record_trace import from_trace

        return from_trace(self.order, self.trace(), self.setup.players, self.setup.seat, self.setup.seats,
                          "your game on the board")

    def view(self) -> dict:
        """Everything the page is sent: the person's observation and the decision it has, nothing else."""
        from gnoming_sim.kernel.state import S_DEND, S_DPTR, S_FINISHER, S_PLEN0, S_STARTER, S_TURN

        st, P, state = self.st, self.setup.players, self.state()
        out = {"state": state, "players": P, "seat": self.setup.seat, "seats": list(self.setup.seats),
               "round": self.round + 1, "turn": int(st[S_TURN]), "starter": int(st[S_STARTER]),
               "finisher": int(st[S_FINISHER]) if state in ("you", "others") else -1,
               "layouts": [["?" if not self.t.up[s, q] else card_name(int(c))
                            for q, c in enumerate(self.t.vis[s])] for s in range(P)],
               "piles": [[card_name(int(c)) for c in self.t.piles[k, :st[S_PLEN0 + k]]] for k in range(2)],
               "draw_pile": int(st[S_DEND] - st[S_DPTR]), "removed": self.removed(),
               "scores": [int(v) for v in self.t.scores], "moves": len(self.moves), "decision": None,
               "round_scores": [[int(self.out[r, s, F_SCORE]) for s in range(P)]
                                for r in range(self.round + (1 if self.scored else 0))]}
        if state == "round_over" or state == "game_over":
            out["layouts"] = [[card_name(int(c)) for c in self.t.lay[s]] for s in range(P)]   # the reveal: public
        if state == "game_over":
            out["totals"] = [int(v) for v in self.totals]
            out["winners"] = [s for s in range(P) if self.win[s] > 0]
        if state == "you":
            out["decision"] = self.decision()
        return out

    def decision(self) -> dict:
        from gnoming_sim.kernel.state import S_ACTOR, S_SRC

        kind = self.pending()
        legal = self.legal()
        d = {"kind": KINDS[kind]}
        hand = self.hand()
        if hand != NO_CARD:
            d["card"] = card_name(hand)
        if kind == 3:
            d["source"] = ("draw pile", pile_name(0), pile_name(1))[int(self.st[S_SRC])]
        if kind == 6:
            d["discarder"] = int(self.st[S_ACTOR])
        last = N_SOURCES if kind == 2 else (LAYOUT if kind == 1 else N_CHOICES)
        d["legal"] = [a for a in range(last) if legal[a]]
        d["ask"] = ask(kind, hand, d.get("source"), d.get("discarder"))
        return d

    # ------------------------------------------------------------ saved and resumed
    def saved(self) -> dict:
        return {"format": FORMAT, "version": 1, **self.setup.to_dict(), "moves": list(self.moves)}


def _game_over_line(lines: list[str]) -> int:
    for i in range(len(lines) - 1, -1, -1):
        if lines[i] == "== Game over ==":
            return i - 1
    return len(lines)


def resume(data, rules_of, deck: Deck, load_strategies) -> PlayGame:
    """The game a :meth:`PlayGame.saved` dict holds, replayed move by move from its setup: exactly the state
    it was saved in.  ``rules_of(dict)`` reads its rules; a file that is not one, or whose moves the rules
    refuse, is one GnomingError sentence naming the move."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise GnomingError(f"saved game: not a game saved by the board (its 'format' must be {FORMAT!r})")
    rules = rules_of(data.get("rules"))
    seats = data.get("seats")
    seat = data.get("seat")
    if not isinstance(seats, list) or not isinstance(seat, int) or isinstance(seat, bool) \
            or not 0 <= seat < len(seats) or seats[seat] != HUMAN:
        raise GnomingError(f"saved game: 'seats' must name every seat's strategy and 'seat' the one that is {HUMAN!r}")
    body = {"players": data.get("players"), "seat": seat, "seed": data.get("seed"),
            "opponents": [n for s, n in enumerate(seats) if s != seat], "strategies": data.get("strategies")}
    setup = setup_of(body, rules, deck, load_strategies)
    moves = data.get("moves")
    if not isinstance(moves, list):
        raise GnomingError("saved game: 'moves' must be the list of the game's moves")
    game = PlayGame(setup, deck)
    for i, m in enumerate(moves):
        if isinstance(m, bool) or not isinstance(m, int):
            raise GnomingError(f"saved game: move {i} must be a whole number, got {m!r}")
        try:
            if m == OTHERS:
                game.other_step()
            elif m == NEXT_ROUND:
                game.next_round()
            else:
                game.act(m)
        except GnomingError as exc:
            raise GnomingError(f"saved game: move {i} cannot be played: {exc}") from None
    return game
