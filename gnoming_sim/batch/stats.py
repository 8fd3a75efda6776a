"""Interval estimates of the summaries and reports: re-exported from :mod:`gnoming_sim.stats`, the
project's one statistics module (kept so that ``from gnoming_sim.stats import ...`` still works).
"""
from __future__ import annotations

from gnoming_sim.stats import (Z95, mean_ci, mean_ci_from_sums, paired_diff_ci, ratio_ci_from_sums,  # noqa: F401
                               wilson)

__all__ = ["Z95", "mean_ci", "mean_ci_from_sums", "paired_diff_ci", "ratio_ci_from_sums", "wilson"]
