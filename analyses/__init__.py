"""The studies and the report (installed as ``gnoming_sim.analyses``).

    framework/      what studies share: designs, the Study base, words, paired edits,
                    trace readers, plots, rendering, the report's templates
    tournament/     one package per study: design, findings, figures, template.html
    early_finish/
    finish_play_on/
    mulligan_value/
    hazard_risk/
    report.py       runs the registered studies and writes the report

:data:`gnoming_sim.analyses.report.STUDIES` is the registry the report runs, in order.  To
add a study, write its package (with its ``template.html``), list it in pyproject.toml and
append an instance there.  The framework never imports a study; studies never import each
other or the report; this ``__init__`` imports nothing, so loading the framework (or one
study) does not load them all.
"""
