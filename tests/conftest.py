"""Shared fixtures.  No seeding here: every test that draws random numbers passes its own seed."""
from __future__ import annotations

import pytest


def pytest_configure(config):
    import numba

    if numba.config.DISABLE_JIT:  # interpreted, the xoshiro streams wrap around with NumPy's overflow warning
        config.addinivalue_line("filterwarnings", "ignore:overflow encountered:RuntimeWarning:gnoming_sim.kernel.rng")


@pytest.fixture(autouse=True)
def own_data_home(tmp_path_factory, monkeypatch):
    """Each test's own user data folder: `review` adds its marks to the drill deck there
    ($XDG_DATA_HOME/gnoming-sim/drills.parquet), never to the real one of whoever runs the tests."""
    home = tmp_path_factory.mktemp("data-home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


@pytest.fixture
def write_toml(tmp_path):
    """Write ``text`` to ``tmp_path/name`` and return the path."""

    def write(text: str, name: str = "file.toml"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def cli_run():
    """``cli_run(args, code=0, input=None)``: the command line in this process (click's CliRunner), its exit code
    asserted to be ``code`` (None: not checked, for a test that checks it itself), click's Result returned.
    ``args`` is a list; paths and numbers in it are passed as strings."""
    import os
    import traceback

    from click.testing import CliRunner

    from gnoming_sim.cli.app import cli

    def run(args, code: int | None = 0, input=None):
        result = CliRunner().invoke(cli, [os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in args],
                                    input=input)
        if code is not None:
            where = "".join(traceback.format_exception(*result.exc_info)) if result.exc_info else ""
            assert result.exit_code == code, (result.exit_code, result.output, where)
        return result

    return run


@pytest.fixture
def own_registry():
    """A strategy registry of the built-ins only, in use for the test: what the test registers
    (a strategies file, a tuned strategy) goes with it."""
    from gnoming_sim.kernel.policy import registry

    with registry.using(registry.Registry()) as reg:
        yield reg
