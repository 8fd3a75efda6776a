"""Hostile batch files: a batch Parquet file whose stored metadata is damaged, or
does not match its games, read by ``report --from`` and by ``simulate --resume`` (the same checks:
:func:`gnoming_sim.batch.parquet.parse_metadata`).  Each ends in one line and exit 2.

A case file of the fuzz harness (see ``_fuzz_cases.EXTRA_MODULES``): ``make_files`` makes the
``@meta:NAME`` files, ``cases`` the command lines, ``REGRESSIONS`` the ids `make test-fast` runs.
The files are built from arrays (no game is played): 4 games of 4 players seated ``random``, the
metadata a real ``simulate --games 4 --out`` writes, then one key damaged.
"""
from __future__ import annotations

import json
from pathlib import Path

GAMES, PLAYERS = 4, 4


def _valid_meta() -> dict:
    from gnoming_sim.batch.runner import BatchSpec

    return json.loads(json.dumps(BatchSpec.make(PLAYERS, ["random"], GAMES).metadata()))


def _rules(key, value):
    return lambda m: m["rules"].__setitem__(key, value)


def _deck(card, value):
    return lambda m: m["deck"].__setitem__(card, value)


def _strategy(value):
    return lambda m: m["strategies"].__setitem__("random", value)


def _meta(key, value):
    return lambda m: m.__setitem__(key, value)


# name -> how the valid metadata is damaged (the seven tracebacks and three wrong reports of the issue first)
DAMAGE = {
    "hazard_value_null": _rules("hazard_value", None),
    "hazard_value_list": _rules("hazard_value", [10]),
    "hazard_value_inf": _rules("hazard_value", float("inf")),    # JSON Infinity
    "strategy_number": _strategy(5),
    "strategy_params_number": _strategy({"kind": 0, "params": 5}),
    "deck_count_string": _deck("6", "14"),
    "deck_count_list": _deck("6", [14]),
    "hazard_value_0": _rules("hazard_value", 0),
    "hazard_value_neg10": _rules("hazard_value", -10),
    "hazard_value_3": _rules("hazard_value", 3),                 # in range, but the games scored 10 a hazard
    "hazard_value_nan": _rules("hazard_value", float("nan")),
    "rules_unknown_option": _rules("jokers", 2),
    "rules_not_object": _meta("rules", [1, 2]),
    "max_turns_zero": _rules("max_turns", 0),
    "bouncing_number": _rules("bouncing", 1),
    "deck_unknown_card": _deck("Q", 4),
    "deck_too_small": _meta("deck", {"6": 20}),
    "deck_count_huge": _deck("6", 10**30),
    "strategy_kind_bool": _strategy({"kind": True, "params": {}}),
    "strategy_param_string": _strategy({"kind": 0, "params": {"x": "1"}}),
    "strategy_param_inf": _strategy({"kind": 0, "params": {"x": float("inf")}}),
    "rotate_string": _meta("rotate", "yes"),
    "deck_name_number": _meta("deck_name", 7),
    "players_string": _meta("players", "4"),
}
NULL_COLUMN = "hazards_null"   # valid metadata, a column of nulls (NaN when read): numpy warned, then one line


def _write(path: Path, meta: dict, null_column: str | None = None, hazard_points: int = 10) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from gnoming_sim.batch.parquet import batch_schema, table_of
    from gnoming_sim.game.fields import F_HAZARDS, F_SCORE, N_FIELDS

    stats = np.zeros((GAMES, 3, PLAYERS, N_FIELDS), dtype=np.int32)
    stats[:, :, 0, F_HAZARDS] = hazard_points   # seat 0 keeps a hazard every round: a score of its parts
    stats[:, :, 0, F_SCORE] = hazard_points
    table = table_of(0, stats, np.zeros((GAMES, PLAYERS), dtype=np.int8), ["random"])
    if null_column is not None:
        i = table.schema.get_field_index(null_column)
        table = table.set_column(i, table.schema.field(i), pa.nulls(table.num_rows, pa.int32()))
    schema = batch_schema(["random"], {})
    text = json.dumps(meta, sort_keys=True)   # NaN and Infinity as Python's JSON writes them
    schema = schema.with_metadata({b"gnoming_sim": text.encode()})
    pq.write_table(pa.Table.from_arrays(table.columns, schema=schema), path)


def make_files(root: Path) -> dict[str, str]:
    """Every hostile batch file under ``root``: ``{"meta:NAME": path}``, and ``meta:valid`` (the control)."""
    root.mkdir(parents=True, exist_ok=True)
    files = {}
    for name, damage in {"valid": lambda m: None, **DAMAGE}.items():
        meta = _valid_meta()
        damage(meta)
        path = root / f"{name}.parquet"
        _write(path, meta)
        files[f"meta:{name}"] = str(path)
    path = root / f"{NULL_COLUMN}.parquet"
    _write(path, _valid_meta(), null_column="hazards")
    files[f"meta:{NULL_COLUMN}"] = str(path)
    return files


def names() -> list[str]:
    return [*DAMAGE, NULL_COLUMN]


def cases() -> list[tuple[str, list[str]]]:
    out = []
    for name in names():
        out.append((f"report--from=meta:{name}", ["report", "--from", f"@meta:{name}", "--out", "@tmp/rep"]))
        # the command that wrote it, resumed: a copy (a case that wrongly passed must not change the file)
        out.append((f"simulate--resume=meta:{name}", ["simulate", "--games", str(GAMES), "--out",
                                                      f"@copy:meta:{name}", "--resume"]))
    return out


REGRESSIONS = [f"report--from=meta:{n}" for n in names()[:10]] + [
    "report--from=meta:hazards_null", "simulate--resume=meta:hazards_null", "simulate--resume=meta:hazard_value_null"]
