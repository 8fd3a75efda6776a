"""Entry point of ``gnoming-sim``: the command group with every command registered."""
from __future__ import annotations

import sys

from gnoming_sim.cli import (analyse, card, compare, drill, info, ladder, play, report, review,  # noqa: F401
                             simulate, train, tune)  # (each registers its commands)
from gnoming_sim.cli.board import command as _board  # noqa: F401  (registers `board`; imports no server)
from gnoming_sim.cli.group import PROG, UserError, cli
from gnoming_sim.game.errors import GnomingError, one_line

__all__ = ["cli", "main"]


def main(argv=None) -> None:
    """Console-script entry point: a GnomingError from anywhere becomes one line and exit 2."""
    try:
        cli.main(args=argv, prog_name=PROG, standalone_mode=True)
    except GnomingError as exc:
        UserError(one_line(str(exc))).show()
        sys.exit(2)


if __name__ == "__main__":
    main()
