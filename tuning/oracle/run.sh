#!/bin/sh
# The oracle-valued decision set: net self-play at 3-6 players, 600 decisions a table size
# (take 150, a hazard drawn blind 150, a mulligan 150, other placements 75, finishing chances 75), every legal
# option valued by 64 oracle rollouts (net at every seat, the chance of winning the game), common random numbers.
# Run from the repository root; writes analyses/data/oracle/decisions.parquet (+ .json provenance), package data the report reads.
set -e
nice -n 5 .venv/bin/python -m gnoming_sim.experiments.oracle_decisions --players 3 4 5 6 --games 300 \
    --per-size 600 --rollouts 64 --out analyses/data/oracle/decisions.parquet
