"""The value network's speed (``make bench``; ``python bench/bench.py --value`` alone): one evaluation of a
position, a decision's 0-ply table at 16 and 64 determinizations (median of repeated warm calls, one thread
and every thread), the review of a whole game (0-ply screening, truncated rollouts), and self-play positions
gathered per second for its training; the value player's games per second (one ``value`` seat among three
``net`` seats at 4 players, the measure of its target), and the board's first table after a change (the 0-ply
table of the analysis view)."""
import statistics
import time
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _median_ms(call, repeat):
    call()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def value_section(repeat: int = 50) -> None:
    from gnoming_sim.game.position import from_toml
    from gnoming_sim.search import evaluator
    from gnoming_sim.search.sampler import value_positions

    print("| what | median wall |\n|---|---|")
    for name in ("position.toml", "finish-3p-round2.toml"):
        pos = from_toml(EXAMPLES / name)
        ms = _median_ms(lambda: evaluator.position_values(pos), repeat)
        print(f"| {name}: the value network at the position (every seat's win chance) | {ms:.2f} ms |")
        for n in (16, 64):
            for threads in (1, None):
                ms = _median_ms(lambda: evaluator.zero_ply(pos, determinizations=n, threads=threads), repeat)
                print(f"| {name}: 0-ply table, {len(evaluator.zero_ply(pos)['options'])} options, {n} deals, "
                      f"{'1 thread' if threads == 1 else 'every thread'} | {ms:.2f} ms |", flush=True)
    import subprocess
    import sys
    import tempfile

    record = EXAMPLES / "review-record.toml"
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "gnoming_sim", "review", str(record), "--out", f"{tmp}/rv", "--no-drills",
               "--why-rollouts", "0"]
        subprocess.run(cmd + ["--confirm", "20"], check=True, capture_output=True)   # compile, warm the cache
        t0 = time.perf_counter()
        subprocess.run(cmd + ["--force"], check=True, capture_output=True)
        wall = time.perf_counter() - t0
    print(f"| review of examples/review-record.toml (a 3-round 4-player game, 46 decisions) at the defaults, "
          f"no explanations | {wall:.1f} s |")
    value_positions(4, "net", 50, seed=1)
    t0 = time.perf_counter()
    d = value_positions(4, "net", 4000, seed=1, first_game=10_000)
    s = time.perf_counter() - t0
    print(f"| training data: 4,000 net games at 4 players, {len(d['x']):,} positions | {s:.1f} s "
          f"({4000 / s:,.0f} games/s) |")
    from gnoming_sim.experiments.value_eval import seat_outcomes

    seat_outcomes("value", 4, 4)   # compile or load
    *_, s = seat_outcomes("value", 4, 400)
    print(f"| the value player: 400 games at 4 players, one `value` seat among three `net` seats (target "
          f"1,000 games/s) | {s:.1f} s ({400 / s:,.0f} games/s) |")
    pos = from_toml(EXAMPLES / "position.toml")
    ms = _median_ms(lambda: evaluator.zero_ply(pos, determinizations=64), 10)
    print(f"| the board's first table after a change: the 0-ply table it asks for (64 deals, every thread; target "
          f"0.2 s) | {ms / 1000:.3f} s |")


if __name__ == "__main__":
    value_section()
