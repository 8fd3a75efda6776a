"""Many games: the chunked runner, Parquet files, the one per-game tally and the summaries,
interval statistics, Dask pools, scans of a batch file, and decision analysis by rollouts (until
it moves to its own package).  Tuning is :mod:`gnoming_sim.tune`, experiments
:mod:`gnoming_sim.experiments`.

May import :mod:`gnoming_sim.game` and :mod:`gnoming_sim.kernel`.
"""
