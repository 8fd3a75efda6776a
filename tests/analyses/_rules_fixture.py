"""The committed summary.json with issue 50's three new sections (``rules``, ``agreement``,
``guide.card_margins``) from ``data/summary_rules.json``: made-up values in the shape the rules, agreement and
guide studies write, so the README block and the report's summary can be checked before a report has them."""
from __future__ import annotations

import copy
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = ROOT / "reports" / "summary.json"
FIXTURE = Path(__file__).parent / "data" / "summary_rules.json"


def committed() -> dict:
    return json.loads(SUMMARY.read_text(encoding="utf-8"))


def sections() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def with_rules(summary: dict | None = None) -> dict:
    """``summary`` (default: the committed one) with the fixture's sections in place of its own."""
    out = copy.deepcopy(committed() if summary is None else summary)
    new = sections()
    out["rules"], out["agreement"] = new["rules"], new["agreement"]
    out["guide"] = {**out.get("guide", {}), **new["guide"]}
    return out
