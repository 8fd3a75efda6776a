"""The ``gnoming-sim`` command: option parsing and checks, one module per command group.

The top stage: may import every other stage (the engine and studies only after the checks).
"""
from gnoming_sim.cli.app import cli, main

__all__ = ["cli", "main"]
