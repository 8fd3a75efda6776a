"""What following the card is worth: a strategy among experts against an expert among experts.

:func:`versus_expert` plays every deal ``P`` times, rotation ``r`` seating the strategy X at seat ``r``
and ``expert`` at the other seats, and the same deals with ``expert`` at every seat (common random
numbers).  Game ``d * P + r`` is deal ``d``, rotation ``r``, the same game number (so the same play stream)
in both.  Per deal, averaged over the rotations: X's game score minus the mean of the expert seats',
minus the same for the expert at X's seat in the all-expert games (negative: X scores less, plays
better), and X's win credit minus that expert's.  The deal is the unit: means with 95% t intervals
over the deals.  The deals are their own (:data:`CHECK_FIRST`), apart from the card derivation's self-play,
tuning, held-out and ladder games.

With ``rivals`` another player fills the other seats (X among them against expert among them, the same
deals); :func:`versus_expert_along` reads the answer along the ladder: the same check with each rung's
player as the rivals, and the strongest two rungs' difference paired by deal.

:func:`ladder_rating` rates X on the strength ladder (:mod:`gnoming_sim.experiments.ladder`) in a small
pool with expert and learned.
"""
from __future__ import annotations

import numpy as np

from gnoming_sim.experiments.ladder_stats import t_interval
from gnoming_sim.game.deck import check_players
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.kernel.policy import registry

CHECK_FIRST = 2**59 + 2**58   # game numbers of the check's deals (and play streams)
REFERENCE = "expert"
LADDER_POOL = ("random", "greedy", "expert", "learned")   # random: the field of Order
MARGIN_RIVALS = ("net", "expert", "builder", "greedy")     # the card's margins: against each, at each size
MARGIN_SIZES = (2, 4, 6)


def focal_seat(totals: np.ndarray, win: np.ndarray, seat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per game: the score of the seat ``seat[g]`` minus the mean of the others, and its win credit."""
    G, P = totals.shape
    idx = np.arange(G)
    mine = totals[idx, seat].astype(np.float64)
    others = (totals.sum(axis=1) - mine) / (P - 1)
    return mine - others, win[idx, seat]


def versus_expert(strategy, players: int = 4, deals: int = 2000, seed: int = 0, rules=None, deck=None,
                  threads: int | None = None, first_game: int = CHECK_FIRST) -> dict:
    """``{strategy, players, deals, games, diff: {mean, ci95, n}, win: {...}, win_x, win_expert}`` (see the
    module docstring): X's margin over expert in points per game and in win credit, on the same deals
    (game numbers from ``first_game``)."""
    return versus_expert_each((strategy,), players, deals, seed, rules, deck, threads, first_game)[0]


def versus_expert_each(strategies, players: int = 4, deals: int = 2000, seed: int = 0, rules=None, deck=None,
                       threads: int | None = None, first_game: int = CHECK_FIRST, rivals: str = REFERENCE,
                       reference: str = REFERENCE) -> list[dict]:
    """:func:`versus_expert` of each strategy on the same deals and play streams, the experts-alone games
    played once for all of them (``games``: X's and the experts' share).  ``rivals``: who fills the other seats
    (expert by default; another player answers "X instead of expert, among these rivals"); ``reference``: who
    sits in X's seat in the games X is compared with (expert by default)."""
    return [_summary(x, players, deals, rivals, d, w, wx, we, reference)
            for x, d, w, wx, we in _per_deal(strategies, players, deals, seed, rules, deck, threads, first_game, rivals,
                                             reference)]


def margins(strategy, rivals=MARGIN_RIVALS, sizes=MARGIN_SIZES, deals: int = 2000, seed: int = 0, rules=None,
            deck=None, threads: int | None = None, first_game=None, deals_of=None) -> dict:
    """The card's (``strategy``'s) margins: at each table size and for each rival, one ``strategy`` seat among
    that rival's players against that rival in the seat, the same deals (:func:`versus_expert_each` with
    ``rivals`` = ``reference``): ``{players: {rival: the check}}`` (``diff``: points per game, the seat's game
    score minus the others' mean against the rival's in that seat, negative = ``strategy`` better; ``win``: its
    win credit's change).  ``first_game(players)``: the deals' first game number at a size (one range per size,
    shared by every rival: default :data:`CHECK_FIRST` + players * 2**36).  ``deals_of(deals, rival)``: the deals
    against ``rival`` (the first of them; default ``deals`` against every rival)."""
    out: dict = {}
    for p in sizes:
        first = CHECK_FIRST + p * 2**36 if first_game is None else first_game(p)
        for r in rivals:
            n = deals if deals_of is None else deals_of(deals, r)
            out.setdefault(p, {})[r] = versus_expert_each((strategy,), p, n, seed, rules, deck, threads, first,
                                                          rivals=r, reference=r)[0]
    return out


def versus_expert_along(strategy, rungs, players: int = 4, deals: int = 2000, seed: int = 0, rules=None, deck=None,
                        threads: int | None = None, first_game: int = CHECK_FIRST) -> dict:
    """:func:`versus_expert` of ``strategy`` with each of ``rungs`` (weakest first) in the rivals' seats, on the same
    deals and play streams: ``{"rungs": {rung: the check}, "differences": {"strong-other": {"diff", "win"}}}``,
    the difference of the last two rungs' per-deal effects paired by deal (t interval over the deals): how much
    the answer moves when the rivals play stronger."""
    per = {r: _per_deal((strategy,), players, deals, seed, rules, deck, threads, first_game, r)[0] for r in rungs}
    out = {"rungs": {r: _summary(name, players, deals, r, d, w, wx, we) for r, (name, d, w, wx, we) in per.items()},
           "differences": {}}
    if len(rungs) >= 2:
        strong, other = rungs[-1], rungs[-2]
        out["differences"][f"{strong}-{other}"] = {"diff": t_interval(per[strong][1] - per[other][1]),
                                                   "win": t_interval(per[strong][2] - per[other][2])}
    return out


def _summary(name: str, players: int, deals: int, rivals: str, d, w, wx, we: float, reference: str = REFERENCE) -> dict:
    return {"strategy": name, "reference": reference, "rivals": rivals, "players": players, "deals": deals,
            "games": 2 * deals * players, "diff": t_interval(d), "win": t_interval(w), "win_x": t_interval(wx),
            "win_expert": we}


def _per_deal(strategies, players, deals, seed, rules, deck, threads, first_game, rivals, reference=REFERENCE):
    """Per strategy X: (name, X's margin minus expert's in its seat, the same in win credit, X's win credit; each
    float64[deals], the mean over a deal's rotations), and expert's mean win credit in that seat."""
    from gnoming_sim.kernel.engine import deal_orders, simulate

    xs = [registry.get(s) for s in strategies]
    if any(x.name == registry.get(reference).name for x in xs):
        raise GnomingError(f"versus {reference}: the strategy must not be {reference} itself")
    check_players(players)
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 2:
        raise GnomingError(f"deals must be an integer >= 2, got {deals!r}")
    G = deals * players
    reps = np.repeat(deal_orders(deals, seed, deck, first_game=first_game), players, axis=0)   # game d * P + r
    ref, rival = registry.get(reference), registry.get(rivals)
    common = dict(games=G, seed=seed, rules=rules, deck=deck, deals=reps, first_game=first_game,
                  rotate=True, threads=threads)
    res_e = simulate(players, [ref] + [rival] * (players - 1), **common)
    per_deal = lambda v: v.reshape(deals, players).mean(axis=1)   # noqa: E731
    out = []
    for x in xs:
        res_x = simulate(players, [x] + [rival] * (players - 1), **common)
        seat = np.argmax(res_x.seat_strategy == list(res_x.strategy_names).index(x.name), axis=1)   # X's seat
        # the expert in that seat, same deal and stream (rotation seats it where X sat)
        d_x, w_x = focal_seat(res_x.totals, res_x.win_credit, seat)
        d_e, w_e = focal_seat(res_e.totals, res_e.win_credit, seat)
        out.append((x.name, per_deal(d_x - d_e), per_deal(w_x - w_e), per_deal(w_x), float(w_e.mean())))
    return out


def ladder_rating(strategy, players: int = 4, games: int = 1000, seed: int = 0, threads: int | None = None,
                  pool=LADDER_POOL) -> dict:
    """X's row of a small ladder (``pool`` and X, at ``players``): ``{rating, margin, order, pool, games}``
    (Elo, expert = 0, with 95% bootstrap intervals; margin vs expert by t; n = deals)."""
    from gnoming_sim.experiments import ladder

    x = registry.get(strategy)
    names = tuple(pool) + (x.name,)
    with registry.using(registry.Registry(registry.BUILTIN + (x,))):
        lad = ladder.run(names, players=(players,), games=games, seed=seed, threads=threads, bootstrap=500)
    size = lad.sizes[0]
    rows = {r["strategy"]: r for r in size["strategies"]}
    out = {"pool": list(names), "players": players, "games": games, "seed": seed, "wall_s": round(lad.wall_s, 1)}
    out["ratings"] = {n: {k: rows[n][k] for k in ("rating", "margin", "order")} for n in names}
    return out


__all__ = ["versus_expert", "versus_expert_each", "margins", "MARGIN_RIVALS", "MARGIN_SIZES", "versus_expert_along", "ladder_rating", "CHECK_FIRST", "LADDER_POOL"]
