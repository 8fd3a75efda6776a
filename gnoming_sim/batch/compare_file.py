"""The Parquet file of ``gnoming-sim compare --out``: a batch file's rows for every variant, one variant
after another, with a ``variant`` column.

Its schema metadata, under :data:`COMPARE_KEY`, names the variants in the file's order and holds each
one's batch facts, those a ``simulate --out`` file holds under ``gnoming_sim``
(:meth:`gnoming_sim.batch.runner.BatchSpec.metadata`: seats, strategies, seed, games, rules, deck), so
that each variant's rows read back as a batch (:func:`gnoming_sim.batch.standings.standings`).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from gnoming_sim.batch.parquet import check_magic, parse_metadata
from gnoming_sim.batch.safe_write import arrow_path
from gnoming_sim.game.errors import GnomingError, one_line

COMPARE_KEY = b"gnoming_sim_compare"


def file_metadata(players: int, seats, games: int, seed: int, rotate: bool, variants) -> dict:
    """The metadata of a compare file whose rows are those of ``variants`` (baseline first), in that order."""
    from gnoming_sim.batch.runner import BatchSpec

    batches = [{"variant": v.name, "batch": BatchSpec.make(players, list(seats), games, seed, rotate, v.rules,
                                                           v.deck).metadata()} for v in variants]
    return {"players": players, "seats": list(seats), "games": games, "seed": seed,
            "rotate": batches[0]["batch"]["rotate"], "variants": [v.name for v in variants], "batches": batches}


def compare_metadata(path) -> dict | None:
    """The raw compare metadata of ``path`` (JSON bytes' object), or None when ``path`` is not a readable
    Parquet file that holds it (then the batch reader says what ``path`` is)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not os.path.isfile(path):
        return None
    try:
        with arrow_path(path) as name:
            raw = (pq.read_schema(name).metadata or {}).get(COMPARE_KEY)
    except (pa.ArrowException, OSError):
        return None
    if raw is None:
        return None
    try:
        meta = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise GnomingError(f"{path}: its compare metadata is damaged (not JSON: {one_line(exc)})") from None
    if not isinstance(meta, dict):
        raise GnomingError(f"{path}: its compare metadata is damaged (not a JSON object)")
    return meta


def open_compare(path, meta: dict) -> tuple[object, list[tuple[str, dict]]]:
    """``(pyarrow ParquetFile, [(variant, its batch metadata), ...])`` of the compare file ``path`` whose
    compare metadata is ``meta`` (:func:`compare_metadata`), each variant's facts checked as a batch file's
    are; a one-line GnomingError otherwise."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    batches = meta.get("batches")
    if batches is None:
        raise GnomingError(f"{path} was written by a gnoming-sim compare that did not record each variant's rules "
                           "and deck: run the compare again to read its standings")
    if not isinstance(batches, list) or not batches or not all(
            isinstance(b, dict) and isinstance(b.get("variant"), str) for b in batches):
        raise GnomingError(f"{path}: its compare metadata is damaged (batches is not a list of variants)")
    names = [b["variant"] for b in batches]
    if len(set(names)) != len(names):
        raise GnomingError(f"{path}: its compare metadata is damaged (a variant is named twice)")
    variants = [(b["variant"], parse_metadata(json.dumps(b.get("batch")).encode(), variant_label(path, b["variant"])))
                for b in batches]
    check_magic(path, str(path))
    try:
        with arrow_path(path) as name:   # pre_buffer off: memory stays flat (gnoming_sim.batch.scan.open_batch)
            pf = pq.ParquetFile(name, pre_buffer=False, page_checksum_verification=True)
    except (pa.ArrowException, OSError) as exc:
        raise GnomingError(f"{path} is not a readable Parquet file ({one_line(exc)})") from None
    field = pf.schema_arrow.field("variant") if "variant" in pf.schema_arrow.names else None
    if field is None or not (pa.types.is_dictionary(field.type) or pa.types.is_string(field.type)):
        pf.close()
        raise GnomingError(f"{path} has no column 'variant' of names: not a compare file this version can read")
    return pf, variants


def variant_label(path: Path, variant: str) -> str:
    """How a variant's rows are named in messages and in its standings' ``source``."""
    return f"{path} (variant {variant})"
