#!/bin/sh
# The agreement table's held-out loss: at every decision of the oracle-valued set
# (analyses/data/oracle/decisions.parquet) where the committed card's option is not the set's best, the two options
# valued again by 64 fresh oracle rollouts (their own seed stream). Tied to the card it ran with (its hash is in
# fresh.json): re-run after the card changes. Run from the repository root: sh tuning/agreement/run.sh; writes
# analyses/data/agreement/fresh.parquet (+ .json), package data the report reads.
# The previous table's rows of the same decision and options are copied, not rolled out again (--reuse).
set -e
prev=""
if [ -f analyses/data/agreement/fresh.parquet ]; then
    prev=$(mktemp --suffix=.parquet); mv analyses/data/agreement/fresh.parquet "$prev"; rm -f analyses/data/agreement/fresh.json
fi
nice -n 5 .venv/bin/python -m gnoming_sim.experiments.agreement_fresh --decisions analyses/data/oracle/decisions.parquet \
    --rollouts 64 --out analyses/data/agreement/fresh.parquet ${prev:+--reuse "$prev"}
