"""The ``gnoming-sim`` command: option parsing and checks, one module per command group.

The top stage: may import every other stage (the engine and studies only after the checks).
"""
import sys

from gnoming_sim.cli.app import cli, main as _main

__all__ = ["cli", "main"]


def main(argv=None) -> None:
    """Console-script entry point (:func:`gnoming_sim.cli.app.main`); a command that cannot get the
    memory it needs (a MemoryError, or a library that cannot be loaded under a small ``ulimit -v``)
    ends in one line and exit 1, not a traceback."""
    try:
        _main(argv)
    except (MemoryError, ImportError, OSError) as exc:
        from gnoming_sim.batch.memory import out_of_memory

        line = out_of_memory(exc)
        if line is None:
            raise
        del exc   # let go of the frames (and the memory they hold) before printing
        print(f"gnoming-sim: error: {line}", file=sys.stderr)
        sys.exit(1)
