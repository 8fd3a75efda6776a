"""Damaged drill decks: Parquet files with the deck's schema and metadata but bad values, wrong column
types, nulls, dates out of Python's range, numbers stored as strings, ``options`` nested 10,000 deep.

A case file of the fuzz harness (see ``_fuzz_cases.EXTRA_MODULES``).  :data:`DAMAGED` names each kind of
damage and how it is made from a good deck's table; :func:`write_damaged` writes one with pyarrow directly
(the library's writer refuses to write a damaged deck).  Every kind is read by ``drill --deck``, ``drill
--add`` and ``review --drill-deck`` (each a command line of the harness), and every path kind of the harness
by ``drill --add``.  :func:`check` requires one line and exit 2 with the deck's bytes as they were.  The unit
tests (``tests/cli/test_drill_decks.py``) import :data:`DAMAGED` too.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

DEEP = 10_000


def good_table():
    """A one-card deck as the library writes it (the example position's card), as a pyarrow table."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from _examples import position

    from gnoming_sim.drills import deck as D
    from gnoming_sim.game.position_id import encode

    pid = encode(position())
    options = (D.Choice("pos4", "label of pos4", 50.0, 0.0, 0.0, 0.0, "confirm"),
               D.Choice("pos2", "label of pos2", 40.0, 1.0, -2.0, 4.0, "confirm"),
               D.Choice("discard", "label of discard", 40.0, 3.0, -1.0, 7.0, "confirm"))
    day = dt.date.today()
    card = D.Card(D.card_id(pid, "discard"), pid, "a position", "game.toml seat 1", "mistake", "?", "discard",
                  "label of discard", "pos4", "label of pos4", 5.5, 2.0, 9.0, options, day, 1, day)
    return pq.read_table(pa.BufferReader(D.to_bytes([card])))


def _set(name, value, type_: str | None = None, *args):
    """The table with column ``name`` holding ``value`` (of the pyarrow type ``type_(*args)``: the column's own
    by default)."""
    def change(t):
        import pyarrow as pa

        at = t.schema.get_field_index(name)
        typ = t.schema.field(at).type if type_ is None else getattr(pa, type_)(*args)
        return t.set_column(at, pa.field(name, typ), pa.array([value] * t.num_rows, typ))
    return change


def _days(name, days):
    """The table with the date column ``name`` at ``days`` from 1970-01-01, whatever Python makes of it."""
    def change(t):
        import pyarrow as pa

        at = t.schema.get_field_index(name)
        return t.set_column(at, t.schema.field(at), pa.array([days] * t.num_rows, pa.int32()).view(pa.date32()))
    return change


def _dictionary(name):
    def change(t):
        at = t.schema.get_field_index(name)
        return t.set_column(at, name, t.column(name).dictionary_encode())
    return change


def _options(rows):
    return _set("options", json.dumps(rows))


def _meta(text):
    def change(t):
        return t.replace_schema_metadata({b"gnoming_sim_drills": text.encode()})
    return change


def _drop(name):
    def change(t):
        return t.drop_columns([name])
    return change


def _extra(t):
    import pyarrow as pa

    return t.append_column("extra", pa.array([1] * t.num_rows, pa.int64()))


def _twice(t):
    import pyarrow as pa

    return pa.concat_tables([t, t])


_OPT = ["pos4", "label of pos4", 50.0, 0.0, 0.0, 0.0, "confirm"]
_PLAYED = ["discard", "label of discard", 40.0, 3.0, -1.0, 7.0, "confirm"]

# kind -> how the good table is damaged (a function of the table)
DAMAGED = {
    "nan_loss": _set("loss_pp", float("nan")),
    "inf_loss_hi": _set("loss_hi_pp", float("inf")),
    "huge_loss": _set("loss_lo_pp", 1e300),
    "nan_option": _set("options", json.dumps([[*_OPT[:3], float("nan"), 0.0, 0.0, "confirm"], _PLAYED])),
    "infinity_option": _set("options", json.dumps([[*_OPT[:2], float("inf"), 0.0, 0.0, 0.0, "confirm"], _PLAYED])),
    "null_id": _set("id", None),
    "null_position_id": _set("position_id", None),
    "null_options": _set("options", None),
    "null_due": _set("due", None),
    "null_added": _set("added", None),
    "null_box": _set("box", None),
    "null_loss": _set("loss_pp", None),
    "null_mark": _set("mark", None),
    "string_box": _set("box", "1", "string"),
    "string_loss": _set("loss_pp", "5.5", "string"),
    "int_loss": _set("loss_pp", 5, "int64"),
    "timestamp_due": _set("due", dt.datetime(2026, 3, 2), "timestamp", "us"),
    "timestamp_far": _set("added", 2**62, "timestamp", "ns"),
    "large_string_id": _set("id", "a" * 12, "large_string"),
    "dictionary_mark": _dictionary("mark"),
    "due_year_10000": _days("due", 2_932_897),
    "added_before_year_1": _days("added", -719_163),
    "last_seen_far": _days("last_seen", 2**31 - 1),
    "deep_options": _set("options", "[" * DEEP + "]" * DEEP),
    "deep_options_object": _set("options", '{"a":' * DEEP + "1" + "}" * DEEP),
    "deep_metadata": _meta('{"format":' + "[" * DEEP + "]" * DEEP + "}"),
    "options_strings": _options([["pos4", "label", "50", "0", "0", "0", "confirm"], _PLAYED]),
    "options_bool": _options([["pos4", "label", True, 0.0, 0.0, 0.0, "confirm"], _PLAYED]),
    "options_hugeint": _set("options", '[["pos4", "l", 5' + "0" * 5000 + ', 0, 0, 0, "c"]]'),
    "options_not_list": _options({"pos4": 1}),
    "options_empty": _options([]),
    "options_short_row": _options([["pos4", "label", 50.0], _PLAYED]),
    "options_twice": _options([_OPT, _OPT, _PLAYED]),
    "options_not_json": _set("options", "[[pos4"),
    "best_not_an_option": _options([_PLAYED]),
    "box_0": _set("box", 0),
    "box_9": _set("box", 9),
    "hits_over_attempts": _set("hits", 5),
    "attempts_negative": _set("attempts", -1),
    "mark_unknown": _set("mark", "brilliant"),
    "symbol_of_another_mark": _set("symbol", "??"),
    "result_unknown": _set("last_result", "win"),
    "id_not_hex": _set("id", "../../etc/x"),
    "position_id_empty": _set("position_id", " "),
    "position_id_malformed": _set("position_id", "g1:AAAA"),
    "position_id_bad_character": _set("position_id", "g1:\x1b[2J"),
    "source_100k": _set("source", "s" * 100_000),
    "card_twice": _twice,
    "missing_column": _drop("due"),
    "extra_column": _extra,
    "no_metadata": lambda t: t.replace_schema_metadata({}),
    "format_2": _meta('{"format": 2}'),
}


def kinds() -> list[str]:
    return list(DAMAGED)


def write_damaged(kind: str, path) -> bytes:
    """Write a deck damaged by ``kind`` to ``path`` with pyarrow directly; its bytes."""
    import pyarrow.parquet as pq

    pq.write_table(DAMAGED[kind](good_table()), path)
    return Path(path).read_bytes()


# ------------------------------------------------------------------ the harness's cases
DIGESTS: dict[str, str] = {}   # path -> sha256 of the bytes written


def make_files(root: Path) -> dict[str, str]:
    root.mkdir(parents=True, exist_ok=True)
    files = {}
    for kind in kinds():
        path = root / f"{kind}.parquet"
        DIGESTS[str(path)] = hashlib.sha256(write_damaged(kind, path)).hexdigest()
        files[f"damaged:{kind}"] = str(path)
    return files


REVIEW = ["review", "--game", "0", "--seat", "0", "--rollouts", "20", "--out", "@tmp/rev"]


def cases() -> list[tuple[str, list[str]]]:
    import _fuzz_cases as fuzz

    out = []
    for kind in kinds():
        out.append((f"drill--deck=damaged:{kind}", ["drill", "--deck", f"@damaged:{kind}"]))
        out.append((f"review--drill-deck=damaged:{kind}", [*REVIEW, "--drill-deck", f"@damaged:{kind}"]))
        out.append((f"drill--add=damaged:{kind}", ["drill", "--deck", "@tmp/deck.parquet", "--add",
                                                   f"@damaged:{kind}"]))
    for kind in fuzz.BAD_FILES:
        out.append((f"drill--add={kind}", ["drill", "--deck", "@tmp/deck.parquet", "--add", f"@{kind}"]))
    return out


def check(case_id: str, result, argv) -> bool:
    """A damaged deck: one line and exit 2, and every damaged deck it names byte for byte as it was."""
    if "=damaged:" not in case_id:
        return False
    assert result.exit_code == 2, (argv, result.exit_code, result.output, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: "), (argv, result.stderr)
    assert "Traceback" not in result.output and result.stdout == "", (argv, result.stdout)
    for arg in argv:
        if arg in DIGESTS:
            assert hashlib.sha256(Path(arg).read_bytes()).hexdigest() == DIGESTS[arg], (argv, "changed")
    if "--add" in argv:   # nothing added: no deck made
        assert not Path(argv[argv.index("--deck") + 1]).exists(), argv
    return True


REGRESSIONS = [f"{cmd}=damaged:{kind}" for cmd in ("drill--deck", "review--drill-deck")
               for kind in ("nan_loss", "nan_option", "null_due", "due_year_10000", "string_box", "deep_options",
                            "timestamp_far")] + ["drill--add=damaged:deep_options", "drill--add=fifo"]
