#!/bin/sh
# Net self-play's finishing chances: the positions the played rules meet, for the finishing rule's check
# against the finishing study's (presets' self-play) decisions.  600 a table size from 600 games at 3-6 players (its
# own seed), finish, the card's play-on and net's own choice valued by 128 oracle rollouts each (common random
# numbers).  Run from the repository root; writes analyses/data/oracle/finish.parquet (+ .json), package data.
set -e
nice -n 5 .venv/bin/python -m gnoming_sim.experiments.oracle_decisions --players 3 4 5 6 --games 600 \
    --per-size 600 --rollouts 128 --kinds finish --few-options --seed 5020261205 --out analyses/data/oracle/finish.parquet
