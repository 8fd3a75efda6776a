"""Strategies: the jitted decision dispatch, the heuristic family and its estimates, the registry.

Part of the kernel stage: may import :mod:`gnoming_sim.game` and the kernel's rng/scoring/jit.
"""
