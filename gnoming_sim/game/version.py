"""The installed distribution's version (``gnoming-sim --version``, file metadata)."""
from __future__ import annotations

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("gnoming-sim")
except _metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0"
