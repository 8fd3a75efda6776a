"""The kernel cache heals itself: fault injection on a tiny kernel's cache.

Each case warms a temporary cache with :mod:`_cache_probe`'s kernel (loaded as a module of
``gnoming_sim``, so the project's cache places it), damages one entry, and checks that a fresh
dispatcher still computes the right answer, recompiled, with one line on stderr naming the entry,
which is renamed aside (never deleted), and that the next one loads the healed entry from the cache.
A cache that cannot be written is read (a warm one loads, nothing written) and what must compile
compiles in memory, with one line, never a traceback and never a file beside the sources.

The tests run as root here, where mode 000 does not stop a read, so permission denied is emulated by
an ``open`` that raises it for that one path (a real mode 000, and a home, cache folder and source
folder none of them writable, in a slow test run as root without ``CAP_DAC_OVERRIDE``, by setpriv);
a full disk and a read-only file system are emulated by writes that raise ENOSPC / EROFS (real ones,
a tiny tmpfs and a read-only bind mount, in slow tests where mounting is allowed).
"""
from __future__ import annotations

import builtins
import errno
import hashlib
import importlib.util
import os
import pickle
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numba
import pytest

pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="the cache serves compiled kernels only")

HERE = Path(__file__).resolve().parent
SET_ASIDE = re.compile(r"gnoming-sim: the kernel cache entry (\S+) was unreadable \((.+)\); "
                       r"set aside as (\S+) and recompiled")
CANNOT_WRITE = re.compile(r"gnoming-sim: the kernel cache at (\S+) cannot be written \((.+)\); compiling in "
                          r"memory, which each run repeats(?: \((?:about \d+ s|under 1 s) for the first kernel group\))?")


@pytest.fixture
def probe(tmp_path, monkeypatch):
    """``probe.fresh()``: a new dispatcher of the tiny kernel, cached under ``probe.root``."""
    from gnoming_sim.kernel import disk_cache

    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(HERE / "_cache_probe.py", src / "_cache_probe.py")
    name = "gnoming_sim._cache_probe"
    spec = importlib.util.spec_from_file_location(name, src / "_cache_probe.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    root = tmp_path / "cache"
    monkeypatch.setattr(disk_cache.ProjectCacheLocator, "root", str(root))
    monkeypatch.setattr(disk_cache, "_told", set())
    monkeypatch.setattr(disk_cache, "_unwritable", {})
    # a CLI command run earlier in this process (CliRunner tests on the same xdist worker) leaves the compile
    # notice's numba listener registered; it would add a "compiled ..." line of its own to stderr
    from gnoming_sim.cli import compile_notice
    if compile_notice._installed is not None:
        monkeypatch.setattr(compile_notice._installed, "say", lambda text: None)

    class Probe:
        def __init__(self):
            self.root, self.src = root, src

        def fresh(self):
            from gnoming_sim.kernel.jit import jit

            return jit(py=True)(module.add_one)

        def files(self):
            return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) if root.exists() else []

        def index(self):
            (found,) = root.rglob("*.nbi")
            return found

        def data(self):
            (found,) = root.rglob("*.nbc")
            return found

    return Probe()


def _run(d):
    assert d(41) == 42
    return sum(d.stats.cache_hits.values()), sum(d.stats.cache_misses.values())


def _warm(probe):
    assert _run(probe.fresh()) == (0, 1)   # compiled and saved
    assert _run(probe.fresh()) == (1, 0)   # loaded


def _ours(blob: bytes) -> bytes:
    from gnoming_sim.kernel.disk_cache import MAGIC

    return MAGIC + hashlib.sha256(blob).digest() + blob


def _truncate(path):
    path.write_bytes(path.read_bytes()[:40])


def _zero(path):
    path.write_bytes(b"")


def _garbage(path):
    path.write_bytes(bytes(range(256)) * 3)


def _flip(path):   # same length, one byte changed in the pickle: only the checksum sees it
    blob = bytearray(path.read_bytes())
    blob[-20] ^= 0xFF
    path.write_bytes(bytes(blob))


def _foreign(path):
    path.write_text("someone's notes, not a cache file\n")


def _folder(path):
    path.unlink()
    (path / "inside").mkdir(parents=True)


def _whole_but_wrong(path):   # our header and a right checksum over a pickle that is no cache entry
    path.write_bytes(_ours(pickle.dumps(["no", "cache", "entry", 1])))


FAULTS = {"truncated": _truncate, "zero-length": _zero, "garbage": _garbage, "one byte flipped": _flip,
          "foreign": _foreign, "a folder": _folder, "whole but wrong": _whole_but_wrong}
WHY = {"truncated": "damaged: truncated or overwritten", "zero-length": "empty",
       "garbage": "not written by gnoming-sim", "one byte flipped": "damaged: truncated or overwritten",
       "foreign": "not written by gnoming-sim", "a folder": "Is a directory"}


def _heals(probe, capfd, which, fault, why=None):
    """Damage ``which`` entry with ``fault``; the next run recompiles it with one line, the one after loads."""
    _warm(probe)
    capfd.readouterr()
    path = probe.index() if which == "index" else probe.data()
    fault(path)
    damaged = path.read_bytes() if path.is_file() else None
    assert _run(probe.fresh()) == (0, 1)
    lines = capfd.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    m = SET_ASIDE.fullmatch(lines[0])
    assert m and m.group(1) == str(path), lines[0]
    if why is not None:
        assert m.group(2) == why
    aside = path.parent / m.group(3)
    assert aside.exists() and aside.name.startswith(path.name + ".bad-")
    if damaged is not None:
        assert aside.read_bytes() == damaged   # kept as it was, never deleted
    assert path.is_file() and path.read_bytes()[:5] == b"gnomi"   # saved afresh
    assert _run(probe.fresh()) == (1, 0)   # healed: loads again
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("fault", FAULTS)
def test_a_damaged_index_is_set_aside_and_the_kernel_recompiled(probe, capfd, fault):
    _heals(probe, capfd, "index", FAULTS[fault], "damaged: ValueError" if fault == "whole but wrong" else WHY.get(fault))


@pytest.mark.parametrize("fault", FAULTS)
def test_a_damaged_data_file_is_set_aside_and_the_kernel_recompiled(probe, capfd, fault):
    _heals(probe, capfd, "data", FAULTS[fault], WHY.get(fault))


@pytest.mark.parametrize("which", ["index", "data"])
def test_permission_denied_is_set_aside_and_recompiled(probe, capfd, monkeypatch, which):
    """Mode 000, as seen by a user who is not root: opening the entry raises PermissionError."""
    _warm(probe)
    capfd.readouterr()
    path = probe.index() if which == "index" else probe.data()
    denied, real_open = str(path), builtins.open

    def open_(file, *args, **kwargs):
        if os.fspath(file) == denied:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), denied)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", open_)
    assert _run(probe.fresh()) == (0, 1)
    (line,) = capfd.readouterr().err.splitlines()
    m = SET_ASIDE.fullmatch(line)
    assert m and m.group(1) == denied and m.group(2) == "Permission denied", line
    monkeypatch.setattr(builtins, "open", real_open)
    assert _run(probe.fresh()) == (1, 0)


def test_a_foreign_file_where_a_data_file_goes_is_kept(probe, capfd):
    """A file that is not ours, at the name the next save would take, is set aside, not overwritten."""
    _warm(probe)
    data = probe.data()
    probe.index().unlink()     # the index is gone; the next save numbers its data file 1 again
    data.write_text("precious\n")
    capfd.readouterr()
    assert _run(probe.fresh()) == (0, 1)
    (line,) = capfd.readouterr().err.splitlines()
    assert SET_ASIDE.fullmatch(line) and "not written by gnoming-sim" in line, line
    (kept,) = data.parent.glob(data.name + ".bad-*")
    assert kept.read_text() == "precious\n"
    assert _run(probe.fresh()) == (1, 0)


def _unwritable(monkeypatch, probe, err):
    """Every write under the cache folder fails with ``err`` (ENOSPC: a full disk; EROFS: read-only)."""
    from gnoming_sim.kernel import disk_cache

    root, real_open = str(probe.root), builtins.open

    def refuse(*_):
        raise OSError(err, os.strerror(err), root)

    def open_(file, mode="r", *args, **kwargs):
        if os.fspath(file).startswith(root) and any(c in mode for c in "wax+"):
            refuse()
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", open_)
    if err == errno.EROFS:   # a read-only file system refuses a new folder or file at once
        monkeypatch.setattr(disk_cache.ProjectCacheLocator, "ensure_cache_path", refuse)


def _nothing_beside_the_sources(probe):
    assert not list(probe.src.rglob("*.nbi")) and not list(probe.src.rglob("*.nbc"))


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_a_cache_that_cannot_be_written_compiles_in_memory(probe, capfd, monkeypatch, err):
    _unwritable(monkeypatch, probe, err)
    before = probe.files()
    assert _run(probe.fresh()) == (0, 1)
    (line,) = capfd.readouterr().err.splitlines()
    m = CANNOT_WRITE.fullmatch(line)
    assert m and m.group(1) == str(probe.root) and m.group(2) == os.strerror(err), line
    assert not [f for f in probe.files() if f not in before and not os.path.isdir(probe.root / f)]
    _nothing_beside_the_sources(probe)
    assert _run(probe.fresh()) == (0, 1)   # compiled in memory again, said once per process
    assert capfd.readouterr().err == ""


def test_a_warm_cache_that_cannot_be_written_still_loads(probe, capfd, monkeypatch):
    _warm(probe)
    capfd.readouterr()
    before = {f: (probe.root / f).stat().st_mtime_ns for f in probe.files()}
    _unwritable(monkeypatch, probe, errno.EROFS)
    assert _run(probe.fresh()) == (1, 0)   # loaded, not recompiled
    assert capfd.readouterr().err == ""
    assert {f: (probe.root / f).stat().st_mtime_ns for f in probe.files()} == before
    _nothing_beside_the_sources(probe)


# --- the real faults, in a fresh process ---------------------------------------------------------------

_SCRIPT = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("gnoming_sim._cache_probe", sys.argv[1])
m = importlib.util.module_from_spec(spec); sys.modules[spec.name] = m; spec.loader.exec_module(m)
from gnoming_sim.kernel.jit import jit
d = jit(py=True)(m.add_one)
print(d(41), sum(d.stats.cache_hits.values()), sum(d.stats.cache_misses.values()))
"""


def _child(src, env, plain_user=False):
    """The probe in a fresh process; ``plain_user``: as root without the power to override file
    permissions (what a user who is not root sees), where we run as root."""
    prefix = []
    if plain_user and os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("running as root without setpriv: mode 000 cannot stop a read")
        prefix = ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search"]
    return subprocess.run([*prefix, sys.executable, "-c", _SCRIPT, str(src / "_cache_probe.py")],
                          capture_output=True, text=True, timeout=120, env=env)


def _tree(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(HERE / "_cache_probe.py", src / "_cache_probe.py")
    return src


@pytest.mark.slow
def test_mode_000_and_no_home_as_a_user_who_is_not_root(tmp_path):
    """A real mode 000 index, then a cache folder, $HOME and the sources' folder none of them writable."""
    src = _tree(tmp_path)
    cache = tmp_path / "cache"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    assert _child(src, env, True).stdout.split() == ["42", "0", "1"]
    (index,) = cache.rglob("*.nbi")
    index.chmod(0)
    proc = _child(src, env, True)
    assert proc.returncode == 0 and proc.stdout.split() == ["42", "0", "1"], proc.stderr
    (line,) = proc.stderr.splitlines()
    assert SET_ASIDE.fullmatch(line) and "(Permission denied)" in line, line
    assert _child(src, env, True).stdout.split() == ["42", "1", "0"]

    home = tmp_path / "home"
    home.mkdir()
    no_home = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    no_home["HOME"] = str(home)
    for folder in (home, src):
        folder.chmod(0o555)
    proc = _child(src, no_home, True)
    assert proc.returncode == 0 and proc.stdout.split() == ["42", "0", "1"], proc.stderr
    (line,) = proc.stderr.splitlines()
    m = CANNOT_WRITE.fullmatch(line)
    assert m and m.group(1).startswith(str(home)) and m.group(2) == "Permission denied", line
    assert not list(src.rglob("*.nb*")) and not list(home.rglob("*"))


def _mount(*args):
    return subprocess.run(["mount", *args], capture_output=True, timeout=30).returncode == 0


@pytest.fixture
def mount_point(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting needs root")
    point = tmp_path / "mnt"
    point.mkdir()
    yield point
    subprocess.run(["umount", str(point)], capture_output=True, timeout=30)


@pytest.mark.slow
def test_a_full_disk_compiles_in_memory(tmp_path, mount_point):
    if not _mount("-t", "tmpfs", "-o", "size=16k", "tmpfs", str(mount_point)):
        pytest.skip("cannot mount a tmpfs here")
    filler = mount_point / "filler"
    with open(filler, "wb") as f:
        try:
            f.write(b"\0" * 65536)
        except OSError:
            pass
    src = _tree(tmp_path)
    proc = _child(src, dict(os.environ, NUMBA_CACHE_DIR=str(mount_point / "cache")))
    assert proc.returncode == 0 and proc.stdout.split() == ["42", "0", "1"], proc.stderr
    (line,) = proc.stderr.splitlines()
    assert CANNOT_WRITE.fullmatch(line) and "(No space left on device)" in line, line
    assert not list(src.rglob("*.nb*")) and not list(mount_point.rglob("*.nb*"))


@pytest.mark.slow
def test_a_warm_cache_on_a_read_only_file_system_loads_and_writes_nothing(tmp_path, mount_point):
    src = _tree(tmp_path)
    cache = tmp_path / "cache"
    assert _child(src, dict(os.environ, NUMBA_CACHE_DIR=str(cache))).stdout.split() == ["42", "0", "1"]
    if not (_mount("--bind", str(cache), str(mount_point)) and _mount("-o", "remount,bind,ro", str(mount_point))):
        pytest.skip("cannot make a read-only bind mount here")
    before = sorted(p.name for p in cache.rglob("*"))
    proc = _child(src, dict(os.environ, NUMBA_CACHE_DIR=str(mount_point)))
    assert proc.returncode == 0 and proc.stdout.split() == ["42", "1", "0"], proc.stderr   # loaded
    assert proc.stderr == ""
    assert sorted(p.name for p in cache.rglob("*")) == before and not list(src.rglob("*.nb*"))


@pytest.mark.slow
def test_simulate_with_a_damaged_index_in_a_warm_cache_recompiles_it_and_plays_the_same_games(tmp_path):
    """End to end: ``gnoming-sim simulate`` once warm, then with its game loop's index truncated in a copy
    of that cache: the same results, one line, the kernel recompiled; then a run that loads it again."""
    from gnoming_sim.kernel.jit import cache_root

    cmd = [sys.executable, "-m", "gnoming_sim", "simulate", "--games", "10", "--strategy", "greedy", "--players", "4"]
    warm = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert warm.returncode == 0, warm.stderr
    copy = tmp_path / "cache"
    shutil.copytree(cache_root(), copy / os.path.basename(cache_root()))
    # this checkout's entry: numba files each source folder's kernels under a name made from its absolute path, so
    # a cache that another clone of the project warmed (CI's fresh clone beside a developer's) holds one per clone
    from numba.core.caching import _CacheLocator

    import gnoming_sim.kernel.game_loop as game_loop
    sub = _CacheLocator.get_suitable_cache_subpath(game_loop.__file__)
    (index,) = (copy / os.path.basename(cache_root()) / sub).glob("game_loop.play_range_hr-*.nbi")
    index.write_bytes(index.read_bytes()[:100])
    env = dict(os.environ, NUMBA_CACHE_DIR=str(copy))

    def results(out):   # the tables, without the timing line
        return [line for line in out.splitlines() if not line.startswith("time ")]

    healed = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert healed.returncode == 0, healed.stderr
    assert results(healed.stdout) == results(warm.stdout)
    first = healed.stderr.splitlines()[0]
    m = SET_ASIDE.fullmatch(first)
    assert m and m.group(1) == str(index) and "truncated" in m.group(2), healed.stderr
    assert "Traceback" not in healed.stderr and len([e for e in healed.stderr.splitlines() if "cache" in e]) == 1
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert again.returncode == 0 and again.stderr == "" and results(again.stdout) == results(warm.stdout)


def test_an_entry_that_cannot_be_set_aside_is_kept_and_the_kernel_compiled_in_memory(probe, capfd, monkeypatch):
    """A damaged entry in a folder where it cannot be renamed: never overwritten, one line, a right answer."""
    from gnoming_sim.kernel import disk_cache

    _warm(probe)
    index = probe.index()
    _garbage(index)
    damaged = index.read_bytes()

    def no_rename(*_):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(disk_cache.os, "rename", no_rename)
    capfd.readouterr()
    assert _run(probe.fresh()) == (0, 1)
    (line,) = capfd.readouterr().err.splitlines()
    assert line == (f"gnoming-sim: the kernel cache entry {index} was unreadable (not written by gnoming-sim) and "
                    "could not be set aside (Permission denied); recompiling it in memory")
    assert index.read_bytes() == damaged


def test_a_cache_damaged_throughout_names_a_few_entries_then_one_line(tmp_path, capfd, monkeypatch):
    from gnoming_sim.kernel import disk_cache

    monkeypatch.setattr(disk_cache, "_told", set())
    entries = [tmp_path / "stamp" / "kernel_x" / f"k{i}.nbi" for i in range(6)]
    entries[0].parent.mkdir(parents=True)
    for path in entries:
        path.write_text("junk")
        disk_cache.set_aside(str(path), "not written by gnoming-sim")
    lines = capfd.readouterr().err.splitlines()
    assert [bool(SET_ASIDE.fullmatch(line)) for line in lines] == [True, True, True, False]
    assert lines[3] == (f"gnoming-sim: more kernel cache entries under {tmp_path / 'stamp'} were unreadable; "
                        "each is set aside likewise and recompiled")
    assert not any(p.exists() for p in entries) and len(list(entries[0].parent.glob("*.bad-*"))) == 6


def test_an_entry_healed_by_another_process_meanwhile_is_left_alone(tmp_path, capfd, monkeypatch):
    """Two processes read the same damaged entry; the first sets it aside and saves a good one; the second
    must not set the good one aside."""
    from gnoming_sim.kernel import disk_cache

    monkeypatch.setattr(disk_cache, "_told", set())
    path = tmp_path / "k.nbi"
    path.write_text("junk")
    seen = disk_cache._identity(os.lstat(path))
    path.unlink()
    path.write_bytes(_ours(b"a good entry, saved by the first process"))
    os.utime(path, ns=(1, 1))
    disk_cache.set_aside(str(path), "not written by gnoming-sim", seen)
    assert capfd.readouterr().err == "" and path.exists() and not list(tmp_path.glob("*.bad-*"))
