"""Memory: a chunk that would not fit is played as several (the same games), a run
whose next games do not fit keeps every game played and resumes, a tuning generation that cannot fit
is refused with the number it needs, and a command that cannot get memory at all (a library that
cannot be mapped under ``ulimit -v``) says so in one line."""
from __future__ import annotations

import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from gnoming_sim.batch import memory
from gnoming_sim.batch.runner import OUT_OF_MEMORY, Batch, BatchSpec
from gnoming_sim.game.errors import GnomingError


def test_the_constants_are_the_games():
    from gnoming_sim.game.fields import N_FIELDS
    from gnoming_sim.game.rules import ROUNDS

    assert (memory.N_FIELDS, memory.ROUNDS) == (N_FIELDS, ROUNDS)


def test_a_chunk_is_capped_to_what_fits():
    per = memory.chunk_bytes_per_game(4)
    assert memory.chunk_games_that_fit(4, 2**63 - 1, available=per * 40_000 * memory.CHUNK_SHARE) == 40_000
    assert memory.chunk_games_that_fit(4, 500, available=10**12) == 500
    assert memory.chunk_games_that_fit(4, 10**9, available=0) == memory.MIN_CHUNK_GAMES
    assert memory.chunk_games_that_fit(4, 10**9, available=None) in (10**9, memory.chunk_games_that_fit(4, 10**9))


def test_a_batch_with_an_absurd_chunk_size_plays_chunks_that_fit(monkeypatch, tmp_path):
    monkeypatch.setattr(memory, "available_bytes", lambda: 2**20)
    spec = BatchSpec.make(2, ["random"], games=2**62)
    batch = Batch(spec, tmp_path / "h.parquet", chunk_size=2**63 - 1)
    assert batch.chunk_size == memory.MIN_CHUNK_GAMES and batch.chunk_capped
    assert [c.games for _, c in zip(range(3), batch._chunks())] == [memory.MIN_CHUNK_GAMES] * 3
    assert Batch(BatchSpec.make(2, ["random"], games=50), None, chunk_size=2**63 - 1).chunk_size == 50


def _failing_engine(monkeypatch, later_block: bool):
    """The engine, raising MemoryError on the first block of games 1000.. (the second chunk's first
    block), or with ``later_block`` on the first block after game 1000 (one of its later blocks)."""
    import gnoming_sim.kernel.engine as engine

    real, played = engine.simulate, []

    def simulate(**kw):
        first = kw["first_game"]
        if (first > 1000 if later_block else first == 1000) and not hasattr(simulate, "failed"):
            simulate.failed = True
            raise MemoryError
        played.append(kw["games"])
        return real(**kw)

    monkeypatch.setattr(engine, "simulate", simulate)
    return played


@pytest.mark.parametrize("later_block", [False, True])
def test_games_played_before_memory_ran_out_are_kept_and_resume(monkeypatch, tmp_path, later_block):
    spec = BatchSpec.make(2, ["random"], games=3000, seed=3)
    out = tmp_path / "g.parquet"
    played = _failing_engine(monkeypatch, later_block)
    first = Batch(spec, out, chunk_size=1000).run(threads=1)
    assert first.stopped_by == OUT_OF_MEMORY
    assert (first.games_done > 1000) if later_block else (first.games_done == 1000)
    assert first.games_done == sum(played)                              # every game played ...
    assert pq.read_metadata(out).num_rows == first.games_done * 3 * 2   # ... is in the file
    monkeypatch.undo()
    again = Batch(spec, out, chunk_size=1000, resume=True).run(threads=1)
    whole = Batch(spec, tmp_path / "whole.parquet", chunk_size=1000).run(threads=1)
    assert again.complete and again.summary["by_seat"] == whole.summary["by_seat"]
    assert pq.read_table(out).equals(pq.read_table(tmp_path / "whole.parquet"))


def test_simulate_says_memory_ran_out_in_one_line(cli_run, monkeypatch, tmp_path):
    _failing_engine(monkeypatch, later_block=False)
    out = tmp_path / "g.parquet"
    res = cli_run(["simulate", "--players", "2", "--games", "3000", "--chunk-size", "1000",
                   "--threads", "1", "--out", str(out)], code=1)
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: out of memory after 1,000 of 3,000 games")
    assert "run the same command with --resume to finish" in lines[0] and out.exists()


def test_simulate_names_the_chunks_it_plays_instead(cli_run, monkeypatch, tmp_path):
    monkeypatch.setattr(memory, "available_bytes", lambda: 2**20)
    res = cli_run(["simulate", "--players", "2", "--games", "1500", "--chunk-size",
                   str(2**63 - 1), "--threads", "1", "--out", str(tmp_path / "g.parquet")])
    assert res.stderr.startswith(f"gnoming-sim: chunks of 1,000 games, not {2**63 - 1:,}: ")
    assert pq.ParquetFile(tmp_path / "g.parquet").metadata.num_row_groups == 2


def test_a_tuning_generation_that_cannot_fit_is_refused_with_its_need(monkeypatch):
    from gnoming_sim.tune.tuner import TuneSpec

    monkeypatch.setattr(memory, "available_bytes", lambda: 2 * 2**30)
    with pytest.raises(GnomingError, match=r"--popsize 128 x --max-games 1,000,000 needs about 1\.7 GiB of memory "
                                           r"at 4 players .* can use about 2\.0 GiB: lower --max-games or --popsize"):
        TuneSpec.make(4, games=1_000_000, max_games=1_000_000, popsize=128)
    TuneSpec.make(4, games=1000, max_games=64_000, popsize=128)       # 66 MiB: fits
    monkeypatch.setattr(memory, "available_bytes", lambda: None)      # nothing known: nothing refused
    TuneSpec.make(4, games=1_000_000, max_games=1_000_000, popsize=128)


def test_the_default_population_is_cmas():
    import cma

    from gnoming_sim.tune import space
    from gnoming_sim.tune.tuner import CMA_POPSIZE

    es = cma.CMAEvolutionStrategy(space.encode({}), space.SIGMA0, space.cma_options(None))
    assert es.popsize == CMA_POPSIZE


def test_what_counts_as_running_out_of_memory():
    assert memory.out_of_memory(MemoryError()).startswith("out of memory: ")
    mapped = ImportError("/usr/lib/x/libarrow.so.2600: failed to map segment from shared object")
    assert "(libarrow.so.2600: failed to map segment" in memory.out_of_memory(mapped)
    try:
        try:
            raise OSError(12, "Cannot allocate memory")
        except OSError:
            raise OSError("Could not find/load shared object file 'libllvmlite.so'")   # numba's wrapper
    except OSError as exc:
        assert memory.out_of_memory(exc) is not None                  # found in the chain
    assert memory.out_of_memory(ImportError("No module named 'x'")) is None
    assert memory.out_of_memory(OSError(2, "No such file or directory")) is None


def test_the_entry_point_turns_a_memory_error_into_one_line(monkeypatch, capsys):
    import gnoming_sim.cli as entry

    def broke(argv=None):
        raise MemoryError

    monkeypatch.setattr(entry, "_main", broke)
    with pytest.raises(SystemExit) as done:
        entry.main(["simulate"])
    assert done.value.code == 2   # it did nothing: the exit code of a command that was refused
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("gnoming-sim: error: out of memory")

    def other(argv=None):
        raise ImportError("No module named 'x'")

    monkeypatch.setattr(entry, "_main", other)
    with pytest.raises(ImportError):   # not a want of memory: not hidden
        entry.main(["simulate"])


def _limited(kib: int):
    """A preexec_fn: the child's address space limited to ``kib`` KiB (as ``ulimit -v`` does)."""
    import resource

    return lambda: resource.setrlimit(resource.RLIMIT_AS, (kib * 1024, kib * 1024))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ulimit -v as Linux has it")
@pytest.mark.parametrize("how", ["ulimit", "setrlimit"])
def test_a_small_address_space_limit_is_one_line_and_exit_2(how):
    """The issue's case: under ulimit -v 300000 the engine's libraries cannot be mapped: the command cannot start,
    says so in one line and exits 2 (as every command that is refused before it plays a game)."""
    argv = [sys.executable, "-m", "gnoming_sim", "simulate", "--games", "4"]
    if how == "ulimit":
        res = subprocess.run(["bash", "-c", "ulimit -v 300000; exec " + " ".join(argv)], capture_output=True,
                             text=True, timeout=120)
    else:
        res = subprocess.run(argv, capture_output=True, text=True, timeout=120, preexec_fn=_limited(300_000))
    assert res.returncode == 2, res.stderr[-2000:]
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: ") and "ulimit -v" in lines[0], res.stderr
    assert "Traceback" not in res.stderr and res.stdout == "", res.stderr[-2000:]


def test_commands_that_cannot_be_loaded_are_one_line_and_exit_2():
    """Short of memory while the console script imports the commands (before main() runs): one line, exit 2, and
    ``from gnoming_sim.cli import cli`` says why rather than "no such name"."""
    code = ("import sys\n"
            "class Short:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'gnoming_sim.cli.app':\n"
            "            raise MemoryError\n"
            "sys.meta_path.insert(0, Short())\n"
            "from gnoming_sim.cli import main\n"
            "try:\n"
            "    from gnoming_sim.cli import cli\n"
            "except MemoryError as exc:\n"
            "    print('cli:', exc)\n"
            "main(['simulate', '--games', '4'])\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2, res.stderr[-2000:]
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gnoming-sim: error: out of memory"), res.stderr[-2000:]
    assert res.stdout.startswith("cli: out of memory"), res.stdout
