#!/bin/sh
# Does a 7-player tuning, started from `expert`, gain more than its interval over `expert` at 7 players?
set -u
start=$(date +%s)
timeout -s INT 560 gnoming-sim tune --players 7 --budget 420 --seed 7 --start expert --out tuned7.toml --name tuned7 --threads 1
echo "wall: $(( $(date +%s) - start )) s"
