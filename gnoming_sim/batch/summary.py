"""The summary of a simulation batch: running tallies, the JSON dict, the text table.

:class:`Tally` keeps a few exact sums per strategy and per seat (the one per-game tally,
:class:`~gnoming_sim.batch.game_sums.GroupSums`, as the report of a batch file keeps them) and
takes a batch chunk by chunk, so its memory does not grow with the number of games.  :func:`build_summary`
turns a tally into a dict of plain Python values (JSON-ready: nan becomes ``None``);
:func:`format_table` renders that dict for a terminal.  Nothing here runs the engine.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from gnoming_sim.game import fields
from gnoming_sim.game.rules import ROUNDS
from gnoming_sim.batch.game_sums import GroupSums, Interval, win_share

# Per game, a label (a strategy or a seat) is summarised by its seats' mean, kept exactly as
# integer sums over games by the one per-game tally (game_sums.GroupSums).  A win shared by k
# players is credited 1/k: in 1/420ths of a win (420 = lcm(1..7)) every credit is an integer.
WIN_UNIT = 420
STALL_WARNING_SHARE = 0.01   # warn when more than this share of the rounds stalled

# the quantities summed per (game, seat) over the rounds; the bonus rate is bonuses / finishes
QUANTITIES = ("score", "win", "turns", "finishes", "bonuses")
RATIOS = (("bonuses", "finishes"),)


def _num(x):
    """A JSON-safe float: nan/inf -> None."""
    x = float(x)
    return x if math.isfinite(x) else None


def _pair(interval: Interval) -> list:
    return [_num(interval.lo), _num(interval.hi)]


def entry(sums: GroupSums, k: int, players: int) -> dict:
    """The summary of label ``k`` of ``sums``: means over games with their 95% intervals (the win
    share's as :func:`~gnoming_sim.batch.game_sums.win_share` gives it, the report's too), and the
    bonus rate's clustered by game."""
    n = sums.games
    seats = 0 if sums.seats is None else int(sums.seats[k])
    if not n or not seats:   # no games, or a label never seated
        blank = [None, None]
        return {"n_games": 0, "n_seats_played": 0, "mean_game_score": None, "ci95": blank, "win_share": None,
                "win_ci95": blank, "mean_turns_per_round": None, "turns_ci95": blank, "finish_rate": None,
                "finish_ci95": blank, "n_finishes": 0, "bonus_rate": None, "bonus_ci95": blank}
    score = sums.mean("score", k)
    win = win_share(sums, k, players, WIN_UNIT)
    turns = sums.mean("turns", k, per=ROUNDS)
    finish = sums.mean("finishes", k, per=ROUNDS)
    finishes, bonuses = sums.total("finishes", k), sums.total("bonuses", k)
    if finishes == 0:
        bonus, bonus_ci = None, [None, None]
    elif n < 2:
        bonus = _num(bonuses / finishes)
        bonus_ci = [bonus, bonus]
    else:
        ratio = sums.ratio("bonuses", "finishes", k)
        bonus, bonus_ci = _num(ratio.mean), _pair(ratio)
    return {
        "n_games": n,
        "n_seats_played": n * seats,
        "mean_game_score": _num(score.mean),
        "ci95": _pair(score),
        "win_share": _num(win.mean),
        "win_ci95": _pair(win),
        "mean_turns_per_round": _num(turns.mean),
        "turns_ci95": _pair(turns),
        "finish_rate": _num(finish.mean),
        "finish_ci95": _pair(finish),
        "n_finishes": finishes,
        "bonus_rate": bonus,
        "bonus_ci95": bonus_ci,
    }


class Tally:
    """Running per-strategy and per-seat sums of a batch, added chunk by chunk."""

    def __init__(self, names: Sequence[str], players: int):
        self.names = tuple(names)
        self.players = int(players)
        self.games = 0
        self.stalled_rounds = 0
        self._by_strategy = GroupSums(QUANTITIES, len(self.names), RATIOS)
        self._by_seat = GroupSums(QUANTITIES, self.players, RATIOS)

    def add(self, round_stats, seat_strategy, win_credit) -> None:
        """Add games: ``round_stats`` int (G, 3, P, N_FIELDS), ``seat_strategy`` int (G, P)
        indexing ``names``, ``win_credit`` float (G, P)."""
        stats = np.asarray(round_stats)
        games, _, players, _ = stats.shape
        if players != self.players:
            raise ValueError(f"tally for {self.players} players got {players}")
        if games == 0:
            return
        finisher = stats[..., fields.F_FINISHER] == 1
        x = np.stack([
            stats[..., fields.F_SCORE].sum(axis=1, dtype=np.int64),
            np.rint(np.asarray(win_credit) * WIN_UNIT).astype(np.int64),
            stats[..., fields.F_TURNS].sum(axis=1, dtype=np.int64),
            finisher.sum(axis=1).astype(np.int64),
            (finisher & (stats[..., fields.F_BONUS] < 0)).sum(axis=1).astype(np.int64),
        ])                                               # (quantity, game, seat)
        onehot = np.asarray(seat_strategy)[:, :, None] == np.arange(len(self.names))
        self._by_strategy.add(x, onehot)
        self._by_seat.add(x)
        self.games += games
        # the stalled flag is the same for every seat of a round: read seat 0
        self.stalled_rounds += int((stats[:, :, 0, fields.F_STALLED] != 0).sum())

    def add_result(self, result) -> None:
        """Add an engine result (its strategy indices are mapped onto ``names``)."""
        remap = np.array([self.names.index(n) for n in result.strategy_names], dtype=np.intp)
        self.add(result.round_stats, remap[np.asarray(result.seat_strategy)], result.win_credit)

    def by_strategy(self) -> dict:
        return {name: entry(self._by_strategy, k, self.players) for k, name in enumerate(self.names)}

    def by_seat(self) -> dict:
        return {str(s): entry(self._by_seat, s, self.players) for s in range(self.players)}


def build_summary(tally: Tally, *, seed: int, rules, deck, wall_s: float | None, games_run: int | None = None,
                  extra: dict | None = None, compile_s: float = 0.0) -> dict:
    """The summary dict of a tallied batch.

    ``games_run`` is the number of games simulated in ``wall_s`` (default: all of them;
    fewer when a run resumed a file; ``wall_s`` None: games read back from a file, not played
    here); ``compile_s`` the part of ``wall_s`` numba spent compiling kernels, which the games per
    second leave out; ``extra`` adds keys (seats, output file, ...).
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
        "wall_s": None if wall_s is None else _num(wall_s),
        "compile_s": _num(compile_s),
        "games_per_s": (_num(run / (wall_s - compile_s)) if wall_s is not None and wall_s - compile_s > 0 and run
                        else None),
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


def _time_line(s: dict) -> str:
    """``time W s (G games/s)``, saying how much of W was compiling (the games/s leave it out)."""
    compiling = s.get("compile_s") or 0.0
    note = f", of which compiling the kernels {compiling:.1f} s (not counted in games/s)" if compiling >= 0.05 else ""
    return f"time {_fmt(s['wall_s'], '.2f')} s{note}  ({_fmt(s['games_per_s'], ',.0f')} games/s)"


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
    ]
    if s.get("source"):   # read back from a batch file (gnoming_sim.batch.standings): no time to tell
        out.append(f"read from {s['source']}")
    else:
        out.append(_time_line(s))
    out += [
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
