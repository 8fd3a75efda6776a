"""The ``gnoming-sim`` command: option parsing and checks, one module per command group.

The top stage: may import every other stage (the engine and studies only after the checks).
"""
import sys

from gnoming_sim.batch.memory import out_of_memory

_UNLOADED = None   # the one line of why the commands could not be loaded (short of memory), or None
try:
    from gnoming_sim.cli.app import cli, main as _main
except (MemoryError, ImportError, OSError) as _exc:   # the console script imports this module before main()
    _UNLOADED = out_of_memory(_exc)
    if _UNLOADED is None:
        raise
    del _exc   # let go of the frames (and the memory they hold)

    def _main(argv=None):
        raise MemoryError(_UNLOADED)

__all__ = ["cli", "main"]

CANNOT_START = 2   # the exit code of a command that could not get the memory it needs: it did nothing


def __getattr__(name: str):
    if name == "cli" and _UNLOADED is not None:   # `from gnoming_sim.cli import cli` says why, not "no name"
        raise MemoryError(_UNLOADED)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv=None) -> None:
    """Console-script entry point (:func:`gnoming_sim.cli.app.main`); a command that cannot get the
    memory it needs (a MemoryError, or a library that cannot be loaded under a small ``ulimit -v``, at
    start or when the command loads the engine) ends in one line and exit 2 (:data:`CANNOT_START`), not
    a traceback.  (A ``simulate`` run that stops short of memory after games it kept exits 1 itself.)"""
    try:
        _main(argv)
    except (MemoryError, ImportError, OSError) as exc:
        line = _UNLOADED or out_of_memory(exc)
        if line is None:
            raise
        del exc   # let go of the frames (and the memory they hold) before printing
        print(f"gnoming-sim: error: {line}", file=sys.stderr)
        sys.exit(CANNOT_START)
