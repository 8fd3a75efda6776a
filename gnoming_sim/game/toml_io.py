"""Read a TOML file, turning every failure into a one-line GnomingError."""
from __future__ import annotations

import tomllib
from pathlib import Path

from gnoming_sim.game.errors import GnomingError


def read_toml(path, what: str) -> dict:
    p = Path(path)
    try:
        with p.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise GnomingError(f"{what} file not found: {p}") from None
    except IsADirectoryError:
        raise GnomingError(f"{what} file is a directory: {p}") from None
    except PermissionError:
        raise GnomingError(f"{what} file not readable: {p}") from None
    except tomllib.TOMLDecodeError as exc:
        raise GnomingError(f"{what} file {p} is not valid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise GnomingError(f"{what} file {p} is not valid TOML: not UTF-8 text") from None
