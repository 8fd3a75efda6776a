"""The board's speed, for ``make bench`` (``python bench/bench.py --board`` alone): a real
``gnoming-sim board --no-browser`` process, timed from its start until it answers, then from a position
set (``examples/position.toml`` posted to ``/api/analysis``) to its first streamed update and to the
separated verdict (the default stop: the leader 3 standard errors ahead), once right after start and once
more on the warm process; then the 0-ply first table (``/api/zero-ply``, the median of 20 on the warm
process).  With an empty numba cache too (``cold``: everything the board uses compiles).

    python bench/board_bench.py            # warm cache, then an empty one
    python bench/board_bench.py --warm     # the warm cache only
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POSITION = os.path.join(ROOT, "examples", "position.toml")


def _post(url: str, body: dict, token: str) -> dict:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json",
                                                                  "X-Board-Token": token})
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.loads(r.read())


def analysis_times(base: str, token: str, position: dict, seed: int = 0) -> tuple[float, float, int, str]:
    """(s to the first update, s to the last, rollouts per option at the end, why it stopped) of one live
    analysis, timed from the request that sets the position."""
    t = time.perf_counter()
    job = _post(f"{base}api/analysis", {"position": position, "seed": seed, "why": False}, token)["job"]
    first = last = None
    n, stopped = 0, ""
    with urllib.request.urlopen(f"{base}api/analysis/{job}/events?token={token}", timeout=600) as r:
        kind = None
        for raw in r:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind == "update":
                now = time.perf_counter() - t
                first = now if first is None else first
                d = json.loads(line[6:])
                last, n, stopped = now, d["n"], d["stopped"]
            elif kind == "done":
                break
    return first, last, n, stopped


def zero_ply_time(base: str, token: str, position: dict, repeat: int = 20) -> float:
    """The median seconds of ``/api/zero-ply`` on ``position`` (the 0-ply first table the page shows as a
    position is set), over ``repeat`` requests after one not timed."""
    _post(f"{base}api/zero-ply", {"position": position}, token)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        _post(f"{base}api/zero-ply", {"position": position}, token)
        times.append(time.perf_counter() - t)
    return sorted(times)[len(times) // 2]


def board_run(env: dict) -> dict:
    """One board process: its seconds to ready, then two analyses of the example position."""
    with open(POSITION, "rb") as f:
        position = tomllib.load(f)
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "gnoming_sim", "board", "--no-browser"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        url = urllib.parse.urlsplit(line.split("serving on ", 1)[1].split()[0])   # http://127.0.0.1:PORT/?token=...
        base, token = f"{url.scheme}://{url.netloc}/", urllib.parse.parse_qs(url.query)["token"][0]
        while True:
            try:
                start = urllib.request.Request(f"{base}api/start", headers={"X-Board-Token": token})
                with urllib.request.urlopen(start, timeout=5) as r:
                    r.read()
                break
            except OSError:
                time.sleep(0.02)
        ready = time.perf_counter() - t
        first = analysis_times(base, token, position, seed=0)
        again = analysis_times(base, token, position, seed=1)
        zero = zero_ply_time(base, token, position)
    finally:
        proc.terminate()
        proc.wait(10)
    return {"ready": ready, "first": first, "again": again, "zero": zero}


def board_section(cold: bool = True) -> None:
    rows = [("warm cache", dict(os.environ))]
    tmp = None
    if cold:
        tmp = tempfile.TemporaryDirectory()
        rows.append(("empty cache", dict(os.environ, NUMBA_CACHE_DIR=tmp.name)))
    print("| `gnoming-sim board` | ready to serve s | position set -> first update s | -> separated s "
          "(rollouts/option) | again on the warm process: first update s | separated s | 0-ply first table ms |")
    print("|---|---|---|---|---|---|---|")
    try:
        for name, env in rows:
            r = board_run(env)
            (f1, l1, n1, s1), (f2, l2, n2, s2) = r["first"], r["again"]
            print(f"| {name} | {r['ready']:.2f} | {f1:.2f} | {l1:.2f} ({n1:,}, {s1}) | {f2:.2f} | "
                  f"{l2:.2f} ({n2:,}, {s2}) | {1000 * r['zero']:.1f} |", flush=True)
    finally:
        if tmp is not None:
            tmp.cleanup()
    print(f"\n(the example position {os.path.relpath(POSITION)}: 10 options; load average "
          f"{os.getloadavg()[0]:.1f})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warm", action="store_true", help="the warm cache only")
    board_section(cold=not ap.parse_args(argv).warm)


if __name__ == "__main__":
    main()
