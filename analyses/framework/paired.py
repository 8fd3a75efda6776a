"""The edited-deal study the mulligan and hazard studies share: the arms of one cell play the same deals, edited
one way against another, and each effect is read along the strong-play ladder.

Common random numbers, made explicit: :func:`gnoming_sim.kernel.engine.deal_orders` gives the
deals a seed would play; a study edits them (swapping cards within a deal, so each arm
keeps the deck's composition) and plays every arm on them with the same seed, so the
play stream (reshuffles, random strategies) is shared too.  The heuristic presets are
deterministic, so two arms of heuristic players differ only through the edit.

Deal layout (one round): positions ``9*s .. 9*s+8`` are seat ``s``'s layout (row-major),
the rest is the draw pile, top first; the first two non-hazard cards after the layouts
seed the discard piles.

A study names its arms and edits (``design.py``) and its estimates (``findings.py``); what they share is here:
the deal surgery, playing the arms, the rung tables and each arm's seat values; the rungs' effects by table
size and their paired differences, the precision reached, the estimands, answers and findings along the ladder.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from gnoming_sim.game.fields import F_SCORE
from gnoming_sim.game.cards import HAZARD, MULLIGAN
from gnoming_sim.kernel.engine import deal_orders
from gnoming_sim.stats import Estimate

from .design import SECOND, STRONG, STRONG_LADDER, STRONG_TEXT, TOP_DIFFERENCE, strong_arm, strong_seats
from .render import format_estimate
from .study import Answer, Finding, Precision, Study, StudyResult, Table, estimand
from .words import (by_size, convergence, equivalence, equivalence_by_size, holds_under_by_size, power_text,
                    size_json, top_by_size)

TRACE_CHUNK = 1024    # games per engine call with traces (a trace buffer is 64 KiB per game)
PLAIN_CHUNK = 8192


@dataclass(frozen=True)
class ArmTable(Table):
    """One arm of a paired experiment: the games of its cell, on the cell's deals as ``arm`` edits them.

    The arms of a cell share ``experiment``, ``players``, ``games`` and ``first_game``; the
    deals are edited, so ``gnoming-sim simulate`` cannot replay them (no command).
    """

    experiment: str = ""
    arm: str = ""

    def command(self, seed: int) -> str:
        return ""

    @property
    def cell(self) -> tuple:
        return (self.experiment, self.players, self.games, self.first_game)


# ----------------------------------------------------------------- deal surgery (vectorised)
def is_special(rows: np.ndarray) -> np.ndarray:
    """Hazards and mulligans: the cards an ordinary-card swap must not move."""
    return (rows == HAZARD) | (rows == MULLIGAN)


def deepest(mask: np.ndarray) -> np.ndarray:
    """Per row of a bool (G, N) mask: the last True column, or -1."""
    n = mask.shape[1]
    last = n - 1 - np.argmax(mask[:, ::-1], axis=1)
    return np.where(mask.any(axis=1), last, -1)


def pick(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per row of a bool (G, N) mask: a uniformly chosen True column, or -1."""
    weights = rng.random(mask.shape) * mask
    return np.where(mask.any(axis=1), np.argmax(weights, axis=1), -1)


def swap(rows: np.ndarray, i: np.ndarray, j: np.ndarray, where: np.ndarray | None = None) -> None:
    """Swap ``rows[g, i[g]]`` and ``rows[g, j[g]]`` in place (only where ``where`` is True)."""
    g = np.arange(rows.shape[0]) if where is None else np.nonzero(where)[0]
    i, j = i[g], j[g]
    tmp = rows[g, i].copy()
    rows[g, i] = rows[g, j]
    rows[g, j] = tmp


def bury_ordinary_partner(rows: np.ndarray, pos: np.ndarray, where: np.ndarray) -> np.ndarray:
    """Swap the card at ``pos`` with the deepest ordinary card of the draw pile; return that position.

    ``rows`` int8 (G, N) is edited in place where ``where``; the deepest ordinary card lies
    at the bottom of the draw pile, which comes into play only when the pile runs out.
    """
    ordinary = ~is_special(rows)
    ordinary[np.arange(rows.shape[0]), np.maximum(pos, 0)] = False
    z = deepest(ordinary)
    where = where & (z >= 0)
    swap(rows, pos, z, where)
    return z


def with_rounds(deals: np.ndarray, rounds: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """A copy of ``deals`` (G, 3, N) with round ``rounds[g]`` of game ``g`` replaced by ``rows[g]``."""
    out = deals.copy()
    out[np.arange(deals.shape[0]), rounds] = rows
    return out


def round_rows(deals: np.ndarray, rounds: np.ndarray) -> np.ndarray:
    """Copy of the deck order of round ``rounds[g]`` of every game: int8 (G, N)."""
    return deals[np.arange(deals.shape[0]), rounds].copy()


def cell_rng(seed: int, *key: int) -> np.random.Generator:
    """The edit randomness of one chunk of one cell: a stream of (study seed, cell, first game)."""
    words = [seed & 0xFFFFFFFF, seed >> 32, *key]
    return np.random.default_rng(np.random.SeedSequence(words))


def nothing_to_measure(reason: str) -> StudyResult:
    """The result of a study whose experiment the deck rules out (its template shows ``empty``)."""
    return StudyResult(findings=[], figures=[], frames={}, summary={"skipped": reason}, precision=[],
                       context={"empty": reason})


# ----------------------------------------------------------------- edit randomness keyed by game number
_M1, _M2, _GOLD = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB), np.uint64(0x9E3779B97F4A7C15)


def _mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser, elementwise on uint64."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def game_uniforms(seed: int, games, stream: int, width: int) -> np.ndarray:
    """Uniforms in [0, 1), float64 (G, width), that depend only on (seed, game number, stream, column).

    An edit drawn from them is the same for a game whatever chunk, cell size or table plays it, so
    arms and rungs of different sizes that share game numbers get the very same edits (a smaller
    rung plays the first deals of a bigger one's, edited alike).
    """
    g = np.asarray(games, dtype=np.uint64).reshape(-1, 1)
    c = np.arange(width, dtype=np.uint64).reshape(1, -1)
    with np.errstate(over="ignore"):
        z = _mix64(np.uint64(seed & 0xFFFFFFFFFFFFFFFF) + _GOLD * (np.uint64(stream) + np.uint64(1)))
        z = _mix64(z ^ (g * _GOLD))
        z = _mix64(z + (c + np.uint64(1)) * _GOLD)
    return (z >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


def pick_with(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Per row of a bool (G, N) mask: the True column with the largest uniform ``u`` (G, N), or -1."""
    weights = (u + 1e-12) * mask
    return np.where(mask.any(axis=1), np.argmax(weights, axis=1), -1)


# ----------------------------------------------------------------- one edited-deal study: what the mulligan and hazard share
def arm_table(players: int, seats, games: int, first: int, experiment: str, arm: str) -> ArmTable:
    return ArmTable(players, tuple(seats), games, first_game=first, experiment=experiment, arm=arm,
                    label=f"{experiment}, {arm}: {players} players, {', '.join(seats)}")


def rung_tables(players: int, first: int, share: int, experiment: str, arms, rung_share: dict,
                rung_arms: dict) -> list[ArmTable]:
    """The arms each rung of :data:`STRONG_LADDER` plays with one player at every seat (``rung_arms[rung]`` of
    ``arms``), on the first ``rung_share[rung]`` of a lineup block's ``share`` deals, edited alike."""
    return [arm_table(players, strong_seats(players, pl), max(1, int(round(share * rung_share[pl]))), first,
                      experiment, strong_arm(a, pl)) for pl in STRONG_LADDER for a in arms if a in rung_arms[pl]]


def with_rungs(arms: dict) -> dict:
    """The arms' deals, and the same deals under each rung's arm names (:func:`strong_arm`)."""
    return {**arms, **{strong_arm(a, pl): d for pl in STRONG_LADDER for a, d in arms.items()}}


def seat_values(res, rounds: np.ndarray, seats: np.ndarray) -> dict:
    """Per game ``g`` of a result: seat ``seats[g]``'s round score in round ``rounds[g]`` (``score``), its game
    win credit (``win``), the others' mean of both (``others``, ``others_win``), its ``margin`` (game total
    minus the others' mean: negative is ahead, since low wins) and its strategy's name (``names``)."""
    g = np.arange(res.games)
    k = max(res.players - 1, 1)
    scores = res.round_stats[g, rounds, :, F_SCORE].astype(np.float64)
    totals = res.totals[g].astype(np.float64)
    score, win, total = scores[g, seats], res.win_credit[g, seats], totals[g, seats]
    return {"score": score, "win": win, "others": (scores.sum(axis=1) - score) / k,
            "others_win": (res.win_credit.sum(axis=1) - win) / k, "margin": total - (totals.sum(axis=1) - total) / k,
            "names": np.asarray(res.strategy_names)[res.seat_strategy[g, seats]]}


def arm_columns(values: dict, key: str, names=("score", "win", "others", "margin")) -> dict:
    """``{"<name>_<key>": values[name]}``: one arm's :func:`seat_values` as columns of the rows kept."""
    return {f"{n}_{key}": values[n] for n in names}


def per_game_and_strategy(res, players: int, values: dict, **agg) -> pd.DataFrame:
    """Per game and strategy, the pandas named aggregations ``agg`` of ``values`` (arrays (G, 3, P), one entry
    per player-round).  A game's player-rounds share its deals, so an analysis clusters them by game."""
    shape = next(iter(values.values())).shape
    names = np.asarray(res.strategy_names)[res.seat_strategy]           # (G, P)
    frame = pd.DataFrame({"game": np.repeat(res.first_game + np.arange(shape[0], dtype=np.int64), 3 * players),
                          "strategy": np.broadcast_to(names[:, None, :], shape).ravel(),
                          **{k: np.asarray(v).ravel() for k, v in values.items()}})
    out = frame.groupby(["game", "strategy"]).agg(**agg).reset_index()
    out.insert(0, "players", players)
    return out


def phase_of(fd: pd.Series, phases) -> pd.Series:
    """The phase of the round (``phases``: (name, lo, hi, text) of face-down cards) of each row's ``fd``."""
    out = pd.Series("", index=fd.index)
    for name, lo, hi, _ in phases:
        out[(fd >= lo) & (fd <= hi)] = name
    return out


def rung_frames(data: dict, mix_key: str) -> dict:
    """Rung ("mix", then each of :data:`STRONG_LADDER`) -> its kept rows whose edit was made (``ok``)."""
    keys = {"mix": mix_key, **{pl: strong_arm(mix_key, pl) for pl in STRONG_LADDER}}
    return {r: data[k][data[k]["ok"]] for r, k in keys.items() if k in data and not data[k].empty}


def by_rung_and_size(frames: dict, sizes, effects: Callable) -> dict:
    """Rung -> table size ("all", "2".."7") -> ``effects(rows)`` of that rung's rows there (None: left out)."""
    out = {}
    for rung, f in frames.items():
        out[rung] = {}
        for p in ["all", *sizes]:
            e = effects(f if p == "all" else f[f["players"] == p])
            if e is not None:
                out[rung][str(p)] = e
    return out


RUNG_DIFFERENCES = ((SECOND, "mix"), (STRONG, "mix"), (STRONG, SECOND))


def rung_differences(frames: dict, sizes, effects: Callable) -> dict:
    """"a-b" -> table size -> ``effects(rows)`` (None: left out) of the deals both rungs played, their rows
    merged by deal (rung b's columns suffixed ``_y``): rung a's effect minus rung b's, paired deal by deal."""
    out = {}
    for a, b in RUNG_DIFFERENCES:
        if a not in frames or b not in frames:
            continue
        both = frames[a].merge(frames[b], on=["players", "game"], suffixes=("", "_y"))
        out[f"{a}-{b}"] = {}
        for p in ["all", *sizes]:
            e = effects(both if p == "all" else both[both["players"] == p])
            if e is not None:
                out[f"{a}-{b}"][str(p)] = e
    return out


def ladder_precision(headline: dict, rung_text: dict, who: str, rivals: str, targets: dict) -> list:
    """The half-widths the pooled win-chance and margin effects reached at each rung, against their targets."""
    out = []
    for rung, by in headline.items():
        if by.get("all"):
            out += [Precision(f"change in the {who}'s win chance, {rung_text[rung]}", by["all"]["win"].half_width,
                              "pct", target=targets["win"]),
                    Precision(f"change in the {who}'s margin over the {rivals}, {rung_text[rung]}",
                              by["all"]["margin"].half_width, "points", target=targets["margin"])]
    return out


def top_difference(diffs: dict, compared: str, margin: str, targets: dict, pp: str) -> str | None:
    """The conclusion on the two strongest rungs' pooled difference (``compared``: the sentence's start, up to
    what differs; ``margin``: how it names the margin; ``pp``: the format of the win-chance target), None
    where it was not measured."""
    d = diffs.get(TOP_DIFFERENCE, {}).get("all")
    if d is None:
        return None
    tw, tm = targets["win"], targets["margin"]
    return (f"{compared} differs by {format_estimate(d['win'], 'dpct')} (pooled verdict: {equivalence(d['win'], tw)}, "
            f"{power_text(d['win'], tw, 'dpct')}) and {margin} by {format_estimate(d['margin'], 'signed')} points "
            f"(pooled verdict: {equivalence(d['margin'], tm)}, {power_text(d['margin'], tm, 'signed')}); \"holds\" "
            "only where an equivalence test (TOST) with at least 80% power shows the difference within the margin "
            f"(\u00b1{format(100 * tw, pp)} pp, \u00b1{tm} points); the answers judge it at every table size.")


def sizes_of(headline: dict, measure: str, rung: str = STRONG) -> dict | None:
    """:func:`.words.by_size` of ``rung``'s headline effect over the table sizes it played."""
    return by_size({int(p): e[measure] for p, e in headline.get(rung, {}).items() if p != "all"})


def ladder_estimands(question: str, headline: dict, diffs: dict, targets: dict, definitions: dict) -> dict:
    """summary.json's estimands of ``question``: ``definitions`` maps "win_chance" and "margin" to (definition,
    unit); each along the ladder (:func:`.study.estimand`), settled by the two strongest rungs per table size."""
    if not headline:
        return {}

    def one(key):
        measure = MEASURES[key]
        by = {r: headline[r]["all"][measure] for r in headline if "all" in headline[r]}
        dd = {k: v["all"][measure] for k, v in diffs.items() if "all" in v}
        return estimand(*definitions[key], by, dd, settled=equivalence_by_size(top_by_size(diffs, measure),
                                                                                targets[measure]),
                        target=targets[measure], by_size=size_json(sizes_of(headline, measure)),
                        judged_by_size=top_by_size(diffs, measure))

    return {question: {key: one(key) for key in definitions}}


MEASURES = {"win_chance": "win", "margin": "margin"}
KINDS = {"win": "dpct", "margin": "signed"}


def ladder_answers(prefix: str, question: str, headline: dict, est: dict, diffs: dict | None, targets: dict,
                   sentences: dict) -> list[Answer]:
    """The answers under the strong player: ``sentences`` maps "win_chance" and "margin" to (sentence, unit,
    rank); each holds under what :func:`.words.holds_under_by_size` says of the two strongest rungs."""
    top = headline.get(STRONG, {}).get("all")
    if top is None or not est:
        return []
    out = []
    for key, (sentence, unit, rank) in sentences.items():
        measure = MEASURES[key]
        settled = est[question][key]["settled"]
        out.append(Answer(f"{prefix}.{key}", sentence, top[measure],
                          holds_under_by_size(settled, top_by_size(diffs or {}, measure), targets[measure],
                                              KINDS[measure]),
                          kind=KINDS[measure], unit=unit, rank=rank, convergence=convergence(settled)))
    return out


def strong_findings(prefix: str, top: dict | None, what: str, win: str, rivals: str, margin: str,
                    unit: str) -> list[Finding]:
    """The headline findings under the strong player (``top``: its pooled effects, or None): ``what`` (the card,
    as the sentences' subject) changes the win chance (against the control, as ``win`` ends the sentence) and the
    margin over ``rivals`` (``margin``: what the sign means, in brackets)."""
    if top is None:
        return []
    return [Finding(f"{prefix}.win_chance_strong", f"Against strong players ({STRONG_TEXT}, at every seat), {what} "
                    f"changes your chance of winning the game by {{value}}, {win}", top["win"], "dpct", unit),
            Finding(f"{prefix}.margin_strong", f"Against strong players ({STRONG} at every seat), {what} changes "
                    f"your game total minus {rivals} average by {{value}} points ({margin})", top["margin"], "signed",
                    unit)]


def as_json(x):
    """Nested dicts of :class:`Estimate` s as summary.json writes them (each one's ``to_json()``)."""
    return x.to_json() if isinstance(x, Estimate) else {k: as_json(v) for k, v in x.items()}


class EditedDealStudy(Study):
    """A study of deals edited one way against another, every arm on the same deals (:meth:`play`):
    ``findings(ctx, tables, data)`` its estimates; a deck without its ``card``
    (``cards``: its name, plural) has nothing to measure.

    Of a cell (its first arm's table): ``edit(seed, cell, lo, deals)`` returns ``(arm deals by arm name, or None
    where every arm plays the deals as dealt; edit facts)``, ``keep(ctx, cell, lo, results by arm name, facts)`` a
    dict of DataFrames, concatenated by key over all chunks and cells; ``strategies(name)`` resolves a seat name
    (presets and the study's variants); the arms of ``traced`` are played with traces.
    """

    card: int = 0
    cards: str = ""
    strategies: Callable[[str], object]
    traced: tuple[str, ...] = ()

    def design(self, ctx) -> list[ArmTable]:
        return super().design(ctx) if ctx.deck.count(self.card) else []

    def play(self, ctx, seed: int, tables: Sequence[ArmTable], advance: Callable[[int], None]) -> dict[str, pd.DataFrame]:
        """Play every cell's arms on its edited deals, chunk by chunk; concatenate what :meth:`keep` returns."""
        parts: dict[str, list[pd.DataFrame]] = {}
        for _, group in groupby(tables, key=lambda t: t.cell):
            arms = list(group)
            first = arms[0]
            chunk = TRACE_CHUNK if any(t.arm in self.traced for t in arms) else PLAIN_CHUNK
            stop = first.first_game + first.games
            for lo in range(first.first_game, stop, chunk):
                n = min(chunk, stop - lo)
                deals = deal_orders(n, seed, ctx.deck, first_game=lo)
                arm_deals, facts = self.edit(seed, first, lo, deals)
                calls = [dict(players=t.players, strategies=[self.strategies(s) for s in t.seats], games=n,
                              seed=seed, rules=ctx.rules, deck=ctx.deck, threads=ctx.threads, chunk_size=n,
                              trace=t.arm in self.traced, deals=deals if arm_deals is None else arm_deals[t.arm],
                              first_game=lo, rotate=t.rotate) for t in arms]
                results = {}
                for t, res in zip(arms, ctx.simulate_many(calls)):
                    results[t.arm] = res
                    advance(n)
                for name, frame in self.keep(ctx, first, lo, results, facts).items():
                    parts.setdefault(name, []).append(frame)
        return {name: pd.concat(frames, ignore_index=True) for name, frames in parts.items()}

    def conclude(self, ctx, tables, data) -> StudyResult:
        if not tables:
            return nothing_to_measure(f"The deck '{ctx.deck.name}' has no {self.cards}: there is nothing to measure.")
        return self.findings(ctx, tables, data)
