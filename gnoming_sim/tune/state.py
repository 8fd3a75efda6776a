"""The state file of ``gnoming-sim tune`` (``OUT.toml.state``): data only, checked before use.

A state file is JSON, never a pickle (unpickling a crafted file runs its code)::

    {"format": 2, "sha256": "<hex of the canonical payload>", "payload": {
        "fingerprint": {...},          # TuneSpec.fingerprint(): what a resume must share
        "generation": G, "games": N,   # the next generation and its games per candidate
        "seconds": S,                  # tuning seconds used so far
        "rows": [...],                 # the log rows of generations 0 .. G-1
        "history": [{"asked": [[x0..x10], ...], "fitness": [f, ...]}, ...]}}   # per generation

cma's state is not stored: it is rebuilt by replaying every generation's ``ask``/``tell``
on a fresh ``CMAEvolutionStrategy`` made exactly as a new run makes it (same start,
options and random state), and every replayed ``ask`` must equal the stored one, bit for
bit, or the file is refused (another cma version, say).  JSON keeps floats exact
(``repr`` round-trips), so a resumed run continues as an uninterrupted one.

The checksum (sha256 of the payload as ``json.dumps(sort_keys=True, separators=(",", ":"))``)
catches a damaged or hand-edited file; it is verified before anything in it is used.
"""
from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.input_file import read_bytes, shown

STATE_FORMAT = 2            # 1 was a pickle: refused, never loaded
MAX_STATE_BYTES = 256 * 2**20
_PICKLE_MAGIC = b"\x80"     # every pickle of protocol 2 and later starts with PROTO


def _canonical(payload: dict) -> bytes:
    return json.dumps(payload, sort_keys=True, separators=(",", ":")).encode("utf-8")


def _plain(value):
    """``value`` with numpy scalars as Python ones (json cannot write np.int64)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def dumps(payload: dict) -> bytes:
    """The state file's bytes for ``payload`` (the dict of the module docstring)."""
    payload = _plain(payload)
    digest = hashlib.sha256(_canonical(payload)).hexdigest()
    return json.dumps({"format": STATE_FORMAT, "sha256": digest, "payload": payload}).encode("utf-8")


def load(path) -> dict:
    """The checked payload of the state file ``path``; a one-line GnomingError if it is not one.

    Checks, in order: a regular file of at most 256 MiB; not a pickle; JSON of this format;
    the checksum; the shape of every field.  Nothing of the file is used before its checksum.
    """
    where = f"--resume: {shown(path)}"
    raw = read_bytes(path, "--resume: tuning state", MAX_STATE_BYTES)
    if raw.startswith(_PICKLE_MAGIC):
        raise GnomingError(f"{where} is a state file of an older version (a pickle, which is never loaded); "
                           "start over with --force")
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise GnomingError(f"{where} is not a tuning state file (not JSON)") from None
    if not isinstance(doc, dict) or doc.get("format") != STATE_FORMAT or not isinstance(doc.get("payload"), dict):
        raise GnomingError(f"{where} is not a tuning state of this version (format {STATE_FORMAT})")
    payload = doc["payload"]
    if doc.get("sha256") != hashlib.sha256(_canonical(payload)).hexdigest():
        raise GnomingError(f"{where}: its checksum does not match its contents (damaged or edited); "
                           "start over with --force")
    _check_shape(payload, where)
    return payload


def _is_int(v, low=0) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= low


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _check_shape(p: dict, where: str) -> None:
    bad = f"{where} is not a valid tuning state"
    if not isinstance(p.get("fingerprint"), dict):
        raise GnomingError(f"{bad}: no fingerprint")
    g = p.get("generation")
    if not _is_int(g) or not _is_int(p.get("games"), 1) or not _is_num(p.get("seconds")) or p["seconds"] < 0:
        raise GnomingError(f"{bad}: generation, games or seconds out of range")
    rows, history = p.get("rows"), p.get("history")
    if not isinstance(rows, list) or not isinstance(history, list) or not len(rows) == len(history) == g:
        raise GnomingError(f"{bad}: it must hold {g} log rows and {g} generations of cma history")
    if not all(isinstance(r, dict) for r in rows):
        raise GnomingError(f"{bad}: a log row is not a table")
    for k, h in enumerate(history):
        asked = h.get("asked") if isinstance(h, dict) else None
        fitness = h.get("fitness") if isinstance(h, dict) else None
        if (not isinstance(asked, list) or not isinstance(fitness, list) or len(asked) != len(fitness)
                or not asked or not all(isinstance(x, list) and x and all(map(_is_num, x)) for x in asked)
                or not all(map(_is_num, fitness))):
            raise GnomingError(f"{bad}: generation {k} of its cma history is malformed")


def replay(es, history: list, random_of) -> None:
    """Bring the fresh cma ``es`` to the state after ``history``: per generation, the same calls in
    the same order as :meth:`gnoming_sim.tune.tuner.Tuner.run` made them (``stop`` before every
    ``ask`` but the first, ``ask`` and ``tell`` inside ``random_of(g)``).

    Raises GnomingError when a replayed ``ask`` differs from the stored one.
    """
    for g, h in enumerate(history):
        if g:
            es.stop()
        with random_of(g):
            points = es.ask()
        stored = np.asarray(h["asked"], dtype=np.float64)
        if stored.shape != (len(points), len(points[0])) or not np.array_equal(np.asarray(points), stored):
            raise GnomingError(f"--resume: the saved generation {g} does not replay with this cma "
                               "(another cma version, or an edited state); start over with --force")
        with random_of(g):
            es.tell(points, list(h["fitness"]))


def state_path(out: Path) -> Path:
    return out.with_name(out.name + ".state")
