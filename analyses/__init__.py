"""Studies built on simulation output, and the report that runs them.

Each study is one module defining a :class:`~analyses._framework.Study`; the report
runs the studies of :data:`STUDIES` in order.  To add a study, write its module (and
its template in ``templates/``) and append an instance here.
"""
from __future__ import annotations

from .early_finish import EarlyFinish
from .hazard_risk import HazardRisk
from .mulligan_value import MulliganValue
from .tournament import Tournament

STUDIES = (Tournament(), EarlyFinish(), MulliganValue(), HazardRisk())

__all__ = ["STUDIES"]
