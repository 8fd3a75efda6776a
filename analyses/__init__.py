"""The studies and the report (installed as ``gnoming_sim.analyses``).

    framework/      what studies share: designs, the Study base, estimates, paired edits,
                    trace readers, plots, rendering, the report's templates
    tournament/     one package per study: design, analysis, figures, template.html
    early_finish/
    mulligan_value/
    hazard_risk/
    report.py       runs the registered studies and writes the report

:data:`STUDIES` is the registry the report runs, in order.  To add a study, write its
package (with its ``template.html``), list it in pyproject.toml and append an instance
here.  The framework never imports a study; studies never import each other or the report.
"""
from __future__ import annotations

from .early_finish import EarlyFinish
from .hazard_risk import HazardRisk
from .mulligan_value import MulliganValue
from .tournament import Tournament

STUDIES = (Tournament(), EarlyFinish(), MulliganValue(), HazardRisk())

__all__ = ["STUDIES"]
