"""Read a TOML file, turning every failure into a one-line GnomingError.

The reading itself (regular files only, a size and a nesting limit) is
:func:`gnoming_sim.game.input_file.read_toml`; this name stays for the loaders that import it.
"""
from __future__ import annotations

from gnoming_sim.game.input_file import read_toml

__all__ = ["read_toml"]
