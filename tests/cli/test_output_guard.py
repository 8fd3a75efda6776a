"""Nothing lost: every output is checked by one guard before any game
(gnoming_sim/batch/output.py), report folders never replace a file the tool did not write, long
commands hold their output's lock for the whole run and end on SIGTERM in one line, and every
Parquet file read is checked whole.  Each case of the storage audit is here, by name; all are fast (no game
is played: ``no_engine`` fails the test if one starts)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
from _examples import POSITION


LONG = "n" * 300   # one name of 300 bytes: over the system's 255


@pytest.fixture(autouse=True)
def fresh_registry(own_registry):
    return own_registry


@pytest.fixture(autouse=True)
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # a refusal that wrongly passed writes here, not in the repository
    return tmp_path


def no_games(request, argv) -> None:
    """The engine replaced by one that fails (``no_engine``), except for ladder and report, which import
    it before their output checks (they still play nothing before them)."""
    if argv[0] not in ("ladder", "report"):
        request.getfixturevalue("no_engine")


def assert_one_line(result, *fragments):
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("gnoming-sim: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


RULES = "max_turns = 300\n"
STRATEGIES = '[strategy.patient]\nbase = "builder"\nfinish_margin = 6\n'
LADDER = ["ladder", "--players", "2", "--strategies", "random,greedy", "--games", "4", "--bootstrap", "100"]


# ------------------------------------------------------------------ data lost: an output over its own input
@pytest.mark.parametrize("name, argv", [
    ("rules.toml", ["compare", "--games", "4", "--variant", "a=rules.toml", "--out", "rules.toml", "--force"]),
    ("r1.toml", ["simulate", "--games", "4", "--rules", "r1.toml", "--out", "r1.toml", "--force"]),
    ("r5.parquet", ["simulate", "--games", "4", "--rules", "r5.parquet", "--out", "r5.parquet", "--force"]),
    ("r2.json", [*LADDER, "--rules", "r2.json", "--out", "r2.json", "--force"]),
    ("r3.parquet", ["compare", "--games", "4", "--variant", "a=r3.parquet", "--out", "r3.parquet", "--force"]),
])
def test_an_output_over_its_own_rules_file_is_refused(cli_run, request, here, name, argv):
    no_games(request, argv)
    (here / name).write_text(RULES)
    assert_one_line(cli_run([*argv], code=2), "--out")
    assert (here / name).read_text() == RULES


def test_tune_over_its_own_strategies_file_is_refused(cli_run, no_engine, here):
    (here / "s4.toml").write_text(STRATEGIES)
    assert_one_line(cli_run(["tune", "--strategies-file", "s4.toml", "--field", "patient", "--out", "s4.toml",
                             "--force", "--generations", "1", "--games", "8"], code=2), "s4.toml",
                             "an input of this command")
    assert (here / "s4.toml").read_text() == STRATEGIES


def test_an_input_reached_through_a_link_or_a_hard_link_is_refused(cli_run, no_engine, here):
    (here / "rules.toml").write_text(RULES)
    os.symlink("rules.toml", here / "soft.parquet")
    os.link(here / "rules.toml", here / "hard.parquet")
    for out in ("soft.parquet", "hard.parquet"):
        assert_one_line(cli_run(["simulate", "--games", "4", "--rules", "rules.toml", "--out", out, "--force"], code=2),
                        "an input of this command")
    assert (here / "rules.toml").read_text() == RULES


@pytest.mark.parametrize("argv, want", [
    (["simulate", "--games", "4", "--out", "x.toml"], "*.parquet"),
    (["compare", "--games", "4", "--house-rules", "--out", "x.csv"], "*.parquet"),
    ([*LADDER, "--out", "x.txt"], "*.json or *.csv"),
    (["tune", "--out", "x.json", "--generations", "1", "--games", "8"], "*.toml"),
    (["tune", "--out", "x.toml", "--log", "x.txt", "--generations", "1", "--games", "8"], "*.csv or *.parquet"),
    (["tune", "--out", "x.toml", "--plot", "x.jpg", "--generations", "1", "--games", "8"], "*.png"),
    (["review", "--game", "0", "--seat", "0", "--save-record", "r.txt"], "*.toml or *.json"),
    (["train", "--out", "t.json", "--iterations", "1"], "without an extension"),
    (["card", "--out", "g.html"], "without an extension"),
])
def test_an_output_with_the_wrong_extension_is_refused(cli_run, request, argv, want):
    no_games(request, argv)
    assert_one_line(cli_run([*argv], code=2), want)


# ------------------------------------------------------------------ symbolic links
@pytest.mark.parametrize("kind", ["dangling", "looping", "to_a_file"])
def test_simulate_out_onto_a_link_is_refused_without_force(cli_run, no_engine, here, kind):
    target = here / "precious.parquet"
    if kind == "to_a_file":
        target.write_bytes(b"mine")
    if kind == "looping":
        os.symlink("b.parquet", here / "a.parquet")
        os.symlink("a.parquet", here / "b.parquet")
    else:
        os.symlink(target.name, here / "a.parquet")
    assert_one_line(cli_run(["simulate", "--games", "4", "--out", "a.parquet"], code=2), "symbolic link", "--force")
    assert os.path.islink(here / "a.parquet")
    assert not target.exists() or target.read_bytes() == b"mine"


def test_force_replaces_the_link_never_its_target(tmp_path):
    from gnoming_sim.batch.output import check_output
    from gnoming_sim.batch.safe_write import write_file

    target = tmp_path / "precious.toml"
    target.write_text("mine\n")
    os.symlink(target.name, tmp_path / "a.toml")
    path = check_output(tmp_path / "a.toml", force=True, suffixes=(".toml",))
    write_file(path, "new\n")
    assert target.read_text() == "mine\n"
    assert not os.path.islink(tmp_path / "a.toml") and (tmp_path / "a.toml").read_text() == "new\n"


# ------------------------------------------------------------------ names that cannot be created
@pytest.mark.parametrize("argv", [
    ["simulate", "--games", "4", "--out", f"{LONG}.parquet"],
    ["simulate", "--games", "4", "--out", "b.parquet", "--report", LONG],
    ["compare", "--games", "4", "--house-rules", "--out", f"{LONG}.parquet"],
    [*LADDER, "--out", f"{LONG}.json"],
    ["tune", "--out", f"{LONG}.toml", "--generations", "1", "--games", "8"],
    ["report", "--quick", "--out", LONG],
    ["review", "--game", "0", "--seat", "0", "--out", LONG],
    ["review", "--game", "0", "--seat", "0", "--save-record", f"{LONG}.toml"],
    ["train", "--out", LONG, "--iterations", "1"],
    ["card", "--out", LONG],
    ["card", "--out", f"{LONG}/sub"],
], ids=["simulate", "simulate-report", "compare", "ladder", "tune", "report", "review", "save-record", "train",
        "card", "card-folder"])
def test_a_name_over_255_bytes_is_one_line(cli_run, request, argv):
    no_games(request, argv)
    assert_one_line(cli_run([*argv], code=2), "bytes long")


def test_report_from_out_with_a_long_name_is_one_line(cli_run, no_engine, here):
    (here / "b.parquet").write_bytes(b"PAR1" + bytes(16) + b"PAR1")
    assert_one_line(cli_run(["report", "--from", "b.parquet", "--out", LONG], code=2))


@pytest.mark.parametrize("argv", [
    ["train", "--out", "loop/t", "--iterations", "1"],
    ["card", "--out", "loop/g"],
    ["simulate", "--games", "4", "--out", "loop/x.parquet"],
    ["review", "--game", "0", "--seat", "0", "--out", "loop/rv"],
])
def test_an_output_through_a_loop_of_links_is_one_line(cli_run, no_engine, here, argv):
    os.symlink("loop", here / "loop")
    assert_one_line(cli_run([*argv], code=2), "loop of symbolic links")


def test_an_output_through_a_file_is_one_line(cli_run, no_engine, here):
    (here / "f.toml").write_text(RULES)
    assert_one_line(cli_run(["train", "--out", "f.toml/t", "--iterations", "1"], code=2), "is a file, not a directory")


# ------------------------------------------------------------------ report folders keep the user's files
def test_review_force_never_replaces_the_users_own_page(cli_run, no_engine, here):
    (here / "mine").mkdir()
    (here / "mine" / "index.html").write_text("my page")
    (here / "mine" / "review.json").write_text("{}")
    assert_one_line(cli_run(["review", "--game", "0", "--seat", "0", "--out", "mine", "--force"], code=2),
                    "index.html, review.json", "did not write")
    assert (here / "mine" / "index.html").read_text() == "my page"
    assert (here / "mine" / "review.json").read_text() == "{}"


@pytest.mark.parametrize("old", ["marker", "summary"])
def test_an_old_report_folder_is_migrated_without_claiming_the_users_files(tmp_path, old):
    from gnoming_sim.batch.safe_folder import MANIFEST, check_target, staged_report, written_files

    out = tmp_path / "rep"
    out.mkdir()
    if old == "marker":
        (out / MANIFEST).write_text("gnoming-sim report\n")   # the plain-text marker of old reports
    (out / "summary.json").write_text('{"version": "0.1", "findings": [], "studies": [{"id": "tournament"}]}')
    (out / "index.html").write_text("old report")
    (out / "tournament-ratings.png").write_bytes(b"old figure")
    (out / "mydata.csv").write_text("a,b\n")
    (out / "thesis.html").write_text("my thesis")
    ours = written_files(out)
    assert {"index.html", "summary.json", "tournament-ratings.png"} <= ours
    assert not {"mydata.csv", "thesis.html"} & ours
    check_target(out, "--out", True, own_needs_force=True)
    with staged_report(out) as stage:
        stage.write("index.html", "new report")
        stage.write("summary.json", "{}")
    assert (out / "index.html").read_text() == "new report"
    assert not (out / "tournament-ratings.png").exists()          # the old report's own file: replaced
    assert (out / "mydata.csv").read_text() == "a,b\n"             # the user's: kept
    assert (out / "thesis.html").read_text() == "my thesis"


def test_publish_refuses_to_replace_a_foreign_file_it_did_not_know_of(tmp_path):
    """A name known only at the end (a study's figure): checked before anything is moved."""
    from gnoming_sim.batch.safe_folder import staged_report
    from gnoming_sim.game.errors import GnomingError

    out = tmp_path / "rep"
    out.mkdir()
    (out / "fig.png").write_bytes(b"mine")
    with pytest.raises(GnomingError, match="did not write"):
        with staged_report(out) as stage:
            stage.write("index.html", "new")
            stage.write("fig.png", b"new")
    assert (out / "fig.png").read_bytes() == b"mine" and not (out / "index.html").exists()
    assert sorted(os.listdir(tmp_path)) == ["rep"]   # the staging folder and the lock are gone


# ------------------------------------------------------------------ the lock is held for the whole run
def test_a_second_review_to_the_same_out_is_refused_before_any_game(cli_run, no_engine, here):
    """The first review holds .rv.lock while it grades (simulated here by a process holding it)."""
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import fcntl, os, sys, time
        fd = os.open(".rv.lock", os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        print("held", flush=True)
        time.sleep(60)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert_one_line(cli_run(["review", "--game", "0", "--seat", "0", "--out", "rv", "--rollouts", "20"], code=2),
                        "being written by another gnoming-sim run")
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()
    assert not (here / "rv").exists()


@pytest.mark.parametrize("save, fragment", [
    ("nofolder/r.toml", "does not exist"),
    ("f.toml/r.toml", "is a file, not a directory"),
    ("rv/r.toml", "lies in the --out folder"),
    ("rv", "--save-record rv is a directory"),   # the --out folder itself
])
def test_save_record_is_checked_before_any_game(cli_run, no_engine, here, save, fragment):
    (here / "f.toml").write_text(RULES)
    (here / "rv").mkdir()
    assert_one_line(cli_run(["review", "--game", "0", "--seat", "0", "--out", "rv", "--save-record", save], code=2),
                             fragment)


# ------------------------------------------------------------------ SIGTERM like Ctrl-C
@pytest.fixture
def python_ctrl_c():
    """Python's own Ctrl-C handler for the test, whatever the suite inherited: a shell without job control starts a
    background job with SIGINT ignored, and Python then installs no handler (the suite run that way failed below)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("sig, code, name", [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "SIGINT")])
def test_interruptible_ends_on_a_signal_in_one_line(capsys, python_ctrl_c, sig, code, name):
    from gnoming_sim.cli.group import interruptible

    with pytest.raises(SystemExit) as exc:
        with interruptible("the folder is left as it was"):
            os.kill(os.getpid(), sig)
            for _ in range(1000):   # the handler runs between bytecodes
                pass
    assert exc.value.code == code
    err = capsys.readouterr().err.splitlines()
    assert err == [f"gnoming-sim: interrupted ({name}); the folder is left as it was"]
    assert signal.getsignal(signal.SIGTERM) is not None


def test_review_on_sigterm_keeps_nothing_partial(cli_run, here, monkeypatch, capsys):
    """SIGTERM in the middle of the grading: one line, exit 143, no staging folder and no lock left."""
    from gnoming_sim.cli import review as rv

    def grade(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):
            pass
        raise AssertionError("SIGTERM did not stop the review")

    monkeypatch.setattr(rv, "_grade", grade)
    result = cli_run(["review", "--game", "0", "--seat", "0", "--out", "rv", "--rollouts", "20"], code=143)
    assert result.stderr.splitlines() == ["gnoming-sim: interrupted (SIGTERM); nothing was written"]
    assert os.listdir(here) == []


# ------------------------------------------------------------------ positions and records
def test_a_position_with_nine_face_down_cards_at_turn_13_is_refused(cli_run, no_engine, here):
    from pathlib import Path

    example = POSITION.read_text()
    me_row = '  ["5", "?", "5",   "?", "?", "?",   "7", "?", "3"],'
    assert me_row in example
    body = example.replace(me_row, '  ["?", "?", "?",   "?", "?", "?",   "?", "?", "?"],')
    # the 4 cards no longer seen join the unseen ones: the draw pile keeps its size
    (here / "p.toml").write_text(body)
    assert_one_line(cli_run(["analyse", "--position", "p.toml", "--rollouts", "10"], code=2),
                    "seat 1 has 9 face-down cards at turn 13", "at most 7")


def test_analyse_players_that_contradict_the_position_is_refused(cli_run, no_engine):
    from pathlib import Path

    position = POSITION
    assert_one_line(cli_run(["analyse", "--position", position, "--players", "5", "--rollouts", "10"], code=2),
                    "--players 5 contradicts the position", "4 players")


def test_review_players_that_contradict_the_record_is_refused(cli_run, no_engine):
    from pathlib import Path

    record = Path(__file__).parents[2] / "examples" / "review-record.toml"
    assert_one_line(cli_run(["review", record, "--players", "3"], code=2), "--players 3 contradicts the record")


# ------------------------------------------------------------------ Parquet files read whole
def _batch_file(path):
    """A small batch file of 2 players (every count 0, which its checks accept), written as simulate does."""
    import numpy as np
    import pyarrow.parquet as pq

    from gnoming_sim.batch.parquet import batch_schema, table_of
    from gnoming_sim.batch.runner import BatchSpec
    from gnoming_sim.game.fields import N_FIELDS

    spec = BatchSpec.make(2, ("random",), games=50, seed=0)
    schema = batch_schema(spec.names, spec.metadata())
    stats = np.zeros((50, 3, 2, N_FIELDS), dtype=np.int32)
    table = table_of(0, stats, np.zeros((50, 2), dtype=np.int64), spec.names).cast(schema)
    pq.write_table(table, path, compression="zstd", write_page_checksum=True)
    return spec, schema


def test_a_damaged_leading_magic_is_refused_by_report_from_and_resume(cli_run, no_engine, here):
    from gnoming_sim.batch.parquet import BatchFile
    from gnoming_sim.game.errors import GnomingError

    spec, schema = _batch_file(here / "b.parquet")
    data = bytearray((here / "b.parquet").read_bytes())
    data[0:4] = b"XAR1"
    (here / "b.parquet").write_bytes(bytes(data))
    assert_one_line(cli_run(["report", "--from", "b.parquet"], code=2), "does not start with PAR1")
    with pytest.raises(GnomingError, match="does not start with PAR1"):
        BatchFile.open_for_resume(here / "b.parquet", spec, schema)


def test_a_flipped_byte_in_a_column_the_report_does_not_use_is_found(no_engine, here):
    import pyarrow.parquet as pq

    from gnoming_sim.batch.scan import COLUMNS, scan_batch
    from gnoming_sim.game.errors import GnomingError

    _batch_file(here / "b.parquet")
    scan_batch(here / "b.parquet")   # whole, it reads
    meta = pq.read_metadata(here / "b.parquet")
    names = [meta.schema.column(j).name for j in range(meta.num_columns)]
    unused = next(j for j, n in enumerate(names) if n not in COLUMNS)
    chunk = meta.row_group(0).column(unused)
    start = chunk.dictionary_page_offset if chunk.has_dictionary_page else chunk.data_page_offset
    at = start + chunk.total_compressed_size - 1   # the last byte of the chunk's last page
    assert names[unused] not in COLUMNS
    data = bytearray((here / "b.parquet").read_bytes())
    data[at] ^= 0xFF
    (here / "b.parquet").write_bytes(bytes(data))
    with pytest.raises(GnomingError, match="the file is damaged"):
        scan_batch(here / "b.parquet")


# ------------------------------------------------------------------ small answers
def test_review_rollout_seed_names_its_own_option(cli_run, no_engine):
    assert_one_line(cli_run(["review", "--game", "0", "--seat", "0", "--rollout-seed", "-1"], code=2),
                    "--rollout-seed must be in 0..2**64-1")


def test_no_command_is_a_one_line_hint_and_exit_2(cli_run):
    """Chosen: one line pointing to --help, exit 2, as every other command line that cannot run
    (the whole usage is `gnoming-sim --help`, exit 0)."""
    assert_one_line(cli_run([], code=2), "no command given", "--help")
    cli_run(["--help"])
