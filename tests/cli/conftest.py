"""Fixtures of the command-line tests."""
from __future__ import annotations

import sys
import types

import pytest


@pytest.fixture
def no_engine(monkeypatch):
    """The engine replaced by one that fails: proves each error comes before any game is played."""
    fake = types.ModuleType("gnoming_sim.kernel.engine")

    def simulate(**kwargs):
        raise AssertionError("simulation started despite a user error")

    fake.simulate = simulate
    monkeypatch.setitem(sys.modules, "gnoming_sim.kernel.engine", fake)
