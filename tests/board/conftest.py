"""Fixtures of the board's tests: a board served by uvicorn in a thread (one per input, per module), and
pytest-playwright driving the system Chromium (Playwright's own browser download is not used)."""
from __future__ import annotations

import os
import shutil
import socket
import threading
import time

import pytest

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")   # as tests/analyses/_pages.py

# the flags the report pages' Chromium runs with (tests/analyses/_pages.py): no network beyond the board
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def base_url():
    """No base URL (each test names its board's): overrides pytest-playwright's fallback fixture, a method
    of a class, which this pytest warns about (and warnings are errors here)."""
    return None


def chromium() -> str | None:
    return next((path for path in map(shutil.which, CHROMIUM_NAMES) if path), None)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    path = chromium()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing on CI (.ci/run installs Debian's chromium)")
        pytest.skip("Chromium is not installed")
    return {**browser_type_launch_args, "executable_path": path, "args": CHROMIUM_ARGS}


class Served:
    """A board served on 127.0.0.1 in a thread: ``url`` (the page's, with its token), ``origin``, ``board`` (its
    state), ``stop()``."""

    def __init__(self, opened, threads: int | None = None, drill_deck=None):
        import uvicorn

        from gnoming_sim.cli.board.server import Board, make_app
        from gnoming_sim.game.deck import PUBLISHED
        from gnoming_sim.game.rules import RuleConfig

        self.board = Board(opened, RuleConfig(), PUBLISHED, threads=threads, drill_deck=drill_deck)
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.origin = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.url = f"{self.origin}/?token={self.board.token}"   # the address the command prints and opens
        self.server = uvicorn.Server(uvicorn.Config(make_app(self.board), log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                break
            time.sleep(0.05)

    def stop(self) -> None:
        for live in self.board.jobs.values():
            live.cancel()
        self.server.should_exit = True
        self.thread.join(10)
        self.board.worker.shutdown(wait=True)


@pytest.fixture
def shots(tmp_path):
    """Where the page tests save their screenshots: GNOMING_SCREENSHOTS (docs/img for docs/board.md), or a
    temporary folder."""
    from pathlib import Path

    folder = os.environ.get("GNOMING_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
    return Path(folder) if folder else tmp_path


@pytest.fixture(scope="module")
def serve():
    """``serve(opened)``: a :class:`Served` board of ``opened``, stopped when the module's tests are done."""
    made = []

    def make(opened, threads: int | None = None, drill_deck=None) -> Served:
        made.append(Served(opened, threads, drill_deck))
        return made[-1]

    yield make
    for served in made:
        served.stop()
