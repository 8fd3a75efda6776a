"""`tune --resume` reads data only: the state is checksummed JSON, a resumed
run equals an uninterrupted one bit for bit, and a pickle, a tampered or a foreign state file
is one line, exit 2, and never executed."""
from __future__ import annotations

import json
import os
import pickle

import pytest

from gnoming_sim.tune import state as tune_state
from gnoming_sim.tune.tuner import TuneSpec, Tuner
from gnoming_sim.game.errors import GnomingError
from _inputs import one_line

TIMING = ("gen_seconds", "seconds")   # wall time: the only fields two runs may differ in


@pytest.fixture(autouse=True)
def fresh_registry(own_registry):
    return own_registry


def _spec():
    return TuneSpec.make(3, field="builder", start="builder", seed=9, games=30, popsize=4)


def _untimed(rows):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in rows]


def test_resumed_run_equals_the_uninterrupted_one_bit_for_bit(tmp_path):
    whole = Tuner(_spec(), tmp_path / "whole.toml").run(budget=600, generations=3, threads=1)
    first = Tuner(_spec(), tmp_path / "cut.toml").run(budget=600, generations=1, threads=1)
    assert len(first.rows) == 1
    resumed_tuner = Tuner(_spec(), tmp_path / "cut.toml", resume=True)
    rest = resumed_tuner.run(budget=600, generations=3, threads=1)
    assert rest.new_generations == 2
    assert _untimed(rest.rows) == _untimed(whole.rows)          # == on floats: bit for bit
    assert rest.params == whole.params
    assert (resumed_tuner.state["es"].mean == Tuner(_spec(), tmp_path / "whole.toml", resume=True)
            .state["es"].mean).all()
    a = tune_state.load(tmp_path / "whole.toml.state")
    b = tune_state.load(tmp_path / "cut.toml.state")
    assert a["history"] == b["history"] and a["generation"] == b["generation"] == 3


def test_state_file_is_json_with_a_format_and_a_checksum(tmp_path):
    Tuner(_spec(), tmp_path / "t.toml").run(budget=600, generations=1, threads=1)
    doc = json.loads((tmp_path / "t.toml.state").read_text())
    assert doc["format"] == tune_state.STATE_FORMAT and len(doc["sha256"]) == 64
    assert len(doc["payload"]["history"][0]["asked"]) == 4      # popsize points, each of 11 coordinates
    assert all(len(x) == 11 for x in doc["payload"]["history"][0]["asked"])


class _Marker:
    """A pickle that, if ever loaded, writes a file: proof of code execution."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def _resume_args(tmp_path) -> list:
    return ["tune", "--players", "3", "--seed", "9", "--games", "30", "--popsize", "4", "--threads", "1",
            "--generations", "2", "--out", str(tmp_path / "t.toml"), "--resume"]


@pytest.mark.parametrize("protocol", [0, 2, pickle.HIGHEST_PROTOCOL])
def test_a_pickled_state_is_refused_and_never_executed(cli_run, tmp_path, protocol):
    marker = tmp_path / "executed"
    (tmp_path / "t.toml").write_text("# an old run\n")
    (tmp_path / "t.toml.state").write_bytes(pickle.dumps({"format": 1, "x": _Marker(marker)}, protocol=protocol))
    one_line(cli_run(_resume_args(tmp_path), code=2), "--resume", "t.toml.state")
    assert not marker.exists()


def test_a_tampered_state_is_refused(cli_run, tmp_path):
    Tuner(_spec(), tmp_path / "t.toml").run(budget=600, generations=1, threads=1)
    path = tmp_path / "t.toml.state"
    doc = json.loads(path.read_text())
    doc["payload"]["history"][0]["fitness"][0] += 1.0
    path.write_text(json.dumps(doc))
    with pytest.raises(GnomingError, match="checksum does not match"):
        Tuner(_spec(), tmp_path / "t.toml", resume=True)
    one_line(cli_run(_resume_args(tmp_path), code=2), "checksum does not match")


def test_a_state_with_a_valid_checksum_but_edited_points_does_not_replay(tmp_path):
    Tuner(_spec(), tmp_path / "t.toml").run(budget=600, generations=1, threads=1)
    path = tmp_path / "t.toml.state"
    payload = tune_state.load(path)
    payload["history"][0]["asked"][0][0] += 0.5
    path.write_bytes(tune_state.dumps(payload))     # re-signed: only the replay can tell
    with pytest.raises(GnomingError, match="does not replay"):
        Tuner(_spec(), tmp_path / "t.toml", resume=True)


@pytest.mark.parametrize("body, fragment", [
    (b"", "not JSON"),
    (b"\xff\xfe", "not JSON"),
    (b"[1, 2]", "not a tuning state of this version"),
    (b'{"format": 1, "payload": {}}', "not a tuning state of this version"),
    (b"[" * 100_000, "not JSON"),
])
def test_foreign_state_files_areone_line(cli_run, tmp_path, body, fragment):
    (tmp_path / "t.toml").write_text("# an old run\n")
    (tmp_path / "t.toml.state").write_bytes(body)
    one_line(cli_run(_resume_args(tmp_path), code=2), fragment)


@pytest.mark.parametrize("edit", [
    lambda p: p.update(generation=-1),
    lambda p: p.update(games=0),
    lambda p: p.update(seconds=float("nan")),
    lambda p: p.update(rows=p["rows"][:0]),
    lambda p: p["history"][0].update(fitness=["x"] * len(p["history"][0]["fitness"])),
    lambda p: p["history"][0].update(asked=[[]]),
    lambda p: p.update(history=[None]),
])
def test_a_signed_state_of_the_wrong_shape_isone_line(tmp_path, edit):
    Tuner(_spec(), tmp_path / "t.toml").run(budget=600, generations=1, threads=1)
    path = tmp_path / "t.toml.state"
    payload = tune_state.load(path)
    edit(payload)
    path.write_bytes(tune_state.dumps(payload))
    with pytest.raises(GnomingError, match="--resume: "):
        Tuner(_spec(), tmp_path / "t.toml", resume=True)


def test_a_state_that_is_a_named_pipe_does_not_block(cli_run, tmp_path):
    (tmp_path / "t.toml").write_text("# an old run\n")
    os.mkfifo(tmp_path / "t.toml.state")
    one_line(cli_run(_resume_args(tmp_path), code=2), "named pipe")
