"""The card study's design: at each table size, one ``card`` seat among experts (the printed card), one
``card-starred`` seat among experts (its starred cells, expert elsewhere) and the same deals with experts alone, every
deal once per rotation (:func:`gnoming_sim.experiments.card_check.versus_expert_each`).  Along the ladder, at
the headline's table size, the card and expert each among three rivals of every rung
(:data:`..framework.design.STRONG_LADDER`) on the same deals (:func:`~gnoming_sim.experiments.card_check.versus_expert_along`):
the headline is the card's worth against the strongest rivals, and whether it has converged.  The card's
margins: at 2, 4 and 6 players, one ``card`` seat among each rival's players (:data:`MARGIN_RIVALS`) against that
rival in the seat, the same deals (a sixth of them against the rivals other than expert: :func:`margin_deals`)
(:func:`gnoming_sim.experiments.card_check.versus_expert_each` with the rival as the reference; against expert
at 4 and 6 players that is the check itself)."""
from __future__ import annotations

import math

from gnoming_sim.experiments.card_check import CHECK_FIRST, MARGIN_RIVALS, MARGIN_SIZES

from ..framework.design import STRONG_LADDER
from ..framework.study import Table

PLAYERS = (4, 6)                # the check among experts (the card and its starred cells)
SIZES = tuple(sorted(set(PLAYERS) | set(MARGIN_SIZES)))   # every table size the study plays
HEADLINE_PLAYERS = 4
CHECKED = ("card", "card-starred")   # each seated among experts; the card first: the headline
ALONG = "card"                  # the strategy read along the ladder (the headline answer's)
# the paired difference of the card's worth against the two strongest rungs' rivals must lie within this (points
# per game) for "converged" (TOST): a fifth of the card's cost against experts (about 5 points a game)
TARGET = 1.0
# the deals of the ladder's tables per deal of the check: the equivalence test at +-1 point needs at
# least 80% power; the committed 3,000 deals gave net - learned a standard error of 0.357 points (75% power),
# 1.25 times as many about 0.32 (86%), a run about a fifth longer for the ladder's four tables
ALONG_SHARE = 1.25
# the deals of the card's margins against a rival other than expert per deal of the check: those margins are 13 to
# 55 points a game (3,000 deals gave intervals of +-0.3 to +-0.8), so a sixth of the deals (+-0.8 to +-2.0) states
# them as clearly for a sixth of the games (net's are the study's dearest tables); against expert, the target's
# figure at 4 players, every deal
MARGIN_SHARE = 1 / 6


def margin_deals(deals: int, rival: str) -> int:
    """The deals the card's margin against ``rival`` plays when the check plays ``deals`` (the first of them:
    the same deals); every deal against expert, :data:`MARGIN_SHARE` of them (at least 2) against the others."""
    return deals if rival == "expert" else max(math.ceil(deals * MARGIN_SHARE), 2)


def along_deals(deals: int) -> int:
    """The deals the ladder's tables play when the check plays ``deals`` (the first ``deals`` are the check's)."""
    return math.ceil(deals * ALONG_SHARE)


def first_game(players: int) -> int:
    """The first game number of a table size: its own range (both arms share it: the same deals)."""
    return CHECK_FIRST + players * 2**36


def checked(players: int, rivals: str) -> tuple[str, ...]:
    """The players seated once among ``rivals`` at ``players`` (the card; its starred cells too among experts at the
    check's sizes)."""
    return CHECKED if rivals == "expert" and players in PLAYERS else ("card",)


def tables(deals: int) -> list[Table]:
    out = []
    for p in SIZES:
        for r in MARGIN_RIVALS if p in MARGIN_SIZES else ("expert",):
            arms = [((x,) + (r,) * (p - 1), f"{x} among {r}") for x in checked(p, r)]
            for seats, arm in arms + [((r,) * p, f"{r} alone")]:
                out.append(Table(p, seats, margin_deals(deals, r) * p, first_game=first_game(p),
                                 label=f"{p} players, {arm}"))
    p = HEADLINE_PLAYERS
    for rung in STRONG_LADDER:
        for x in (ALONG, "expert"):
            out.append(Table(p, (x,) + (rung,) * (p - 1), along_deals(deals) * p, first_game=first_game(p),
                             label=f"{p} players, {x} among {rung}"))
    return out
