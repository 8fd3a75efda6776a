"""The drill deck at the door, under a lock and through a link: a damaged deck (bad values, wrong types,
nulls, dates out of range, numbers as strings, NaN, ``options`` nested 10,000 deep) is one line and exit 2
for ``drill`` and ``review``, a GnomingError for the board, and its bytes are left as they were; adds from
six processes at once all land; a deck held past the wait leaves a review's marks in a pending file that
``drill --add`` adds; a symbolic link to a deck is written through; ``drill`` ends without an Arrow thread
left running (no abort at exit)."""
from __future__ import annotations

import contextlib
import datetime as dt
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from gnoming_sim.batch.safe_write import Busy
from gnoming_sim.cli.app import cli
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.drills import deck as D

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "drills"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "inputs"))
import _fuzz_cases_decks as fuzz_decks  # noqa: E402  (the damaged decks of the fuzz harness)
from test_drill import make_card  # noqa: E402  (the library tests' card: the example position's)

ROOT = Path(__file__).resolve().parents[2]
TODAY = dt.date.today()
KINDS = fuzz_decks.kinds()


def run(*args, code=0, input=None):
    result = CliRunner().invoke(cli, [str(a) for a in args], input=input)
    assert result.exit_code == code, (result.output, result.exception)
    return result


def one_line(result) -> str:
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


# ------------------------------------------------------------------ a damaged deck at the door
@pytest.mark.parametrize("kind", KINDS)
def test_drill_refuses_a_damaged_deck_in_one_line_and_leaves_it(tmp_path, kind):
    deck = tmp_path / "deck.parquet"
    raw = fuzz_decks.write_damaged(kind, deck)
    for args in ([], ["--due"], ["--retry"]):
        line = one_line(run("drill", "--deck", deck, *args, input="pos4\n", code=2))
        assert f"drill deck {deck}: " in line and "it is left as it is" in line
    assert deck.read_bytes() == raw


@pytest.mark.parametrize("kind", KINDS)
def test_the_boards_drill_view_raises_a_sentence_and_leaves_the_deck(tmp_path, kind):
    from gnoming_sim.cli.board import drills
    from gnoming_sim.game.deck import load_deck
    from gnoming_sim.game.rules import RuleConfig

    deck = tmp_path / "deck.parquet"
    raw = fuzz_decks.write_damaged(kind, deck)
    with pytest.raises(GnomingError, match="^drill deck .*it is left as it is"):
        drills.next_card(deck, RuleConfig(), load_deck())
    card_id = make_card().id
    with pytest.raises(GnomingError, match="^drill deck .*it is left as it is"):
        drills.answer(deck, card_id, "pos4")
    assert deck.read_bytes() == raw


def test_a_nan_deck_is_refused_before_the_board_saves_an_answer(tmp_path):
    """The board once saved the answer and then failed on NaN in its reply: now nothing is saved."""
    from gnoming_sim.cli.board import drills

    deck = tmp_path / "deck.parquet"
    raw = fuzz_decks.write_damaged("nan_option", deck)
    with pytest.raises(GnomingError, match="not .*finite numbers"):
        drills.answer(deck, make_card().id, "pos4")
    assert deck.read_bytes() == raw


@pytest.mark.parametrize("kind", ["nan_loss", "null_due", "due_year_10000", "string_box", "deep_options",
                                  "timestamp_far", "options_strings"])
def test_review_refuses_a_damaged_deck_before_any_rollout(no_engine, tmp_path, kind):
    deck = tmp_path / "deck.parquet"
    raw = fuzz_decks.write_damaged(kind, deck)
    result = run("review", "--game", "0", "--seat", "0", "--drill-deck", deck, "--out", tmp_path / "r", code=2)
    assert "another --drill-deck" in one_line(result)
    assert deck.read_bytes() == raw and not (tmp_path / "r").exists()


def test_drill_add_refuses_a_damaged_file_and_adds_nothing(tmp_path):
    deck, bad = tmp_path / "deck.parquet", tmp_path / "bad.parquet"
    D.save(deck, [make_card(due=TODAY)])
    before = deck.read_bytes()
    raw = fuzz_decks.write_damaged("deep_options", bad)
    assert "drill deck " in one_line(run("drill", "--deck", deck, "--add", bad, code=2))
    assert bad.read_bytes() == raw and deck.read_bytes() == before


def test_the_writer_never_writes_a_deck_the_door_refuses(tmp_path):
    deck = tmp_path / "deck.parquet"
    with pytest.raises(GnomingError, match="the deck to write is damaged"):
        D.save(deck, [make_card(loss_pp=float("nan"))])
    assert not deck.exists()


def test_a_good_deck_with_every_field_used_is_read_back_exactly(tmp_path):
    """Control: the door refuses damage, not a deck the library wrote (a card drilled, a null last_seen)."""
    deck = tmp_path / "deck.parquet"
    cards = [make_card(due=TODAY), D.reschedule(make_card(played="pos0", symbol="??", mark="blunder"), True,
                                                today=TODAY)]
    D.save(deck, cards)
    assert D.load(deck) == cards


# ------------------------------------------------------------------ a busy deck
def _add_one(path: str, played: str, start: float) -> tuple[int, int]:
    while time.time() < start:   # every process adds at the same moment
        time.sleep(0.005)
    return D.add(path, [make_card(played=played)])


@pytest.mark.slow   # six spawned processes: 5 s
def test_six_adds_to_one_deck_at_once_all_land(tmp_path):
    deck = str(tmp_path / "deck.parquet")
    played = ["pos0", "pos1", "pos2", "pos3", "pos4", "discard"]
    ctx = multiprocessing.get_context("spawn")   # never fork after numba's threads may have started
    with ctx.Pool(6) as pool:
        start = time.time() + 3.0
        results = pool.starmap(_add_one, [(deck, p, start) for p in played])
    assert sorted(r[0] for r in results) == [1] * 6
    assert sorted(r[1] for r in results) == [1, 2, 3, 4, 5, 6]
    assert sorted(c.played for c in D.load(deck)) == sorted(played)


HOLD = """import sys, time
from gnoming_sim.batch.safe_write import OutputLock
lock = OutputLock(sys.argv[1], "--deck")
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


@contextlib.contextmanager
def hold(path, seconds: float):
    """Another process holding the deck's lock for ``seconds`` (or until the block ends)."""
    with subprocess.Popen([sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE,
                          text=True) as proc:
        try:
            assert proc.stdout.readline() == "held\n"
            yield proc
        finally:
            proc.kill()


def test_an_add_waits_for_a_short_write_and_says_so(tmp_path):
    deck = tmp_path / "deck.parquet"
    told = []
    with hold(deck, 1.5):
        assert D.add(deck, [make_card()], wait_s=30, waiting=told.append) == (1, 1)
    assert len(told) == 1 and "is being written by another gnoming-sim run" in told[0] and "waiting" in told[0]


def test_a_deck_held_past_the_wait_is_one_line(tmp_path):
    deck = tmp_path / "deck.parquet"
    with hold(deck, 30), pytest.raises(Busy, match="still being written by another gnoming-sim run after 0.5 s"):
        D.add(deck, [make_card()], wait_s=0.5)
    assert not deck.exists()


def test_a_review_keeps_its_marks_beside_review_json_when_the_deck_stays_busy(tmp_path, monkeypatch, capsys):
    from gnoming_sim.cli.review import PENDING, add_marks

    deck, out = tmp_path / "sync" / "deck.parquet", tmp_path / "review"
    out.mkdir()
    D.save(deck, [make_card(played="pos0")])
    before = deck.read_bytes()
    monkeypatch.setattr(D, "LOCK_WAIT_S", 0.5)
    with hold(deck, 30):
        line = add_marks(deck, [make_card(), make_card(played="pos1")], out)
    assert "is being written by another gnoming-sim run" in capsys.readouterr().err
    pending = out / PENDING
    assert line == (f"drills: the deck is still being written by another run: the 2 marked decision(s) are kept "
                    f"in {pending}; `gnoming-sim drill --deck {deck} --add {pending}` adds them")
    assert deck.read_bytes() == before and len(D.load(pending)) == 2
    command = line.split("`")[1].split()
    assert command[:2] == ["gnoming-sim", "drill"]
    out_line = run(*command[1:]).stdout
    assert f"drills: 2 of the 2 card(s) in {pending} added to {deck} (3 in the deck" in out_line
    assert sorted(c.played for c in D.load(deck)) == ["discard", "pos0", "pos1"]
    assert "drills: 0 of the 2 card(s)" in run(*command[1:]).stdout   # twice: nothing twice


def test_drill_add_refuses_the_deck_itself_and_a_missing_file(tmp_path):
    deck = tmp_path / "deck.parquet"
    D.save(deck, [make_card()])
    assert "is the deck itself" in one_line(run("drill", "--deck", deck, "--add", deck, code=2))
    assert "no such file" in one_line(run("drill", "--deck", deck, "--add", tmp_path / "none.parquet", code=2))
    assert "give it without --due" in one_line(run("drill", "--deck", deck, "--add", deck, "--due", code=2))


@pytest.mark.slow   # a review of a short game and a held lock (about 10 s)
def test_a_review_ends_whole_with_a_deck_held_by_another_run(tmp_path, monkeypatch):
    from test_drill_cli import BLUNDER

    monkeypatch.setattr(D, "LOCK_WAIT_S", 1.0)
    record, deck, out = tmp_path / "blunder.toml", tmp_path / "deck.parquet", tmp_path / "r"
    record.write_text(BLUNDER, encoding="utf-8")
    with hold(deck, 60):
        result = run("review", record, "--rollouts", "30", "--confirm", "60", "--why-rollouts", "0", "--threads", "2",
                     "--drill-deck", deck, "--out", out)
    assert (out / "review.json").exists() and (out / "index.html").exists() and not deck.exists()
    assert "waiting for it (at most 1 s)" in result.stderr
    command = next(line for line in result.stdout.splitlines() if line.startswith("drills: "))
    assert "kept in" in command and "drills-pending.parquet" in command
    run(*command.split("`")[1].split()[1:])
    assert [c.symbol for c in D.load(deck)] == ["??"]


# ------------------------------------------------------------------ a deck behind a symbolic link
def test_a_symlinked_deck_is_written_through_and_the_link_kept(tmp_path):
    sync = tmp_path / "sync"
    sync.mkdir()
    D.save(sync / "drills.parquet", [make_card(due=TODAY)])
    link = tmp_path / "d.parquet"
    link.symlink_to(Path("sync") / "drills.parquet")
    out = run("drill", "--deck", link, input="pos4\n").stdout
    assert "right: pos4" in out
    assert link.is_symlink() and os.readlink(link) == str(Path("sync") / "drills.parquet")
    assert D.load(sync / "drills.parquet")[0].box == 2
    D.add(link, [make_card(played="pos0")])
    assert link.is_symlink() and len(D.load(sync / "drills.parquet")) == 2
    assert sorted(os.listdir(tmp_path)) == ["d.parquet", "sync"]   # no lock or temporary file left beside the link


def test_a_dangling_link_is_written_through_or_one_line(tmp_path):
    link = tmp_path / "d.parquet"
    link.symlink_to(tmp_path / "sync" / "drills.parquet")
    line = one_line(run("drill", "--deck", link, code=2))
    assert "whose folder does not exist" in line
    (tmp_path / "sync").mkdir()
    assert "no drill deck there" in one_line(run("drill", "--deck", link, code=2))
    D.add(link, [make_card()])
    assert link.is_symlink() and len(D.load(tmp_path / "sync" / "drills.parquet")) == 1


def test_a_loop_of_links_is_one_line(tmp_path):
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    a.symlink_to(b)
    b.symlink_to(a)
    assert "drill deck" in one_line(run("drill", "--deck", a, code=2))
    with pytest.raises(GnomingError):
        D.add(a, [make_card()])
    assert a.is_symlink() and b.is_symlink()


# ------------------------------------------------------------------ a clean exit
PROBE = """import atexit, os, sys
def threads():
    names = []
    for t in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{t}/comm") as fh:
                names.append(fh.read().strip())
        except OSError:
            pass
    sys.stderr.write(f"threads at exit: {sorted(names)}\\n")
atexit.register(threads)
from gnoming_sim.cli.app import main
main(sys.argv[1:])
"""


def test_drill_ends_with_no_arrow_thread_left_running(tmp_path):
    """Arrow's thread pool (started by ``pq.read_table`` even with ``use_threads=False``) is never started: a
    worker of it alive as the process ends aborted it now and then (exit 134).  OpenBLAS's thread is turned
    off, so every thread named python but the main one would be Arrow's."""
    deck = tmp_path / "deck.parquet"
    D.save(deck, [make_card(due=TODAY)])
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", PROBE, "drill", "--deck", str(deck)], input="pos4\n", env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "threads at exit: ['jemalloc_bg_thd', 'python']" in done.stderr or \
        "threads at exit: ['python']" in done.stderr, done.stderr


@pytest.mark.slow   # 30 runs of `drill` (about 1 s each)
def test_drill_exits_cleanly_thirty_times(tmp_path):
    deck = tmp_path / "deck.parquet"
    good = [make_card(due=TODAY)]
    codes = []
    for i in range(30):
        D.save(deck, good)
        done = subprocess.run([sys.executable, "-c", "from gnoming_sim.cli.app import main; main()", "drill",
                               "--deck", str(deck)],
                              input="pos4\n" if i % 2 else "s\n", capture_output=True, text=True, timeout=120)
        assert "terminate called" not in done.stderr, (i, done.stderr)
        codes.append(done.returncode)
    assert codes == [0] * 30
