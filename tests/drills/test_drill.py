"""The drill deck (:mod:`gnoming_sim.drills.deck`): a deck survives its file exactly, the Leitner
schedule moves cards as documented, any option the rollouts cannot tell from the best counts as right (the
move played never), a review's marks become cards once, and a file that is not a deck is refused in one
line and never written over, even by a run killed while it writes."""
from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from gnoming_sim.game.errors import GnomingError
from gnoming_sim.game.position import from_toml
from gnoming_sim.drills import deck as D
from gnoming_sim.game.position_id import encode

ROOT = Path(__file__).resolve().parents[2]
PID = encode(from_toml(ROOT / "examples" / "position.toml"))
DAY = dt.date(2026, 3, 2)


def choice(key, behind=None, lo=None, hi=None, batch="confirm", win=40.0):
    return D.Choice(key, f"label of {key}", win, behind, lo, hi, batch)


def make_card(played="discard", symbol="?", mark="mistake", **kw) -> D.Card:
    options = (choice("pos4", 0.0, 0.0, 0.0, win=50.0),                  # the best
               choice("pos2", 1.0, -2.0, 4.0),                            # not told apart: right
               choice("pos3", 0.5, -0.5, 1.5, batch="screen"),            # screened only, not told apart: right
               choice("pos0", 6.0, 2.5, 9.5),                             # separated: wrong
               choice("pos1"),                                            # never measured: wrong
               choice("discard", 3.0, -1.0, 7.0))                         # the move played: wrong however close
    card = D.Card(D.card_id(PID, played), PID, "a position", "game.toml seat 1, round 1, turn 13", mark, symbol,
                  played, f"label of {played}", "pos4", "label of pos4", 5.5, 2.0, 9.0, options, DAY, 1, DAY)
    return replace(card, **kw)


# ------------------------------------------------------------------ grading
def test_any_option_not_told_from_the_best_is_right_the_played_move_never():
    card = make_card()
    assert D.right_keys(card) == ["pos4", "pos2", "pos3"]
    verdicts = {k: D.grade(card, k)["right"] for k in ("pos4", "pos2", "pos3", "pos0", "pos1", "discard")}
    assert verdicts == {"pos4": True, "pos2": True, "pos3": True, "pos0": False, "pos1": False, "discard": False}
    v = D.grade(card, "pos2")
    assert v["answer_behind_pp"] == 1.0 and v["answer_ci95_pp"] == [-2.0, 4.0] and v["loss_ci95_pp"] == [2.0, 9.0]
    skip = D.grade(card, None)
    assert skip["skipped"] and not skip["right"] and skip["answer_label"] is None


def test_an_unknown_option_is_one_line():
    with pytest.raises(GnomingError, match=r"^'pos9' is not an option of this position \(options: pos4, pos2"):
        D.grade(make_card(), "pos9")


# ------------------------------------------------------------------ schedule
def test_a_hit_moves_up_one_box_a_miss_or_a_skip_back_to_box_one():
    card = make_card()
    assert card.box == 1 and card.due == DAY
    for box in (2, 3, 4, 5, 5):
        card = D.reschedule(card, True, today=DAY)
        assert card.box == box and card.due == DAY + dt.timedelta(days=D.INTERVAL_DAYS[box])
    assert (card.attempts, card.hits, card.last_result, card.last_seen) == (5, 5, "hit", DAY)
    missed = D.reschedule(card, False, today=DAY)
    assert (missed.box, missed.due, missed.last_result, missed.hits) == (1, DAY + dt.timedelta(days=1), "miss", 5)
    skipped = D.reschedule(card, False, skipped=True, today=DAY)
    assert (skipped.box, skipped.last_result) == (1, "skip")
    assert D.INTERVAL_DAYS[1:] == (1, 3, 7, 14, 30)


def test_select_gives_the_due_cards_at_the_threshold_or_the_missed_ones():
    later = DAY + dt.timedelta(days=3)
    cards = [make_card(played="pos0", symbol="??", mark="blunder", due=later),
             make_card(played="pos1", due=DAY, box=2, loss_pp=3.0),
             make_card(played="pos2", due=DAY - dt.timedelta(days=1), box=3),
             make_card(played="pos3", symbol="?!", mark="inaccuracy", due=DAY),
             make_card(played="pos5", due=later, last_result="miss"),
             make_card(played="pos6", due=DAY, box=2, loss_pp=8.0)]
    names = lambda cs: [c.played for c in cs]   # noqa: E731
    assert names(D.select(cards, DAY)) == ["pos2", "pos6", "pos1"]       # earliest due, lower box, larger loss
    assert names(D.select(cards, DAY, include_inaccuracies=True)) == ["pos2", "pos3", "pos6", "pos1"]
    assert names(D.select(cards, later)) == ["pos2", "pos6", "pos1", "pos0", "pos5"]
    assert names(D.select(cards, DAY, retry=True)) == ["pos5"]         # missed, not due yet: now


# ------------------------------------------------------------------ the file
def test_a_deck_survives_its_file(tmp_path):
    cards = [make_card(), make_card(played="pos0", box=4, attempts=3, hits=2, last_result="hit", last_seen=DAY)]
    path = tmp_path / "sub" / "deck.parquet"
    D.save(path, cards)
    assert D.load(path) == cards
    assert D.load(tmp_path / "none.parquet") == []


def test_add_keeps_a_known_cards_schedule(tmp_path):
    path = tmp_path / "deck.parquet"
    assert D.add(path, [make_card()]) == (1, 1)
    verdict, after = D.answer(path, make_card().id, "pos4", DAY)
    assert verdict["right"] and after.box == 2
    assert D.add(path, [make_card(), make_card(played="pos0")]) == (1, 2)   # the same decision again: not added
    assert [c.box for c in D.load(path)] == [2, 1]


def test_the_default_deck_is_in_the_data_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert D.default_path() == tmp_path / "gnoming-sim" / "drills.parquet"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/dir")   # not absolute: ignored, as the spec says
    assert D.default_path() == Path.home() / ".local" / "share" / "gnoming-sim" / "drills.parquet"


def _not_a_deck(tmp_path) -> list[tuple[Path, str]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    garbage = tmp_path / "garbage.parquet"
    garbage.write_bytes(b"PAR1 this is not parquet at all")
    batch = tmp_path / "batch.parquet"
    pq.write_table(pa.table({"game": [1, 2]}), batch)
    cut = tmp_path / "cut.parquet"
    cut.write_bytes(D.to_bytes([make_card()])[:-100])
    other = tmp_path / "other.parquet"
    table = pa.Table.from_pylist([{"id": "x"}]).replace_schema_metadata({D.META_KEY: b'{"format": 9}'})
    pq.write_table(table, other)
    return [(garbage, "not a readable Parquet file"), (batch, "not a drill deck"),
            (cut, "not a readable Parquet file"), (other, "of format 9, which this gnoming-sim does not read")]


def test_a_file_that_is_not_a_deck_is_refused_and_left_alone(tmp_path):
    for path, fragment in _not_a_deck(tmp_path):
        before = path.read_bytes()
        for act in (lambda: D.load(path), lambda: D.add(path, [make_card()]),
                    lambda: D.answer(path, "x", "pos4")):
            with pytest.raises(GnomingError) as err:
                act()
            msg = str(err.value)
            assert fragment in msg and "\n" not in msg and "it is left as it is" in msg, msg
        assert path.read_bytes() == before


_KILLED_WHILE_WRITING = """
import os, signal, sys
from gnoming_sim.batch import safe_write
from gnoming_sim.drills import deck as D
sys.path.insert(0, os.environ["TESTS"])
from test_drill import make_card

real = safe_write.io.write
def write(fd, data):
    real(fd, bytes(data)[:len(data) // 2])    # half the new deck is on the disk when the run is killed
    os.kill(os.getpid(), signal.SIGKILL)
safe_write.io.write = write
D.add(sys.argv[1], [make_card(played="pos0")])
"""


def test_a_run_killed_while_it_writes_leaves_the_deck_whole(tmp_path):
    path = tmp_path / "deck.parquet"
    D.save(path, [make_card()])
    before = path.read_bytes()
    proc = subprocess.run([sys.executable, "-c", _KILLED_WHILE_WRITING, str(path)], capture_output=True,
                          env={**os.environ, "TESTS": str(Path(__file__).parent)}, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert path.read_bytes() == before and D.load(path) == [make_card()]
    assert D.add(path, [make_card(played="pos0")]) == (1, 2)   # the next run clears what the killed one left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deck.parquet"]


# ------------------------------------------------------------------ from a review
def _review(marks):
    """A review result as review.json holds it: one decision per (mark, symbol)."""
    decisions = []
    for i, (mark, symbol) in enumerate(marks):
        rows = [{"key": "pos4", "option": "put at 4", "batch": "confirm", "mean": 50.0, "p_win_adj": 0.5,
                 "behind_alternative": {"est": 0.0, "ci95": [0.0, 0.0]}},
                {"key": "discard", "option": "throw away 5", "batch": "confirm", "mean": 40.0, "p_win_adj": 0.4,
                 "behind_alternative": {"est": 0.1, "ci95": [0.05, 0.15]}},
                {"key": "pos0", "option": "put at 0", "batch": "screen", "mean": 45.0,
                 "zero_ply_behind_alternative": 0.05}]   # screened out at 0-ply: no confirmed value
        decisions.append({"where": f"round 1, turn {i}", "describe": "d", "forced": mark is None, "mark": mark,
                          "symbol": symbol, "played": "discard", "played_label": "throw away 5", "best": "pos4",
                          "best_label": "put at 4", "loss_win": {"est": 0.1, "se": 0.02, "ci95": [0.06, 0.14]},
                          "options": rows, "position_id": PID})
    return {"decisions": decisions}


def test_a_reviews_marks_become_cards():
    res = _review([("blunder", "??"), ("ok", ""), (None, ""), ("inaccuracy", "?!")])
    res["decisions"][3]["played"] = "pos0"    # another card: another move played at the same position
    cards = D.cards_from_review(res, "game.toml seat 1", DAY)
    assert [c.symbol for c in cards] == ["??", "?!"]      # every mark enters; drill chooses by the threshold
    c = cards[0]
    assert (c.position_id, c.played, c.best, c.box, c.due, c.added) == (PID, "discard", "pos4", 1, DAY, DAY)
    assert (round(c.loss_pp, 6), round(c.loss_lo_pp, 6), round(c.loss_hi_pp, 6)) == (10.0, 6.0, 14.0)
    assert c.source == "game.toml seat 1, round 1, turn 0"
    assert [(o.key, round(o.win_pct, 6), o.batch) for o in c.options] == [
        ("pos4", 50.0, "confirm"), ("discard", 40.0, "confirm"), ("pos0", 45.0, "screen")]
    # the drill stores the confirmed values only: an option the screening left out has no interval, and no
    # screening noise makes it right (it is behind the candidates at 0-ply)
    assert (c.options[2].behind_pp, c.options[2].lo_pp, c.options[2].hi_pp) == (None, None, None)
    assert D.right_keys(c) == ["pos4"]
    assert cards[0].id != cards[1].id


def test_a_review_without_position_ids_is_refused():
    res = _review([("mistake", "?")])
    del res["decisions"][0]["position_id"]
    with pytest.raises(GnomingError, match="has no position ID"):
        D.cards_from_review(res, "old.json")
