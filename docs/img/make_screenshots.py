"""Make the board's screenshots of docs/board.md again, so they cannot go stale: the board's browser tests
(pytest-playwright on the system Chromium, /usr/bin/chromium) save each screenshot they take into this folder.

    .venv/bin/python docs/img/make_screenshots.py           # every screenshot of docs/board.md
    .venv/bin/python docs/img/make_screenshots.py play      # only the play mode's (board-play*.png)

The tests check what they show before each screenshot (a game dealt, a hint's table, the tutor's warning), so a
screenshot is written only of a page that works.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TESTS = {"play": ["tests/board/test_board_play_page.py"],
         "all": ["tests/board/test_board_page.py", "tests/board/test_board_play_page.py"]}


def main(argv: list[str]) -> int:
    which = argv[0] if argv else "all"
    if which not in TESTS:
        print(f"make_screenshots: say 'play' or nothing (all), not {which!r}", file=sys.stderr)
        return 2
    env = dict(os.environ, GNOMING_SCREENSHOTS=str(HERE))
    return subprocess.call([sys.executable, "-m", "pytest", "-n", "0", "-q", *TESTS[which]], cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
