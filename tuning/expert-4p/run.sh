#!/bin/sh
# The tuning that produced the `expert` preset, in chunks of < 10 minutes (each continues with --resume).
set -u
CMD="gnoming-sim tune --players 4 --budget 1200 --seed 1 --out tuned.toml --threads 1"
start=$(date +%s)
timeout -s INT 560 $CMD
for i in 2 3 4; do
  timeout -s INT 560 $CMD --resume && break
done
echo "wall: $(( $(date +%s) - start )) s"
