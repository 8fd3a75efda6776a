"""Estimates, findings and summary of the tournament (design in :mod:`.design`)."""
from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from ..framework.design import PRESET_NAMES
from gnoming_sim.stats import Estimate, holm, stratified_mean
from ..framework.render import estimates_frame
from ..framework.study import Finding, Precision, StudyResult
from ..framework.words import PREVIEW
from . import figures as figs
from .design import HEADLINE_PLAYERS, PLAYERS, is_slow


# the precision the design is sized for (95% half-widths): a win share to within a percentage point,
# a head-to-head gap and a seat's edge to within about half a point a game, small against the gaps
# between presets (5 to 20 percentage points, several points a game) that the standings are read for
TARGET_WIN = 0.01
TARGET_H2H = 0.5
TARGET_SEAT = 0.3


def conclude(ctx, tables, data) -> StudyResult:
    names = tables[0].pool if tables and tables[0].pool else PRESET_NAMES
    slow_lineups = [i for i, t in enumerate(tables) if is_slow(t)]
    slow = _slow(data[data["lineup"].isin(slow_lineups)], tables)
    data = data[~data["lineup"].isin(slow_lineups)]
    tables = [t for t in tables if not is_slow(t)]
    standings, h2h, seats, lengths, beats = [], [], [], [], {}
    for p in PLAYERS:
        block = _Block.of(data[data["players"] == p], p, names)
        if block is None:
            continue
        standings += _standings(block)
        h2h += _head_to_head(block)
        seats += _seats(block, ctx.rules.rotate_start)
        length = _round_length(block)
        if length is not None:
            lengths.append(length)
        if p == HEADLINE_PLAYERS:
            top = [r for r in standings if r["players"] == p][:2]
            if len(top) == 2:
                est = _beats(block, names.index(top[0]["strategy"]), names.index(top[1]["strategy"]))
                if est is not None:
                    beats = {"a": top[0]["strategy"], "b": top[1]["strategy"], "players": p, "share": est}
    # families of tests: every seat against the table average; every head-to-head pair
    for family, key in ((seats, "dev"), (h2h, "diff")):
        for r, keep in zip(family, holm([r[key] for r in family])):
            r["holm"] = keep
    frames = {"standings": estimates_frame(standings), "head_to_head": estimates_frame(h2h), "seats": estimates_frame(seats)}
    findings = _findings(standings, h2h, seats, beats, lengths, ctx.quick) + _slow_findings(slow)
    precision = [
        Precision("mean game score of a preset", max(r["score"].half_width for r in standings), "points"),
        Precision("win share of a preset", max(r["win"].half_width for r in standings), "pct", TARGET_WIN),
        Precision("head-to-head difference", max(r["diff"].half_width for r in h2h), "points", TARGET_H2H),
        Precision("seat advantage (stratified by game mod table size)", max(r["dev"].half_width for r in seats),
                  "points", TARGET_SEAT),
    ]
    lineups = {p: [t.seats for t in tables if t.players == p] for p in PLAYERS}
    figures = [figs.standings_figure(standings, PLAYERS, names), figs.head_to_head_figure(h2h, PLAYERS, names),
               figs.seats_figure(seats, PLAYERS)]
    return StudyResult(
        findings=findings, figures=figures, frames=frames, precision=precision,
        summary={**_summary(standings, h2h, seats), **_slow_summary(slow),
                 "round_length": {str(r["players"]): {"own_turns": r["own"].to_json(), "all_turns": r["all"].to_json()}
                                  for r in lengths},
                 **({"skill_vs_luck": {"a": beats["a"], "b": beats["b"], "players": beats["players"],
                                       "a_ahead_share": beats["share"].to_json()}} if beats else {})},
        context={"slow": slow, "standings": standings, "h2h_rows": _h2h_rows(h2h), "h2h_count": len(h2h), "seats": seats,
                 "players": [p for p in PLAYERS if lineups[p]], "lineups": lineups, "presets": names,
                 "games": tables[0].games if tables else 0},
    )


# ---------------------------------------------------------------- estimates per table size
class _Block:
    """The rows of one table size as arrays of shape (lineups L, deals G, seats P).

    Every lineup of a table size plays the same deals, so entry ``[l, g, s]`` of each
    array is seat ``s`` of lineup ``l`` on deal ``g``.
    """

    def __init__(self, players, score, win, code, names, game=None, turns=None):
        self.players = players
        self.game = game              # int (G,) the deals' game numbers (rotation fixes who sits where by game % P)
        self.turns = turns            # float64 (L, G, P) a seat's own turns per round, or None
        self.names = names            # the strategy names ``code`` indexes
        self.score = score            # float64 (L, G, P) game scores
        self.win = win                # float64 (L, G, P) win credit
        self.code = code              # int (L, G, P) index into names
        self.lineups, self.deals, _ = score.shape

    @classmethod
    def of(cls, rows: pd.DataFrame, players: int, names=PRESET_NAMES) -> "_Block | None":
        if rows.empty:
            return None
        lineups = rows["lineup"].nunique()
        shape = (lineups, -1, players)
        game = rows["game"].to_numpy().reshape(shape)
        if not ((game == game[:1, :, :1]).all() and (rows["seat"].to_numpy().reshape(shape) == np.arange(players)).all()):
            raise ValueError("tournament rows must be ordered by lineup, game and seat, every lineup on the same games")
        turns = rows["turns"].to_numpy(np.float64).reshape(shape) if "turns" in rows else None
        return cls(players, rows["score"].to_numpy(np.float64).reshape(shape),
                   rows["win"].to_numpy(np.float64).reshape(shape), rows["strategy"].cat.codes.to_numpy().reshape(shape),
                   tuple(names), game[0, :, 0], turns)

    def per_deal(self, values: np.ndarray, by_lineup: bool = False) -> np.ndarray:
        """Mean of ``values`` per deal and strategy: float (G, S), or (L, G, S) per lineup; nan if absent."""
        n_s = len(self.names)
        group = np.arange(self.deals)[None, :, None] * n_s + self.code
        if by_lineup:
            group = group + np.arange(self.lineups)[:, None, None] * (self.deals * n_s)
        size = (self.lineups if by_lineup else 1) * self.deals * n_s
        sums = np.bincount(group.ravel(), weights=values.ravel(), minlength=size)
        counts = np.bincount(group.ravel(), minlength=size)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = sums / counts
        return means.reshape((self.lineups, self.deals, n_s) if by_lineup else (self.deals, n_s))

    def present(self) -> list[int]:
        """Indices (into ``names``) of the strategies that sat at this table size."""
        return sorted(set(np.unique(self.code).tolist()))


def _standings(b: _Block) -> list[dict]:
    score, win = b.per_deal(b.score), b.per_deal(b.win)
    plays = np.bincount(b.code.ravel(), minlength=len(b.names))
    rows = []
    for k in b.present():
        rows.append({"players": b.players, "strategy": b.names[k], "plays": int(plays[k]),
                     "score": Estimate.of_mean(score[:, k]),
                     # per-deal mean win credit: fractional (ties, several seats), so the mean interval
                     "win": Estimate.of_mean(win[:, k])})
    rows.sort(key=lambda r: r["score"].mean)
    for rank, r in enumerate(rows, 1):
        r["rank"] = rank
    return rows


def _head_to_head(b: _Block) -> list[dict]:
    """For every pair, the per-deal mean of (score A - score B) over the tables seating both."""
    means = b.per_deal(b.score, by_lineup=True)      # (L, G, S)
    seated = ~np.isnan(means[:, 0, :])                # (L, S): the lineup seats the strategy
    rows = []
    for i, j in combinations(b.present(), 2):
        both = seated[:, i] & seated[:, j]
        if not both.any():
            continue
        a, c = means[both, :, i].mean(axis=0), means[both, :, j].mean(axis=0)
        rows.append({"players": b.players, "a": b.names[i], "b": b.names[j], "tables": int(both.sum()),
                     "diff": Estimate.of_paired(a, c)})
    return rows


def _seats(b: _Block, rotate_start: bool) -> list[dict]:
    """Per seat: score minus the table mean, and win share, each averaged per deal over lineups.

    Seats rotate one place per game and every lineup lists its strategies in one order, so which
    strategy sits in a seat is fixed by the game number mod ``P``: the intervals are stratified by
    it (:func:`stratified_mean`), which removes the lineup's share of the variance that a plain
    mean's interval would count (about 3.4 times too wide at 3 to 5 players otherwise).
    """
    dev = (b.score - b.score.mean(axis=2, keepdims=True)).mean(axis=0)   # (G, P)
    wins = b.win.mean(axis=0)
    strata = np.asarray(b.game if b.game is not None else np.arange(b.deals)) % b.players
    rows = []
    for s in range(b.players):
        starts = [r + 1 for r in range(3) if (r if rotate_start else 0) % b.players == s]
        rows.append({"players": b.players, "seat": s, "starts": starts, "dev": stratified_mean(dev[:, s], strata),
                     "win": stratified_mean(wins[:, s], strata),
                     "dev_unstratified": Estimate.of_mean(dev[:, s])})
    return rows


def _round_length(b: _Block) -> dict | None:
    """Turns per round at this table size: a seat's own turns and all players' together, per deal over
    every lineup (the tournament's entrants, so conditional on that mix)."""
    if b.turns is None:
        return None
    per_deal = b.turns.mean(axis=(0, 2))
    return {"players": b.players, "own": Estimate.of_mean(per_deal), "all": Estimate.of_mean(per_deal * b.players)}


def _beats(b: _Block, a: int, c: int) -> Estimate | None:
    """How often ``a`` finishes a game ahead of ``c`` at a table seating both (a tie counts a half),
    per deal over those tables: skill against luck (0.5 is a coin toss)."""
    means = []
    for lineup in range(b.lineups):
        codes = b.code[lineup]
        sa, sc = codes == a, codes == c
        if not (sa.any() and sc.any()):
            continue
        xa = (b.score[lineup] * sa).sum(axis=1) / sa.sum(axis=1)
        xc = (b.score[lineup] * sc).sum(axis=1) / sc.sum(axis=1)
        means.append((xa < xc) + 0.5 * (xa == xc))
    if not means:
        return None
    return Estimate.of_mean(np.mean(means, axis=0))


def _slow(rows: pd.DataFrame, tables) -> list[dict]:
    """A slow entrant in one seat among experts: per game, its score minus the experts' mean, and its
    win credit (the game is the unit; seats rotate, so it sits in every seat equally often)."""
    out = []
    for (p, lineup), g in rows.groupby(["players", "lineup"], observed=True):
        t = tables[lineup]
        name, other = t.seats[0], t.seats[1]
        score = g["score"].to_numpy(np.float64).reshape(-1, p)
        mine = (g["strategy"].to_numpy().reshape(-1, p) == name)
        own = (score * mine).sum(axis=1)
        rest = (score * ~mine).sum(axis=1) / (p - 1)
        win = (g["win"].to_numpy(np.float64).reshape(-1, p) * mine).sum(axis=1)
        out.append({"players": int(p), "strategy": name, "opponent": other, "games": len(own),
                    "score": Estimate.of_mean(own), "diff": Estimate.of_paired(own, rest),
                    "win": Estimate.of_mean(win), "even": 1 / p})
    return sorted(out, key=lambda r: r["players"])


def _slow_findings(slow: list[dict]) -> list[Finding]:
    head = next((r for r in slow if r["players"] == HEADLINE_PLAYERS), None)
    if head is None:
        return []
    return [Finding(f"tournament.{head['strategy']}_vs_{head['opponent']}",
                    f"One {head['strategy']} (the Monte Carlo player) among {head['opponent']}s at {head['players']} "
                    f"players: its game score minus theirs is {{value}} points per game (same tables; negative "
                    f"is better)", head["diff"], "signed", "games")]


def _slow_summary(slow: list[dict]) -> dict:
    if not slow:
        return {}
    return {"slow_entrants": {f"{r['players']}.{r['strategy']}": {
        "opponent": r["opponent"], "mean_game_score": r["score"].to_json(),
        "minus_opponents": r["diff"].to_json(), "win_share": r["win"].to_json()} for r in slow}}


# ---------------------------------------------------------------- outputs
def _h2h_rows(h2h: list[dict]) -> list[dict]:
    """One row per pair, one cell per table size (or None where the pair never met)."""
    pairs = {}
    for r in h2h:
        pairs.setdefault((r["a"], r["b"]), {})[r["players"]] = r
    return [{"a": a, "b": b, "by_players": cells} for (a, b), cells in pairs.items()]


def _findings(standings, h2h, seats, beats=None, lengths=(), quick: bool = False) -> list[Finding]:
    p = HEADLINE_PLAYERS
    table = [r for r in standings if r["players"] == p]
    if not table:
        return []
    best, second = table[0], table[1]
    top_win = max(table, key=lambda r: r["win"].mean)
    pair = next(r for r in h2h if r["players"] == p and {r["a"], r["b"]} == {best["strategy"], second["strategy"]})
    diff = pair["diff"] if pair["a"] == best["strategy"] else Estimate(
        -pair["diff"].mean, -pair["diff"].hi, -pair["diff"].lo, pair["diff"].n)
    seat_rows = [r for r in seats if r["players"] == p]
    best_seat = min(seat_rows, key=lambda r: r["dev"].mean)
    tests = len(seats)
    if quick:   # a preview's samples support no verdict on the seats
        seat_sentence = (f"Seats at {p} players ({PREVIEW}): the best-looking one, seat {best_seat['seat']} (numbered "
                         f"from 0), scores {{value}} points per game against the table average")
    elif best_seat["holm"] and best_seat["dev"].mean < 0:
        seat_sentence = (f"Seat {best_seat['seat']} (seats numbered from 0) is the best place to sit at {p} players: "
                         f"{{value}} points per game against the table average (negative is better; clear after "
                         f"Holm's correction over the {tests} seats tested)")
    else:
        seat_sentence = (f"No seat has a clear edge at {p} players after Holm's correction over the {tests} seats "
                         f"tested: the best-looking one, seat {best_seat['seat']} (numbered from 0), scores {{value}} "
                         f"points per game against the table average")
    out = [
        Finding("tournament.best_win_share",
                f"Skill: with {p} players, {top_win['strategy']} wins {{value}} of its games against the other heuristic "
                f"entrants ({', '.join(r['strategy'] for r in table if r is not top_win)}), against "
                f"{100 / p:.0f}% for an even share; it is the strongest of them, not of all players (the strength "
                f"ladder places the learned and Monte Carlo players on one scale with it)",
                top_win["win"], "pct", "deals"),
        Finding("tournament.head_to_head",
                f"On the same deals, {best['strategy']}'s game score minus {second['strategy']}'s (the runner-up) "
                f"is {{value}} points per game ({p} players; negative is better)",
                diff, "signed", "deals"),
        Finding("tournament.seat_advantage", seat_sentence, best_seat["dev"], "signed", "deals"),
    ]
    if beats:
        out.insert(1, Finding("tournament.skill_vs_luck",
                              f"Luck: at a {beats['players']}-player table seating both, {beats['a']} ends a game "
                              f"ahead of {beats['b']} (the runner-up) {{value}} of the time (a tie counts a half; "
                              f"50% would be pure luck)", beats["share"], "pct", "deals"))
    length = next((r for r in lengths if r["players"] == p), None)
    if length is not None:
        others = ", ".join(f"{r['all'].mean:.0f} at {r['players']}" for r in lengths if r["players"] != p)
        out.append(Finding("tournament.round_length",
                           f"Round length: a round takes {{value}} turns of all players together at {p} players "
                           f"({others}; the tournament's entrants)", length["all"], "score", "deals"))
    return out


def _summary(standings, h2h, seats) -> dict:
    out: dict = {}
    for r in standings:
        out.setdefault(str(r["players"]), {}).setdefault("standings", {})[r["strategy"]] = {
            "mean_game_score": r["score"].to_json(), "win_share": r["win"].to_json(), "plays": r["plays"]}
    for r in h2h:
        out[str(r["players"])].setdefault("head_to_head", {})[f"{r['a']}-{r['b']}"] = {
            **r["diff"].to_json(), "survives_holm": r["holm"]}
    for r in seats:
        out[str(r["players"])].setdefault("seats", {})[str(r["seat"])] = {
            "score_vs_table": r["dev"].to_json(), "win_share": r["win"].to_json(), "survives_holm": r["holm"]}
    return {"by_players": out}
