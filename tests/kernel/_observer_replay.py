"""Rebuild, from a trace and public information only, the observation a seat had at each
decision point, and ask the jitted strategy functions what they decide from it.

Used by the information-hygiene tests: the decision recomputed from public information
must equal the decision the kernel recorded, and permuting every hidden card (face-down
cards and the draw pile) must leave the observation, hence the decision, unchanged.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.kernel.policy import dispatch
from gnoming_sim.game import trace as T
from gnoming_sim.game.observation import (N_OBS, O_DRAW_N, O_DRAWN, O_FINISHER, O_FROM_PILE, O_ME,
                                  O_FINISH_BONUS, O_HAZARD_VALUE, O_MULLIGAN_LIMIT, O_MULLIGAN_VALUE,
                                  O_MULLIGANS_PER_LINE, O_NEGATIVE_MULTIPLIER, O_PILE0_N, O_PLAYERS,
                                  O_ROUND, O_STARTER, O_TOP0, O_TURN,
                                  O_UNKNOWN_N, U_COUNT, U_FACES, U_NEGATIVES)
from gnoming_sim.game.cards import HAZARD, HIDDEN, MAX_VALUE, MULLIGAN, N_SLOTS, NO_CARD, SLOT_OFFSET
from gnoming_sim.game.fields import F_SCORE
from gnoming_sim.game.replay import Table as Walker
from gnoming_sim.game.rules import mulligan_placeable
from gnoming_sim.kernel.policy.heuristic import N_MEMO_PLAN
from gnoming_sim.kernel.policy.dispatch import MEMO_SCRATCH, Memo
from gnoming_sim.kernel.state import Obs


class Table:
    """The full table state as plain lists: a snapshot of the trace walker's table
    (:class:`gnoming_sim.game.replay.Table`), which follows the deal and the trace."""

    @classmethod
    def of(cls, walker, rules, deck):
        P = walker.players
        t = cls.__new__(cls)
        t.P, t.rules, t.deck = P, rules, deck
        t.lay = [walker.layout(s) for s in range(P)]
        t.up = [walker.face_up(s) for s in range(P)]
        t.draw = walker.draw_pile()  # top first
        t.piles = [walker.pile(0), walker.pile(1)]
        t.removed = [HAZARD] * walker.removed
        t.turn, t.finisher = walker.turn, walker.finisher
        t.in_hand = () if walker.hand == NO_CARD else (walker.hand,)
        return t

    # ---------------------------------------------------------------- observation
    def observe(self, me, round_, starter, scores, drawn=NO_CARD, from_pile=-1, turn_start=None):
        """(pub, vis, fd, unknown) exactly as the kernel hands them to a strategy."""
        P = self.P
        vis = np.full((P, 9), HIDDEN, dtype=np.int8)
        fd = np.zeros(P, dtype=np.int64)
        for s in range(P):
            for q in range(9):
                if self.up[s][q]:
                    vis[s, q] = self.lay[s][q]
                else:
                    fd[s] += 1
        unknown = np.zeros(N_SLOTS, dtype=np.int64)
        for c in self.deck:
            unknown[c + SLOT_OFFSET] += 1
        public = [c for s in range(P) for q in range(9) if self.up[s][q] for c in [self.lay[s][q]]]
        public += self.piles[0] + self.piles[1] + self.removed + list(self.in_hand)
        for c in public:
            unknown[c + SLOT_OFFSET] -= 1
        unknown[U_COUNT] = sum(unknown[c + SLOT_OFFSET] for c in set(self.deck))
        numbers = [c for c in set(self.deck) if c not in (HAZARD, MULLIGAN)]
        unknown[U_FACES] = sum(unknown[c + SLOT_OFFSET] * c for c in numbers)
        unknown[U_NEGATIVES] = sum(unknown[c + SLOT_OFFSET] * c for c in numbers if c < 0)
        pub = np.zeros(N_OBS, dtype=np.int64)
        pub[O_ME], pub[O_PLAYERS], pub[O_ROUND], pub[O_STARTER] = me, P, round_, starter
        draw_n, tops, sizes, n_unknown = turn_start if turn_start else self.public_counts(fd)
        pub[O_TURN], pub[O_DRAW_N], pub[O_UNKNOWN_N] = self.turn, draw_n, n_unknown
        for k in range(2):
            pub[O_TOP0 + k], pub[O_PILE0_N + k] = tops[k], sizes[k]
        pub[O_FINISHER] = self.finisher
        pub[O_MULLIGAN_LIMIT] = self.rules.mulligan_limit
        pub[O_MULLIGANS_PER_LINE] = self.rules.mulligans_per_line
        pub[O_FINISH_BONUS] = self.rules.early_finish_bonus
        pub[O_HAZARD_VALUE] = self.rules.hazard_value
        pub[O_MULLIGAN_VALUE] = self.rules.mulligan_value
        pub[O_NEGATIVE_MULTIPLIER] = self.rules.negative_multiplier
        pub[O_DRAWN], pub[O_FROM_PILE] = drawn, from_pile
        return pub, vis, fd, unknown

    def public_counts(self, fd):
        tops = [p[-1] if p else NO_CARD for p in self.piles]
        return len(self.draw), tops, [len(p) for p in self.piles], len(self.draw) + int(fd.sum())

    in_hand = ()

    def permuted(self, rng):
        """A copy with every hidden card (face-down anywhere, and the draw pile) shuffled."""
        other = Table.__new__(Table)
        other.__dict__.update({k: (list(map(list, v)) if k in ("lay", "up", "piles") else v)
                               for k, v in self.__dict__.items()})
        slots = [(s, q) for s in range(self.P) for q in range(9) if not self.up[s][q]]
        hidden = [self.lay[s][q] for s, q in slots] + list(self.draw)
        rng.shuffle(hidden)
        for (s, q), c in zip(slots, hidden):
            other.lay[s][q] = c
        other.draw = hidden[len(slots):]
        return other


def mulligans_up(t, s):
    return sum(1 for q in range(9) if t.up[s][q] and t.lay[s][q] == MULLIGAN)


def placeable(t, s, card):
    r = t.rules
    if card == MULLIGAN:
        return mulligan_placeable(mulligans_up(t, s), r.mulligan_limit)
    if card == HAZARD:
        return r.hazard_placeable
    return True


def matches(t, s, card):
    return 0 <= card <= MAX_VALUE and any(t.up[s][q] and t.lay[s][q] == card for q in range(9))


class DecisionChecker:
    """Walk one game's trace; at every decision of a heuristic seat, recompute the decision from
    the public observation (and from the observation of a hidden-card permutation).  An MC seat's
    other decisions are its base policy's (the heuristic, learned or net family), and checked the same way."""

    def __init__(self, res, game, rng):
        self.res, self.g, self.rng = res, game, rng
        self.P, self.rules = res.players, res.rules
        self.deck = [int(c) for c in res.deck.to_array()]
        strat = [res.strategy_names[j] for j in res.seat_strategy[game]]
        from gnoming_sim.kernel.policy import registry as strategies
        self.kind = [strategies.get(n).kind for n in strat]
        self.params = [strategies.get(n).param_vector() for n in strat]
        self.dummy_rng = np.zeros(4, dtype=np.uint64)
        self.checked = 0
        self.scores = np.zeros(self.P, dtype=np.int64)

    # ------------------------------------------------------------------ core check
    def decide(self, name, seat, want, *extra, drawn=NO_CARD, from_pile=-1, me=None, snap=None):
        if self.kind[seat] == dispatch.KIND_RANDOM:
            return
        if self.kind[seat] == dispatch.KIND_MC and name in ("draw", "place"):
            return  # decided by rollouts (tests/kernel/test_information_hygiene.py checks those apart)
        me = seat if me is None else me
        answers = []
        now = self.t
        for table in (now, now.permuted(self.rng)):
            obs = table.observe(me, self.r, self.starter, self.scores, drawn, from_pile, snap)
            answers.append((obs, self._call(name, seat, obs, *extra)))
        (o1, d1), (o2, d2) = answers
        for a, b in zip(o1, o2):
            np.testing.assert_array_equal(a, b)
        assert d1 == d2 == want, (f"game {self.g} round {self.r} turn {now.turn}: {name} of seat "
                                  f"{seat}: recomputed {d1} / permuted {d2}, kernel chose {want}")
        self.checked += 1

    def _call(self, name, seat, obs, *extra):
        pub, vis, fd, unknown = obs
        prm, rng = self.params[seat], self.dummy_rng
        k = dispatch.base_kind(self.kind[seat], prm)   # an MC seat decides outside rollouts as its base family
        view = Obs(pub, vis, fd, unknown, self.scores)
        # no notes carried over: every decision is recomputed from a fresh memo
        plan = np.array([NO_CARD, -1, 0] + [0] * (N_MEMO_PLAN - 3), dtype=np.int64)
        memo = Memo(plan, np.zeros(MEMO_SCRATCH, dtype=np.float64))
        if name == "flips":
            out = np.zeros(2, dtype=np.int64)
            dispatch.initial_flips(k, prm, rng, view, out)
            return tuple(out)
        if name == "hflip":
            return int(dispatch.hazard_flip(k, prm, rng, view, *extra))
        fn = {"draw": dispatch.draw_source, "pile": dispatch.discard_pile, "place": dispatch.placement,
              "bounce": dispatch.bounce_target}[name]
        return int(fn(k, prm, rng, view, memo, *extra))

    # ------------------------------------------------------------------ walk
    @property
    def t(self) -> Table:
        """The table now (before the record being checked is applied)."""
        return Table.of(self.walker, self.rules, self.deck)

    def run(self):
        self.recs = self.res.traces[self.g].tolist()
        self.walker = Walker(self.res.deals[self.g], self.P)
        self.i = 0
        while self.i < len(self.recs):
            kind, seat, a, b = self.next()
            applied = getattr(self, "on_" + T.NAMES[kind].lower())(seat, a, b)
            if not applied:   # a handler that walks on by itself (a placement and its bounces) says so
                self.apply(kind, seat, a, b)
        return self.checked

    def next(self):
        rec = self.recs[self.i]
        self.i += 1
        return rec

    def apply(self, kind, seat, a, b):
        assert self.walker.apply(kind, seat, a, b) == 0, f"record {self.i - 1} disagrees with the table"

    def peek(self):
        return self.recs[self.i][0] if self.i < len(self.recs) else None

    def on_round(self, starter, r, P):
        self.r, self.starter = r, starter
        self.flips_seen = {}

    def on_setup_hazard(self, seat, a, b):
        pass

    def on_setup_discard(self, seat, pile, card):
        pass

    def on_init_flip(self, seat, pos, card):
        n = self.flips_seen.get(seat, 0)
        self.flips_seen[seat] = n + 1
        if n == 0:
            nxt = self.recs[self.i]
            self.decide("flips", seat, (pos, nxt[2]))

    def on_turn(self, seat, n, final):
        t = self.t   # the public counts at the start of the turn (the TURN record changes none)
        fd = np.array([sum(1 for q in range(9) if not t.up[s][q]) for s in range(self.P)])
        self.snap = t.public_counts(fd)

    def on_reshuffle(self, seat, n, _):
        pass     # the CARD records that follow rebuild the draw pile

    def on_stall(self, *args):
        pass

    def on_draw(self, seat, src, card):
        t, must = self.t, self.rules.discard_draw_must_be_kept
        legal = np.array([1] + [int(bool(p) and (not must or placeable(t, seat, p[-1]))) for p in t.piles],
                         dtype=np.int8)
        self.decide("draw", seat, src, legal, snap=self.snap)
        self.card, self.src = card, src

    def _legal_place(self, seat, card):
        legal = np.zeros(10, dtype=np.int8)
        legal[:9] = placeable(self.t, seat, card)
        legal[9] = self.src == 0 or not self.rules.discard_draw_must_be_kept
        return legal

    def on_nokeep(self, seat, a, b):
        self.decide("place", seat, 9, self.card, self._legal_place(seat, self.card), drawn=self.card,
                    from_pile=self.src - 1, snap=self.snap)

    def on_place(self, seat, pos, old):
        self.decide("place", seat, pos, self.card, self._legal_place(seat, self.card), drawn=self.card,
                    from_pile=self.src - 1, snap=self.snap)
        self.apply(T.PLACE, seat, pos, old)
        was_down = bool(self.walker.was_down)
        cand, filled = old, {pos}
        while was_down and matches(self.t, seat, cand) and len(filled) < 9:
            legal = np.array([int(q not in filled) for q in range(9)] + [1], dtype=np.int8)
            bounced = self.peek() == T.BOUNCE
            target = self.recs[self.i][2] if bounced else 9
            self.decide("bounce", seat, target, cand, legal, drawn=cand, from_pile=self.src - 1,
                        snap=self.snap)
            if not bounced:
                break
            _, _, q, replaced = self.next()
            self.apply(T.BOUNCE, seat, q, replaced)
            was_down = bool(self.walker.was_down)
            cand = replaced
            filled.add(q)
        return True   # the placement and its bounces are applied

    def on_bounce(self, *args):
        raise AssertionError("BOUNCE outside a placement")

    def on_discard(self, seat, pile, card):
        if pile == T.DISCARD_REMOVED:
            return
        t = self.t
        if bool(t.piles[0]) == bool(t.piles[1]):
            self.decide("pile", seat, pile, card, drawn=card, from_pile=self.src - 1, snap=self.snap)

    def on_hazard_flip(self, seat, pos, card):
        if pos == T.HFLIP_NOT_ALLOWED:
            return
        legal = np.array([int(not self.t.up[seat][q]) for q in range(9)] + [1], dtype=np.int8)
        self.decide("hflip", seat, pos if pos >= 0 else 9, legal, drawn=HAZARD, me=seat,
                    from_pile=self.src - 1, snap=self.snap)

    def on_finish(self, seat, a, b):
        pass

    def on_card(self, seat, card, b):
        pass

    def on_round_end(self, seat, r, stalled):
        self.scores += self.res.round_stats[self.g, r, :, F_SCORE]
