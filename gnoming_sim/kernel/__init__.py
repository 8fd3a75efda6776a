"""The jitted core: rng streams, scoring, table set-up, turns, the game loop, policies, ``engine``.

May import only :mod:`gnoming_sim.game`; ``engine`` is the Python front door to the kernels.
"""
