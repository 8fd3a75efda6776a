"""Golden fingerprints: a seeded run per kind of player and per analysis command, reduced to a hash.

Each case plays or analyses through the public surface (``gnoming_sim.simulate`` and the
``gnoming-sim`` command line), so a refactor that moves modules keeps the cases valid, and
any change of behaviour (a different card drawn, decision taken, score or estimate) changes
a hash.  The hashes are kept in ``fingerprints.json`` beside this file.

Regenerating them is a deliberate act, done only when behaviour is meant to change::

    make golden            # = python tests/golden/_golden.py --write

and the commit that does it says why.  What is hashed:

* ``simulate``: every result array (round stats, totals, win credit, seat table) and, for a
  few traced games, every action record and deal;
* ``analyse --json``: every point estimate, count and verdict (rounded to 9 significant
  digits); the intervals are statistics of those numbers and are left to the statistical tests;
* ``compare --json --out``: every row written and each variant's point estimates;
* ``tune``: one generation's log row (point estimates, next sample size, sigma, the incumbent's
  parameters) and the tuned strategy's parameters.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
FINGERPRINTS = Path(__file__).with_name("fingerprints.json")

# (players, seats, games, seed): one batch per kind of player; heuristics at 4 and a mixed 7
SIMULATE = {
    "random-4p": (4, ["random"], 400, 1),
    "greedy-4p": (4, ["greedy"], 400, 1),
    "builder-4p": (4, ["builder"], 400, 1),
    "rusher-4p": (4, ["rusher"], 400, 1),
    "cautious-4p": (4, ["cautious"], 400, 1),
    "expert-4p": (4, ["expert"], 400, 1),
    "expert-2p": (2, ["expert"], 400, 2),
    "mixed-7p": (7, ["random", "greedy", "builder", "rusher", "cautious", "expert", "greedy"], 300, 3),
    "mc-3p": (3, ["mc", "expert", "expert"], 3, 4),
    "mcx-3p": (3, ["mcx", "expert", "expert"], 3, 4),
}
TRACED_GAMES = 5  # games per case whose every action is hashed too
MC_GAMES_TRACED = 1


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _round(x):
    """Floats to 9 significant digits (a summation order may move the last bits, not these)."""
    if isinstance(x, float):
        return float(f"{x:.9g}") if math.isfinite(x) else str(x)
    if isinstance(x, dict):
        return {k: _round(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_round(v) for v in x]
    return x


INTERVAL_KEYS = {"lo", "hi", "half_width", "separated", "equivalent"}
# fields added to the JSON after these fingerprints were recorded, each guarded by its own tests: the position's ID
# (analyse, 8f440e6: a name the position file already fixes), the card's answer beside analyse's (45d02a4,
# tests/cli/test_analyse_card.py) and compare's per-strategy tally (44aa6a0, simulate's own Tally: test_compare_cli.py).
# Left out, every fingerprint is the one recorded before them: the estimates they had are unchanged
ADDED_KEYS = {"position_id", "card", "by_strategy"}
# keys renamed after these fingerprints were recorded, digested under their recorded names: a rollout result's lead
# over the runner-up (it was "margin", beside each option's margin over the rivals)
RENAMED_KEYS = {"lead": "margin"}


def _estimates(x):
    """``x`` without its intervals (keys ending in ci95, and lo/hi/half_width)."""
    if isinstance(x, dict):
        return {RENAMED_KEYS.get(k, k): _estimates(v) for k, v in x.items()
                if not k.endswith("ci95") and k not in INTERVAL_KEYS | ADDED_KEYS}
    if isinstance(x, list):
        return [_estimates(v) for v in x]
    return x


def _json_digest(obj) -> str:
    text = json.dumps(_round(_estimates(obj)), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def simulate_case(name: str) -> str:
    from gnoming_sim import simulate

    players, seats, games, seed = SIMULATE[name]
    res = simulate(players=players, strategies=seats, games=games, seed=seed, rotate=len(seats) > 1,
                   threads=2)
    traced_n = MC_GAMES_TRACED if any(s.startswith("mc") for s in seats) else TRACED_GAMES
    tr = simulate(players=players, strategies=seats, games=traced_n, seed=seed, rotate=len(seats) > 1,
                  trace=True, threads=2)
    np.testing.assert_array_equal(tr.round_stats, res.round_stats[:traced_n])
    return _digest(res.round_stats, res.totals, res.win_credit, res.seat_strategy, tr.deals, *tr.traces)


def _cli(args: list[str], cwd: Path) -> str:
    env = dict(os.environ)
    proc = subprocess.run([sys.executable, "-m", "gnoming_sim", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise AssertionError(f"gnoming-sim {' '.join(args)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    return proc.stdout


ANALYSE = {
    # a draw decision under builder, to the end of the round (the default horizon when this fingerprint was
    # recorded; pinned since the game became the default, the oracle's criterion)
    # (the position file is copied beside the run: its name is part of the JSON, its folder must not be)
    # and checked under expert on the same rollout seeds (the default second base policy then; asked for since
    # that sensitivity check became opt-in)
    "analyse-draw-builder": ["--position", "two_options.toml", "--policy", "builder",
                             "--rollouts", "400", "--seed", "3", "--horizon", "round", "--second-policy", "expert"],
    # a placement decision from a simulated game under learned (the default base policy when this fingerprint was
    # recorded; pinned since net became the default, so the fingerprint still guards learned's rollouts) and
    # the robustness check under expert (the default then; asked for since it became opt-in), to the end
    # of the game
    "analyse-game-default": ["--players", "3", "--strategy", "greedy", "--seed", "5", "--game", "2",
                             "--turn", "7", "--rollouts", "200", "--horizon", "game", "--policy", "learned",
                             "--second-policy", "expert"],
}


def analyse_case(name: str) -> str:
    import shutil

    with tempfile.TemporaryDirectory() as d:
        shutil.copy(ROOT / "bench" / "two_options.toml", d)
        out = _cli(["analyse", *ANALYSE[name], "--json", "--threads", "2"], Path(d))
    return _json_digest(json.loads(out))


def compare_case() -> str:
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as d:
        out = _cli(["compare", "--players", "3", "--seats", "greedy,expert,rusher", "--games", "300",
                    "--seed", "2", "--variant", f"bonus10={ROOT / 'examples' / 'bonus10.toml'}",
                    "--variant", f"nobounce={ROOT / 'examples' / 'nobounce.toml'}",
                    "--json", "--threads", "2", "--out", "c.parquet"], Path(d))
        table = pq.read_table(Path(d) / "c.parquet")
        rows = {c: table.column(c).to_pylist() for c in sorted(table.column_names)}
    doc = json.loads(out)
    return _json_digest({"rows": rows, "variants": doc["variants"]})


TIME_COLUMNS = {"gen_seconds", "seconds"}


def tune_case() -> str:
    import csv

    with tempfile.TemporaryDirectory() as d:
        _cli(["tune", "--players", "3", "--generations", "1", "--games", "30", "--popsize", "4",
              "--out", "t.toml", "--seed", "1", "--budget", "600", "--threads", "2"], Path(d))
        lines = (Path(d) / "t.toml").read_text().splitlines()
        params = [ln for ln in lines if "=" in ln and not ln.startswith(("#", "description"))]
        with open(Path(d) / "t-log.csv", newline="") as f:
            log = [{k: v for k, v in row.items() if k not in TIME_COLUMNS and not k.endswith(("_lo", "_hi"))}
                   for row in csv.DictReader(f)]
    return _json_digest({"params": params, "log": log})


def all_cases() -> dict:
    """name -> a function computing that case's fingerprint."""
    cases = {name: (lambda n=name: simulate_case(n)) for name in SIMULATE}
    cases.update({name: (lambda n=name: analyse_case(n)) for name in ANALYSE})
    cases["compare-3p"] = compare_case
    cases["tune-3p-1gen"] = tune_case
    return cases


def load() -> dict:
    return json.loads(FINGERPRINTS.read_text())


def main(argv: list[str]) -> int:
    if argv != ["--write"]:
        print("usage: python tests/golden/_golden.py --write   (rewrites tests/golden/fingerprints.json)")
        return 2
    old = load() if FINGERPRINTS.exists() else {}
    new = {name: fn() for name, fn in all_cases().items()}
    FINGERPRINTS.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n")
    for name in sorted(new):
        mark = "" if old.get(name) == new[name] else f"   (was {old.get(name)})"
        print(f"{name:24s} {new[name]}{mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
