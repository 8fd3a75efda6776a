#!/bin/sh
# The policy iteration that made the committed card (issue 50 item 3): from the committed card with its defaults
# made explicit, rounds of play (one card seat among net rivals at 2-7 players), covered decisions sampled per cell
# and valued by the oracle (win chance at the game horizon, the card in the seat to move, net elsewhere), a cell
# changed when another action beats it by more than 2 clustered standard errors. Run from the repository root;
# run.out is its output; history.json/csv and cells.json its files; at the end it puts the card into
# gnoming_sim/kernel/policy/chart_cells.json's "tables" and "card_provenance" (the chart preset's "cells" are left
# as they are). margins.py measures the card's margins (margins-before.json: the card before; margins-after.json:
# this one, on the report's guide study's deals).
set -eu
start=$(date +%s)
# stage 1: rounds of 120 games per table size, 6,000 decisions valued with 16 rollouts each, until no cell changes
.venv/bin/python -m gnoming_sim.tune.card_output --out tuning/guide-iteration/stage1 --rounds 4 --games 120 \
    --decisions 6000 --rollouts 16 --seed 1 --force
# stage 2: one more round, larger (150 games per size, 8,000 decisions, 24 rollouts each): the cells stage 1 could
# not separate at its power; its files (every round, both stages) are the ones installed
.venv/bin/python -m gnoming_sim.tune.card_output --out tuning/guide-iteration --continue-from \
    tuning/guide-iteration/stage1 --rounds 1 --games 150 --decisions 8000 --rollouts 24 --seed 1 --force
.venv/bin/python -m gnoming_sim.tune.card_output --install tuning/guide-iteration/cells.json
.venv/bin/python tuning/guide-iteration/page.py      # card.png and index.html (with margins-after.json's margins)
echo "wall: $(( $(date +%s) - start )) s"
