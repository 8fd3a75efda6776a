"""Tuning a heuristic strategy by CMA-ES on the engine: the tuning run (:mod:`.tuner`), its search
space (:mod:`.space`), its resumable state (:mod:`.state`) and its files (:mod:`.output`).

May import :mod:`gnoming_sim.game`, :mod:`gnoming_sim.kernel` and :mod:`gnoming_sim.batch`.
"""
