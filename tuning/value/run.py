"""The training that produced gnoming_sim/kernel/value_weights.json (``make train-value`` runs it from the
repository root): gather self-play positions of the oracle's base player (``net``, every seat) at 2-7 players
over the net's spread of rules options, fit the value network (PyTorch, the ``[train]`` extra), recompute the
held-out losses with the kernel's forward pass and write the weights with their provenance.

    python tuning/value/run.py [--quick | --calibrate]

Chunks go to tuning/value/data/ (not committed; a chunk already there is reused); the log to
tuning/value/train.jsonl; the summary to tuning/value/fit.json.
"""
import json
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from gnoming_sim.tune import value_train as VT

HERE = Path(__file__).resolve().parent
WEIGHTS = HERE.parents[1] / "gnoming_sim" / "kernel" / "value_weights.json"


def main(quick: bool) -> None:
    cfg = VT.ValueConfig()
    if quick:
        cfg = replace(cfg, chunks=1, held_out_chunks=1, chunk=300, epochs=2)
    data = HERE / ("data-quick" if quick else "data")
    log = open(HERE / ("train-quick.jsonl" if quick else "train.jsonl"), "a")

    def progress(line):
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()

    t0 = time.perf_counter()
    train = VT.gather(cfg, data, False, progress)
    held = VT.gather(cfg, data, True, progress)
    gather_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    w, curve = VT.fit(cfg, train, progress)
    fit_s = time.perf_counter() - t1
    report = {"held_out": VT.held_out(w, held), "train": VT.held_out(w, train)}
    provenance = {"script": "tuning/value/run.py", "config": VT.config_dict(cfg),
                  "train_rows": int(len(train["x"])), "held_out_rows": int(len(held["x"])),
                  "train_digest": VT.data_digest(train), "held_out_digest": VT.data_digest(held),
                  "gather_seconds": round(gather_s), "fit_seconds": round(fit_s),
                  "machine": f"{platform.machine()}, 2 cores", "curve": [round(c, 5) for c in curve], **report}
    progress(json.dumps(report))
    if not quick:
        VT.write_weights(WEIGHTS, w, provenance)
        (HERE / "fit.json").write_text(json.dumps(provenance, indent=1) + "\n")
        calibrate(cfg, data)


def calibrate(cfg, data) -> None:
    """The installed weights' calibration on the held-out chunks: tuning/value/calibration.json."""
    from gnoming_sim.kernel.value_weights import read_weights

    held = VT.gather(cfg, data, True, print)
    from gnoming_sim.search.evaluator import calibration

    rows, reliability = calibration(read_weights(WEIGHTS), held)
    (HERE / "calibration.json").write_text(json.dumps({"by_players": rows, "reliability": reliability},
                                                      indent=1) + "\n")
    for r in rows:
        print(json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()}))


if __name__ == "__main__":
    if "--calibrate" in sys.argv[1:]:
        calibrate(VT.ValueConfig(), HERE / "data")
    else:
        main("--quick" in sys.argv[1:])
