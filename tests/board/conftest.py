"""Fixtures of the board's tests: a board served by uvicorn in a thread (one per input, per module).  The page
tests' browser is pytest-playwright on the system Chromium (tests/conftest.py)."""
from __future__ import annotations

import os
import socket
import threading
import time

import pytest


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
