#!/bin/sh
# The policy iteration that made the committed card: from the first derivation's printed card
# (tuning/guide/chart_cells.json's tables) with its defaults made explicit, rounds of play (one card seat among net
# rivals at 2-7 players), covered decisions sampled per cell and valued by the oracle (win chance at the game
# horizon, the card in the seat to move, net elsewhere), a cell changed when another action beats it by more than
# 2 clustered standard errors. Run from the repository root (`make card` runs it); run.out is its output;
# history.json/csv and cells.json its files; it puts the card into gnoming_sim/kernel/policy/card_cells.json's
# "tables" and "card_provenance" (the card-starred preset's "cells" are left as they are). margins.py measures the card's
# margins (margins-before.json: the card before; margins-after.json: this one), on its own deals apart from the report's
# card study's; power.py (not run here) checks the derivation with power.
set -eu
start=$(date +%s)
run="gnoming-sim card --iterate"
install="gnoming-sim card --install"
# stage 1: rounds of 120 games per table size, 6,000 decisions valued with 16 rollouts each, until no cell changes
$run --out tuning/guide-iteration/stage1 --start tuning/guide/chart_cells.json --rounds 4 --games 120 \
    --decisions 6000 --budget 16 --seed 1 --force
# stage 2: one more round, larger (150 games per size, 8,000 decisions, 24 rollouts each): the cells stage 1 could
# not separate at its power; its files (every round, both stages) are the ones installed
$run --out tuning/guide-iteration --continue-from tuning/guide-iteration/stage1 --rounds 1 --games 150 \
    --decisions 8000 --budget 24 --seed 1 --force
$install tuning/guide-iteration/cells.json
.venv/bin/python tuning/guide-iteration/page.py      # card.png and index.html (with margins-after.json's margins)
# stage 3, the check that the installed card has converged: rounds 5 on (at most 4, until no cell changes), 9,000
# decisions a round, the focus cells sampled up to 4 times the others' cap (focus.py: the cells that come up often
# at 4 players and whose last interval held 0, or where the card and expert disagree often, from disagree.py's 150
# games of experts and the installed card's history). Round 5 changed no cell, so nothing of it is installed (the
# card it would install plays exactly as the installed one); its files are in stage3/
$run --out tuning/guide-iteration/stage3 --continue-from tuning/guide-iteration --rounds 4 --games 150 \
    --decisions 9000 --budget 24 --seed 1 --force --focus-weight 4 \
    --focus 7,8,10,11,12,14,15,17,21,22,44,49,56,63,71,92,94,99,102,103,106,110,145,154,163,172
# stage 4: rounds 6 on, the take table split by the player's own face-down cards (kernel/policy/card.py's banded cells, every one
# at its take cell's action at the start: the same play); the split cells of the four take cells above (8, 10, 15,
# 22) sampled up to 6 times the others' cap. Round 6 changed 2 cells, round 7 none: converged; installed (its
# history holds rounds 1-7)
$run --out tuning/guide-iteration/stage4 --continue-from tuning/guide-iteration/stage3 --rounds 3 --games 150 \
    --decisions 9000 --budget 24 --seed 1 --force --focus-weight 6 \
    --focus 204,205,206,210,211,212,225,226,227,246,247,248
$install tuning/guide-iteration/stage4/cells.json
.venv/bin/python tuning/guide-iteration/margins.py gnoming_sim/kernel/policy/card_cells.json \
    tuning/guide-iteration/margins-after.json 3000
.venv/bin/python tuning/guide-iteration/page.py
echo "wall: $(( $(date +%s) - start )) s"
