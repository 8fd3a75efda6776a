"""The jitted core: rng streams, scoring, the table and its state record, the turn's effects,
the action-level API (``step``: legal actions and step), the game loop, the policies, ``engine``.

May import only :mod:`gnoming_sim.game`; ``engine`` is the Python front door to the kernels.
"""
