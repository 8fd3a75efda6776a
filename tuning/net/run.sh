#!/bin/sh
# The training that produced the `net` preset (gnoming_sim/kernel/policy/net_weights.json).
# `make train-net` runs it from the repository root and installs the weights.  The rollout chunks go to
# tuning/net/data/ (not committed; a chunk already there is reused, so delete the folder for a clean run).
set -eu
start=$(date +%s)
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net --teacher expert --budget 64 \
    --players 2,3,4,5,6,7 --chunks 8 --chunk 150 --p-sample 0.3 --maxiter 300 --seed 1 \
    2> tuning/net/time.txt | tee tuning/net/run.out
echo "wall: $(( $(date +%s) - start )) s" | tee -a tuning/net/run.out
