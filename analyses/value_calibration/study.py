"""The value network's calibration as a :class:`~gnoming_sim.analyses.framework.study.Study`: fresh games of
``net`` at every seat at 2-7 players under the report's rules (the study's own seed: no fit saw them), a sample
of positions per game, the network's chance of winning for the player to move against the game's outcome
(:func:`gnoming_sim.search.evaluator.calibration`: Brier score against the uninformed 1/P, the calibration slope
and intercept, the reliability bins; every interval over games)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from gnoming_sim.stats import Estimate
from ..framework.study import Precision, Study, StudyResult
from .figures import reliability_figure

PLAYERS = (2, 3, 4, 5, 6, 7)
BASE = "net"          # the oracle's base player, every seat (the network was trained on its self-play)
P_SAMPLE = 0.05       # positions sampled per decision, at most CAP a game
CAP = 12


class ValueCalibration(Study):
    id = "value"
    title = "The value network: how well it knows who wins"
    template = "value_calibration/template.html"
    default_games = 3000   # games per table size
    quick_games = 300

    def kernels(self, ctx) -> tuple[str, ...]:
        return ("every-family",)   # net's decisions; the sampler itself compiles when first used

    def design(self, ctx) -> list:
        return []

    def play(self, ctx, seed, tables, advance):
        from gnoming_sim.search.sampler import value_positions

        games = self.cell_games(ctx)
        parts = []
        for P in PLAYERS:
            d = value_positions(P, BASE, games, seed=seed, p_sample=P_SAMPLE, cap=CAP, rules=ctx.rules, deck=ctx.deck,
                                threads=ctx.threads)
            parts.append(d)
            advance(games)
        return {k: np.concatenate([d[k] for d in parts]) for k in parts[0]} | {"games": games, "seed": seed}

    def conclude(self, ctx, tables, data) -> StudyResult:
        from gnoming_sim.kernel.value_weights import WEIGHTS, read_weights
        from gnoming_sim.search.evaluator import calibration

        rows, rel = calibration(read_weights(WEIGHTS), data)
        table = pd.DataFrame([{"players": r["players"], "games": r["games"], "positions": r["positions"],
                               "brier": r["brier"], "brier_lo": r["brier_ci95"][0], "brier_hi": r["brier_ci95"][1],
                               "brier_uninformed": r["brier_uninformed"], "brier_gain": r["brier_gain"],
                               "brier_gain_lo": r["brier_gain_ci95"][0], "brier_gain_hi": r["brier_gain_ci95"][1],
                               "slope": r["slope"], "slope_lo": r["slope_ci95"][0], "slope_hi": r["slope_ci95"][1],
                               "intercept": r["intercept"], "intercept_lo": r["intercept_ci95"][0],
                               "intercept_hi": r["intercept_ci95"][1]} for r in rows])
        display = [dict(r, brier_e=Estimate(r["brier"], *r["brier_ci95"], r["games"]),
                        gain_e=Estimate(r["brier_gain"], *r["brier_gain_ci95"], r["games"]),
                        slope_e=Estimate(r["slope"], *r["slope_ci95"], r["games"]),
                        intercept_e=Estimate(r["intercept"], *r["intercept_ci95"], r["games"])) for r in rows]
        widest = max(rows, key=lambda r: r["slope_ci95"][1] - r["slope_ci95"][0])
        precision = [Precision(f"calibration slope at {widest['players']} players (the widest)",
                               (widest["slope_ci95"][1] - widest["slope_ci95"][0]) / 2, "plain")]
        summary = {"games_per_size": int(data["games"]), "seed": int(data["seed"]), "base": BASE,
                   "by_players": rows, "reliability": rel}
        return StudyResult(findings=[], figures=[reliability_figure(rel)],
                           frames={"table": table, "reliability": pd.DataFrame(rel)}, summary=summary,
                           precision=precision,
                           context={"rows": display, "games": int(data["games"]), "base": BASE,
                                    "positions": int(len(data["x"])), "players": list(PLAYERS)})
