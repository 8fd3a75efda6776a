"""Tuning the heuristic family with CMA-ES (``gnoming-sim tune``): the search loop and its state.

Generation ``g``:

1. cma proposes ``lambda`` candidates (``ask``); the *incumbent* is its distribution mean.
2. Every candidate, and the incumbent, plays the same games: global games
   ``g * GEN_STRIDE ..`` under the master seed, so all see the same deals (common random
   numbers), and every generation sees fresh ones.  The candidate sits in one seat, the
   field in the others, and moves one seat per game (rotation; games are a multiple of
   the table size, so it sits in every seat equally often).
3. A candidate's objective on one game is its game score minus the mean game score of
   the field seats; its fitness is the mean over the games (lower is better) and cma is
   told the fitnesses (``tell``).
4. Sample size: when the candidates' means spread (standard deviation) less than twice
   the standard error of a candidate's paired difference to the incumbent, their ranking
   is mostly noise, and the next generation plays twice as many games (up to ``max_games``).
5. The state (every generation's asked points and fitnesses, the generation counter, the
   sample size, the log rows, the seconds used) is written atomically beside the output,
   with the TOML and the log, as checksummed JSON (:mod:`gnoming_sim.tune.state`);
   a resume rebuilds cma by replaying those generations.

cma draws its random numbers from numpy's global generator: around every cma call it is
set to a state derived from ``(seed, generation)`` and restored afterwards, so a resumed
run asks for exactly the candidates the uninterrupted one would have.
"""
from __future__ import annotations

import contextlib
import json
import math
import time
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from gnoming_sim.tune import output as tune_output, space as tune_space, state as tune_state
from gnoming_sim.batch.output import check_output, check_writable, guard_path
from gnoming_sim.batch.safe_write import OutputLock
from gnoming_sim.stats import mean_ci
from gnoming_sim.game.deck import PUBLISHED, Deck, check_players
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.rules import RuleConfig
from gnoming_sim.kernel.policy import registry
from gnoming_sim.kernel.policy.dispatch import KIND_HEURISTIC

GEN_STRIDE = 2**32          # generation g plays global games g * GEN_STRIDE .. (+ games)
MAX_GENERATIONS = 2**26     # so every tuning game lies below 2**58 (the held-out range is above)
CMA_POPSIZE = 16            # cma's own population for the 11 parameters (its integer ones raise it from 11)
CANDIDATE = "tune:candidate"
INCUMBENT = "tune:incumbent"


@dataclass(frozen=True)
class TuneSpec:
    """Everything that fixes the generations of a run (budget, threads and paths do not).

    ``field`` holds the strategies that fill the other seats, in turn (None: self-play,
    the field is the incumbent of each generation); ``field_label`` is how it was asked.
    """

    players: int
    field: tuple[registry.Strategy, ...] | None
    field_label: str
    start: registry.Strategy
    seed: int = 0
    games: int = 2000
    max_games: int = 64000
    popsize: int | None = None
    rules: RuleConfig = dataclasses.field(default_factory=RuleConfig)
    deck: Deck = PUBLISHED

    @classmethod
    def make(cls, players: int, field: str = "builder", start: str = "builder", seed: int = 0,
             games: int = 2000, max_games: int = 64000, popsize: int | None = None,
             rules: RuleConfig | None = None, deck: Deck | None = None) -> "TuneSpec":
        check_players(players)
        _check_int("--seed", seed, 0, 2**64 - 1)
        _check_int("--games", games, 1)
        _check_int("--max-games", max_games, 1)
        if popsize is not None:
            _check_int("--popsize", popsize, 2)
        games = players * math.ceil(games / players)
        if max_games < games:
            raise GnomingError(f"--max-games ({max_games}) must be >= --games ({games})")
        from gnoming_sim.batch.memory import check_tune_fits   # a generation at --max-games must fit in memory

        check_tune_fits(players, popsize or CMA_POPSIZE, max_games)
        start_s = registry.get(start)
        if start_s.kind != KIND_HEURISTIC:
            raise GnomingError(f"--start must be a heuristic strategy, got '{start}' (random has no parameters)")
        deck = PUBLISHED if deck is None else deck
        deck.validate_for(players)
        return cls(players, parse_field(field), field.strip(), start_s, int(seed), int(games),
                   int(max_games), popsize, RuleConfig() if rules is None else rules, deck)

    def fingerprint(self) -> dict:
        """The facts a resumed run must share with the state it continues (JSON-ready)."""
        from gnoming_sim.game.version import __version__

        return {"version": __version__, "players": self.players, "field": self.field_label,
                "field_params": None if self.field is None else [dict(s.params) for s in self.field],
                "start": self.start.name, "start_params": dict(self.start.params), "seed": self.seed,
                "games": self.games, "max_games": self.max_games, "popsize": self.popsize,
                "rules": self.rules.to_dict(), "deck": self.deck.to_dict()}

    def field_seats(self, incumbent: registry.Strategy) -> list[registry.Strategy]:
        """The strategies of the ``players - 1`` field seats, the field's strategies in turn."""
        pool = [incumbent] if self.field is None else list(self.field)
        return [pool[k % len(pool)] for k in range(self.players - 1)]


def parse_field(text: str):
    """``builder`` (any registered strategy), ``self`` (None) or ``mix:a,b,...`` (a tuple)."""
    text = (text or "").strip()
    if text == "self":
        return None
    names = text[4:].split(",") if text.startswith("mix:") else [text]
    names = [n.strip() for n in names]
    if not all(names):
        raise GnomingError(f"--field takes a strategy, 'self' or 'mix:A,B,...', got {text!r}")
    try:
        return tuple(registry.get(n) for n in names)
    except GnomingError as exc:
        raise GnomingError(f"--field: {exc}") from None


def _check_int(name, value, low, high=None):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low or (
            high is not None and value > high):
        bound = f">= {low}" if high is None else f"in {low}..{high}"
        raise GnomingError(f"{name} must be an integer {bound}, got {value!r}")


# ------------------------------------------------------------------ one generation
def evaluate(spec: TuneSpec, points: list, incumbent_x, games: int, first_game: int,
             threads: int | None = None, pool=None) -> np.ndarray:
    """Per-game objectives, float64 (len(points), games): each point's game score minus the
    field's mean on games ``first_game ..``, all points on the same deals."""
    from gnoming_sim.batch.distributed import simulate_many

    field = spec.field_seats(tune_space.strategy(INCUMBENT, incumbent_x))
    calls = [dict(players=spec.players, strategies=(tune_space.strategy(CANDIDATE, x), *field),
                  games=games, seed=spec.seed, first_game=first_game, rotate=True, rules=spec.rules,
                  deck=spec.deck, chunk_size=games, threads=threads) for x in points]
    out = np.empty((len(points), games))
    for i, res in enumerate(simulate_many(calls, pool)):
        mine = res.seat_strategy == 0          # the candidate is the first distinct strategy
        totals = res.totals.astype(np.float64)
        out[i] = totals[mine] - (totals * ~mine).sum(axis=1) / (spec.players - 1)
    return out


def next_games(objectives: np.ndarray, games: int, max_games: int) -> tuple[int, float, float]:
    """(games of the next generation, spread of the candidates' means, paired standard error).

    ``objectives``: (candidates + 1, games), the incumbent last.  Doubles ``games`` (up to
    ``max_games``) when the spread is below twice the standard error.
    """
    cands, inc = objectives[:-1], objectives[-1]
    spread = float(cands.mean(axis=1).std(ddof=1)) if len(cands) > 1 else 0.0
    se = float(np.sqrt(np.mean((cands - inc).var(axis=1, ddof=1)) / objectives.shape[1]))
    return (min(2 * games, max_games) if spread < 2 * se else games), spread, se


@contextlib.contextmanager
def _cma_random(seed: int, generation: int):
    """numpy's global generator set from (seed, generation) inside, restored after."""
    saved = np.random.get_state()
    ss = np.random.SeedSequence([seed & 0xFFFFFFFF, seed >> 32, generation])
    np.random.seed(ss.generate_state(4))
    try:
        yield
    finally:
        np.random.set_state(saved)


# ------------------------------------------------------------------ the run
@dataclass
class TuneOutcome:
    rows: list[dict]
    params: dict          # the tuned parameters (distribution mean after the last generation)
    seconds: float        # tuning seconds over every run of this state
    stopped: str          # "budget", "generations" or cma's stop condition
    new_generations: int  # generations played by this call


class Tuner:
    """A tuning run ready to go: spec and output paths checked, state loaded if resuming.

    Writes ``out`` (the strategies TOML), ``log`` (CSV or Parquet) and ``out.state``
    (what ``resume`` continues) after every generation.
    """

    def __init__(self, spec: TuneSpec, out, *, log=None, plot=None, name: str = "tuned",
                 resume: bool = False, force: bool = False, command: str = "", inputs=()):
        self.spec = spec
        self.name = tune_output.check_name(name)
        self.command = command
        inputs = [i for i in inputs if i is not None]
        self.out = check_output(out, resume, force, inputs=inputs, suffixes=(".toml",))
        self.log = Path(log) if log is not None else default_path(self.out, "-log.csv")
        self.plot = Path(plot) if plot is not None else default_path(self.out, ".png")
        self.state_path = tune_state.state_path(self.out)
        for path, given, what, kinds in ((self.log, log, "--log", (".csv", ".parquet")),
                                         (self.plot, plot, "--plot", (".png",)),
                                         (self.state_path, None, "state file", None)):
            guard_path(path if given is None else given, what, inputs, kinds, force)   # as given: a trailing /
            check_beside(path, what, self.out, resume or force)
        # every file it writes is locked now, not when first written after a generation: a second run to one
        # of them, or a link planted at a lock, is refused before any game; held while this lives (release())
        self.locks: list[OutputLock] = []
        try:
            for path, what in ((self.out, "--out"), (self.log, "--log"), (self.plot, "--plot"),
                               (self.state_path, "state file")):
                self.locks.append(OutputLock(path, what))
            if resume and not self.state_path.exists() and self.out.exists():
                raise GnomingError(f"--resume: {self.out} has no tuning state beside it ({self.state_path.name}); "
                                   f"add --force instead to replace it")
            self.state = self._load_state() if resume and self.state_path.exists() else None
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        """Let go of the outputs' locks (also when the tuner is collected)."""
        for lock in self.locks:
            lock.release()

    def _load_state(self) -> dict:
        """The saved state, checked (format, checksum, shape, the same arguments), with cma rebuilt."""
        state = tune_state.load(self.state_path)
        then = state["fingerprint"]
        now = json.loads(json.dumps(self.spec.fingerprint()))   # as JSON keeps it: lists, str keys
        for key in now:
            if then.get(key) != now[key]:
                raise GnomingError(f"--resume: {self.state_path} was started with another {key} "
                                   f"({then.get(key)!r}, now {now[key]!r}); use the same arguments "
                                   f"or --force to start over")
        es = self._fresh_es()
        seed = self.spec.seed
        try:
            tune_state.replay(es, state["history"], lambda g: _cma_random(seed, g))
        except (ValueError, TypeError, IndexError) as exc:   # cma refused a stored value
            raise GnomingError(f"--resume: {self.state_path} does not replay ({exc}); "
                               "start over with --force") from None
        state["es"] = es
        return state

    def _fresh_es(self):
        """cma as a new run makes it: the start point, the options, the random state of generation -1."""
        spec = self.spec
        with _cma_random(spec.seed, -1 & 0xFFFFFFFF):
            import cma

            return cma.CMAEvolutionStrategy(tune_space.encode(spec.start.params), tune_space.SIGMA0,
                                            tune_space.cma_options(spec.popsize))

    def _fresh_state(self) -> dict:
        return {"fingerprint": self.spec.fingerprint(), "es": self._fresh_es(), "generation": 0,
                "games": self.spec.games, "rows": [], "history": [], "seconds": 0.0}

    def run(self, budget: float, generations: int | None = None, threads: int | None = None,
            pool=None, progress: Callable[[dict], None] | None = None) -> TuneOutcome:
        """Play generations until ``budget`` seconds (over every run of this state) are used,
        ``generations`` are done, or cma stops; at least one generation in all."""
        state = self.state or self._fresh_state()
        self.state = state
        es, spec = state["es"], self.spec
        new, stopped = 0, None
        while True:
            stopped = self._stop_reason(state, budget, generations)
            if stopped:
                break
            g = state["generation"]
            t0 = time.perf_counter()
            with _cma_random(spec.seed, g):
                points = es.ask()
            inc = tune_space.encode(tune_space.decode(es.mean))
            obj = evaluate(spec, [*points, inc], inc, state["games"], g * GEN_STRIDE, threads, pool)
            fitness = obj[:-1].mean(axis=1)
            with _cma_random(spec.seed, g):
                es.tell(points, fitness.tolist())
            games_next, spread, se = next_games(obj, state["games"], spec.max_games)
            seconds = time.perf_counter() - t0
            row = _row(g, state["games"], obj, fitness, es.sigma, spread, se, games_next, inc)
            state["seconds"] += seconds
            row.update(gen_seconds=round(seconds, 3), seconds=round(state["seconds"], 2))
            state["rows"].append(row)
            state["history"].append({"asked": [np.asarray(x).tolist() for x in points],
                                     "fitness": fitness.tolist()})
            state.update(generation=g + 1, games=games_next)
            self._save(state)
            new += 1
            if progress is not None:
                progress(row)
        return TuneOutcome(state["rows"], self.tuned_params(), state["seconds"], stopped, new)

    def _stop_reason(self, state, budget, generations) -> str | None:
        if not state["rows"]:
            return None
        if generations is not None and state["generation"] >= generations:
            return "generations"
        if state["generation"] >= MAX_GENERATIONS:
            return "generations"
        last = state["rows"][-1]
        per_game = last["gen_seconds"] / last["games"]
        if state["seconds"] + per_game * state["games"] > budget:
            return "budget"
        stop = state["es"].stop()
        stop = {k: v for k, v in stop.items() if k not in ("tolfun", "tolflatfitness")}
        return f"cma: {', '.join(stop)}" if stop else None

    def tuned_params(self) -> dict:
        return tune_space.decode(self.state["es"].mean)

    def _save(self, state) -> None:
        tune_output.atomic_write(self.state_path, tune_state.dumps({k: v for k, v in state.items() if k != "es"}))
        tune_output.write_log(state["rows"], self.log)
        tune_output.atomic_write(self.out, self.toml(state))

    def toml(self, state) -> str:
        spec, rows = self.spec, state["rows"]
        games = sum(r["games"] * (r["candidates"] + 1) for r in rows)
        last = rows[-1]
        description = (f"CMA-ES tuned at {spec.players} players against {spec.field_label}, from "
                       f"{spec.start.name} (seed {spec.seed}, {len(rows)} generations, "
                       f"{state['seconds']:.0f} s)")
        comments = [f"tuned by: {self.command}" if self.command else "tuned by gnoming_sim.tune.tuner",
                    f"{len(rows)} generations, {games:,} games played, {state['seconds']:.0f} s of tuning",
                    f"last generation's incumbent vs the field: {last['incumbent']:+.2f} points per game "
                    f"[{last['incumbent_lo']:+.2f}, {last['incumbent_hi']:+.2f}] (95%, n = {last['games']} games)",
                    "these are tuning deals; check it on held-out deals with `gnoming-sim held-out`"]
        return tune_output.strategy_toml(self.name, self.tuned_params(), description, comments)


def default_path(out: Path, suffix: str) -> Path:
    return out.with_name(out.stem + suffix)


def check_beside(path: Path, what: str, out: Path, may_replace: bool) -> None:
    """An output written beside ``out``: another file, in a writable directory, not replaced by accident."""
    import os

    if path.resolve() == out.resolve():
        raise GnomingError(f"{what} {path} is the same file as --out")
    if path.is_dir():
        raise GnomingError(f"{what} {path} is a directory")
    if not path.parent.is_dir():
        raise GnomingError(f"{what} {path}: directory {path.parent} does not exist")
    check_writable(path, what)   # a probe: root and read-only mounts defeat os.access
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise GnomingError(f"{what} {path}: directory {path.parent} is not writable")
    if path.exists() and not may_replace:
        raise GnomingError(f"{what} {path} already exists; add --resume to continue the tuning "
                           f"or --force to start over")


def _row(g, games, obj, fitness, sigma, spread, se, games_next, inc) -> dict:
    inc_m, inc_lo, inc_hi, _ = mean_ci(obj[-1])
    best = int(np.argmin(fitness))
    b_m, b_lo, b_hi, _ = mean_ci(obj[best])
    row = {"generation": g, "first_game": g * GEN_STRIDE, "games": games, "candidates": len(fitness),
           "incumbent": inc_m, "incumbent_lo": inc_lo, "incumbent_hi": inc_hi,
           "best": b_m, "best_lo": b_lo, "best_hi": b_hi, "candidates_mean": float(fitness.mean()),
           "spread": spread, "paired_se": se, "next_games": games_next, "sigma": float(sigma),
           "gen_seconds": 0.0, "seconds": 0.0}
    row.update({f"p_{k}": v for k, v in tune_space.decode(inc).items()})
    return row
