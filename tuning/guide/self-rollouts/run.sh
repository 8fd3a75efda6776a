#!/bin/sh
# The first derivation of the guide, with learned itself as the rollouts' policy (before `--rollouts`
# existed this was the only one; `--rollouts self` is the same now). Its chart scored 2.31 points a game
# WORSE than expert (guide.json "check"; see docs/guide.md): the cells were valued on top of learned's
# play, the chart plays expert's around them. Kept as provenance; the committed guide is ../run.sh.
set -eu
start=$(date +%s)
gnoming-sim guide --out tuning/guide/self-rollouts --games 3000 --players 2,3,4,5,6,7 --budget 8 --rollouts self \
    --check-deals 2000 --ladder-games 1000 --seed 1 --force
echo "wall: $(( $(date +%s) - start )) s"
