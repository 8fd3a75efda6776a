"""Many games: the chunked runner, Parquet files, summaries, interval statistics, Dask pools.

May import :mod:`gnoming_sim.game` and :mod:`gnoming_sim.kernel`.
"""
