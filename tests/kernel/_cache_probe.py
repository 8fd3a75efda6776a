"""A tiny kernel for the cache's fault-injection tests (test_cache_heal.py): loaded as a module of
``gnoming_sim`` (so the project's cache places it) from a copy in a temporary folder."""


def add_one(x):
    return x + 1
