#!/bin/sh
# The first derivation of the card and the `card-starred` preset's cells (gnoming_sim/kernel/policy/card_cells.json's
# "cells"). Run from the repository root; run.out is its output. It was run as `gnoming-sim guide`, which wrote
# guide.json and chart_cells.json; `gnoming-sim card` names them card.json and card_cells.json.
set -eu
start=$(date +%s)
gnoming-sim card --out tuning/guide --games 20000 --players 2,3,4,5,6,7 --budget 8 --rollouts expert \
    --check-deals 5000 --ladder-games 2000 --seed 1 --force
echo "wall: $(( $(date +%s) - start )) s"
