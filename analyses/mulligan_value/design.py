"""Study ``mulligan-value``: how much of a win is a mulligan in your hand worth, against the rivals?

Design: paired experiments on the same deals (:mod:`analyses.framework.paired`), at 2 to 7
players.  In game ``g`` one round is edited: round ``g % 3``, and the player it is about (the
holder, the focal seat) is ``(g // 3) % players``.  Every edit is drawn from uniforms keyed by
the game number (:func:`~gnoming_sim.analyses.framework.paired.game_uniforms`), so every table
that plays game ``g`` plays it with the same edit.

* ``dealt``: arm *mulligan* puts a mulligan at a random slot of the holder's layout that held
  an ordinary card.  The mulligan is the deepest one of the draw pile; where the draw pile
  holds none (0.5% of deals at 2 players, 20% at 7), one from anywhere else (another layout
  or a discard pile's seed, which gets the holder's ordinary card in exchange).  Only deals
  whose holder already holds every mulligan (about 4 in 10,000 at every table size) are
  skipped, so no table size loses a share of its deals, and every deal stays a permutation of the deck.  Two controls, the
  same deal with that mulligan moved out of the holder's layout (the slot gets the deepest
  ordinary card of the draw pile in both):

  - arm *ordinary* buries it at the bottom of the draw pile: "you hold it" against
    "nobody has it" (it comes into play only if the pile runs out);
  - arm *placed* puts it at a random depth of the draw pile (swapping with the ordinary
    card there): "you hold it" against "it lies in the pile, where anyone (you too) may
    draw it", the natural place of a mulligan nobody was dealt.

  Each arm is played by three rungs of players on the same deals with the same edits: the
  preset mix (the five presets in the cyclic lineups, seats rotated), and each rung of
  :data:`STRONG_LADDER` at every seat (arms ``<arm>@learned`` and ``<arm>@net``); those two,
  ten times slower than the presets, play the first deals of each lineup block only
  (:data:`RUNG_SHARE`), and only arms *mulligan* and *placed* (:data:`RUNG_ARMS`).  The holder's arm *mulligan* is traced at every rung,
  so the analysis can tell where the dealt mulligan ended (kept by its holder, or placed by a
  rival after its holder replaced it).
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

from gnoming_sim.game.cards import HAZARD, MULLIGAN

from ..framework.design import (PLAYER_NAMES, PRESET_NAMES, SECOND, STRONG, STRONG_LADDER, cell_first_game,
                                cyclic_lineups, strong_arm)
from ..framework.paired import (ArmTable, arm_columns, arm_table, bury_ordinary_partner, deepest, game_uniforms,
                                is_special, per_game_and_strategy, pick, pick_with, round_rows, rung_tables,
                                seat_values, swap, with_rounds, with_rungs)
from ..framework.trace_follow import (FATE_LAYOUT, FO_ACQ_FD, FO_ACQ_MODE, FO_ACQ_SEAT, FO_ACQ_TURN, FO_END_SEAT,
                                      FO_FATE, MODE_DEALT, follow_cards, mulligan_bars)

PLAYERS = (2, 3, 4, 5, 6, 7)
DEALT, FLOW = "dealt", "flow"
# the dealt experiment's rows with one player at every seat, per rung of the strong-play ladder
DEALT_STRONG = {player: strong_arm(DEALT, player) for player in STRONG_LADDER}
ARMS = {DEALT: ("mulligan", "ordinary", "placed"), FLOW: ("natural", "removed")}
CONTROLS = {"ordinary": "o", "placed": "p"}    # control arm -> column suffix (the mulligan arm's is "m")
FLOW_SHARE = 4     # the flow experiment plays 1/FLOW_SHARE of the deals of the dealt one (it is traced)
# deals of each rung's dealt cells, as a share of the preset mix's (both rungs play about ten times slower than
# the presets; they play the first deals of every lineup block, edited alike, so their difference is paired).
# With learned in expert's old place the report's cost was held (learned 2 arms x 0.85 and expert
# 3 arms x 1.0 at a tenth of the cost, against 2 rungs x 2 arms x 0.55 now)
RUNG_SHARE = {SECOND: 0.55, STRONG: 0.55}
# the arms each rung plays: the mulligan and its natural control (placed) only
RUNG_ARMS = {SECOND: ("mulligan", "placed"), STRONG: ("mulligan", "placed")}
TRACED = ("mulligan", *(strong_arm("mulligan", pl) for pl in STRONG_LADDER), "natural")


def tables(games: int) -> list[ArmTable]:
    """The design: every arm of every cell, ``games`` deals per table size in the preset mix."""
    tables = []
    for experiment, total in ((DEALT, games), (FLOW, max(games // FLOW_SHARE, 1))):
        for p in PLAYERS:
            lineups = cyclic_lineups(PRESET_NAMES, p)
            share = -(-total // len(lineups))
            for k, lineup in enumerate(lineups):
                first = cell_first_game("mulligan-value", experiment, p) + k * share
                tables += [arm_table(p, lineup, share, first, experiment, arm) for arm in ARMS[experiment]]
                if experiment == DEALT:   # the same deals and edits, one player at every seat
                    tables += rung_tables(p, first, share, experiment, ARMS[DEALT], RUNG_SHARE, RUNG_ARMS)
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


def _uniforms(rng, G: int, N: int) -> np.ndarray:
    """(3, G, N) uniforms: ``rng`` itself when it is such an array, else drawn from the Generator."""
    if isinstance(rng, np.ndarray):
        return rng
    return rng.random((3, G, N))


def edit_uniforms(seed: int, games: np.ndarray, N: int) -> np.ndarray:
    """The dealt edit's uniforms of these game numbers: (3, G, N), keyed by game number."""
    return np.stack([game_uniforms(seed, games, k, N) for k in range(3)])


def dealt_edit(rows: np.ndarray, players: int, focal: np.ndarray, rng, card: int | None = MULLIGAN):
    """The three arms of the dealt experiment on one round of every game.

    ``rows`` int8 (G, N): the round's deck order; ``rng``: a Generator, or the (3, G, N)
    uniforms of :func:`edit_uniforms`.  Returns ``(mulligan arm, ordinary arm, slot, ok,
    placed arm, source)``.  In the first, deal position ``slot[g]`` (a random slot of the
    focal layout that held an ordinary card) holds ``card``, moved there from the deepest
    position of the draw pile holding one; where the pile holds none, from a random other
    place outside the focal layout (another layout, a discard pile's seed: it gets the slot's
    ordinary card).  Only where every copy of ``card`` is already in the focal layout (4 deals in
    10,000 at any table size: the engine plays permutations of the deck, so none can be planted)
    is there no source (``source`` -1, ``ok`` False).  The ordinary arm swaps it for the deepest ordinary card of the deal,
    burying it at the bottom of the draw pile; the placed arm then moves it from there to a
    random ordinary card's place in the draw pile (a random depth).  ``ok`` is False only where
    there is no source, or the focal layout holds no ordinary card.

    ``card=None`` is the placebo: the card moved to the slot is an ordinary card from a
    random place of the draw pile, so both the mulligan and ordinary arms put a random
    ordinary card at the slot and the true difference is 0 by exchangeability (tests use it).
    """
    G, N = rows.shape
    u = _uniforms(rng, G, N)
    g = np.arange(G)
    layout = 9 * focal[:, None] + np.arange(9)
    special = is_special(rows)
    free = ~special[g[:, None], layout]
    slot = 9 * focal + np.maximum(pick_with(free, u[0][g[:, None], layout]), 0)
    in_pile = np.arange(N) >= draw_pile_start(rows, players)[:, None]
    in_focal = np.zeros((G, N), dtype=bool)
    in_focal[g[:, None], layout] = True
    if card is None:
        ordinary = ~special
        ordinary[g, slot] = False
        partner = deepest(ordinary)
        source = ~special & in_pile
        source[g, np.maximum(partner, 0)] = False
        src = pick_with(source, u[1])
    else:
        src = deepest((rows == card) & in_pile)
        elsewhere = pick_with((rows == card) & ~in_focal, u[1])
        src = np.where(src >= 0, src, elsewhere)
    held = rows.copy()
    swap(held, slot, src, src >= 0)
    plain = held.copy()
    partner = bury_ordinary_partner(plain, slot, src >= 0)
    ok = free.any(axis=1) & (partner >= 0) & (src >= 0)
    placed = plain.copy()
    target = ~is_special(placed) & in_pile
    target[g, np.maximum(partner, 0)] = False
    depth = pick_with(target, u[2])
    swap(placed, np.maximum(partner, 0), np.maximum(depth, 0), ok & (depth >= 0))
    return held, plain, slot, ok, placed, src


def flow_edit(rows: np.ndarray, rng, card: int = MULLIGAN):
    """(removed arm rows, tagged position, ok): one random ``card`` swapped for the deepest ordinary card."""
    tag = pick(rows == card, rng)
    ok = tag >= 0
    removed = rows.copy()
    partner = bury_ordinary_partner(removed, tag, ok)
    return removed, tag, ok & (partner >= 0)


def edit_arms(experiment: str, players: int, lo: int, deals: np.ndarray, rng, seed: int | None = None):
    """Every arm's deals of one chunk (games ``lo ..``).  The dealt edit is keyed by game number
    (``seed``: the study seed; without it, drawn from ``rng``)."""
    games = lo + np.arange(deals.shape[0])
    rounds, focal = focal_of(games, players)
    rows = round_rows(deals, rounds)
    if experiment == DEALT:
        u = rng if seed is None else edit_uniforms(seed, games, rows.shape[1])
        held, plain, slot, ok, placed, src = dealt_edit(rows, players, focal, u)
        arms = with_rungs({"mulligan": with_rounds(deals, rounds, held), "ordinary": with_rounds(deals, rounds, plain),
                           "placed": with_rounds(deals, rounds, placed)})
        start = draw_pile_start(rows, players)
        source = np.where(src < 0, "none", np.where(src >= start, "pile", "elsewhere"))
        return arms, {"rounds": rounds, "focal": focal, "slot": slot, "ok": ok, "source": source}
    removed, tag, ok = flow_edit(rows, rng)
    return ({"natural": deals, "removed": with_rounds(deals, rounds, removed)},
            {"rounds": rounds, "tag": tag, "ok": ok})


# ----------------------------------------------------------------- what is kept
def keep_rows(experiment, players, lo, results, facts, limit) -> dict[str, pd.DataFrame]:
    rounds = facts["rounds"]
    n = rounds.size
    games = lo + np.arange(n)
    if experiment == DEALT:
        out = {}
        for key, suffix in ((DEALT, ""), *((DEALT_STRONG[pl], strong_arm("", pl)) for pl in STRONG_LADDER)):
            if "mulligan" + suffix not in results:
                continue
            focal = facts["focal"]
            held = results["mulligan" + suffix]
            v = seat_values(held, rounds, focal)
            frame = {"players": players, "game": games, "round": rounds, "seat": focal, "slot": facts["slot"] % 9,
                     "strategy": pd.Categorical(v["names"], categories=PLAYER_NAMES), "source": facts["source"],
                     **arm_columns(v, "m"), "ok": facts["ok"]}
            for arm, k in CONTROLS.items():
                if arm + suffix in results:   # else a control this rung does not play
                    frame.update(arm_columns(seat_values(results[arm + suffix], rounds, focal), k))
            if held.traces is not None:   # where the dealt mulligan went
                follow = follow_cards(held.traces, held.deals, players, rounds, facts["slot"])
                # the trace credits a dealt card to its holder once it is turned up there or left there to the
                # end of the round; a dealt mulligan not so credited was replaced face down, unseen (overwritten
                # blind), and the first to place it afterwards was a rival, or nobody
                kept = (follow[:, FO_ACQ_SEAT] == focal) & (follow[:, FO_ACQ_MODE] == MODE_DEALT)
                end_rival = (follow[:, FO_FATE] == FATE_LAYOUT) & (follow[:, FO_END_SEAT] != focal)
                frame.update({"kept_dealt": kept, "overwritten": ~kept, "to_rival": end_rival,
                              "placed_by_rival": ~kept & (follow[:, FO_ACQ_SEAT] >= 0) & (follow[:, FO_ACQ_SEAT] != focal)})
            out[key] = pd.DataFrame(frame)
        return out
    natural, removed = results["natural"], results["removed"]
    follow = follow_cards(natural.traces, natural.deals, players, rounds, np.maximum(facts["tag"], 0))
    seat = np.maximum(follow[:, FO_ACQ_SEAT], 0)
    nat, rem = seat_values(natural, rounds, seat), seat_values(removed, rounds, seat)
    frame = pd.DataFrame({
        "players": players, "game": games, "round": rounds, "tag": facts["tag"],
        "ok": facts["ok"], "acquired": follow[:, FO_ACQ_SEAT] >= 0, "mode": follow[:, FO_ACQ_MODE],
        "fd": follow[:, FO_ACQ_FD], "turn": follow[:, FO_ACQ_TURN], "fate": follow[:, FO_FATE],
        "strategy": pd.Categorical(nat["names"], categories=PRESET_NAMES),
        "score_n": nat["score"], "score_r": rem["score"], "win_n": nat["win"], "win_r": rem["win"]})
    return {FLOW: frame, "limit": _limit_rows(natural, players, limit)}


def _limit_rows(res, players: int, limit: int) -> pd.DataFrame:
    """Per game and strategy: player-rounds, those barred at least once, turns on offer and turns barred."""
    bars, bad = mulligan_bars(res.traces, res.deals, players, limit)
    if bad:
        raise RuntimeError(f"trace scan disagreed with {bad} engine records")
    barred, offered = bars[..., 0], bars[..., 1]
    return per_game_and_strategy(res, players, {"barred": barred, "offered": offered, "barred_round": barred > 0,
                                                "offered_round": offered > 0},
                                 player_rounds=("barred", "size"), barred_rounds=("barred_round", "sum"),
                                 offered_rounds=("offered_round", "sum"), barred_turns=("barred", "sum"),
                                 offered_turns=("offered", "sum"))
