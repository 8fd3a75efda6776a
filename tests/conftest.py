"""Shared fixtures.  No seeding here: every test that draws random numbers passes its own seed."""
from __future__ import annotations

import pytest


def pytest_configure(config):
    import numba

    if numba.config.DISABLE_JIT:  # interpreted, the xoshiro streams wrap around with NumPy's overflow warning
        config.addinivalue_line("filterwarnings", "ignore:overflow encountered:RuntimeWarning:gnoming_sim.kernel.rng")


@pytest.fixture(scope="session")
def data_homes(tmp_path_factory):
    """The folder of the tests' user data folders, and their numbers (one folder beside the tests' own temporary
    folders: a numbered folder per test there would make finding the next free number slower with every test)."""
    import itertools

    return tmp_path_factory.mktemp("data-homes"), itertools.count()


@pytest.fixture(autouse=True)
def own_data_home(data_homes, monkeypatch):
    """Each test's own user data folder: `review` adds its marks to the drill deck there
    ($XDG_DATA_HOME/gnoming-sim/drills.parquet), never to the real one of whoever runs the tests."""
    root, numbers = data_homes
    home = root / str(next(numbers))
    home.mkdir()
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


@pytest.fixture(scope="session")
def chromium() -> list[str]:
    """The command that starts the system's headless Chromium, path and flags (no network but the page's own;
    Playwright's own browser download is not used).  Without Chromium the test is skipped, except on CI, where
    .ci/run installs Debian's chromium."""
    import os
    import shutil

    path = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome",
                                                "google-chrome-stable"))), None)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing on CI (.ci/run installs Debian's chromium)")
        pytest.skip("Chromium is not installed")
    return [path, "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args, chromium):
    """pytest-playwright's browser (the ``page`` fixture) is the system Chromium of :func:`chromium`."""
    return {**browser_type_launch_args, "executable_path": chromium[0], "args": chromium[1:]}


@pytest.fixture(scope="session")
def base_url():
    """No base URL (each page test names its page's): overrides pytest-playwright's fallback fixture, a method
    of a class, which this pytest warns about (and warnings are errors here)."""
    return None


@pytest.fixture
def own_registry():
    """A strategy registry of the built-ins only, in use for the test: what the test registers
    (a strategies file, a tuned strategy) goes with it."""
    from gnoming_sim.kernel.policy import registry

    with registry.using(registry.Registry()) as reg:
        yield reg
