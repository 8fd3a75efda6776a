"""The tests' examples: the committed example position (examples/position.toml), and how much a sized test
draws: all of it in ``make test``, a fraction in ``make test-fast`` (which sets ``GNOMING_FAST_TESTS=1``), so the
quick run still draws every kind of case.  (tests/ is on sys.path: pytest puts the folder of the root conftest.py
there.)"""
import os
from pathlib import Path

FAST = os.environ.get("GNOMING_FAST_TESTS") == "1"

POSITION = Path(__file__).resolve().parents[1] / "examples" / "position.toml"   # 2 players, a draw decision


def position():
    """examples/position.toml read by the position reader: a new Position at each call, so a test may change it."""
    from gnoming_sim.game.position import from_toml

    return from_toml(POSITION)


def examples(n: int) -> int:
    """A property test's examples: a tenth of ``n`` (at least 20) in test-fast."""
    return max(20, n // 10) if FAST else n


def games(n: int) -> int:
    """A replay's games: two fifths of ``n`` (at least 50) in test-fast."""
    return max(50, 2 * n // 5) if FAST else n
