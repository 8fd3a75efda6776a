"""The referee: an independent pure-Python replay of the rules, its scoring, and game narration.

May import only :mod:`gnoming_sim.game` (it must share no rule code with the kernel).
"""
