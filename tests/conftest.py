"""Shared fixtures.  No seeding here: every test that draws random numbers passes its own seed."""
from __future__ import annotations

import pytest


@pytest.fixture
def write_toml(tmp_path):
    """Write ``text`` to ``tmp_path/name`` and return the path."""

    def write(text: str, name: str = "file.toml"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture
def own_registry():
    """A strategy registry of the built-ins only, in use for the test: what the test registers
    (a strategies file, a tuned strategy) goes with it."""
    from gnoming_sim.kernel.policy import registry

    with registry.using(registry.Registry()) as reg:
        yield reg
