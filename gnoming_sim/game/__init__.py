"""The game as data: cards, rules options, decks, result fields, trace codes, the observation layout.

Plain Python and numpy, no numba; imports nothing from the rest of gnoming_sim.
"""
