"""What fits in this process's memory, asked before a large allocation instead of after it fails.

:func:`available_bytes` is the smaller of the headroom under the address-space limit (``ulimit -v``:
the limit less what the process has mapped) and the machine's available memory.  A batch's chunk
is held in memory until it is written (:func:`chunk_games_that_fit` caps it), and a tuning
generation holds every candidate's per-game results (:func:`check_tune_fits` refuses one that
cannot fit, with the number it needs).  :func:`out_of_memory` turns a failure to get memory (a
MemoryError, a shared library that cannot be mapped under a small ``ulimit -v``) into one line.

Standard library only: it is read when numpy itself may not load.
"""
from __future__ import annotations

import errno
import re
import resource

from gnoming_sim.game.errors import GnomingError

N_FIELDS = 14          # gnoming_sim.game.fields.N_FIELDS (not imported: that module is free of numpy, but
ROUNDS = 3             # this one must load with nothing else); tests/batch/test_memory.py checks both
CHUNK_SHARE = 4        # a chunk may take a quarter of what is free: the writer, the tally and numba need the rest
MIN_CHUNK_GAMES = 1_000
ENGINE_BYTES = 512 * 2**20   # what numba, its compiled kernels and pyarrow map once loaded (measured ~600 MB in all)


def _status_kib(key: str, path: str = "/proc/self/status") -> int | None:
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def available_bytes() -> int | None:
    """Bytes this process can still allocate, as far as it can tell; None when nothing says."""
    found = []
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        mapped = _status_kib("VmSize")
        found.append(max(soft - (mapped or 0), 0))
    free = _status_kib("MemAvailable", "/proc/meminfo")
    if free is not None:
        found.append(free + (_status_kib("SwapFree", "/proc/meminfo") or 0))
    return min(found) if found else None


def show_bytes(n: float) -> str:
    """``1.5 GiB``, ``641 MiB``, ``12 KiB``."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}" if n < 10 * size else f"{n / size:,.0f} {unit}"
    return f"{int(n)} bytes"


# ------------------------------------------------------------------ a batch's chunk
def chunk_bytes_per_game(players: int) -> int:
    """Memory a chunk holds per game until it is written: its blocks' results and their joined copy
    (int32 round stats, the seat strategies, the win credit), then the Arrow table of its rows."""
    rows = ROUNDS * players
    results = rows * N_FIELDS * 4 + players * (1 + 8)
    table = rows * (8 + 1 + 1 + 1 + N_FIELDS * 4) + rows * N_FIELDS * 4   # columns, and the flat copy
    return 2 * results + table


def chunk_games_that_fit(players: int, wanted: int, available: int | None = None) -> int:
    """``wanted`` games per chunk, or fewer when that many would not fit in memory (never fewer
    than :data:`MIN_CHUNK_GAMES`): the chunk is the unit held in memory until it is written."""
    available = available_bytes() if available is None else available
    if available is None:
        return wanted
    fit = max(MIN_CHUNK_GAMES, available // CHUNK_SHARE // chunk_bytes_per_game(players))
    return min(wanted, fit)


# ------------------------------------------------------------------ a tuning generation
def tune_bytes(players: int, popsize: int, games: int) -> int:
    """Memory a tuning generation of ``popsize`` candidates (and the incumbent) on ``games`` games
    holds: every candidate's per-game objective (float64), and one candidate's games at a time
    (the round stats, the win credit, the seats' totals and their float copies)."""
    objectives = (popsize + 1) * games * 8
    one_call = games * (ROUNDS * players * N_FIELDS * 4 + players * (8 + 1 + 8 + 8 + 8 + 1))
    return objectives + one_call


def check_tune_fits(players: int, popsize: int, max_games: int, available: int | None = None) -> None:
    """A one-line GnomingError when a generation at ``max_games`` would not fit in memory."""
    available = available_bytes() if available is None else available
    need = tune_bytes(players, popsize, max_games)
    if available is not None and need + ENGINE_BYTES > available:
        raise GnomingError(
            f"--popsize {popsize} x --max-games {max_games:,} needs about {show_bytes(need)} of memory at "
            f"{players} players (every candidate's result of every game of a generation), and the engine about "
            f"{show_bytes(ENGINE_BYTES)} more; this process can use about {show_bytes(available)}: lower "
            "--max-games or --popsize")


# ------------------------------------------------------------------ when memory ran out
_NO_MAP = ("failed to map segment", "cannot allocate memory", "memory allocation")


def out_of_memory(exc: BaseException) -> str | None:
    """One line about a failure to get memory (a MemoryError, or a library that could not be mapped
    under an address-space limit, anywhere in ``exc``'s chain), or None for any other error."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        text = re.sub(r"/\S*/", "", " ".join(str(exc).split()))   # a library by its file name, not its folder
        if isinstance(exc, MemoryError):
            what = f" ({text})" if text else ""
            return f"out of memory{what}: {_limit_hint()}"
        if isinstance(exc, (ImportError, OSError)) and (
                getattr(exc, "errno", None) == errno.ENOMEM or any(m in text.lower() for m in _NO_MAP)):
            return f"not enough memory to load a library ({text[:160]}): {_limit_hint()}"
        exc = exc.__cause__ or exc.__context__
    return None


def _limit_hint() -> str:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        return (f"the address-space limit (ulimit -v) is {show_bytes(soft)}; gnoming-sim needs about 1 GiB "
                "(numba, pyarrow and the kernels), more for large chunks or populations")
    return "free some memory, or ask for less (a smaller --chunk-size, --games or --popsize)"
