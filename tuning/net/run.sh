#!/bin/sh
# The training that produced the `net` preset (gnoming_sim/kernel/policy/net_weights.json).
# `make train-net` runs it from the repository root and installs the weights.
# 1. rollout targets of expert (64 rollouts per answer) at 2-7 players, 6 chunks of 150 rounds per table size,
#    each chunk under one rules variant (half published); chunks in tuning/net/data/ (not committed; a chunk already
#    there is reused, so delete the folder for a clean run); log: tuning/net/gather.jsonl
# 2. rollout targets of learned (32 rollouts, the stronger but 14x dearer teacher: tuning/net/teacher-64.out),
#    2 chunks of 100 rounds per table size, another seed; chunks in tuning/net/data-learned/
# 3. the fit of both (scipy L-BFGS-B) and the validation check; weights and curve in tuning/net/fit-both/, copied to tuning/net/
set -eu
start=$(date +%s)
{
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net --data tuning/net/data --teacher expert \
    --budget 64 --players 2,3,4,5,6,7 --chunks 6 --chunk 150 --p-sample 0.3 --seed 1 --gather-only
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/learned-teacher --data tuning/net/data-learned \
    --teacher learned --budget 32 --players 2,3,4,5,6,7 --chunks 2 --chunk 100 --p-sample 0.3 --seed 2 --gather-only
/usr/bin/time -v python -m gnoming_sim.tune.net_train --out tuning/net/fit-both --data tuning/net/data,tuning/net/data-learned \
    --fit-only --maxiter 150 --seed 1
} 2> tuning/net/time.txt | tee tuning/net/run.out
cp tuning/net/fit-both/weights.json tuning/net/fit-both/log.csv tuning/net/
echo "wall: $(( $(date +%s) - start )) s" | tee -a tuning/net/run.out
