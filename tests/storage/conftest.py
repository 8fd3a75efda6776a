"""The storage tests' fixtures: the fault seam installed for one test, a run in tmp_path."""
from __future__ import annotations

import pytest
from _storage import Faults


@pytest.fixture
def faults(monkeypatch):
    def install(**kwargs) -> Faults:
        return Faults(monkeypatch, **kwargs)
    return install


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run in tmp_path (commands are given relative names, as a user types them)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
