"""The summary of a simulation batch: running tallies, the JSON dict, the text table.

:class:`Tally` keeps a few sums per strategy and per seat and takes a batch chunk by
chunk, so its memory does not grow with the number of games.  :func:`build_summary`
turns a tally into a dict of plain Python values (JSON-ready: nan becomes ``None``);
:func:`format_table` renders that dict for a terminal.  Nothing here runs the engine.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from gnoming_sim.game import fields as F
from gnoming_sim.game.rules import ROUNDS
from gnoming_sim.batch.stats import mean_ci_from_sums, ratio_ci_from_sums, wilson

# Per game, a label (a strategy or a seat) is summarised by its seats' mean: in units of
# 1/420 of a point (420 = lcm(1..7)) the mean over k <= 7 seats is an integer, so a batch
# summed in any chunking gives exactly the same numbers.  A win shared by k players is
# credited 1/k, also an integer number of 420ths.
UNIT = 420
WIN_UNIT = UNIT
STALL_WARNING_SHARE = 0.01   # warn when more than this share of the rounds stalled

# the running sums per label: n games, seat plays, then per-game values x and their squares
_SUMS = ("games", "seats", "score", "score_sq", "win", "win_sq", "turns", "turns_sq", "finish", "finish_sq",
         "finishes", "finishes_sq", "bonuses", "bonuses_sq", "bonus_x_finishes", "every_seat")


def _num(x):
    """A JSON-safe float: nan/inf -> None."""
    x = float(x)
    return x if math.isfinite(x) else None


class _Sums:
    """Exact integer sums over games, one column per label (a strategy or a seat).

    For each game in which a label holds ``k >= 1`` seats it adds the label's per-game
    values: mean game score of its seats, mean win credit of its seats, mean turns
    and finished rounds per seat, finishes and -5 bonuses (all in 1/420ths where a mean
    is taken), and their squares, so that every interval is over games, the independent
    units, never over seats of one game.
    """

    def __init__(self, labels: int):
        self.sums = [[0] * labels for _ in _SUMS]   # Python ints: exact, whatever the batch size

    def add(self, labels: np.ndarray, score, win, turns, finishes, bonuses) -> None:
        """``labels`` int (games, players); the others int (games, players) per seat
        (``win`` in 1/420ths)."""
        labels = np.asarray(labels)
        players = labels.shape[1]
        for j in range(len(self.sums[0])):
            mask = labels == j
            k = mask.sum(axis=1).astype(np.int64)
            here = k > 0
            if not here.any():
                continue
            k = k[here]
            m = mask[here]

            def per_game(x):
                return np.where(m, x[here], 0).sum(axis=1, dtype=np.int64)

            fin, bon = per_game(finishes), per_game(bonuses)
            values = {
                "score": per_game(score) * (UNIT // k),
                "win": per_game(win) * (UNIT // k),   # the mean over its seats, in 1/420² of a win
                "turns": per_game(turns) * (UNIT // k),
                "finish": fin * (UNIT // k),
                "finishes": fin,
                "bonuses": bon,
            }
            add = {"games": int(here.sum()), "seats": int(k.sum()), "every_seat": int((k == players).sum()),
                   "bonus_x_finishes": int((bon * fin).sum())}
            for name, v in values.items():
                add[name] = int(v.sum())
                add[name + "_sq"] = int((v * v).sum())   # < 2**63 for any chunk that fits in memory
            for i, name in enumerate(_SUMS):
                self.sums[i][j] += add[name]

    def entry(self, j: int) -> dict:
        t = {name: self.sums[i][j] for i, name in enumerate(_SUMS)}
        n = t["games"]

        def mean(name, scale=1):
            m, lo, hi, _ = mean_ci_from_sums(n, t[name], t[name + "_sq"], scale=scale)
            return _num(m) if n else None, [_num(lo), _num(hi)] if n else [None, None]

        score, score_ci = mean("score", UNIT)
        win, win_ci = mean("win", UNIT * UNIT)
        if n and t["every_seat"] < n and (t["seats"] == n or win_ci[0] == win_ci[1]):
            # one seat per game: its credit is a win or not (1/k when shared), a share, so the
            # Wilson interval, which stays in [0, 1] where the normal one crosses 0 for a rare
            # winner; also when the sample has no spread (won all or none) although not certain.
            # Several seats: the per-game mean over them, whose normal interval is the right one.
            p, lo, hi = wilson(t["win"] / (UNIT * UNIT), n)
            win_ci = [_num(lo), _num(hi)]
        turns, turns_ci = mean("turns", ROUNDS * UNIT)
        finish, finish_ci = mean("finish", ROUNDS * UNIT)
        bonus, bonus_ci = _ratio(t["bonuses"], t["finishes"], t["bonuses_sq"], t["finishes_sq"],
                                 t["bonus_x_finishes"], n)
        return {
            "n_games": n,
            "n_seats_played": t["seats"],
            "mean_game_score": score,
            "ci95": score_ci,
            "win_share": win,
            "win_ci95": win_ci,
            "mean_turns_per_round": turns,
            "turns_ci95": turns_ci,
            "finish_rate": finish,
            "finish_ci95": finish_ci,
            "n_finishes": t["finishes"],
            "bonus_rate": bonus,
            "bonus_ci95": bonus_ci,
        }


def _ratio(b: int, f: int, b2: int, f2: int, bf: int, n: int):
    """``sum(b) / sum(f)`` over games and its cluster (delta-method) interval over games."""
    if f == 0:
        return None, [None, None]
    if n < 2:
        r = b / f
        return _num(r), [_num(r), _num(r)]
    r, lo, hi = ratio_ci_from_sums(n, b, f, b2, f2, bf)
    return _num(r), [_num(lo), _num(hi)]


class Tally:
    """Running per-strategy and per-seat sums of a batch, added chunk by chunk."""

    def __init__(self, names: Sequence[str], players: int):
        self.names = tuple(names)
        self.players = int(players)
        self.games = 0
        self.stalled_rounds = 0
        self._by_strategy = _Sums(len(self.names))
        self._by_seat = _Sums(self.players)

    def add(self, round_stats, seat_strategy, win_credit) -> None:
        """Add games: ``round_stats`` int (G, 3, P, N_FIELDS), ``seat_strategy`` int (G, P)
        indexing ``names``, ``win_credit`` float (G, P)."""
        stats = np.asarray(round_stats)
        games, _, players, _ = stats.shape
        if players != self.players:
            raise ValueError(f"tally for {self.players} players got {players}")
        finisher = stats[..., F.F_FINISHER] == 1
        columns = dict(
            score=stats[..., F.F_SCORE].sum(axis=1, dtype=np.int64),
            win=np.rint(np.asarray(win_credit) * UNIT).astype(np.int64),
            turns=stats[..., F.F_TURNS].sum(axis=1, dtype=np.int64),
            finishes=finisher.sum(axis=1).astype(np.int64),
            bonuses=(finisher & (stats[..., F.F_BONUS] < 0)).sum(axis=1).astype(np.int64),
        )
        self._by_strategy.add(np.asarray(seat_strategy), **columns)
        self._by_seat.add(np.broadcast_to(np.arange(players), (games, players)), **columns)
        self.games += games
        # the stalled flag is the same for every seat of a round: read seat 0
        self.stalled_rounds += int((stats[:, :, 0, F.F_STALLED] != 0).sum())

    def add_result(self, result) -> None:
        """Add an engine result (its strategy indices are mapped onto ``names``)."""
        remap = np.array([self.names.index(n) for n in result.strategy_names], dtype=np.intp)
        self.add(result.round_stats, remap[np.asarray(result.seat_strategy)], result.win_credit)

    def by_strategy(self) -> dict:
        return {name: self._by_strategy.entry(k) for k, name in enumerate(self.names)}

    def by_seat(self) -> dict:
        return {str(s): self._by_seat.entry(s) for s in range(self.players)}


def build_summary(tally: Tally, *, seed: int, rules, deck, wall_s: float, games_run: int | None = None,
                  extra: dict | None = None) -> dict:
    """The summary dict of a tallied batch.

    ``games_run`` is the number of games simulated in ``wall_s`` (default: all of them;
    fewer when a run resumed a file); ``extra`` adds keys (seats, output file, ...).
    Per strategy, a sample is one (game, seat) play; per seat, one game.  ``bonus_rate``
    is the fraction of finished rounds that earned the -5 bonus (``None`` if none).
    """
    from gnoming_sim.game.version import __version__

    run = tally.games if games_run is None else games_run
    summary = {
        "version": __version__,
        "games": tally.games,
        "players": tally.players,
        "rounds": ROUNDS * tally.games,
        "stalled_rounds": tally.stalled_rounds,
        "stalled_share": _num(tally.stalled_rounds / (ROUNDS * tally.games)) if tally.games else None,
        "wall_s": _num(wall_s),
        "games_per_s": _num(run / wall_s) if wall_s > 0 and run else None,
        "seed": int(seed),
        "rules": rules.to_dict(),
        "deck": {"name": deck.name, "size": deck.size, "cards": deck.to_dict()},
    }
    summary.update(extra or {})
    warning = stall_warning(tally.stalled_rounds, ROUNDS * tally.games, rules)
    if warning:
        summary["warning"] = warning
    summary["by_strategy"] = tally.by_strategy()
    summary["by_seat"] = tally.by_seat()
    return summary


def stall_warning(stalled: int, rounds: int, rules) -> str | None:
    """The warning for a batch in which more than 1% of the rounds stalled, else None."""
    if not rounds or stalled <= STALL_WARNING_SHARE * rounds:
        return None
    return (f"{stalled} of {rounds} rounds stalled ({100 * stalled / rounds:.1f}%): the deck or the rules "
            f"let rounds end without a finisher (an empty draw pile, or max_turns = {rules.max_turns} "
            "turns of all players together); these scores are not those of played-out rounds")


def summarize(result, wall_s: float) -> dict:
    """The summary of one engine result (:func:`gnoming_sim.kernel.engine.simulate`)."""
    tally = Tally(result.strategy_names, np.asarray(result.totals).shape[1])
    tally.add_result(result)
    return build_summary(tally, seed=result.seed, rules=result.rules, deck=result.deck, wall_s=wall_s)


# ---------------------------------------------------------------- text output
def _fmt(x, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def _interval(pair, spec: str) -> str:
    lo, hi = pair
    return f"[{_fmt(lo, spec)}, {_fmt(hi, spec)}]"


def _table(header: list[list[str]], rows: list[list[str]]) -> list[str]:
    """Header lines (each a list of cells) over a rule and the rows, columns aligned."""
    widths = [max(len(r[i]) for r in [*header, *rows]) for i in range(len(header[0]))]

    def line(r):  # first column left-aligned, numbers right-aligned
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()

    return [*map(line, header), line(["-" * w for w in widths]), *map(line, rows)]


_COLUMNS = [
    ["games", "game score", "95% CI", "win share", "95% CI", "finish rate", "bonus rate", "turns/round"],
    ["(n)", "(3 rounds, lower=better)", "", "(of games)", "", "(of its rounds)", "(-5 per finish)", "(own, per seat)"],
]


def _pm(value, pair, spec: str) -> str:
    """``0.312 ±0.004``: a value and the half-width of its 95% interval."""
    lo, hi = pair
    if value is None:
        return "-"
    if lo is None or hi is None:
        return _fmt(value, spec)
    return f"{format(value, spec)} ±{format(max(value - lo, hi - value), spec)}"


def _row(label: str, e: dict) -> list[str]:
    return [label, str(e["n_games"]), _fmt(e["mean_game_score"], ".2f"), _interval(e["ci95"], ".2f"),
            _fmt(e["win_share"], ".3f"), _interval(e["win_ci95"], ".3f"),
            _pm(e.get("finish_rate"), e.get("finish_ci95", (None, None)), ".3f"),
            _pm(e.get("bonus_rate"), e.get("bonus_ci95", (None, None)), ".3f"),
            _pm(e["mean_turns_per_round"], e.get("turns_ci95", (None, None)), ".2f")]


def _header(s: dict) -> list[str]:
    rules = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in s["rules"].items())
    deck = s["deck"]
    share = s.get("stalled_share")
    stalled = f"stalled {s['stalled_rounds']}" + (f", {100 * share:.1f}%" if share else "")
    out = []
    if s.get("interrupted"):
        out.append(f"INTERRUPTED ({s['interrupted']}): {s['games']} of {s.get('games_requested', '?')} games "
                   "played; every number below covers only those")
    out += [
        f"gnoming-sim {s.get('version', '')}".rstrip(),
        f"games {s['games']}  players {s['players']}  seed {s['seed']}  rounds {s['rounds']} ({stalled})",
        f"time {_fmt(s['wall_s'], '.2f')} s  ({_fmt(s['games_per_s'], ',.0f')} games/s)",
        f"deck {deck['name']} ({deck['size']} cards)",
        f"rules {rules}",
    ]
    if "seats" in s:
        rotation = "rotating one seat per game" if s.get("rotate") else "fixed"
        out.append(f"seats {', '.join(s['seats'])} ({rotation}; seats are numbered from 0)")
    if s.get("resumed_games"):
        out.append(f"resumed {s['resumed_games']} games from the output file")
    if s.get("out"):
        out.append(f"output {s['out']}")
    return out


_NOTES = [
    "game score: a seat's points over the 3 rounds of a game, lower is better; a strategy in k seats of a",
    "  game counts once per game (its seats' mean), so n and every 95% interval are over games.",
    "win share: the chance that a seat of the strategy wins the game (a win shared by k players counts",
    "  1/k; a strategy in several seats: their mean, so an even share is 1/players). finish rate: the",
    "  share of a seat's rounds it finished; bonus rate: the share of those",
    "  finishes that earned -5 (not +5). turns/round: a seat's own turns per round; the rules'",
    "  max_turns counts the turns of all players together. ±: half-width of the 95% interval.",
]


def format_table(summary: dict) -> str:
    """The summary as human-readable text: run facts, then per-strategy and per-seat tables."""
    s = summary
    out = _header(s) + [""]
    out += _table([["strategy", *_COLUMNS[0]], ["", *_COLUMNS[1]]],
                  [_row(name, e) for name, e in s["by_strategy"].items()])
    out.append("")
    out += _table([["seat", *_COLUMNS[0]], ["", *_COLUMNS[1]]],
                  [_row(seat, e) for seat, e in s["by_seat"].items()])
    out += [""] + _NOTES
    if s.get("warning"):
        out += ["", f"WARNING: {s['warning']}"]
    return "\n".join(out) + "\n"
