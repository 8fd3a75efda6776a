"""Where this project's compiled kernels are cached on disk, and a cache that heals itself.

Where.  numba's on-disk cache checks only the source file of the function it loads, not of the
functions that it calls and inlined, so an edit to a helper module could leave a stale caller in the
cache.  Our kernels are therefore cached under a folder keyed by :func:`source_stamp`, a hash of
*every* ``.py`` file of :mod:`gnoming_sim.kernel` and :mod:`gnoming_sim.game`, and of each module of
:mod:`gnoming_sim.search` that defines kernels (found by walking the folders, so a new kernel file is
covered without a hand-kept list).  This module is left out of the hash: it decides how entries are
read and written, never what is compiled (an entry it cannot read is set aside and recompiled, below).
The folder is ``$NUMBA_CACHE_DIR/<hash>`` when ``NUMBA_CACHE_DIR`` is set (the Makefile sets it to
``.numba_cache/`` in the repository), else ``~/.cache/gnoming-sim/<hash>`` (``$XDG_CACHE_HOME`` is
honoured).  :class:`ProjectCacheLocator` answers only for this project's functions: other libraries'
cached kernels are left where numba puts them (``numba.config.CACHE_DIR`` is never changed); and it
answers for ours even when the folder cannot be written, so numba never falls back to writing a cache
into the installed package (its ``__pycache__``).

Healing.  Every file this cache writes starts with :data:`MAGIC` and a SHA-256 of the rest, so a
truncated, empty, overwritten or foreign file (an index or a data file) is recognised before it is
unpickled.  An entry that cannot be read for any reason (damaged, not ours, a folder in its place,
permission denied) is renamed aside to ``<name>.bad-<time>`` (never deleted: it may not be ours), one
line on stderr says so, and the kernel is compiled again and saved afresh.  A folder that cannot be
written (a full disk, a read-only file system, no permission) is still read, so a warm read-only cache
loads; what has to be compiled is compiled in memory and not saved, and one line says so with the cost.

Private numba API.  This rests on numba's cache internals (:data:`CACHE`, detected at import by :func:`hook`);
without them our kernels are cached by numba itself, as ``njit(cache=True)`` does, and one line says the cost.
"""
from __future__ import annotations

import functools
import hashlib
import os
import pickle
import sys
import threading
import time
from pathlib import Path

import numba
from numba.core import caching as _caching
from numba.core import event as _event

_PACKAGE = Path(__file__).resolve().parent.parent          # gnoming_sim/
_STAMPED = (_PACKAGE / "kernel", _PACKAGE / "game")   # what the kernels are compiled from ...
_KERNEL_MODULES = (_PACKAGE / "search",)             # ... and the modules here that define kernels
_UNSTAMPED = {Path(__file__).resolve()}              # how entries are stored, not what is compiled
_OUR_MODULES = ("gnoming_sim",)  # top-level packages whose kernels we place
PREFIX = "gnoming-sim: "

MAGIC = b"gnoming-sim kernel cache 1\n"
_DIGEST = 32   # bytes of a SHA-256


def _say(line: str) -> None:
    print(PREFIX + line, file=sys.stderr, flush=True)


def source_stamp() -> str:
    """Hash of every module under kernel/ and game/ (this one aside), and of each module under search/
    that defines kernels (imports the jit factory), by path and bytes."""
    h = hashlib.sha256()
    paths = [p for root in _STAMPED for p in root.rglob("*.py") if p.resolve() not in _UNSTAMPED]
    paths += [p for root in _KERNEL_MODULES for p in root.rglob("*.py") if "kernel.jit import" in p.read_text("utf-8")]
    for path in sorted(paths):
        h.update(str(path.relative_to(_PACKAGE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def cache_root() -> str:
    """The folder our compiled kernels are cached in (see the module docstring; with a hook off, :data:`OFF`,
    a folder apart)."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache"), "gnoming-sim")
    return os.path.join(base, source_stamp() + "".join(f"-no-{name}" for name in OFF))


OFF: list[str] = []   # the private numba hooks off in this process (:func:`hook`): our cache folder names them


def hook(name: str, present: bool, cost: str, apart: bool = True) -> bool:
    """Whether the private numba hook ``name`` is on: ``present`` (what it uses is in this numba), not turned off
    by ``GNOMING_NUMBA_PUBLIC`` (``1``: every hook; or a comma list of names: cache, nrt, wrappers, inliner), and,
    if it changes the compiled kernels (``apart``), the cache hook on (numba's own cache cannot keep them apart
    from the public ones).  Off, one line says so and what that ``cost``, once in a process and those it starts."""
    switch = os.environ.get("GNOMING_NUMBA_PUBLIC", "")
    if switch in ("1", "all") or name in switch.split(","):
        why = "GNOMING_NUMBA_PUBLIC is set"
    elif apart and "cache" in OFF:
        why = "it needs the cache hook"
    elif not present:
        why = f"numba {numba.__version__} lacks the private API it uses"
    else:
        return True
    OFF.append(name)
    said = os.environ.get("GNOMING_NUMBA_SAID", "").split(",")
    if name not in said:
        _say(f"numba hook '{name}' is off ({why}): {cost}")
        os.environ["GNOMING_NUMBA_SAID"] = ",".join([*filter(None, said), name])
    return False


def has(obj, *paths: str) -> bool:
    """Whether ``obj`` has each dotted attribute path of ``paths`` (a private numba hook's feature test)."""
    return all(functools.reduce(lambda o, a: getattr(o, a, None), p.split("."), obj) is not None for p in paths)


CACHE = hook("cache", has(_caching, *"""CacheImpl._locator_classes CompileResultCacheImpl.rebuild
    UserProvidedCacheLocator.ensure_cache_path UserProvidedCacheLocator.get_suitable_cache_subpath
    IndexDataCacheFile._load_index IndexDataCacheFile._save_index IndexDataCacheFile._save_data
    IndexDataCacheFile._data_path IndexDataCacheFile._open_for_write IndexDataCacheFile._dump FunctionCache._index_key
    FunctionCache._impl_class FunctionCache._load_overload FunctionCache._save_overload""".split()),
             "numba caches the kernels itself and checks only each kernel's own file (after an edit under "
             "gnoming_sim/, clear NUMBA_CACHE_DIR or __pycache__), heals no damaged entry, and warmup reloads "
             "every group")


def _base(name: str):   # numba's cache class to build on (``object`` where it has none: CACHE is off)
    return getattr(_caching, name, object)


def is_ours(func) -> bool:
    return (getattr(func, "__module__", None) or "").split(".")[0] in _OUR_MODULES


class ProjectCacheLocator(_base("UserProvidedCacheLocator")):
    """Puts this project's kernels (and only them) under :func:`cache_root`, writable or not."""

    root: str | None = None
    twins = False   # True while the cache of a kernel's Python-callable twin is made (jit.KernelDispatcher)

    def __init__(self, func, py_file):
        super().__init__(func, py_file)
        if ProjectCacheLocator.root is None:
            ProjectCacheLocator.root = cache_root()
        self.root = ProjectCacheLocator.root
        self._cache_path = os.path.join(self.root, "python-callable" if self.twins else "",
                                        self.get_suitable_cache_subpath(py_file))
        self.unwritable: OSError | None = None   # why the folder cannot be written, if it cannot

    @classmethod
    def from_function(cls, func, py_file):
        if not is_ours(func) or not os.path.exists(py_file):
            return None  # someone else's function: numba's own locators decide
        self = cls(func, py_file)
        try:
            self.ensure_cache_path()
        except OSError as exc:   # still ours: read what is there, compile the rest in memory
            self.unwritable = exc
        return self


# numba has no public hook for a per-package cache folder; its locator list is a private class
# attribute (:data:`CACHE`).  Ours goes first and declines every function that is not ours (our own caches,
# below, use ours alone).
if CACHE and ProjectCacheLocator not in _caching.CacheImpl._locator_classes:
    _caching.CacheImpl._locator_classes.insert(0, ProjectCacheLocator)


# --- what is said, once each ---------------------------------------------------------------------------

_lock = threading.RLock()
_told: set[str] = set()
_unwritable: dict[str, str] = {}   # cache root -> why it cannot be written (this process stops trying)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


class _Clock(_event.Listener):
    """Times the outermost compiles (numba fires ``numba:compile`` only on a real compile), so that the
    line about a cache that cannot be written can give the cost of compiling in memory."""

    def __init__(self):
        self.depth = 0
        self.started = 0.0
        self.last = None          # seconds of the last finished outermost compile
        self.pending: str | None = None   # a line waiting for the outermost compile to end

    def on_start(self, ev):
        self.depth += 1
        if self.depth == 1:
            self.started = time.perf_counter()

    def on_end(self, ev):
        self.depth = max(0, self.depth - 1)
        if self.depth == 0:
            self.last = time.perf_counter() - self.started
            if self.pending is not None:
                line, self.pending = self.pending, None
                _say(_with_cost(line, self.last))


def _with_cost(line: str, seconds: float | None) -> str:
    if seconds is None:
        return line + ", which each run repeats"
    took = f"about {seconds:.0f} s" if seconds >= 1 else "under 1 s"
    return line + f", which each run repeats ({took} for the first kernel group)"


_clock = _Clock()
_event.register("numba:compile", _clock)


def _cannot_write(root: str, exc: BaseException) -> None:
    """One line per process and folder: the cache cannot be written, we compile in memory."""
    with _lock:
        if root in _unwritable:
            return
        _unwritable[root] = _reason(exc)
        line = f"the kernel cache at {root} cannot be written ({_unwritable[root]}); compiling in memory"
        if _clock.depth > 0:
            _clock.pending = line      # said with its cost when the compile under way ends
        else:
            _say(_with_cost(line, _clock.last))


_NAMED = 3   # unreadable entries named one by one in a process; the rest in one line


def _identity(st: os.stat_result) -> tuple:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def set_aside(path: str, why: str, seen: tuple | None = None) -> None:
    """Renames an unreadable cache entry aside (never deletes it: it may not be ours) and says so: the
    first few by name, then one line for the rest (a cache damaged throughout is not a screenful).
    ``seen``: the :func:`_identity` of the file that was read; a file replaced since (another process
    healed it) is left alone."""
    with _lock:
        if path in _told:
            return
        if seen is not None:
            try:
                if _identity(os.lstat(path)) != seen:
                    return
            except OSError:
                return
        _told.add(path)
        aside = f"{path}.bad-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
        try:
            os.rename(path, aside)
            failed = None
        except FileNotFoundError:
            return   # another process set it aside first
        except OSError as exc:
            failed = _reason(exc)
        if len(_told) > _NAMED:
            if len(_told) == _NAMED + 1:
                _say(f"more kernel cache entries under {os.path.dirname(os.path.dirname(path))} were unreadable; "
                     "each is set aside likewise and recompiled")
        elif failed is not None:
            _say(f"the kernel cache entry {path} was unreadable ({why}) and could not be set aside "
                 f"({failed}); recompiling it in memory")
        else:
            _say(f"the kernel cache entry {path} was unreadable ({why}); set aside as "
                 f"{os.path.basename(aside)} and recompiled")


class _Unreadable(Exception):
    """A cache file that cannot be read; ``str()`` says why, in a few words."""


def _why(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, _Unreadable) else f"damaged: {type(exc).__name__}"


class HealingIndexDataCacheFile(_base("IndexDataCacheFile")):
    """numba's index and data files, each written as :data:`MAGIC`, a SHA-256 of the rest, and the
    pickle numba writes; a file that does not read back whole is set aside and counts as a miss."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seen: dict[str, tuple] = {}   # path -> identity of the file last read there

    def _read(self, path: str) -> bytes:
        """The pickle in one of our files; :class:`_Unreadable` says why there is none.  Notes the file's
        identity in ``self.seen[path]`` (what :func:`set_aside` may rename)."""
        try:
            self.seen[path] = _identity(os.lstat(path))
            with open(path, "rb") as f:
                blob = f.read()
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise _Unreadable(_reason(exc)) from exc
        if not blob:
            raise _Unreadable("empty")
        if not blob.startswith(MAGIC):
            raise _Unreadable("not written by gnoming-sim")
        digest, payload = blob[len(MAGIC):len(MAGIC) + _DIGEST], blob[len(MAGIC) + _DIGEST:]
        if hashlib.sha256(payload).digest() != digest:
            raise _Unreadable("damaged: truncated or overwritten")
        return payload

    def _load_index(self):
        try:
            payload = self._read(self._index_path)
            version, stamp, overloads = pickle.loads(payload)
        except FileNotFoundError:
            return {}
        except Exception as exc:   # noqa: BLE001 - whatever stops the read, the entry is set aside
            set_aside(self._index_path, _why(exc), self.seen.get(self._index_path))
            return {}
        if version != self._version or stamp != self._source_stamp or not isinstance(overloads, dict):
            return {}   # another numba's or an older source's entries: replaced on the next save
        return overloads

    def load_entry(self, key):
        """``(path, data)`` of the entry cached for ``key``, or None (none, or set aside)."""
        name = self._load_index().get(key)
        if not isinstance(name, str) or os.path.basename(name) != name:
            return None
        path = self._data_path(name)
        try:
            return path, pickle.loads(self._read(path))
        except FileNotFoundError:
            return None   # the index outlived its data file (removed, or a save cut short)
        except Exception as exc:   # noqa: BLE001
            set_aside(path, _why(exc), self.seen.get(path))
            return None

    def load(self, key):
        found = self.load_entry(key)
        return None if found is None else found[1]

    def _save_index(self, overloads):
        self._write(self._index_path, self._dump((self._version, self._source_stamp, overloads)))

    def _save_data(self, name, data):
        self._write(self._data_path(name), self._dump(data))

    def _write(self, path: str, payload: bytes) -> None:
        if os.path.lexists(path) and not self._ours(path):
            set_aside(path, "not written by gnoming-sim")   # never replace a file that is not ours
            if os.path.lexists(path):
                return   # it could not be set aside (said): the kernel stays compiled in memory
        with self._open_for_write(path) as f:
            f.write(MAGIC + hashlib.sha256(payload).digest() + payload)

    @staticmethod
    def _ours(path: str) -> bool:
        if os.path.islink(path) or not os.path.isfile(path):
            return False
        try:
            with open(path, "rb") as f:
                return f.read(len(MAGIC)) == MAGIC
        except OSError:
            return False


class ProjectCacheImpl(_base("CompileResultCacheImpl")):
    _locator_classes = [ProjectCacheLocator]


class HealingCache(_base("FunctionCache")):
    """numba's per-function cache, for our functions: an unreadable entry is a miss (set aside, said once),
    a cache that cannot be written is not written (said once, with the cost), neither a traceback."""

    _impl_class = ProjectCacheImpl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file = HealingIndexDataCacheFile(cache_path=self._cache_path,
                                                     filename_base=self._impl.filename_base,
                                                     source_stamp=self._impl.locator.get_source_stamp())

    def _load_overload(self, sig, target_context):
        if not self._enabled:
            return None
        key = self._index_key(sig, target_context.codegen())
        found = self._cache_file.load_entry(key)
        if found is None:
            return None
        path, data = found
        try:
            return self._impl.rebuild(target_context, data)
        except Exception as exc:   # noqa: BLE001 - a whole file that does not rebuild: set aside, recompile
            set_aside(path, _why(exc), self._cache_file.seen.get(path))
            return None

    def save_overload(self, sig, data):
        if not self._enabled:
            return
        locator = self._impl.locator
        root = locator.root
        if root in _unwritable:
            return
        if locator.unwritable is not None:
            _cannot_write(root, locator.unwritable)
            return
        try:
            self._save_overload(sig, data)
        except OSError as exc:
            _cannot_write(root, exc)


def enable(dispatcher, twins: bool = False) -> None:
    """Caches ``dispatcher`` (one of ours) in :class:`HealingCache` (what ``enable_caching`` does with
    numba's own cache, which is what our kernels get without :data:`CACHE`); ``twins``: the cache of a kernel's
    Python-callable twin, in a folder apart."""
    if not CACHE or not is_ours(dispatcher.py_func):
        dispatcher.enable_caching()
        return
    ProjectCacheLocator.twins = twins
    try:
        dispatcher._cache = HealingCache(dispatcher.py_func)
    finally:
        ProjectCacheLocator.twins = False


def cached(dispatcher) -> bool | None:
    """Whether ``dispatcher`` (one of ours) has its cache index on disk; None where numba caches it itself
    (:data:`CACHE` off: numba keeps no public record of what it cached)."""
    cache = getattr(dispatcher, "_cache", None)
    return os.path.exists(cache._cache_file._index_path) if isinstance(cache, HealingCache) else None
