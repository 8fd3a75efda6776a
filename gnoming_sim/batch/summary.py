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
from gnoming_sim.batch.stats import mean_ci_from_sums, wilson

# A win shared by k <= 7 players is credited 1/k: counting in 1/420ths keeps the sums
# exact, so a batch summed in any chunking gives the same numbers.
WIN_UNIT = 420

_INT_SUMS = ("n", "total", "total_sq", "turns", "finishes", "bonuses", "wins")


def _num(x):
    """A JSON-safe float: nan/inf -> None."""
    x = float(x)
    return x if math.isfinite(x) else None


def win_credit_from_scores(round_scores: np.ndarray) -> np.ndarray:
    """Win credit per (game, seat) from round scores of shape (games, 3, players) (RULES.md §6).

    Lowest total wins; a tie is broken by the lowest last-round score; a tie after that
    is shared, each of the k winners credited 1/k.  Returns float64 (games, players).
    """
    scores = np.asarray(round_scores, dtype=np.int64)
    totals = scores.sum(axis=1)
    last = scores[:, -1, :]
    tied = totals == totals.min(axis=1, keepdims=True)
    best_last = np.where(tied, last, np.iinfo(np.int64).max).min(axis=1, keepdims=True)
    winners = tied & (last == best_last)
    return winners / winners.sum(axis=1, keepdims=True)


class _Sums:
    """Integer sums over (game, seat) plays, one column per label (strategy or seat)."""

    def __init__(self, labels: int):
        self.sums = np.zeros((len(_INT_SUMS), labels), dtype=np.int64)

    def add(self, labels: np.ndarray, columns: Sequence[np.ndarray]) -> None:
        """``labels`` int (games, players); ``columns`` one int array (games, players) per sum."""
        lab = labels.ravel().astype(np.intp)
        m = self.sums.shape[1]
        for i, col in enumerate(columns):
            weights = col.ravel().astype(np.float64)  # per-chunk sums stay far below 2**53: exact
            self.sums[i] += np.rint(np.bincount(lab, weights=weights, minlength=m)).astype(np.int64)

    def entry(self, k: int) -> dict:
        n, total, total_sq, turns, finishes, bonuses, wins = (int(v) for v in self.sums[:, k])
        mean, lo, hi, _ = mean_ci_from_sums(n, total, total_sq)
        p, wlo, whi = wilson(wins / WIN_UNIT, n)
        return {
            "n_seats_played": n,
            "mean_game_score": _num(mean),
            "ci95": [_num(lo), _num(hi)],
            "win_share": _num(p),
            "win_ci95": [_num(wlo), _num(whi)],
            "mean_turns_per_round": _num(turns / (ROUNDS * n)) if n else None,
            "finish_rate": _num(finishes / (ROUNDS * n)) if n else None,
            "bonus_rate": _num(bonuses / finishes) if finishes else None,
        }


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
        totals = stats[..., F.F_SCORE].sum(axis=1, dtype=np.int64)
        finisher = stats[..., F.F_FINISHER] == 1
        columns = (
            np.ones((games, players), dtype=np.int64),
            totals,
            totals * totals,
            stats[..., F.F_TURNS].sum(axis=1, dtype=np.int64),
            finisher.sum(axis=1),
            (finisher & (stats[..., F.F_BONUS] < 0)).sum(axis=1),
            np.rint(np.asarray(win_credit) * WIN_UNIT).astype(np.int64),
        )
        self._by_strategy.add(np.asarray(seat_strategy), columns)
        self._by_seat.add(np.broadcast_to(np.arange(players), (games, players)), columns)
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
        "wall_s": _num(wall_s),
        "games_per_s": _num(run / wall_s) if wall_s > 0 and run else None,
        "seed": int(seed),
        "rules": rules.to_dict(),
        "deck": {"name": deck.name, "size": deck.size, "cards": deck.to_dict()},
    }
    summary.update(extra or {})
    summary["by_strategy"] = tally.by_strategy()
    summary["by_seat"] = tally.by_seat()
    return summary


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


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(r):  # first column left-aligned, numbers right-aligned
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))

    return [line(header), line(["-" * w for w in widths]), *map(line, rows)]


_COLUMNS = ["plays", "mean score", "95% CI", "win share", "95% CI", "turns/round", "bonus rate"]


def _row(label: str, e: dict) -> list[str]:
    return [label, str(e["n_seats_played"]), _fmt(e["mean_game_score"], ".2f"), _interval(e["ci95"], ".2f"),
            _fmt(e["win_share"], ".3f"), _interval(e["win_ci95"], ".3f"),
            _fmt(e["mean_turns_per_round"], ".2f"), _fmt(e.get("bonus_rate"), ".3f")]


def _header(s: dict) -> list[str]:
    rules = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in s["rules"].items())
    deck = s["deck"]
    out = [
        f"gnoming-sim {s.get('version', '')}".rstrip(),
        f"games {s['games']}  players {s['players']}  seed {s['seed']}  "
        f"rounds {s['rounds']} (stalled {s['stalled_rounds']})",
        f"time {_fmt(s['wall_s'], '.2f')} s  ({_fmt(s['games_per_s'], ',.0f')} games/s)",
        f"deck {deck['name']} ({deck['size']} cards)",
        f"rules {rules}",
    ]
    if "seats" in s:
        rotation = "rotating one seat per game" if s.get("rotate") else "fixed"
        out.append(f"seats {', '.join(s['seats'])} ({rotation})")
    if s.get("resumed_games"):
        out.append(f"resumed {s['resumed_games']} games from the output file")
    if s.get("out"):
        out.append(f"output {s['out']}")
    return out


def format_table(summary: dict) -> str:
    """The summary as human-readable text: run facts, then per-strategy and per-seat tables."""
    s = summary
    out = _header(s) + [""]
    out += _table(["strategy", *_COLUMNS], [_row(name, e) for name, e in s["by_strategy"].items()])
    out.append("")
    out += _table(["seat", *_COLUMNS], [_row(seat, e) for seat, e in s["by_seat"].items()])
    return "\n".join(out) + "\n"
