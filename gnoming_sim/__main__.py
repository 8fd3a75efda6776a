"""``python -m gnoming_sim``: the same as the ``gnoming-sim`` command."""
from gnoming_sim.cli import main

main()
