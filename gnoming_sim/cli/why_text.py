"""The words of ``analyse --why`` and of the review's explained decisions: the sample continuations of
:func:`gnoming_sim.search.why.explain` told turn by turn by the story-teller of ``play``
(:class:`gnoming_sim.reference.narrate.Narrator`), from the rollout's entered table to the end of its
round, over the one trace walker (:meth:`gnoming_sim.game.replay.Table.apply`), which checks every card
of the trace against the dealt table; and the text of the components."""
from __future__ import annotations

import numpy as np

from gnoming_sim.game import trace as T
from gnoming_sim.game.cards import NO_CARD
from gnoming_sim.game.fields import F_STALLED
from gnoming_sim.game.position import Position
from gnoming_sim.game.rules import LAYOUT, ROUNDS
from gnoming_sim.reference.narrate import ENDS_A_TURN, Narrator

# a rollout's trace has no ROUND_END (the game loop writes it): these records begin the next round
NEXT_ROUND = (T.ROUND, T.SETUP_HAZARD, T.SETUP_DISCARD, T.INIT_FLIP)


def tell_samples(why: dict, pos: Position) -> dict:
    """``why`` with each story's arrays (trace, stats, snapshot) replaced by its ``lines``."""
    names = why["policies"]
    seats = names * pos.players if len(names) == 1 else names
    for smp in why["samples"]:
        for st in smp["stories"]:
            teller = _Teller(pos, table_of(pos, st.pop("snap")), st.pop("stats"), seats)
            st["lines"] = teller.tell(st.pop("trace"))
    return why


def table_of(pos: Position, snap: np.ndarray):
    """The replay :class:`gnoming_sim.game.replay.Table` of a rollout's entered table (its snapshot)."""
    from gnoming_sim.game import replay

    P, N = pos.players, pos.deck.size
    t = replay.Table(np.zeros((ROUNDS, N), dtype=np.int8), P)
    k = P * LAYOUT
    t.lay[:] = snap[:k].reshape(P, LAYOUT)
    t.up[:] = snap[k:2 * k].reshape(P, LAYOUT)
    t.fd[:] = LAYOUT - t.up.sum(axis=1)
    j = 2 * k
    t.plen[:] = snap[j:j + 2]
    for q in range(2):
        t.piles[q, :] = snap[j + 2 + q * N:j + 2 + (q + 1) * N]
    j += 2 + 2 * N
    nd = int(snap[j])
    t.draw[:nd] = snap[j + 1:j + 1 + nd]
    sc = t.sc
    sc[replay.SC_ROUND], sc[replay.SC_STARTER], sc[replay.SC_TURN] = pos.round, pos.starter, pos.turn
    sc[replay.SC_FINISHER], sc[replay.SC_HAND], sc[replay.SC_REMOVED] = pos.finisher, NO_CARD, pos.removed
    sc[replay.SC_DTOP], sc[replay.SC_DLEN], sc[replay.SC_DEALT] = 0, nd, -1
    return t


class _Result:
    """What :class:`Narrator` reads of a result beyond the trace: the rules."""

    def __init__(self, rules):
        self.rules = rules


class _Teller(Narrator):
    """The story-teller of ``play``, told from a rollout's entered table to the end of its round."""

    def __init__(self, pos: Position, table, stats: np.ndarray, seats: list[str]):
        self.res = _Result(pos.rules)
        self.i = 0
        self.players = pos.players
        self.me = pos.me
        self.seats = seats
        self.stats = stats
        self.table = table
        self.round = pos.round
        self.starter = pos.starter
        self.game_turn = 0
        self.drawn = 0
        self.candidate = pos.hand if pos.decision == "place" else 0
        self.grid_seat = None
        self.out = []
        self.tags = []
        self.in_round = True
        self.about = None
        self.final_layouts = []

    def who(self, seat: int) -> str:
        # the seat first: the story's verbs are the third person's ("seat 1 (you) turns up ...")
        return f"seat {seat} (you)" if seat == self.me else f"seat {seat}"

    def _on_turn(self, seat: int, number: int, final: int) -> None:
        lap = ", final lap" if final else ""
        self.say(f"Turn {number} of the round: {self.who(seat)}{lap}")

    def tell(self, records: np.ndarray) -> list[str]:
        """Lines for ``records`` up to the end of the round (the later rounds' deals are not told)."""
        for rec in np.asarray(records).tolist():
            kind, seat, a, b = rec
            if kind in NEXT_ROUND:   # the round is over: the later rounds' deals are not told
                break
            if self.table.apply(kind, seat, a, b):
                raise ValueError(f"traced rollout record {T.NAMES.get(kind, kind)} {rec} disagrees with its table")
            if kind in ENDS_A_TURN:
                self._flush_grid()
            self.about = seat if seat >= 0 else None
            getattr(self, f"_on_{T.NAMES[kind].lower()}")(seat, a, b)
            if kind == T.ROUND_END:
                return self.out
        # a rollout's round ends without a ROUND_END record (the game loop writes it, not the steps)
        self._flush_grid()
        self._on_round_end(-1, self.round, int(self.stats[self.round, 0, F_STALLED]))
        return self.out


def render_text(why: dict) -> list[str]:
    """``analyse --why`` as text lines."""
    a, b = why["options"]
    lines = ["", f"why: {b['label']} against {a['label']} (n = {why['n']:,} paired rollouts, base policy "
                 f"{', '.join(why['policies'])}; differences are {b['key']} minus {a['key']}, "
                 "every row: positive = worse for you)"]
    for c in why["components"]:
        lo, hi = c["ci95"]
        unit = " pp" if c["key"] == "win" else ""
        scale = 100 if c["key"] == "win" else 1
        lines.append(f"  {c['name']:<78} {scale * c['diff']:+7.2f}{unit} [{scale * lo:+.2f}, {scale * hi:+.2f}]")
    if why.get("omitted"):
        lines.append(f"  not shown, as it cannot differ here: {omitted_text(why)}")
    lines.append(f"  what makes the difference: {why['deciding']['text']}")
    for smp in why["samples"]:
        lines += ["", f"{smp['why_chosen']} (rollout {smp['rollout']}: margin difference {smp['diff']:+.1f}), "
                      "the same hidden cards and play stream for both:"]
        for st in smp["stories"]:
            lines.append(f"  -- {st['label']}: your round score {st['score']}, the rivals' mean {st['rivals']:.1f}")
            lines += ["    " + x for x in st["lines"]]
    return lines


def omitted_text(why: dict) -> str:
    """The parts left out of the components (they cannot differ here), each with why, in one phrase."""
    return "; ".join(f"{o['name']} ({o['why']})" for o in why.get("omitted", []))


def why_html(why: dict) -> str:
    """The explanation as an HTML fragment (escaped): the components table, what makes the difference,
    and each sample continuation of both options folded in a ``<details>``."""
    from markupsafe import escape

    a, b = why["options"]
    rows = []
    for c in why["components"]:
        scale, unit = (100, " pp") if c["key"] == "win" else (1, "")
        lo, hi = c["ci95"]
        rows.append(f"<tr><td>{escape(c['name'])}</td><td>{scale * c['diff']:+.2f}{unit}</td>"
                    f"<td>[{scale * lo:+.2f}, {scale * hi:+.2f}]</td></tr>")
    head = (f"<p>{escape(b['label'])} against {escape(a['label'])}: differences per game, the move played "
            f"minus the best (every row: positive = worse for you), n = {why['n']:,} paired rollouts, base policy "
            f"{escape(', '.join(why['policies']))}. What makes the difference: "
            f"<b>{escape(why['deciding']['text'])}</b>.</p>")
    table = ("<table><tr><th>part</th><th>difference</th><th>95% CI</th></tr>" + "".join(rows) + "</table>")
    if why.get("omitted"):
        table += f"<p>Not shown, as it cannot differ here: {escape(omitted_text(why))}.</p>"
    stories = []
    for smp in why["samples"]:
        for st in smp["stories"]:
            title = (f"{smp['why_chosen']}: {st['label']} (your round score {st['score']}, "
                     f"the rivals' mean {st['rivals']:.1f})")
            stories.append(f"<details><summary>{escape(title)}</summary><pre>"
                           f"{escape(chr(10).join(st['lines']))}</pre></details>")
    return head + table + "".join(stories)
