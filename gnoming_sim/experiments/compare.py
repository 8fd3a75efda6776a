"""House rules: the same games played under several rules/deck variants, and what changes.

Every variant plays games ``0 .. G-1`` of one seed with the same seats.  A variant with the
same deck as the baseline (the published one) plays the same deals, since the deal stream
depends only on the seed, the game index and the deck: its differences to the baseline are
paired, game by game.  A variant with another deck plays other deals, and its differences
are unpaired.  Every interval is over games, the
independent unit: per-game values first, then a mean and its normal interval, a ratio by
the delta method, or (for the spread of the seat win shares) the largest of the pairwise seat differences'
simultaneous intervals (:func:`spread_interval`).

Measures, per variant (all per game, then averaged over games):

=================  ==========================================================================
``turns``          turns per round, all players together (what ``max_turns`` counts)
``stalled``        share of rounds that stall (no card left, or the turn cap)
``score``          mean game score of a seat (3 rounds; lower is better)
``seat_spread``    seat advantage: highest minus lowest seat win share
``skill_gap``      win share of the strongest strategy at the table minus that of the weakest
                   (strongest/weakest by their win share under the baseline; a strategy in
                   several seats: their mean, as ``simulate`` counts it); None when every seat
                   plays one strategy
``close``          share of games won by 5 points or fewer (ties included)
``minus5``         share of finished rounds (not stalled) in which the finisher earned the
                   bonus for the lowest score: conditional on the seated strategies' own
                   choices of when to finish
=================  ==========================================================================

And per variant, each strategy's standings as ``simulate`` gives them for those games (its win share
and mean game score with their 95% intervals over games, and n): :class:`~gnoming_sim.batch.summary.Tally`,
the one tally of ``simulate``, ``standings()`` and the report.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from gnoming_sim.batch.summary import Tally
from gnoming_sim.stats import Z95, mean_ci_t
from gnoming_sim.game.deck import PUBLISHED, Deck
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.fields import F_BONUS, F_FINISHER, F_STALLED, F_TURNS
from gnoming_sim.game.rules import RuleConfig

CLOSE_MARGIN = 5        # "decided by 5 points or fewer"
CHUNK_GAMES = 20_000    # games per kernel call and per Parquet row group

MEASURES = ("turns", "stalled", "score", "seat_spread", "skill_gap", "close", "minus5")
# how each measure reads (the report's number kinds): a share in percent, or points
KIND = {"turns": "points", "stalled": "pct", "score": "signed", "seat_spread": "pct", "skill_gap": "pct",
        "close": "pct", "minus5": "pct"}
# the kind of a change: a signed number of points, or a signed change of a share
CHANGE_KIND = {m: ("dpct" if k == "pct" else "signed") for m, k in KIND.items()}
LABELS = {
    "turns": "turns per round (all players)",
    "stalled": "share of rounds stalled",
    "score": "game score per seat (3 rounds)",
    "seat_spread": "seat advantage (max - min seat win share)",
    "skill_gap": "skill gap (win share of the strongest - the weakest)",
    "close": "share of games won by <= 5 points",
    "minus5": "finisher -bonus rate (of finished rounds)",
}


@dataclass(frozen=True)
class Variant:
    """One way to play: a name, a RuleConfig and a deck."""

    name: str
    rules: RuleConfig = field(default_factory=RuleConfig)
    deck: Deck = PUBLISHED

    def same_deals_as(self, other: "Variant") -> bool:
        return np.array_equal(self.deck.to_array(), other.deck.to_array())


BASELINE = Variant("baseline")

WILD_DECK = Deck.from_mapping({**PUBLISHED.to_dict(), "H": 6, "M": 6}, name="twice the mulligans and hazards")

# the report's house-rules section (examples/*.toml hold the same variants as files)
HOUSE_RULES = (
    Variant("no bouncing", RuleConfig(bouncing=False)),
    Variant("hazards unplaceable", RuleConfig(hazard_placeable=False)),
    Variant("no reshuffle", RuleConfig(reshuffle_when_empty=False)),
    Variant("discard draw need not be kept", RuleConfig(discard_draw_must_be_kept=False)),
    Variant("fixed start seat", RuleConfig(rotate_start=False)),
    Variant("early-finish bonus 10", RuleConfig(early_finish_bonus=10)),
    Variant("2x mulligans and hazards", RuleConfig(), WILD_DECK),
)


# ---------------------------------------------------------------- per-game values
@dataclass
class GameValues:
    """Per-game values of one variant (arrays of length G)."""

    turns: np.ndarray
    stalled: np.ndarray
    score: np.ndarray
    close: np.ndarray
    minus5: np.ndarray         # finished rounds in which the finisher earned the lowest-score bonus
    finished: np.ndarray       # finished rounds (with a finisher, not stalled)
    seat_win: np.ndarray       # (G, P) win credit per seat
    strategy_win: np.ndarray   # (G, S) win credit per strategy (the mean of its seats': simulate's win share)

    @classmethod
    def of(cls, res, names: Sequence[str]) -> "GameValues":
        stats = res.round_stats
        G, R, P = stats.shape[:3]
        turns = stats[:, :, :, F_TURNS].sum(axis=2).mean(axis=1)
        stalled_rounds = stats[:, :, 0, F_STALLED] != 0
        fin = (stats[:, :, :, F_FINISHER] != 0) & ~stalled_rounds[:, :, None]
        won_bonus = fin & (stats[:, :, :, F_BONUS] < 0)
        totals = np.sort(res.totals, axis=1)
        close = (totals[:, 1] - totals[:, 0]) <= CLOSE_MARGIN if P > 1 else np.zeros(G, bool)
        strategy_win = np.zeros((G, len(names)))
        index = {n: i for i, n in enumerate(names)}
        for j, n in enumerate(res.strategy_names):
            seats = res.seat_strategy == j
            strategy_win[:, index[n]] += np.where(seats, res.win_credit, 0.0).sum(axis=1) / seats.sum(axis=1)
        return cls(turns=turns, stalled=stalled_rounds.mean(axis=1), score=res.totals.mean(axis=1),
                   close=close.astype(np.float64), minus5=won_bonus.sum(axis=(1, 2)).astype(np.float64),
                   finished=fin.sum(axis=(1, 2)).astype(np.float64), seat_win=res.win_credit.copy(),
                   strategy_win=strategy_win)

    @classmethod
    def concat(cls, parts: list["GameValues"]) -> "GameValues":
        return cls(**{f: np.concatenate([getattr(p, f) for p in parts]) for f in cls.__dataclass_fields__})


# ---------------------------------------------------------------- estimates
def _interval(mean: float, se: float) -> dict:
    return {"mean": mean, "lo": mean - Z95 * se, "hi": mean + Z95 * se}


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    n = x.size
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0


def _se(z: np.ndarray) -> float:
    """Standard error of the mean of per-game terms (nan terms skipped)."""
    return float(np.nanstd(z, ddof=1) / math.sqrt(z.size))


def _ratio_terms(num: np.ndarray, den: np.ndarray) -> tuple[float, np.ndarray]:
    """Ratio of sums and its per-game linearization (delta method, clustered by game)."""
    total = den.sum()
    if total == 0:
        return math.nan, np.full(num.size, math.nan)
    r = num.sum() / total
    return float(r), (num - r * den) / den.mean()


def _spread(seat_win: np.ndarray) -> float:
    shares = seat_win.mean(axis=0)
    return float(shares.max() - shares.min())


def _pair_intervals(x: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Per pair of seats (i < j), the t interval (:func:`gnoming_sim.stats.mean_ci_t`) of the mean over games of
    ``x[:, i] - x[:, j]`` as (lower ends, upper ends), the pairs' intervals holding together with probability at
    least ``1 - alpha`` (Bonferroni); unbounded below two games."""
    G, P = x.shape
    i, j = np.triu_indices(P, 1)
    if G < 2:
        return np.full(i.size, -math.inf), np.full(i.size, math.inf)
    ends = np.array([mean_ci_t(x[:, a] - x[:, b], level=1.0 - alpha / i.size)[1:3] for a, b in zip(i, j)])
    return ends[:, 0], ends[:, 1]


def _bounds(x: np.ndarray, alpha: float) -> tuple[float, float]:
    """Where the spread of ``x``'s seat shares lies if every seat difference lies in its interval: at least the
    largest lower end of |difference| (and 0), at most the largest upper end."""
    lo, hi = _pair_intervals(x, alpha)
    return float(max(0.0, np.maximum(lo, -hi).max())), float(np.maximum(hi, -lo).max())


def spread_interval(a: np.ndarray, b: np.ndarray | None = None, paired: bool = False,
                    alpha: float = 1 - 0.95) -> dict:
    """The seat spread (highest minus lowest seat win share) of per-game win credits ``a`` (games x seats), or its
    change from ``b``'s (``paired``: the same games), with a ``1 - alpha`` interval that holds whatever the true
    shares.

    The spread is the largest difference of two seats' shares, so where every pairwise difference lies in its
    interval (simultaneous over the pairs, Bonferroni) the spread lies between the largest lower and the largest
    upper end.  A change holds between the two spreads' intervals (``alpha`` split between them); on the same games
    also within +- the largest |change of a pairwise difference| (a spread moves by no more than its pairs do), the
    two bounds intersected (``alpha`` split again).  Conservative; the plug-in estimate is biased upwards near 0,
    and the percentile bootstrap this replaced missed a spread of 0 (tests/experiments/test_compare.py calibrates
    this one by simulation)."""
    est = _spread(a)
    if b is None:
        lo, hi = _bounds(a, alpha)
        return {"mean": est, "lo": lo, "hi": hi}
    share = alpha / 2 if paired else alpha
    lo_a, hi_a = _bounds(a, share / 2)
    lo_b, hi_b = _bounds(b, share / 2)
    lo, hi = lo_a - hi_b, hi_a - lo_b
    if paired:
        lo_d, hi_d = _pair_intervals(a - b, alpha / 2)
        most = float(np.maximum(hi_d, -lo_d).max())
        lo, hi = max(lo, -most), min(hi, most)
    return {"mean": est - _spread(b), "lo": lo, "hi": hi}


def _skill(values: GameValues, best: int | None, worst: int | None) -> np.ndarray | None:
    if best is None:
        return None
    return values.strategy_win[:, best] - values.strategy_win[:, worst]


@dataclass
class Comparison:
    """Per-variant estimates and differences to the baseline (JSON-ready via :meth:`to_dict`)."""

    players: int
    seats: tuple[str, ...]
    games: int
    seed: int
    rotate: bool
    variants: list[Variant]
    values: list[GameValues]
    by_strategy: list[dict] = field(default_factory=list)   # per variant: simulate's by_strategy for its games
    strongest: str | None = None
    weakest: str | None = None
    estimates: list[dict] = field(default_factory=list)
    changes: list[dict] = field(default_factory=list)

    def estimate(self) -> "Comparison":
        names = list(dict.fromkeys(self.seats))
        base = self.values[0]
        best = worst = None
        if len(names) >= 2:   # the first of equal shares, in order of first seat
            shares = base.strategy_win.mean(axis=0)
            best, worst = int(np.argmax(shares)), int(np.argmin(shares))
            if best == worst:   # every share equal (a table of one game, all tied): the first two seated
                best, worst = 0, 1
            self.strongest, self.weakest = names[best], names[worst]
        bskill = _skill(base, best, worst)
        rb, zb = _ratio_terms(base.minus5, base.finished)
        self.estimates, self.changes = [], []
        for k, (variant, v) in enumerate(zip(self.variants, self.values)):
            est = {}
            for m in ("turns", "stalled", "score", "close"):
                est[m] = _interval(*_mean_se(getattr(v, m)))
            skill = _skill(v, best, worst)
            est["skill_gap"] = None if skill is None else _interval(*_mean_se(skill))
            r, z = _ratio_terms(v.minus5, v.finished)
            est["minus5"] = _interval(r, _se(z))
            est["minus5"]["finished_rounds"] = int(v.finished.sum())
            est["seat_spread"] = spread_interval(v.seat_win)
            self.estimates.append(est)
            if k == 0:
                self.changes.append({})
                continue
            paired = variant.same_deals_as(self.variants[0])
            ch = {"paired": paired}
            for m in ("turns", "stalled", "score", "close"):
                ch[m] = _difference(getattr(v, m), getattr(base, m), paired)
            ch["skill_gap"] = None if skill is None else _difference(skill, bskill, paired)
            ch["minus5"] = _interval(r - rb, _se(z - zb) if paired else math.hypot(_se(z), _se(zb)))
            ch["seat_spread"] = spread_interval(v.seat_win, base.seat_win, paired)
            self.changes.append(ch)
        return self

    def to_dict(self) -> dict:
        rows = []
        for variant, by_strategy, est, ch in zip(self.variants, self.by_strategy, self.estimates, self.changes):
            rows.append({"name": variant.name, "rules": variant.rules.to_dict(), "deck": variant.deck.name,
                         "deck_cards": variant.deck.size, "by_strategy": by_strategy, "estimates": est,
                         "change_vs_baseline": ch or None})
        return {"players": self.players, "seats": list(self.seats), "games": self.games, "seed": self.seed,
                "rotate": self.rotate, "unit": "game (every interval is over games; 95%)",
                "skill_gap_between": [self.strongest, self.weakest] if self.strongest else None,
                "measures": LABELS, "variants": rows}


def _difference(a: np.ndarray, b: np.ndarray, paired: bool) -> dict:
    if paired:
        return _interval(*_mean_se(a - b))
    ma, sa = _mean_se(a)
    mb, sb = _mean_se(b)
    return _interval(ma - mb, math.hypot(sa, sb))


# ---------------------------------------------------------------- running
def check_variants(variants: Sequence[Variant], players: int) -> list[Variant]:
    """The baseline first, then the user's variants; names unique; every deck deals P layouts."""
    out = [BASELINE]
    seen = {BASELINE.name}
    for v in variants:
        if not v.name or any(c in v.name for c in ",=") or v.name in seen:
            raise GnomingError(f"--variant: the name {v.name!r} is empty, repeated, reserved or holds ',' or '='")
        seen.add(v.name)
        v.deck.validate_for(players)
        out.append(v)
    if len(out) < 2:
        raise GnomingError("give at least one --variant NAME=rules.toml[,deck.toml] (or --house-rules)")
    return out


def compare(variants: Sequence[Variant], players: int, seats: Sequence[str], games: int, seed: int,
            rotate: bool = True, threads: int | None = None, chunk_size: int = CHUNK_GAMES,
            progress: Callable[[int], None] | None = None,
            sink: Callable[[Variant, object], None] | None = None) -> Comparison:
    """Play ``games`` games under the baseline and each variant; return the analysed comparison.

    ``progress(done)`` is called with the games done summed over variants; ``sink(variant,
    result)`` receives every chunk's :class:`~gnoming_sim.kernel.engine.SimResult` (for Parquet).
    ``rotate`` is kept False when every seat plays one strategy (it changes nothing), as ``simulate`` keeps it.
    """
    from gnoming_sim.kernel.engine import simulate

    variants = check_variants(variants, players)
    names = list(dict.fromkeys(seats))
    rotate = bool(rotate) and len(names) > 1
    values, standings, done = [], [], 0
    for v in variants:
        parts, tally = [], Tally(names, players)
        for lo in range(0, games, chunk_size):
            n = min(chunk_size, games - lo)
            res = simulate(players=players, strategies=list(seats), games=n, seed=seed, rules=v.rules,
                           deck=v.deck, threads=threads, first_game=lo, rotate=rotate)
            parts.append(GameValues.of(res, names))
            tally.add_result(res)
            if sink is not None:
                sink(v, res)
            done += n
            if progress is not None:
                progress(done)
        values.append(GameValues.concat(parts))
        standings.append(tally.by_strategy())
    return Comparison(players, tuple(seats), games, seed, rotate, list(variants), values, standings).estimate()
