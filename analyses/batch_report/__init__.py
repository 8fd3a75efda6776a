"""The report of one ``simulate --out`` batch file: ``gnoming-sim report --from FILE.parquet``.

:func:`~gnoming_sim.batch.scan.scan_batch` reads the file once; :mod:`.content` turns the
scan into estimates over games, :mod:`.figures` draws them and :mod:`.page` writes
``index.html`` (in the study report's look), PNGs, CSVs and ``summary.json``.  It imports
the batch and game stages and the report framework (render, plots, estimates), never the CLI.
"""
from __future__ import annotations

from .page import write_batch_report

__all__ = ["write_batch_report"]
