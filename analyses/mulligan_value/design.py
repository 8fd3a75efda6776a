"""Study ``mulligan-value``: how many points, and how much of a win, is a mulligan worth?

Design: paired experiments on the same deals (:mod:`analyses._paired`), at 2 to 7
players, tables of the five presets in the cyclic lineups (every preset fills the same
share of the seats), seats rotated.  In game ``g`` one round is edited: round ``g % 3``,
and the player it is about (the focal seat) is ``(g // 3) % players``.

* ``dealt``: arm *mulligan* puts a mulligan at a random slot of the focal layout (one of
  its ordinary cards trades places with the deepest mulligan of the draw pile, never one
  dealt to another player); arm *ordinary* is the same deal with that mulligan swapped
  for the deepest ordinary card of the draw pile, i.e. buried at the bottom of the pile,
  out of play unless the pile runs out.  The two arms differ in those two cards only.
  Worth = the focal player's round score in arm *mulligan* minus arm *ordinary* (a
  change in score: negative is better), and the change in its win credit for the game.
  Each dealt cell also plays both arms with one player at every seat, for each rung of
  :data:`~gnoming_sim.analyses.framework.design.STRONG_LADDER` (``expert``, then the strong
  player ``learned``), on the same deals with the same edits (arms ``mulligan@learned`` and
  ``ordinary@learned``, and the same ``@expert``): the worth under strong play, and its paired
  difference to the worth in the preset mix.
* ``flow``: arm *natural* plays the deal as shuffled, with traces; arm *removed* swaps
  one of its mulligans, chosen at random, for the deepest ordinary card.  The trace
  tells who first placed that mulligan (or kept it from the deal), how it came (kept
  from the deal, taken from a discard pile, drawn blind) and when (that player's
  face-down cards at the draw); its worth to that player is the paired difference.
  The natural arm's traces also count how often the mulligan limit bars a player.

Every (experiment, table size) cell plays deals of its own (:func:`cell_first_game`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from gnoming_sim.game import fields as F
from gnoming_sim.game.cards import HAZARD, MULLIGAN

from ..framework.design import (PLAYER_NAMES, PRESET_NAMES, STRONG_LADDER, cell_first_game, cyclic_lineups, strong_arm,
                                strong_seats)
from ..framework.paired import (
    ArmTable,
    bury_ordinary_partner,
    deepest,
    is_special,
    pick,
    round_rows,
    swap,
    with_rounds,
)
from ..framework.trace_follow import FO_ACQ_FD, FO_ACQ_MODE, FO_ACQ_SEAT, FO_ACQ_TURN, FO_FATE, follow_cards, mulligan_bars

PLAYERS = (2, 3, 4, 5, 6, 7)
DEALT, FLOW = "dealt", "flow"
# the dealt experiment's rows with one player at every seat, per rung of the strong-play ladder
DEALT_STRONG = {player: strong_arm(DEALT, player) for player in STRONG_LADDER}
ARMS = {DEALT: ("mulligan", "ordinary"), FLOW: ("natural", "removed")}
FLOW_SHARE = 2     # the flow experiment plays 1/FLOW_SHARE of the games of the dealt one (it is traced)


def tables(games: int) -> list[ArmTable]:
    """The design: every arm of every cell, ``games`` games per design cell."""
    tables = []
    for experiment, total in ((DEALT, games), (FLOW, max(games // FLOW_SHARE, 1))):
        for p in PLAYERS:
            lineups = cyclic_lineups(PRESET_NAMES, p)
            share = -(-total // len(lineups))
            for k, lineup in enumerate(lineups):
                first = cell_first_game("mulligan-value", experiment, p) + k * share
                for arm in ARMS[experiment]:
                    tables.append(ArmTable(p, lineup, share, first_game=first, experiment=experiment,
                                           arm=arm, label=f"{experiment}, {arm}: {p} players, {', '.join(lineup)}"))
                if experiment == DEALT:   # the same deals and edits under strong play
                    for player in STRONG_LADDER:
                        seats = strong_seats(p, player)
                        for arm in ARMS[experiment]:
                            name = strong_arm(arm, player)
                            tables.append(ArmTable(p, seats, share, first_game=first, experiment=experiment, arm=name,
                                                   label=f"{experiment}, {name}: {p} players, {', '.join(seats)}"))
    return tables


# ----------------------------------------------------------------- the edits
def focal_of(games: np.ndarray, players: int) -> tuple[np.ndarray, np.ndarray]:
    """(edited round, focal seat) of each global game number."""
    return games % 3, (games // 3) % players


def draw_pile_start(rows: np.ndarray, players: int) -> np.ndarray:
    """Per deal (G, N): the first position of the draw pile proper, after the layouts and the two
    cards that seed the discard piles (the first two non-hazards after the layouts)."""
    after = np.arange(rows.shape[1]) >= 9 * players
    seeds = np.cumsum(after & (rows != HAZARD), axis=1)
    return np.argmax(seeds >= 2, axis=1) + 1


def dealt_edit(rows: np.ndarray, players: int, focal: np.ndarray, rng, card: int | None = MULLIGAN):
    """The two arms of the dealt experiment on one round of every game.

    ``rows`` int8 (G, N): the round's deck order.  Returns ``(mulligan arm, ordinary arm,
    slot, ok)``: in the first, deal position ``slot[g]`` (a random slot of the focal
    layout that held an ordinary card) holds ``card``, moved there from the deepest
    position of the draw pile holding one (never another player's layout or a discard
    pile's seed, so no opponent loses a card); the second swaps it back out for the
    deepest ordinary card of the deal, burying it at the bottom of the draw pile.  ``ok``
    is False where the draw pile had no such card (both arms then keep the deal as it was).

    ``card=None`` is the placebo: the card moved to the slot is an ordinary card from a
    random place of the draw pile, so both arms put a random ordinary card at the slot
    and the true difference is 0 by exchangeability (tests use it).
    """
    G = rows.shape[0]
    g = np.arange(G)
    layout = 9 * focal[:, None] + np.arange(9)
    special = is_special(rows)
    slot = 9 * focal + pick(~special[g[:, None], layout], rng)
    in_pile = np.arange(rows.shape[1]) >= draw_pile_start(rows, players)[:, None]
    if card is None:
        ordinary = ~special
        ordinary[g, slot] = False
        partner = deepest(ordinary)
        source = ~special & in_pile
        source[g, np.maximum(partner, 0)] = False
        src = pick(source, rng)
    else:
        src = deepest((rows == card) & in_pile)
    ok = src >= 0
    held = rows.copy()
    swap(held, slot, src, ok)
    plain = held.copy()
    partner = bury_ordinary_partner(plain, slot, ok)
    return held, plain, slot, ok & (partner >= 0)


def flow_edit(rows: np.ndarray, rng, card: int = MULLIGAN):
    """(removed arm rows, tagged position, ok): one random ``card`` swapped for the deepest ordinary card."""
    tag = pick(rows == card, rng)
    ok = tag >= 0
    removed = rows.copy()
    partner = bury_ordinary_partner(removed, tag, ok)
    return removed, tag, ok & (partner >= 0)


def edit_arms(experiment: str, players: int, lo: int, deals: np.ndarray, rng):
    games = lo + np.arange(deals.shape[0])
    rounds, focal = focal_of(games, players)
    rows = round_rows(deals, rounds)
    if experiment == DEALT:
        held, plain, slot, ok = dealt_edit(rows, players, focal, rng)
        arms = {"mulligan": with_rounds(deals, rounds, held), "ordinary": with_rounds(deals, rounds, plain)}
        arms.update({strong_arm(a, player): d for player in STRONG_LADDER for a, d in list(arms.items())})
        return arms, {"rounds": rounds, "focal": focal, "slot": slot, "ok": ok}
    removed, tag, ok = flow_edit(rows, rng)
    return ({"natural": deals, "removed": with_rounds(deals, rounds, removed)},
            {"rounds": rounds, "tag": tag, "ok": ok})


# ----------------------------------------------------------------- what is kept
def _seat_values(res, rounds, seats):
    """Round score, game win credit and strategy name of ``seats[g]`` in game ``g``."""
    g = np.arange(res.games)
    score = res.round_stats[g, rounds, seats, F.F_SCORE].astype(np.float64)
    others = (res.round_stats[g, rounds, :, F.F_SCORE].sum(axis=1) - score) / max(res.players - 1, 1)
    names = np.asarray(res.strategy_names)[res.seat_strategy[g, seats]]
    return score, res.win_credit[g, seats], others, names


def keep_rows(experiment, players, lo, results, facts, limit) -> dict[str, pd.DataFrame]:
    rounds = facts["rounds"]
    games = lo + np.arange(rounds.size)
    if experiment == DEALT:
        out = {}
        for key, suffix in ((DEALT, ""), *((DEALT_STRONG[pl], strong_arm("", pl)) for pl in STRONG_LADDER)):
            if "mulligan" + suffix not in results:
                continue
            held, plain = results["mulligan" + suffix], results["ordinary" + suffix]
            s_m, w_m, o_m, names = _seat_values(held, rounds, facts["focal"])
            s_o, w_o, o_o, _ = _seat_values(plain, rounds, facts["focal"])
            out[key] = pd.DataFrame({
                "players": players, "game": games, "round": rounds, "seat": facts["focal"],
                "slot": facts["slot"] % 9, "strategy": pd.Categorical(names, categories=PLAYER_NAMES),
                "score_m": s_m, "score_o": s_o, "win_m": w_m, "win_o": w_o, "others_m": o_m, "others_o": o_o,
                "ok": facts["ok"]})
        return out
    natural, removed = results["natural"], results["removed"]
    follow = follow_cards(natural.traces, natural.deals, players, rounds, np.maximum(facts["tag"], 0))
    seat = np.maximum(follow[:, FO_ACQ_SEAT], 0)
    s_n, w_n, _, names = _seat_values(natural, rounds, seat)
    s_r, w_r, _, _ = _seat_values(removed, rounds, seat)
    frame = pd.DataFrame({
        "players": players, "game": games, "round": rounds, "tag": facts["tag"],
        "ok": facts["ok"], "acquired": follow[:, FO_ACQ_SEAT] >= 0, "mode": follow[:, FO_ACQ_MODE],
        "fd": follow[:, FO_ACQ_FD], "turn": follow[:, FO_ACQ_TURN], "fate": follow[:, FO_FATE],
        "strategy": pd.Categorical(names, categories=PRESET_NAMES),
        "score_n": s_n, "score_r": s_r, "win_n": w_n, "win_r": w_r})
    return {FLOW: frame, "limit": _limit_rows(natural, players, limit)}


def _limit_rows(res, players: int, limit: int) -> pd.DataFrame:
    """Per game and strategy: player-rounds, those barred at least once, turns on offer and turns barred
    (a game's player-rounds share its deals, so the analysis clusters by game)."""
    bars, bad = mulligan_bars(res.traces, res.deals, players, limit)
    if bad:
        raise RuntimeError(f"trace scan disagreed with {bad} engine records")
    G = bars.shape[0]
    names = np.asarray(res.strategy_names)[res.seat_strategy]           # (G, P)
    names = np.broadcast_to(names[:, None, :], bars.shape[:3]).ravel()
    frame = pd.DataFrame({"game": np.repeat(res.first_game + np.arange(G, dtype=np.int64), 3 * players),
                          "strategy": names, "barred": bars[..., 0].ravel(), "offered": bars[..., 1].ravel()})
    frame["barred_round"] = frame["barred"] > 0
    frame["offered_round"] = frame["offered"] > 0
    out = frame.groupby(["game", "strategy"]).agg(
        player_rounds=("barred", "size"), barred_rounds=("barred_round", "sum"), offered_rounds=("offered_round", "sum"),
        barred_turns=("barred", "sum"), offered_turns=("offered", "sum")).reset_index()
    out.insert(0, "players", players)
    return out
