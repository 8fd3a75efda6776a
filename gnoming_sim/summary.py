"""The JSON summary of a simulation batch, and its plain-text table.

:func:`summarize` turns an engine result into a dict of plain Python values (JSON-ready:
nan becomes ``None``); :func:`format_table` renders that dict for a terminal.  Nothing
here runs the engine.
"""
from __future__ import annotations

import math

import numpy as np

from . import fields as F
from .stats import mean_ci, wilson


def _num(x):
    """A JSON-safe float: nan/inf -> None."""
    x = float(x)
    return x if math.isfinite(x) else None


def _score_and_wins(totals: np.ndarray, credit: np.ndarray) -> dict:
    """Mean game score and win share, with 95% intervals, of matching 1-d samples."""
    mean, lo, hi, n = mean_ci(totals)
    p, wlo, whi = wilson(float(credit.sum()), n)
    return {
        "mean_game_score": _num(mean),
        "ci95": [_num(lo), _num(hi)],
        "win_share": _num(p),
        "win_ci95": [_num(wlo), _num(whi)],
    }


def summarize(result, wall_s: float) -> dict:
    """The summary of one batch.

    ``result`` is what :func:`gnoming_sim.engine.simulate` returns; ``wall_s`` is the
    wall-clock time it took.  Per strategy, a sample is one (game, seat) play; per seat,
    one game.  ``bonus_rate`` is the fraction of a strategy's finishing rounds that
    earned the -5 early-finish bonus (``None`` if it never finished a round).
    """
    from . import __version__

    stats = np.asarray(result.round_stats)           # (games, 3, players, N_FIELDS)
    totals = np.asarray(result.totals)                # (games, players)
    credit = np.asarray(result.win_credit)            # (games, players)
    seat_strategy = np.asarray(result.seat_strategy)  # (games, players)
    games, players = totals.shape
    rounds = games * stats.shape[1]
    # per (game, seat), per round: (games, players, 3)
    turns = np.moveaxis(stats[..., F.F_TURNS], 1, 2)
    finisher = np.moveaxis(stats[..., F.F_FINISHER], 1, 2) == 1
    bonus = np.moveaxis(stats[..., F.F_BONUS], 1, 2)

    by_strategy = {}
    for k, name in enumerate(result.strategy_names):
        mask = seat_strategy == k
        entry = {"n_seats_played": int(mask.sum())}
        entry.update(_score_and_wins(totals[mask], credit[mask]))
        entry["mean_turns_per_round"] = _num(turns[mask].mean()) if mask.any() else None
        fin = finisher[mask]
        n_fin = int(fin.sum())
        entry["bonus_rate"] = _num((bonus[mask][fin] < 0).sum() / n_fin) if n_fin else None
        by_strategy[name] = entry

    by_seat = {str(s): _score_and_wins(totals[:, s], credit[:, s]) for s in range(players)}

    deck = result.deck
    return {
        "version": __version__,
        "games": int(games),
        "players": int(players),
        "rounds": int(rounds),
        # the stalled flag is the same for every seat of a round: read seat 0
        "stalled_rounds": int((stats[:, :, 0, F.F_STALLED] != 0).sum()),
        "wall_s": _num(wall_s),
        "games_per_s": _num(games / wall_s) if wall_s > 0 else None,
        "seed": int(result.seed),
        "rules": result.rules.to_dict(),
        "deck": {"name": deck.name, "size": deck.size, "cards": deck.to_dict()},
        "by_strategy": by_strategy,
        "by_seat": by_seat,
    }


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


def format_table(summary: dict) -> str:
    """The summary as human-readable text: run facts, then per-strategy and per-seat tables."""
    s = summary
    rules = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in s["rules"].items())
    deck = s["deck"]
    out = [
        f"gnoming-sim {s.get('version', '')}".rstrip(),
        f"games {s['games']}  players {s['players']}  seed {s['seed']}  "
        f"rounds {s['rounds']} (stalled {s['stalled_rounds']})",
        f"time {_fmt(s['wall_s'], '.2f')} s  ({_fmt(s['games_per_s'], ',.0f')} games/s)",
        f"deck {deck['name']} ({deck['size']} cards)",
        f"rules {rules}",
        "",
    ]
    rows = [
        [name, str(e["n_seats_played"]), _fmt(e["mean_game_score"], ".2f"), _interval(e["ci95"], ".2f"),
         _fmt(e["win_share"], ".3f"), _interval(e["win_ci95"], ".3f"),
         _fmt(e["mean_turns_per_round"], ".2f"), _fmt(e["bonus_rate"], ".3f")]
        for name, e in s["by_strategy"].items()
    ]
    out += _table(["strategy", "plays", "mean score", "95% CI", "win share", "95% CI", "turns/round",
                   "bonus rate"], rows)
    out.append("")
    rows = [
        [seat, _fmt(e["mean_game_score"], ".2f"), _interval(e["ci95"], ".2f"),
         _fmt(e["win_share"], ".3f"), _interval(e["win_ci95"], ".3f")]
        for seat, e in s["by_seat"].items()
    ]
    out += _table(["seat", "mean score", "95% CI", "win share", "95% CI"], rows)
    return "\n".join(out) + "\n"
