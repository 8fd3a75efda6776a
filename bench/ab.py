"""Is revision B faster than revision A?  A paired, in-process comparison of games/s:

    python bench/ab.py 88e73ab HEAD                      # greedy, expert, learned; 16 pairs each
    python bench/ab.py HEAD WT --strategies greedy --pairs 32   # WT: the working tree

This machine's speed drifts by a third from hour to hour and another process on the other core slows a
run by 40%, so two timed runs minutes apart cannot show a 3% change.  Here each revision is copied into
a package of its own name (``gnoming_sim`` renamed, in a scratch folder), both are imported into one
process, and blocks of the same games alternate between them (CPU time of the process, one thread), so
drift and load fall on both alike.  The package imported first ran about 4% faster in an A/A test (the
same code under two names), so the comparison runs in both import orders and reports
``sqrt(r(A first) / r(B first))``, which cancels that bias; the 95% interval is Welch's (statsmodels)
on the difference of the two orders' mean log-ratios, halved.
"""
from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from statsmodels.stats.weightstats import CompareMeans, DescrStatsW

ROOT = Path(__file__).resolve().parents[1]
GAMES = {"greedy": 2000, "expert": 2000, "learned": 300, "net": 300, "card-starred": 1000, "random": 2000}


def package(rev: str, name: str, into: Path) -> None:
    """Revision ``rev`` ("WT": the working tree) of gnoming_sim as package ``name`` under ``into``."""
    dst = into / name
    if rev == "WT":
        shutil.copytree(ROOT / "gnoming_sim", dst, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "gnoming_sim"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
        (into / "gnoming_sim").rename(dst)
    for path in dst.rglob("*"):
        if path.is_file() and path.suffix in (".py", ".json", ".toml", ".md"):
            text = path.read_text("utf-8")
            if "gnoming_sim" in text:
                path.write_text(text.replace("gnoming_sim", name), "utf-8")


def one_order(first: str, second: str, folder: Path, strategies, pairs: int) -> dict:
    """Run the alternation in a fresh interpreter (``first`` imported first); per strategy the log-ratios
    second/first of each pair."""
    code = f"""
import sys, time, importlib, json
sys.path[:0] = [{str(folder)!r}]
mods = [importlib.import_module(p + ".kernel.engine") for p in ({first!r}, {second!r})]
out = {{}}
for s in {list(strategies)!r}:
    g = {GAMES!r}.get(s, 500)
    for m in mods:
        m.simulate(4, [s], 50, threads=1)
    logs = []
    for rep in range({pairs}):
        rate = [0.0, 0.0]
        for k in ((0, 1) if rep % 2 == 0 else (1, 0)):
            t = time.process_time(); mods[k].simulate(4, [s], g, threads=1, seed=100 + rep)
            rate[k] = g / (time.process_time() - t)
        logs.append(__import__("math").log(rate[1] / rate[0]))
    out[s] = logs
print(json.dumps(out))
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    import json
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a"), ap.add_argument("b")
    ap.add_argument("--strategies", default="greedy,expert,learned")
    ap.add_argument("--pairs", type=int, default=16)
    args = ap.parse_args(argv)
    strategies = args.strategies.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        package(args.a, "gs_ab_a", folder)
        package(args.b, "gs_ab_b", folder)
        os.environ.setdefault("NUMBA_CACHE_DIR", str(folder / "cache"))
        ab = one_order("gs_ab_a", "gs_ab_b", folder, strategies, args.pairs)
        ba = one_order("gs_ab_b", "gs_ab_a", folder, strategies, args.pairs)
    print(f"games/s of {args.b} / {args.a}, 4 players, every seat the strategy ({args.pairs} pairs per order):")
    for s in strategies:
        # each order's log(second / first) is log(b / a) + bias, resp. -log(b / a) + bias: half the difference
        # of the two means is log(b / a) (Welch's interval, statsmodels), half their sum the bias
        both = CompareMeans(DescrStatsW(np.array(ab[s])), DescrStatsW(np.array(ba[s])))
        lo, hi = both.tconfint_diff(alpha=0.05, usevar="unequal")
        m = (np.mean(ab[s]) - np.mean(ba[s])) / 2
        bias = math.exp((np.mean(ab[s]) + np.mean(ba[s])) / 2)
        print(f"  {s}: {math.exp(m):.3f} [{math.exp(lo / 2):.3f}, {math.exp(hi / 2):.3f}]"
              f"  (first-import bias {bias:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
