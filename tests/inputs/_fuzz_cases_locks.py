"""Hostile things at an output's lock name, and file outputs named like folders.

A case file of the fuzz harness (see ``_fuzz_cases.EXTRA_MODULES``).  Every output option of every
command (:data:`OUTPUTS`) meets, at its lock name ``.NAME.lock``, each kind of thing a run must not
open for writing, truncate or remove (:data:`KINDS`: a hard link to the user's file, a symbolic link
to it, a dangling link, a FIFO, a folder, a file of other text).  Each case has a folder of its own
(``lock-KIND-OUTPUT``) holding ``precious.txt``, the planted thing, and for ``report --from`` a small
batch; :func:`check` requires one line and exit 2, ``precious.txt`` unchanged and the planted thing
still there.  The ``slash`` cases name each file output with a trailing ``/``: one line, exit 2.
"""
from __future__ import annotations

import os
from pathlib import Path

NOBOUNCE = str(Path(__file__).resolve().parents[2] / "examples" / "nobounce.toml")
PRECIOUS = "precious\n"
REVIEW = ["review", "--game", "0", "--seat", "0", "--rollouts", "20", "--threads", "1"]
TUNE = ["tune", "--players", "2", "--games", "4", "--popsize", "2", "--generations", "1", "--threads", "1"]
LADDER = ["ladder", "--players", "2", "--strategies", "random,greedy", "--games", "4", "--bootstrap", "100"]

# case name -> (argv with @D for the case's folder, the output whose lock is planted)
OUTPUTS = {
    "simulate--out": (["simulate", "--games", "4", "--out", "@D/g.parquet"], "g.parquet"),
    "simulate--report": (["simulate", "--games", "4", "--out", "@D/g.parquet", "--report", "@D/rep"], "rep"),
    "report--from": (["report", "--from", "@D/b.parquet"], "b-report"),
    "report--from--out": (["report", "--from", "@D/b.parquet", "--out", "@D/r"], "r"),
    "report--quick--out": (["report", "--quick", "--threads", "1", "--out", "@D/r"], "r"),
    "tune--out": ([*TUNE, "--out", "@D/t.toml"], "t.toml"),
    "tune--log": ([*TUNE, "--out", "@D/t.toml", "--log", "@D/l.csv"], "l.csv"),
    "tune--plot": ([*TUNE, "--out", "@D/t.toml", "--plot", "@D/p.png"], "p.png"),
    "review--out": ([*REVIEW, "--out", "@D/rv"], "rv"),
    "review--save-record": ([*REVIEW, "--out", "@D/rv", "--save-record", "@D/rec.toml"], "rec.toml"),
    "compare--out": (["compare", "--games", "4", "--variant", f"nb={NOBOUNCE}", "--out", "@D/c.parquet"],
                     "c.parquet"),
    "ladder--out": ([*LADDER, "--out", "@D/l.json"], "l.json"),
    "card--out": (["card", "--games", "4", "--players", "2", "--budget", "1", "--out", "@D/gd"], "gd"),
    "train--out": (["train", "--iterations", "1", "--games", "4", "--players", "2", "--out", "@D/tr"], "tr"),
}
KINDS = ("hard", "symlink", "dangling", "fifo", "folder", "text")

# the file outputs, each named with a trailing slash (or "/.")
SLASHED = {
    "simulate--out": ["simulate", "--games", "4", "--out", "@tmp/g.parquet/"],
    "simulate--out-dot": ["simulate", "--games", "4", "--out", "@tmp/g.parquet/."],
    "compare--out": ["compare", "--games", "4", "--variant", f"nb={NOBOUNCE}", "--out", "@tmp/c.parquet/"],
    "ladder--out": [*LADDER, "--out", "@tmp/l.json/"],
    "tune--out": [*TUNE, "--out", "@tmp/t.toml/"],
    "tune--log": [*TUNE, "--out", "@tmp/t.toml", "--log", "@tmp/l.csv/"],
    "tune--plot": [*TUNE, "--out", "@tmp/t.toml", "--plot", "@tmp/p.png/"],
    "review--save-record": [*REVIEW, "--out", "@tmp/rv", "--save-record", "@tmp/rec.toml/"],
}


def _plant(folder: Path, kind: str, output: str) -> None:
    lock = folder / f".{output}.lock"
    precious = folder / "precious.txt"
    if kind == "hard":
        os.link(precious, lock)
    elif kind == "symlink":
        os.symlink("precious.txt", lock)
    elif kind == "dangling":
        os.symlink("nowhere.txt", lock)
    elif kind == "fifo":
        os.mkfifo(lock)
    elif kind == "folder":
        lock.mkdir()
    else:
        lock.write_text("my own notes, not a pid\n")


def make_files(root: Path) -> dict[str, str]:
    """A folder per case (precious.txt, the planted thing, a small batch) and ``{"lock:KIND:OUTPUT/NAME": path}``
    for each path its command line names there (``@D/NAME``)."""
    from gnoming_sim.batch.runner import BatchSpec, run_batch

    root.mkdir(parents=True, exist_ok=True)
    batch = root / "b.parquet"
    run_batch(BatchSpec.make(3, ["random"], 4), batch, threads=1)
    files = {}
    for kind in KINDS:
        for name, (argv, output) in OUTPUTS.items():
            folder = root / f"lock-{kind}-{name}"
            folder.mkdir()
            (folder / "precious.txt").write_text(PRECIOUS)
            os.link(batch, folder / "b.parquet")
            _plant(folder, kind, output)
            for arg in argv:
                if arg.startswith("@D/"):
                    files[f"lock:{kind}:{name}/{arg[3:]}"] = str(folder / arg[3:])
    return files


def cases() -> list[tuple[str, list[str]]]:
    out = []
    for kind in KINDS:
        for name, (argv, _) in OUTPUTS.items():
            out.append((f"{name}=lock:{kind}", [f"@lock:{kind}:{name}{a[2:]}" if a.startswith("@D/") else a
                                                for a in argv]))
    out += [(f"{name}=slash", argv) for name, argv in SLASHED.items()]
    return out


def check(case_id: str, result, argv) -> bool:
    """A lock case: one line and exit 2, and what was planted, and the user's file, as they were."""
    if "=lock:" not in case_id:
        return False
    assert result.exit_code == 2, (argv, result.exit_code, result.output, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: "), (argv, result.stderr)
    name, kind = case_id.split("=lock:")
    folder = next(Path(a).parent for a in argv if Path(a).parent.name == f"lock-{kind}-{name}")
    assert (folder / "precious.txt").read_text() == PRECIOUS, argv
    assert os.path.lexists(folder / f".{OUTPUTS[name][1]}.lock"), argv
    return True


REGRESSIONS = [f"{name}=lock:hard" for name in ("simulate--out", "report--from", "report--quick--out", "tune--out",
                                                 "tune--log", "review--save-record", "compare--out")]
