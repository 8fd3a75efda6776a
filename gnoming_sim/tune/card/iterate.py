"""The card as one policy, derived on itself: policy iteration with the oracle.

The card (``card``, :data:`gnoming_sim.kernel.policy.dispatch.KIND_CARD`) decides a take-or-draw, a placement
and a finishing chance by a cell of its three tables (:mod:`gnoming_sim.kernel.policy.card`).  One round:

1. **play**: games at several table sizes with one seat of the current card among ``net`` rivals (seats
   rotating), traced; every decision of the card's seat that the card covers (a draw with a pile card that can
   be taken, a placement, a finishing chance) becomes a :class:`~gnoming_sim.game.position.Position`
   (:func:`gnoming_sim.game.record_trace.decisions`, the walk ``review`` uses);
2. **ask the card**: at each, the option the card would play with the decision's cell set to each of its
   actions, the other cells as they are (:func:`gnoming_sim.search.card.card_options`); a decision where
   every action plays the same option says nothing about the cell and is left out;
3. **sample**: at most a cap of decisions per cell (the cap chosen so the round values about ``decisions``
   in all; uniform within a cell, so a cell's estimate is its own decisions' mean), seeded; the cells of
   ``focus`` (those that come up often and are not yet separated) up to ``focus_weight`` times the cap;
4. **value**: each sampled decision's options by the oracle (:func:`gnoming_sim.search.evaluator.win_samples`:
   the chance of winning the game, ``net`` at the other seats and the current card in the seat to move, common
   random numbers across the options), ``rollouts`` each;
5. **improve**: per cell, each action's mean win chance minus the current action's over the cell's decisions
   (percentage points per decision where the actions differ), its standard error clustered by game
   (:func:`gnoming_sim.stats.cluster_mean`); a cell changes to the best other action only when that beats the
   current one by more than ``threshold`` standard errors; a cell never seen keeps its action.

The first card is the committed one with its defaults made explicit (every resolved cell, and
:func:`~gnoming_sim.kernel.policy.card.default_action_of` elsewhere).  Rounds repeat until no cell changes or
``rounds`` is reached.  Every random number comes from the seed, the round and the game or decision index (the
games from their streams, the rollouts from theirs), so a run gives the same cells at any thread count.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np

from gnoming_sim.game.errors import GnomingError

SIZES = (2, 3, 4, 5, 6, 7)
FIRST_GAME = 2**59 + 2**57          # the iteration's games: their own range (apart from every check's deals)
NAME = "card"


@dataclass(frozen=True)
class IterationConfig:
    rounds: int = 4                 # at most this many rounds (fewer when no cell changes)
    games: int = 60                 # games per table size per round
    decisions: int = 3000           # decisions valued per round (about: the per-cell cap's total)
    rollouts: int = 32              # oracle rollouts per decision
    sizes: tuple = SIZES
    seed: int = 1
    threshold: float = 2.0          # standard errors another action must beat the current one by
    min_clusters: int = 5           # games a cell needs before it may change
    threads: int | None = None
    focus: tuple = ()               # cells sampled more: up to focus_weight times the other cells' cap
    focus_weight: float = 1.0

    def check(self) -> None:
        for k in ("rounds", "games", "decisions", "rollouts", "min_clusters"):
            v = getattr(self, k)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise GnomingError(f"{k} must be an integer >= 1, got {v!r}")
        if not self.sizes or any(p not in range(2, 8) for p in self.sizes):
            raise GnomingError(f"table sizes must be within 2..7, got {self.sizes!r}")
        if not 0 <= self.seed < 2**32:
            raise GnomingError(f"seed must be within 0..2**32-1, got {self.seed!r}")
        if not self.threshold > 0:
            raise GnomingError(f"threshold must be > 0 standard errors, got {self.threshold!r}")
        from gnoming_sim.kernel.policy import card as C

        if any(isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < C.N_CELLS for c in self.focus):
            raise GnomingError(f"focus cells must be within 0..{C.N_CELLS - 1}, got {list(self.focus)!r}")
        if not self.focus_weight >= 1:
            raise GnomingError(f"focus weight must be >= 1, got {self.focus_weight!r}")


# ------------------------------------------------------------------ the card as cells
def committed_cells(path=None) -> dict[int, int]:
    """Every cell's action on the committed card: its resolved cells, the card's stated default elsewhere."""
    import json

    from gnoming_sim.kernel.policy import card as C
    from gnoming_sim.kernel.policy import registry

    data = json.loads((registry.CARD_CELLS if path is None else path).read_text())
    printed = registry.printed_card(data.get("tables", {}))
    cells = {c: int(printed.get(registry.CELL_NAMES[c], C.default_action_of(c))) for c in range(C.SOURCE_FD_OFFSET)}
    for c in range(C.SOURCE_FD_OFFSET, C.N_CELLS):   # a banded take cell the card does not print: its take cell's
        cells[c] = int(printed.get(registry.CELL_NAMES[c], cells[C.parent_cell_of(c)]))
    return cells


def card_strategy(cells: dict[int, int], name: str = NAME):
    """The card player (``KIND_CARD``) of ``cells`` (cell -> action 1..3; a cell left out plays its default)."""
    from gnoming_sim.kernel.policy import registry
    from gnoming_sim.kernel.policy.dispatch import KIND_CARD

    base = registry.get("card")
    params = {k: v for k, v in base.params.items() if not k.startswith("chart.")}
    params.update({registry.CELL_NAMES[c]: float(a) for c, a in cells.items()})
    return registry.Strategy(name, KIND_CARD, "the card being derived by policy iteration", params)


def cell_words(cell: int) -> dict:
    """The cell's table and its row and column in words (the printed card's)."""
    from gnoming_sim.kernel.policy import card as C
    from gnoming_sim.tune.card.derive import cell_label

    t = C.table_of(cell)
    if t == C.T_SOURCE_FD:
        return {"table": "source", **cell_label(C.T_SOURCE, C.parent_cell_of(cell)),
                "own_fd": C.FD_BAND_NAMES[(cell - C.SOURCE_FD_OFFSET) % C.N_FD_BAND]}
    return {"table": C.TABLE_NAMES[t], **cell_label(t, cell)}


def action_name(cell: int, a: int) -> str:
    from gnoming_sim.kernel.policy import card as C

    return C.ACTION_NAMES[C.TABLE_NAMES.index(cell_words(cell)["table"])][a - 1]


def action_number(table: str, name: str) -> int:
    from gnoming_sim.kernel.policy import card as C

    return C.ACTION_NAMES[C.TABLE_NAMES.index(table)].index(name) + 1


# ------------------------------------------------------------------ one round
def play_decisions(strategy, cfg: IterationConfig, rnd: int) -> list[dict]:
    """Every covered decision of the card's seat in the round's games where the cell's actions differ:
    ``{"game": (players, game), "pos", "cell", "table", "current", "actions"}``, in game and decision order."""
    from gnoming_sim.game.fields import F_SCORE
    from gnoming_sim.game.record_trace import decisions
    from gnoming_sim.game.rules import RuleConfig
    from gnoming_sim.game.deck import PUBLISHED
    from gnoming_sim.kernel.engine import simulate
    from gnoming_sim.search.card import card_options

    rules = RuleConfig()
    out = []
    for P in cfg.sizes:
        first = FIRST_GAME + rnd * 2**40 + P * 2**36
        res = simulate(P, [strategy] + ["net"] * (P - 1), games=cfg.games, seed=cfg.seed, trace=True, rotate=True,
                       first_game=first, threads=cfg.threads)
        me = list(res.strategy_names).index(strategy.name)
        for g in range(cfg.games):
            seat = int(np.argmax(res.seat_strategy[g] == me))
            for d in decisions(res.deals[g], res.traces[g], P, seat, rules, PUBLISHED, res.round_stats[g, :, :, F_SCORE],
                               origin=f"iteration round {rnd}, {P} players, game {first + g}"):
                for co in card_options(d.position, strategy):
                    if len(set(co["actions"].values())) > 1:
                        out.append({"game": (P, g), "pos": d.position, **co})
    return out


def sample(entries: list[dict], budget: int, rng: np.random.Generator, focus=(),
           focus_weight: float = 1.0) -> list[dict]:
    """At most a cap of ``entries`` per cell (``focus_weight`` times the cap, rounded down, for a cell in
    ``focus``), uniform within the cell, the cap the largest whose total is at most ``budget`` (every entry of a
    cell with fewer); in the entries' order."""
    by_cell: dict[int, list[int]] = {}
    for i, e in enumerate(entries):
        by_cell.setdefault(e["cell"], []).append(i)
    focus = set(focus)
    weight = {c: (focus_weight if c in focus else 1.0) for c in by_cell}

    def cap_of(c: int, cap: int) -> int:
        return max(int(cap * weight[c]), 1)

    cap = 0
    if by_cell:
        lo, hi = 0, max(len(v) for v in by_cell.values())
        while lo < hi:                      # the largest cap with sum(min(n, cap of the cell)) <= budget
            mid = (lo + hi + 1) // 2
            if sum(min(len(v), int(mid * weight[c])) for c, v in by_cell.items()) <= budget:
                lo = mid
            else:
                hi = mid - 1
        cap = max(lo, 1)
    keep = []
    for cell in sorted(by_cell):
        idx, k = by_cell[cell], cap_of(cell, cap)
        keep += idx if len(idx) <= k else sorted(rng.choice(idx, size=k, replace=False).tolist())
    return [entries[i] for i in sorted(keep)]


def value(sampled: list[dict], strategy, cfg: IterationConfig, rnd: int) -> list[dict]:
    """Each sampled entry's ``gain``: {action: its option's mean win chance minus the current action's, pp} over
    ``cfg.rollouts`` oracle rollouts (the card in the seat to move, net elsewhere; one decision's cells share
    their rollouts); and ``win``: the current action's win chance in percent."""
    from gnoming_sim.search.evaluator import Settings, seats_with, win_samples

    groups: dict[int, list[dict]] = {}
    for e in sampled:
        groups.setdefault(id(e["pos"]), []).append(e)
    for j, group in enumerate(groups.values()):
        pos = group[0]["pos"]
        keys = sorted({k for e in group for k in e["actions"].values()})
        got, win = win_samples(pos, Settings(policies=tuple(seats_with(pos, strategy)), budget=cfg.rollouts,
                                             seed=cfg.seed * 1000 + rnd, first=j * cfg.rollouts), keys, cfg.threads)
        mean = dict(zip(got, 100.0 * win.mean(axis=0)))
        for e in group:
            base = mean[e["actions"][e["current"]]]
            e["win"] = float(base)
            e["gain"] = {a: float(mean[k] - base) for a, k in e["actions"].items()}
    return sampled


def improve(cells: dict[int, int], valued: list[dict], cfg: IterationConfig) -> tuple[dict[int, int], list[dict], dict]:
    """(new cells, changes, per-cell estimates): a cell moves to its best other action when that beats the
    current one by more than ``cfg.threshold`` clustered standard errors on at least ``cfg.min_clusters`` games."""
    from gnoming_sim.stats import cluster_mean

    by_cell: dict[int, list[dict]] = {}
    for e in valued:
        by_cell.setdefault(e["cell"], []).append(e)
    new, changes, stats = dict(cells), [], {}
    for cell in sorted(by_cell):
        es = by_cell[cell]
        table = es[0]["table"]
        current = action_name(cell, cells[cell])
        games = np.array([e["game"][0] * 10**7 + e["game"][1] for e in es])
        per = {}
        for a in es[0]["gain"]:
            d = np.array([e["gain"][a] for e in es])
            if a == current or len(set(games.tolist())) < 2 or not d.any():
                per[a] = {"mean": float(d.mean()), "se": 0.0, "ci95": [float(d.mean())] * 2, "n": len(es),
                          "clusters": len(set(games.tolist()))}
            else:
                per[a] = cluster_mean(d, games)
        win = float(np.mean([e["win"] for e in es]))
        stats[cell] = {"table": table, "current": current, "n": len(es), "clusters": len(set(games.tolist())),
                       "win": win, "gain": per}
        rivals = [a for a in per if a != current]
        best = max(rivals, key=lambda a: per[a]["mean"])
        b = per[best]
        if b["clusters"] >= cfg.min_clusters and b["se"] > 0 and b["mean"] > cfg.threshold * b["se"]:
            new[cell] = action_number(table, best)
            changes.append({"cell": cell, **cell_words(cell), "from": current, "to": best,
                            "gain_pp": round(b["mean"], 3), "ci95": [round(x, 3) for x in b["ci95"]],
                            "se": round(b["se"], 3), "n": b["n"], "clusters": b["clusters"]})
    return new, changes, stats


@dataclass
class Round:
    round: int
    games: int
    covered: int                 # covered decisions where a cell's actions differ
    decisions: int               # of those, valued
    rollouts: int                # per decision
    cells_seen: int
    cells_changed: int
    changes: list = field(default_factory=list)
    wall_s: float = 0.0


def one_round(cells: dict[int, int], cfg: IterationConfig, rnd: int, say=None) -> tuple[dict[int, int], Round, dict]:
    """One round of policy iteration from ``cells``: (new cells, its record, per-cell estimates)."""
    t0 = time.perf_counter()
    strategy = card_strategy(cells)
    entries = play_decisions(strategy, cfg, rnd)
    sampled = sample(entries, cfg.decisions, np.random.default_rng([cfg.seed, rnd]), cfg.focus, cfg.focus_weight)
    if say:
        say(f"round {rnd}: {len(entries):,} covered decisions in {cfg.games * len(cfg.sizes):,} games "
            f"({time.perf_counter() - t0:.0f} s); valuing {len(sampled):,} with {cfg.rollouts} rollouts each")
    value(sampled, strategy, cfg, rnd)
    new, changes, stats = improve(cells, sampled, cfg)
    rec = Round(rnd, cfg.games * len(cfg.sizes), len(entries), len(sampled), cfg.rollouts, len(stats), len(changes),
                changes, round(time.perf_counter() - t0, 1))
    if say:
        say(f"round {rnd}: {len(changes)} cells changed of {len(stats)} seen ({rec.wall_s:.0f} s)"
            + "".join(f"\n  {c['table']} cell {c['cell']}: {c['from']} -> {c['to']}, +{c['gain_pp']:.2f} pp "
                      f"[{c['ci95'][0]:.2f}, {c['ci95'][1]:.2f}], n {c['n']}" for c in changes))
    return new, rec, stats


def _every_cell(cells: dict[int, int]) -> dict[int, int]:
    """``cells`` with every cell it lacks made explicit (a card from before the banded take cells): a banded take
    cell its take cell's action, any other the card's default."""
    from gnoming_sim.kernel.policy import card as C

    out = {int(c): int(a) for c, a in cells.items()}
    for c in range(C.N_CELLS):
        if c not in out:
            out[c] = out[C.parent_cell_of(c)] if c >= C.SOURCE_FD_OFFSET else C.default_action_of(c)
    return out


def iterate(cfg: IterationConfig, start: dict[int, int] | None = None, say=None, before: dict | None = None,
            on_round=None) -> dict:
    """Policy iteration from ``start`` (the committed card, defaults explicit): ``{"config", "rounds": [Round as
    dict], "cells": final cells, "start": the first cells, "stats": the last round's per-cell estimates,
    "seen": {cell: decisions over every round}, "converged", "wall_s"}``.  ``before``: an earlier run's result
    that this one continues (from its final cells, its rounds first, numbered on: their games and rollouts are
    their own), at ``cfg``'s sizes, which may be larger.  ``on_round``: called with the result so far after every
    round (a run stopped between rounds keeps the rounds done)."""
    cfg.check()
    t0 = time.perf_counter()
    if before is not None:
        start = {int(c): int(a) for c, a in before["cells"].items()}
    cells = _every_cell(committed_cells() if start is None else start)
    first = dict(cells) if before is None else _every_cell({int(c): int(a) for c, a in before["start"].items()})
    rounds = list(before["rounds"]) if before else []
    stats = {int(c): v for c, v in before["stats"].items()} if before else {}
    seen = {int(c): int(v) for c, v in before["seen"].items()} if before else {}
    done = len(rounds)
    configs = (before.get("configs") or [before["config"]]) if before else []
    configs = configs + [{**asdict(cfg), "sizes": list(cfg.sizes), "focus": list(cfg.focus), "first_round": done + 1}]

    def result() -> dict:
        wall = round(time.perf_counter() - t0, 1) + (before["wall_s"] if before else 0.0)
        return {"config": {**asdict(cfg), "sizes": list(cfg.sizes), "focus": list(cfg.focus)}, "rounds": list(rounds),
                "cells": dict(cells), "start": first, "stats": dict(stats), "seen": dict(seen),
                "converged": bool(rounds and rounds[-1]["cells_changed"] == 0), "wall_s": round(wall, 1),
                "configs": configs}

    for rnd in range(done + 1, done + cfg.rounds + 1):
        cells, rec, st = one_round(cells, cfg, rnd, say)
        rounds.append(asdict(rec))
        for c, s in st.items():
            seen[c] = seen.get(c, 0) + s["n"]
        stats.update(st)
        if on_round is not None:
            on_round(result())
        if rec.cells_changed == 0:
            break
    return result()


__all__ = ["IterationConfig", "committed_cells", "card_strategy", "play_decisions", "sample", "value", "improve",
           "one_round", "iterate", "SIZES"]
