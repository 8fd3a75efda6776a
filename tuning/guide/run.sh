#!/bin/sh
# The derivation that produced the player's guide and the `chart` preset's cells
# (gnoming_sim/kernel/policy/chart_cells.json). `make guide` runs it from the repository root and
# installs the cells; run.out is its output.
set -eu
start=$(date +%s)
gnoming-sim guide --out tuning/guide --games 20000 --players 2,3,4,5,6,7 --budget 8 --rollouts expert \
    --check-deals 5000 --ladder-games 2000 --seed 1 --force
echo "wall: $(( $(date +%s) - start )) s"
