"""Study ``hazard-risk``: what a hazard costs the player stuck with it, and what it hands the others.

Design, at 2 to 7 players, seats rotated:

* ``natural``: tables of the five presets in the cyclic lineups, standard deals: how
  often each preset ends a round with a hazard (+10) in its layout.
* ``drawn`` (paired deals, the four heuristic presets in the cyclic lineups): in game
  ``g`` round ``g % 3`` is edited.  Its other hazards are moved to the bottom of the draw
  pile in every arm, so one hazard is in play; arm *hazard* puts it at a depth of the draw
  pile drawn uniformly from 0 to :data:`DEPTH` ``[players] - 1`` cards (below the deepest card
  any rung's blind draw reached in a pilot; capped by the pile), where the
  player whose blind draw reaches it gets it.  A shuffled hazard lies at every depth alike, so
  the draws this gives come at the depths, and hence the times, hazards are drawn in natural
  games, up to the rare rounds that draw deeper;
  arm *ordinary* swaps it for the deepest ordinary card; arm *no-flips* is arm *hazard*
  with every player declining the flips a discarded hazard offers.  The trace of arm
  *hazard* tells who drew it, when, and whether they kept it.  Hazard against ordinary
  measures everything the hazard does; hazard against no-flips, what its flips are worth.
  The two other rounds of the game have every hazard buried at the bottom of the draw
  pile in all three arms, so declining flips changes only the edited round.
* Under strong play: every natural and drawn cell also plays its arms with one player at every
  seat, for each rung of :data:`~gnoming_sim.analyses.framework.design.STRONG_LADDER` (``learned``,
  then the strong player ``net``), on the same deals with the same edits (arms
  ``<arm>@learned`` and ``<arm>@net``); both, ten times slower than the presets, play the first
  deals of each cell (:data:`RUNG_SHARE`) and, in the drawn cells, arms *hazard* and *ordinary*
  only.  The depth is drawn from uniforms keyed by game number, so every rung gets the same edit.
* ``deny`` (same deals in every arm): one seat plays ``cautious`` with ``hazard_deny``
  0, 1.5 (the preset), 3 or 6 (the worth, per opponent who could flip, of keeping a drawn
  hazard rather than discarding it), against the heuristic presets.

Every (experiment, table size) cell plays deals of its own (:func:`cell_first_game`).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from gnoming_sim.game.fields import F_HAZARDS
from gnoming_sim.kernel.policy import registry
from gnoming_sim.game.cards import HAZARD

from ..framework.design import (SECOND, HEURISTIC_NAMES, STRONG, PLAYER_NAMES, PRESET_NAMES, STRONG_LADDER,
                                cell_first_game, cyclic_lineups, strong_arm)
from ..framework.paired import (ArmTable, arm_columns, arm_table, bury_ordinary_partner, deepest, game_uniforms,
                                is_special, per_game_and_strategy, round_rows, rung_tables, seat_values, swap,
                                with_rounds, with_rungs)
from ..framework.trace_follow import (FO_END_SEAT, FO_FATE, FO_FIRST_FD, FO_FIRST_KEPT, FO_FIRST_SEAT, FO_FLIPS,
                                      FO_REMOVED_BY, follow_cards)

PLAYERS = (2, 3, 4, 5, 6, 7)
NATURAL, DRAWN, DENY = "natural", "drawn", "deny"
# their rows under strong play, per rung of the strong-play ladder
NATURAL_STRONG = {player: strong_arm(NATURAL, player) for player in STRONG_LADDER}
DRAWN_STRONG = {player: strong_arm(DRAWN, player) for player in STRONG_LADDER}
DRAWN_ARMS = ("hazard", "ordinary", "no-flips")
DENY_LEVELS = (0.0, 1.5, 3.0, 6.0)     # 1.5: the cautious preset
DENY_BASE = "cautious"
# the hazard lies 0 .. DEPTH[players] - 1 cards deep in the draw pile: just below the deepest planted hazard
# any rung's blind draw reached in a pilot (1,500 deals per table size, hazards up to 90 cards deep; the
# heuristic presets reach deepest, and their 99th percentile is 2 to 10 cards shallower than this)
DEPTH = {2: 40, 3: 48, 4: 30, 5: 44, 6: 42, 7: 40}
SHARE = {NATURAL: 1, DRAWN: 1, DENY: 4}  # each plays cell_games // SHARE games per table size (preset mix)
# each rung's share of the preset mix's games, per experiment (both rungs play ten times slower than the presets).
# With learned in expert's old place the report's cost was held (drawn: learned 2 arms x 0.6 and expert
# 3 arms x 1.0 at a tenth of the cost, against 2 rungs x 2 arms x 0.4 now)
RUNG_SHARE = {NATURAL: {SECOND: 0.05, STRONG: 0.05}, DRAWN: {SECOND: 0.4, STRONG: 0.4}}
RUNG_ARMS = {SECOND: ("hazard", "ordinary"), STRONG: ("hazard", "ordinary")}


def deny_name(level: float) -> str:
    return DENY_BASE if level == 1.5 else f"{DENY_BASE}/deny={level:g}"


def resolve(name: str):
    """A seat name: a registered strategy, ``<name>/no-flip`` (declines hazard flips) or ``cautious/deny=<x>``."""
    if "/" not in name:
        return registry.get(name)
    base, variant = name.split("/", 1)
    if variant == "no-flip":   # any family whose hazard flips follow the heuristic's parameter (the learned one too)
        st = registry.get(base)
        return replace(st, name=name, description=f"{base}, declining every hazard flip",
                       params={**st.params, "hazard_flip": 0.0})
    level = float(variant.split("=", 1)[1])
    change = {"hazard_deny": level, "description": f"{base} with hazard_deny = {level:g}"}
    return registry.from_dict(name, {"base": base, **change})


def opponents(players: int) -> tuple[str, ...]:
    return tuple(HEURISTIC_NAMES[k % len(HEURISTIC_NAMES)] for k in range(players - 1))


def tables(games: int) -> list[ArmTable]:
    """The design: every arm of every cell, ``games`` games per design cell."""
    tables = []
    for p in PLAYERS:
        for experiment, names, arms in ((NATURAL, PRESET_NAMES, ("natural",)), (DRAWN, HEURISTIC_NAMES, DRAWN_ARMS)):
            lineups = cyclic_lineups(names, p)
            share = -(-max(games // SHARE[experiment], 1) // len(lineups))
            for k, lineup in enumerate(lineups):
                first = cell_first_game("hazard-risk", experiment, p) + k * share
                tables += [arm_table(p, tuple(f"{s}/no-flip" for s in lineup) if a == "no-flips" else lineup, share,
                                     first, experiment, a) for a in arms]
                tables += rung_tables(p, first, share, experiment, arms, RUNG_SHARE[experiment],
                                      RUNG_ARMS if experiment == DRAWN else {pl: arms for pl in STRONG_LADDER})
        share = max(games // SHARE[DENY], 1)
        for level in DENY_LEVELS:
            seats = (deny_name(level),) + opponents(p)
            tables.append(ArmTable(p, seats, share, first_game=cell_first_game("hazard-risk", DENY, p), experiment=DENY,
                                   arm=f"{level:g}", label=f"deny {level:g}: {p} players, {', '.join(seats)}"))
    return tables


# ----------------------------------------------------------------- the drawn-hazard edit
def drawn_edit(rows: np.ndarray, players: int, depth: np.ndarray, card: int = HAZARD):
    """(hazard arm, ordinary arm, position, ok) for one round of every game.

    The first ``card`` of the deal is moved to draw-pile depth ``depth[g]`` (the pile's top
    after both discard piles are seeded is position ``9 * players + 2``); every other
    ``card`` goes to the bottom of the draw pile, below the deepest ordinary card, in
    both arms.  The ordinary arm swaps the moved card for the deepest ordinary card.
    """
    G = rows.shape[0]
    g = np.arange(G)
    out = rows.copy()
    ok = (out == card).any(axis=1)
    tag = np.where(ok, np.argmax(out == card, axis=1), 0)
    for _ in range(int((out == card).sum(axis=1).max(initial=0)) - 1):
        bottom = deepest(~is_special(out))
        above = (out == card) & (np.arange(out.shape[1]) < bottom[:, None])
        above[g, tag] = False
        other = above.any(axis=1)
        swap(out, np.argmax(above, axis=1), bottom, other)
    pos = 9 * players + 2 + depth
    swap(out, tag, pos, ok)
    plain = out.copy()
    partner = bury_ordinary_partner(plain, pos, ok)
    return out, plain, pos, ok & (partner >= 0)


def bury_all(rows: np.ndarray, card: int = HAZARD) -> np.ndarray:
    """A copy of ``rows`` (G, N) with every ``card`` moved to the bottom of the draw pile, below
    the deepest ordinary card (in play only if the pile runs out)."""
    out = rows.copy()
    for _ in range(int((out == card).sum(axis=1).max(initial=0))):
        bottom = deepest(~is_special(out))
        above = (out == card) & (np.arange(out.shape[1]) < bottom[:, None])
        swap(out, np.argmax(above, axis=1), bottom, above.any(axis=1))
    return out


def drawn_arms(players: int, lo: int, deals: np.ndarray, rng, seed: int | None = None):
    """The three arms of the drawn experiment on ``deals`` (G, 3, N).

    The edited round ``g % 3`` holds one hazard (see :func:`drawn_edit`); in the two other
    rounds every hazard is buried at the bottom of the draw pile in every arm, so the
    arm *no-flips*, whose players decline every hazard flip, differs from arm *hazard*
    only in the edited round.
    """
    games = lo + np.arange(deals.shape[0])
    rounds = games % 3
    n_special = int(is_special(deals[0, 0]).sum())
    room = deals.shape[2] - (9 * players + 2) - n_special - 1
    top = max(min(DEPTH.get(players, 16), room), 1)
    u = game_uniforms(seed, games, 7, 1)[:, 0] if seed is not None else rng.random(games.size)
    depth = np.minimum((u * top).astype(np.int64), top - 1)
    quiet = deals.copy()
    for r in range(3):
        quiet[:, r] = bury_all(deals[:, r])
    rows = round_rows(deals, rounds)
    held, plain, pos, ok = drawn_edit(rows, players, depth)
    hazard = with_rounds(quiet, rounds, held)
    arms = with_rungs({"hazard": hazard, "no-flips": hazard, "ordinary": with_rounds(quiet, rounds, plain)})
    return arms, {"rounds": rounds, "pos": pos, "depth": depth, "ok": ok}


# ----------------------------------------------------------------- what is kept
def natural_rows(res) -> pd.DataFrame:
    """Per game and strategy: player-rounds, rounds ending with a hazard, hazards left (sum and sum of
    squares)."""
    hz = (res.round_stats[..., F_HAZARDS] // res.rules.hazard_value).astype(np.int64)   # (G, 3, P)
    return per_game_and_strategy(res, res.players, {"hz": hz, "hz_sq": hz ** 2, "with": hz > 0},
                                 player_rounds=("hz", "size"), with_hazard=("with", "sum"), hazards=("hz", "sum"),
                                 hazards_sq=("hz_sq", "sum"))


def drawn_rows(players, lo, results, facts, suffix: str = "") -> pd.DataFrame:
    """The drawn experiment's rows of the arms named ``<arm><suffix>`` (suffix "", or ``strong_arm("", player)``)."""
    rounds = facts["rounds"]
    if "hazard" + suffix not in results:
        return None
    hazard = results["hazard" + suffix]
    follow = follow_cards(hazard.traces, hazard.deals, players, rounds, facts["pos"])
    drawer = follow[:, FO_FIRST_SEAT]
    seat = np.maximum(drawer, 0)
    g = np.arange(rounds.size)
    names = np.asarray(hazard.strategy_names)[hazard.seat_strategy[g, seat]]
    frame = {"players": players, "game": lo + g, "round": rounds, "depth": facts["depth"], "ok": facts["ok"],
             "drawn": drawer >= 0, "strategy": pd.Categorical(names, categories=PLAYER_NAMES),
             "fd": follow[:, FO_FIRST_FD], "kept": follow[:, FO_FIRST_KEPT] == 1,
             "discarded_at_once": (follow[:, FO_FIRST_KEPT] == 0) & (follow[:, FO_REMOVED_BY] == drawer),
             "flips": follow[:, FO_FLIPS], "stuck": (follow[:, FO_FATE] == 0) & (follow[:, FO_END_SEAT] == drawer)}
    for arm, key in (("hazard", "h"), ("ordinary", "o"), ("no-flips", "n")):
        if arm + suffix in results:   # else an arm this rung does not play
            frame.update(arm_columns(seat_values(results[arm + suffix], rounds, seat), key,
                                     ("score", "win", "others", "others_win", "margin")))
    return pd.DataFrame(frame)


def deny_rows(players, lo, results) -> pd.DataFrame:
    """Per game: the focal seat's game score, win credit and rounds ending with a hazard, per deny level."""
    first = next(iter(results.values()))
    g = np.arange(first.games)
    seat = (-(lo + g)) % players          # rotation puts seat list entry 0 (the focal) here
    frame = {"players": players, "game": lo + g}
    for arm, res in results.items():
        total = res.totals[g, seat].astype(np.float64)
        frame[f"total_{arm}"] = total
        frame[f"win_{arm}"] = res.win_credit[g, seat]
        frame[f"hz_{arm}"] = (res.round_stats[g, :, seat, F_HAZARDS] > 0).sum(axis=1)
        frame[f"others_{arm}"] = (res.totals[g].sum(axis=1) - total) / (players - 1)
    return pd.DataFrame(frame)
