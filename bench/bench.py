"""Throughput benchmark: ``make bench``.

Prints a Markdown table of games/s and rounds/s for each (players, strategy, threads),
then the numba compile and cache-load times, the peak memory of a batch streamed to
Parquet, and how that batch's wall time splits between the engine and the writer.

    python bench/bench.py                # the README table (a few minutes on 2 cores)
    python bench/bench.py --quick        # a smoke run
    python bench/bench.py --compile      # only the cold compile of each command (fresh cache folders)
    python bench/bench.py --rollouts     # only the rollout section: rollouts/s at 2-7 players and the
                                         # wall time of an `analyse` call to a +-0.1 half-width
    python bench/bench.py --board        # only the board's times (bench/board_bench.py): ready to serve,
                                         # first streamed update, separated verdict; warm and empty cache
    python bench/bench.py --play         # only the board's play mode (bench/play_bench.py): a click to the
                                         # page's update, another seat's turn, the end of a game to its review
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

import numba

from gnoming_sim.kernel.engine import simulate

PRESETS = ("random", "greedy", "builder", "rusher", "cautious", "expert", "learned", "net")   # the fast players


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    try:
        layer = numba.threading_layer()
    except ValueError:   # no parallel kernel ran yet (the games run on a pool of Python threads)
        layer = "not started"
    return (f"{model}, {os.cpu_count()} cores, {mem:.0f} GiB; Python {platform.python_version()}, "
            f"numba {numba.__version__}, threading layer {layer}")


def throughput(players, strategy, threads, games, seed=1):
    t = time.perf_counter()
    simulate(players=players, strategies=[strategy], games=games, seed=seed, threads=threads)
    dt = time.perf_counter() - t
    return games / dt, 3 * games / dt


EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
# a command's arguments after `gnoming-sim` ({tmp}: a scratch folder)
COMMANDS = {
    "simulate greedy": ["simulate", "--players", "4", "--strategy", "greedy", "--games", "1000"],
    "simulate learned": ["simulate", "--players", "4", "--strategy", "learned", "--games", "1000"],
    "play": ["play", "--players", "3", "--seats", "greedy,builder,random", "--seed", "1", "--game", "0",
             "--round", "1"],
    "analyse": ["analyse", "--position", os.path.join(EXAMPLES, "position.toml"), "--rollouts", "200"],
    "report --quick": ["report", "--quick", "--out", "{tmp}/quick"],
}


def _timed(args, env, tmp):
    t, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "gnoming_sim", *[a.format(tmp=tmp) for a in args]], env=env,
                   check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - t, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def command_compile_times(names=tuple(COMMANDS)):
    """Per command: (wall s, CPU s) with an empty numba cache (everything it uses compiles), then
    (wall s, CPU s) run again on the cache just written."""
    rows = {}
    for name in names:
        with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            cold = _timed(COMMANDS[name], env, tmp)
            warm = _timed(COMMANDS[name], env, tmp)
        rows[name] = (cold, warm)
    return rows


def compile_section(names=tuple(COMMANDS)):
    print("| command (after `gnoming-sim`) | empty cache: wall s | CPU s | cached: wall s | CPU s |")
    print("|---|---|---|---|---|")
    for name, ((cw, cc), (ww, wc)) in command_compile_times(names).items():
        print(f"| {name} | {cw:.1f} | {cc:.1f} | {ww:.1f} | {wc:.1f} |", flush=True)


_STREAM = """
import resource, sys, time
from gnoming_sim.batch.runner import BatchSpec, run_batch
from gnoming_sim.kernel.engine import simulate
games, out = int(sys.argv[1]), sys.argv[2]
simulate(players=4, strategies=['greedy'], games=10)
spec = BatchSpec.make(players=4, strategies=['greedy'], games=games, seed=7)
t = time.perf_counter(); run_batch(spec, out, force=True); batch = time.perf_counter() - t
t = time.perf_counter()
for lo in range(0, games, 20000):
    simulate(players=4, strategies=['greedy'], games=min(20000, games - lo), seed=7, first_game=lo)
engine = time.perf_counter() - t
print(batch, engine, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def streamed(games):
    """(batch wall s, engine-only wall s, peak RSS MiB) for a greedy batch written to Parquet."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.check_output([sys.executable, "-c", _STREAM, str(games),
                                       os.path.join(tmp, "b.parquet")])
    batch, engine, rss = map(float, out.split())
    return batch, engine, rss


TWO_OPTIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "two_options.toml")


def rollout_rates(players, threads, per_position=4000, positions=4):
    """(wall rollouts/s, CPU rollouts/s) from mid-round positions (3 turns per seat played) of
    ``builder`` games, ``builder`` base policy, round horizon; one rollout = one option played out."""
    from gnoming_sim.search.estimates import position_from_game, run_rollouts, setup

    wall = cpu = 0.0
    done = 0
    for g in range(positions):
        pos = position_from_game(1, g, 3 * players, players, ["builder"] * players)
        s = setup(pos, ["builder"])
        run_rollouts(s, 20, 1, horizon="round", threads=threads)
        t, c = time.perf_counter(), time.process_time()
        run_rollouts(s, per_position, 1, horizon="round", threads=threads)
        wall += time.perf_counter() - t
        cpu += time.process_time() - c
        done += per_position * len(s.options)
    return done / wall, done * threads / cpu


def analyse_wall(half_width=0.1):
    """Wall seconds of `gnoming-sim analyse` on a two-option decision to +-half_width (warm cache),
    and the rollouts per option it needed."""
    import json

    cmd = [sys.executable, "-m", "gnoming_sim.cli.app", "analyse", "--position", TWO_OPTIONS, "--policy", "builder",
           "--half-width", str(half_width), "--json"]
    subprocess.run(cmd[:8] + ["--rollouts", "10"], check=True, capture_output=True)   # warm the cache
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    res = json.loads(out)
    return time.perf_counter() - t, res["n"], res["adaptive"]["pilot"], res["half_width"]


def rollout_section(players=(2, 3, 4, 5, 6, 7), threads=(1, 2)):
    print("| players | " + " | ".join(f"rollouts/s wall ({t} thr) | CPU-time rate ({t} thr)" for t in threads) + " |")
    print("|---|" + "---|---|" * len(threads))
    for p in players:
        cells = []
        for t in threads:
            w, c = rollout_rates(p, t)
            cells += [f"{w:,.0f}", f"{c:,.0f}"]
        print(f"| {p} | " + " | ".join(cells) + " |", flush=True)
    wall, n, pilot, hw = analyse_wall()
    print(f"\n`analyse` of a two-option decision ({os.path.relpath(TWO_OPTIONS)}) to +-0.1: {wall:.1f} s wall "
          f"(pilot {pilot:,} + confirmatory {n:,} rollouts per option, half-width reached {hw:.3f}); "
          f"load average {os.getloadavg()[0]:.1f}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40_000, help="games per cell (random: 4x)")
    ap.add_argument("--players", default="3,4,7")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--strategies", default=",".join(PRESETS))
    ap.add_argument("--stream-games", type=int, default=400_000)
    ap.add_argument("--quick", action="store_true", help="small sizes, for a smoke test")
    ap.add_argument("--rollouts", action="store_true", help="only the rollout section")
    ap.add_argument("--compile", action="store_true", help="only the cold-compile table of the commands")
    ap.add_argument("--board", action="store_true", help="only the board's times")
    ap.add_argument("--play", action="store_true", help="only the board's play mode times")
    ap.add_argument("--value", action="store_true", help="only the value network's times")
    args = ap.parse_args(argv)
    if args.board:
        from board_bench import board_section

        print(f"machine: {machine()}\n")
        board_section()
        return
    if args.play:
        from play_bench import play_section

        print(f"machine: {machine()}\n")
        play_section()
        return
    if args.value:
        from value_bench import value_section

        print(f"machine: {machine()}\n")
        value_section()
        return
    if args.compile:
        print(f"machine: {machine()}\n")
        compile_section()
        return
    if args.rollouts:
        simulate(players=4, strategies=["greedy"], games=10)  # load the kernels (and the threading layer)
        print(f"machine: {machine()}\n")
        rollout_section()
        return
    if args.quick:
        args.games, args.stream_games = 2_000, 20_000
    players = [int(p) for p in args.players.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    names = args.strategies.split(",")

    simulate(players=4, strategies=["greedy"], games=10)  # load or compile the kernels
    print(f"machine: {machine()}\n")
    print("| players | strategy | " + " | ".join(f"games/s ({t} thr)" for t in threads)
          + " | rounds/s (max thr) | speed-up |")
    print("|---|---|" + "---|" * len(threads) + "---|---|")
    for p in players:
        for name in names:
            n = args.games * (4 if name == "random" else 1)
            rates = [throughput(p, name, t, n) for t in threads]
            cells = " | ".join(f"{g:,.0f}" for g, _ in rates)
            print(f"| {p} | {name} | {cells} | {rates[-1][1]:,.0f} | "
                  f"{rates[-1][0] / rates[0][0]:.2f}x |", flush=True)
    print("\nEach command's first run with an empty numba cache (it compiles what it uses), then cached:\n")
    compile_section(("simulate greedy", "play") if args.quick else tuple(COMMANDS))
    batch, engine, rss = streamed(args.stream_games)
    print(f"{args.stream_games:,} greedy 4-player games streamed to Parquet: {batch:.1f} s "
          f"({args.stream_games / batch:,.0f} games/s), engine alone {engine:.1f} s "
          f"(engine {100 * engine / batch:.0f}%, Parquet writer and tally {100 * (batch - engine) / batch:.0f}%), "
          f"peak RSS {rss:.0f} MiB")
    print()
    rollout_section()
    from board_bench import board_section   # bench/ is on sys.path: this script's folder

    print("\nThe board (`gnoming-sim board`), the example position set as soon as it answers, then again:\n")
    board_section(cold=not args.quick)
    from play_bench import play_section

    print("\nThe board's play mode (a game played through its routes as the page plays it, then reviewed):\n")
    play_section()
    from value_bench import value_section

    print("\nThe value network (0-ply: each option valued by the network at the next decision of another seat, "
          "the mean over deals of the unseen cards):\n")
    value_section(10 if args.quick else 50)


if __name__ == "__main__":
    main()
