# Quick start: `make report`, `make test`.
# Both build .venv; gnoming-sim is then .venv/bin/gnoming-sim (or `source .venv/bin/activate`).
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
# One numba cache for the make targets and the installed command: the user's cache folder
# (~/.cache/gnoming-sim/<hash of the kernel sources>, gnoming_sim/kernel/disk_cache.py), so nothing compiles twice.

# Python caches compiled modules (and pytest its rewritten test modules) in __pycache__: an environment that
# turns this off (PYTHONDONTWRITEBYTECODE) makes every interpreter compile every module again, which cost a
# third of make test-fast's CPU; the make targets turn it back on.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup test test-fast test-nojit bench report golden train train-net train-value card card-redraw clean

# install, then compile the common kernel groups in parallel (both cores; a second or two once cached)
setup: $(STAMP)
	$(VENV)/bin/python -m gnoming_sim.cli.warmup

# re-install only when the project metadata changed
$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q -e '.[test]'
	touch $@

# every test (slow ones included); test-fast skips the long replays, reports, calibrations and Dask clusters,
# plays the rules grids at one table size and draws a tenth of each property test's examples (GNOMING_FAST_TESTS)
# in parallel on every core (pytest-xdist; a file's tests stay on one worker, so its fixtures are built once);
# the 20 slowest tests are listed at the end
test: setup
	$(VENV)/bin/python -m pytest -n auto --dist loadfile --durations=20

test-fast: setup
	GNOMING_FAST_TESTS=1 $(VENV)/bin/python -m pytest -m "not slow" -n auto --dist loadfile --durations=10

# the game and kernel tests with every kernel run as plain Python (NUMBA_DISABLE_JIT: slow, but a
# debugger can step through the rules); tests/kernel/test_nojit.py checks the same in a subprocess
test-nojit: $(STAMP)
	NUMBA_DISABLE_JIT=1 $(VENV)/bin/python -m pytest -m "not slow" tests/game tests/kernel

# rewrite tests/golden/fingerprints.json: only when behaviour is meant to change (say why in the commit)
golden: $(STAMP)
	$(VENV)/bin/python tests/golden/_golden.py --write

# re-train the learned player (tuning/learned/run.sh: 45 minutes on 2 busy cores, 37 minutes of CPU) and install its weights as the
# `learned` preset; commit tuning/learned/ and gnoming_sim/kernel/policy/learned_weights.json together
train: $(STAMP)
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH sh tuning/learned/run.sh
	cp tuning/learned/weights.json gnoming_sim/kernel/policy/learned_weights.json

# re-train the net player (tuning/net/run.sh: rollout targets of expert over a spread of rules options, then a scipy
# L-BFGS fit; its wall and CPU time are in tuning/net/run.out and time.txt) and install its weights as the `net` preset;
# commit tuning/net/ and gnoming_sim/kernel/policy/net_weights.json together (the chunks in tuning/net/data/ are not committed)
train-net: $(STAMP)
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH sh tuning/net/run.sh
	cp tuning/net/weights.json gnoming_sim/kernel/policy/net_weights.json

# re-train the value network (tuning/value/run.py: self-play of net at 2-7 players over the net's spread of rules options,
# a PyTorch fit: the [train] extra, torch==2.13.0 CPU) and install its weights (gnoming_sim/kernel/value_weights.json);
# commit tuning/value/ and the weights together (the chunks in tuning/value/data/ are not committed)
train-value: $(STAMP)
	$(VENV)/bin/python -m pip install -q -e '.[train]'
	$(VENV)/bin/python tuning/value/run.py

# re-derive the card: its policy iteration from the first derivation's card (tuning/guide/chart_cells.json, made by
# tuning/guide/run.sh, which this does not rerun), installed into card_cells.json's tables and card_provenance
# (the card-starred preset's cells are left as they are); commit tuning/guide-iteration/ and
# gnoming_sim/kernel/policy/card_cells.json together, then rerun tuning/agreement/run.sh (its table is tied to the card)
card: $(STAMP)
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH sh tuning/guide-iteration/run.sh

# redraw the printed cards from their committed data (a few seconds, no simulation): tuning/guide-iteration/card.png
# (the committed card, the one docs/card.md shows) and tuning/guide/card.png, each with its index.html; commit them
# when the drawing code changes (tests/tune/test_card_printed.py fails while a committed card is not what the code draws)
card-redraw: $(STAMP)
	$(VENV)/bin/python tuning/guide-iteration/page.py
	$(VENV)/bin/python tuning/guide/page.py

bench: $(STAMP)
	$(VENV)/bin/python bench/bench.py

# the HTML report: rewrites in place reports/ (index.html, figures, CSV, summary.json) and README.md's generated
# answers block. The committed report took 18 min 09 s on 2 busy cores of an AMD EPYC (LLVM host CPU znver4; load
# 4-5, a test suite beside it) with a warm numba cache (docs/report.md); a cold cache adds the compile, a busy machine several times as long
# (over 20 minutes on 2 shared cores); `gnoming-sim report --quick` previews it in about 30 s
# no `setup` first: the report compiles the kernel groups in worker processes itself, and runs each study as soon
# as the groups it plays are ready (the Monte Carlo group, the longest, is needed by the ladder alone)
report: $(STAMP)
	$(VENV)/bin/gnoming-sim report --out reports
	$(VENV)/bin/python -m gnoming_sim.analyses.headlines README.md reports/summary.json

clean:
	rm -rf .numba_cache .pytest_cache .hypothesis build dist *.egg-info
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +
