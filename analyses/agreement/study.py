"""The agreement table as a :class:`~gnoming_sim.analyses.framework.study.Study`: no games; it reads the
committed oracle-valued decision set (analyses/data/oracle/decisions.parquet, with its provenance beside it) and asks
the card this checkout plays at every decision (:func:`gnoming_sim.experiments.agreement.agreement`)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from gnoming_sim.experiments import agreement

from gnoming_sim.stats import Estimate
from ..framework.paired import nothing_to_measure
from ..framework.study import DATA, Precision, Study, StudyResult
from .figures import agreement_figure

DECISIONS = DATA / "oracle" / "decisions.parquet"   # made by tuning/oracle/run.sh
FRESH = DATA / "agreement" / "fresh.parquet"   # the held-out loss (experiments/agreement_fresh.py, tuning/agreement/run.sh)
QUICK_DECISIONS = 400   # --quick: the set's first decisions of each table size and kind, about this many in all


class CardAgreement(Study):
    id = "agreement"
    title = "The card beside the oracle"
    default_games = 0   # no games: a card lookup per committed decision
    quick_games = 0

    def __init__(self, path: Path | None = None, fresh: Path | None = None):
        self.path = DECISIONS if path is None else Path(path)
        self.fresh = FRESH if fresh is None and path is None else fresh

    def kernels(self, ctx) -> tuple[str, ...]:
        return ("step",)   # card_view enters each position with the kernel's step

    def design(self, ctx) -> list:
        return []

    def play(self, ctx, seed, tables, advance):
        if not self.path.exists():
            return None
        frame = pd.read_parquet(self.path)
        side = self.path.with_suffix(".json")
        prov = json.loads(side.read_text()) if side.exists() else {}
        if ctx.quick and len(frame) > QUICK_DECISIONS:
            frame = quick_sample(frame, QUICK_DECISIONS)
        fresh = pd.read_parquet(self.fresh) if self.fresh is not None and Path(self.fresh).exists() else None
        return {"decisions": frame, "provenance": prov, "fresh": fresh}

    def conclude(self, ctx, tables, data) -> StudyResult:
        if data is None:
            return nothing_to_measure(f"The oracle-valued decision set ({self.path.name}) is not in this checkout: "
                                      "there is nothing to measure.")
        return conclude(data["decisions"], data["provenance"], data.get("fresh"))


def quick_sample(frame: pd.DataFrame, total: int) -> pd.DataFrame:
    """The first decisions of each (table size, kind) stratum of the set, about ``total`` in all."""
    keys = [c for c in ("players", "kind") if c in frame.columns]
    if not keys:
        return frame.head(total)
    per = max(1, total // frame.groupby(keys).ngroups)
    return frame.groupby(keys, sort=False, group_keys=False).head(per)


def _num(x) -> float:
    return math.nan if x is None else float(x)


def _est(d: dict) -> Estimate:
    lo, hi = d["ci95"]
    return Estimate(_num(d["mean"]), _num(lo), _num(hi), d["n"])


def _share(d: dict) -> Estimate:
    lo, hi = d["ci95"]
    return Estimate(_num(d["p"]), _num(lo), _num(hi), d["n"])


def _display(r: dict) -> dict:
    """A row of the table with its Estimates (the held-out loss's too, where there is one)."""
    out = dict(r, best_e=_share(r["plays_best"]), loss_e=_est(r["mean_loss"]))
    if "held_out" in r:
        out["held_e"] = _est(r["held_out"]["mean_loss"])
    return out


def frame_of(summary: dict) -> pd.DataFrame:
    """The table as a frame (agreement-table.csv): one row per kind, then the overall row."""
    rows = []
    for r in summary["by_kind"] + [dict(summary["overall"], kind="every covered decision")]:
        a, m = r["agree"], r["mean_loss"]
        row = {"decision": r["kind"], "covered": r["covered"], "agree": a["p"], "agree_lo": a["ci95"][0],
               "agree_hi": a["ci95"][1], "agree_n_eff": a["n_eff"], "mean_loss_pp": m["mean"],
               "mean_loss_lo": m["ci95"][0], "mean_loss_hi": m["ci95"][1], "met": r["met"],
               "plays_best": r["plays_best"]["p"], "plays_best_lo": r["plays_best"]["ci95"][0],
               "plays_best_hi": r["plays_best"]["ci95"][1]}
        if "held_out" in r:
            h = r["held_out"]
            row.update(agree_held_out=h["agree"]["p"] if "agree" in h else None,
                       mean_loss_held_out_pp=h["mean_loss"]["mean"],
                       mean_loss_held_out_lo=h["mean_loss"]["ci95"][0], mean_loss_held_out_hi=h["mean_loss"]["ci95"][1])
        rows.append(row)
    return pd.DataFrame(rows)


def conclude(decisions: pd.DataFrame, provenance: dict, fresh: pd.DataFrame | None = None) -> StudyResult:
    """The agreement table of ``decisions`` (the set) against the card this checkout plays."""
    seed = provenance.get("seed")
    card = agreement.card_provenance()
    if seed is not None:
        agreement.check_held_out(seed, card["seeds"])
    summary = agreement.agreement(decisions, seed=seed, rollouts=provenance.get("rollouts"), card_prov=card,
                                  fresh=fresh)
    rows = [_display(r) for r in summary["by_kind"]]
    o = summary["overall"]
    overall = _display(dict(o, kind="every covered decision"))
    precision = [Precision("share playing the first choice, every covered decision", _share(o["plays_best"]).half_width,
                           "pct"),
                 Precision("loss per covered decision, upper bound (pp)", _est(o["mean_loss"]).half_width, "points")]
    figure = agreement_figure(rows + [overall])
    return StudyResult(findings=[], figures=[figure], frames={"table": frame_of(summary)}, summary=summary,
                       precision=precision,
                       context={"rows": rows, "overall": overall, "agreement": summary})
