#!/bin/sh
# The training that produced the `learned` preset (gnoming_sim/kernel/policy/learned_weights.json).
# `make train` runs it from the repository root and installs the weights.
set -eu
start=$(date +%s)
gnoming-sim train --out tuning/learned --iterations 4 --games 2000 --players 2,4,6 --budget 16 --seed 1 --force
echo "wall: $(( $(date +%s) - start )) s"
