"""Crash-safe writing: the one way gnoming-sim writes a file or a folder.

Every output (a batch file, a report folder, a tuned strategy, its log and plot) is:

- **locked**: :class:`OutputLock` holds ``fcntl.flock`` on ``.NAME.lock`` beside it for
  as long as it is written, so a second run to the same output is refused in one line;
- **written beside it** under a name created exclusively (``O_CREAT | O_EXCL |
  O_NOFOLLOW``): a link planted at that name is never followed;
- **synced**: file data, then the folder, with ``fsync`` before and after the rename;
- **verified** (read back) before it replaces the old output by an atomic rename; on any
  error or signal the old output is left as it was.

All I/O that can fail on a full or broken disk goes through the seam :data:`io`
(``write``, ``fsync``, ``replace``, ``rename``), so the fault-injection tests
(``tests/storage``) can make the N-th call fail with ``ENOSPC`` or ``EIO``.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import signal
import stat
import threading
from pathlib import Path

from gnoming_sim.game.errors import GnomingError


class _IO:
    """The calls that touch the disk; tests replace them to inject faults."""

    def write(self, fd: int, data) -> int:
        return os.write(fd, data)

    def fsync(self, fd: int) -> None:
        os.fsync(fd)

    def replace(self, src, dst) -> None:
        os.replace(src, dst)

    def rename(self, src, dst) -> None:
        os.rename(src, dst)


io = _IO()
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def show(path) -> str:
    """``path`` as printable text: undecodable bytes of a file name as ``\\xNN``."""
    text = os.fspath(path)
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


@contextlib.contextmanager
def arrow_path(path):
    """``path`` as pyarrow can open it.  pyarrow takes only names that encode as UTF-8: another
    name is reached through ``/proc/self/fd`` of a descriptor held for the block."""
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            yield f"/proc/self/fd/{fd}"
        finally:
            os.close(fd)
        return
    yield text


def reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


# ------------------------------------------------------------------ primitives
def write_all(fd: int, data) -> None:
    """Write every byte of ``data`` to ``fd`` (``os.write`` may write fewer)."""
    view = memoryview(data).cast("B")
    while view:
        n = io.write(fd, view)
        if n <= 0:
            raise OSError(errno.EIO, "write returned no progress")
        view = view[n:]


def fsync_dir(folder) -> None:
    """Make a rename or unlink in ``folder`` durable."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        io.fsync(fd)
    finally:
        os.close(fd)


def create_exclusive(path) -> int:
    """A new file at ``path`` (0666 less the umask), opened for writing; never through a link."""
    return os.open(path, _CREATE, 0o666)


def create_unique(folder: Path, prefix: str, suffix: str) -> tuple[Path, int]:
    """A new file ``folder/prefix<random>suffix`` (an unguessable name): ``(path, fd)``."""
    for _ in range(100):
        path = folder / f"{prefix}{secrets.token_hex(6)}{suffix}"
        try:
            return path, create_exclusive(path)
        except FileExistsError:
            continue
    raise OSError(errno.EEXIST, f"no free temporary name in {folder}")


def mkdir_unique(folder: Path, prefix: str, suffix: str) -> Path:
    """A new empty folder ``folder/prefix<random>suffix``, with the umask's permissions (not 0700)."""
    for _ in range(100):
        path = folder / f"{prefix}{secrets.token_hex(6)}{suffix}"
        try:
            os.mkdir(path, 0o777)
            return path
        except FileExistsError:
            continue
    raise OSError(errno.EEXIST, f"no free temporary name in {folder}")


def open_own_file(path, flags: int = os.O_RDWR) -> int:
    """Open an existing file this program left (a partial): a regular file of this user with one
    link, never through a symbolic link.  Raises GnomingError naming what it is otherwise."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise GnomingError(f"{show(path)} is a symbolic link, not a file gnoming-sim left; "
                               "remove it (or use --force to start over)") from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_nlink != 1:
        os.close(fd)
        raise GnomingError(f"{show(path)} is not a file gnoming-sim left (not a regular file of yours "
                           "with a single link); remove it (or use --force to start over)")
    return fd


def remove_own(path) -> None:
    """Remove a file this program left at ``path``; a link there is removed, never followed."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


# ------------------------------------------------------------------ the lock
_HELD: dict[str, list] = {}   # lock path -> [fd, count]: a process may re-enter its own lock
_HELD_GUARD = threading.Lock()


class OutputLock:
    """``flock`` on ``.NAME.lock`` beside ``target`` until :meth:`release`.

    Raises GnomingError (one line) when another process holds it.  Re-entrant within a
    process: the batch and its report, or a tuner and its three files, share it.
    """

    def __init__(self, target, option: str = "--out"):
        target = Path(target)
        self.path = target.with_name(f".{target.name}.lock")
        self._key = os.path.abspath(self.path)
        self._released = False
        with _HELD_GUARD:
            held = _HELD.get(self._key)
            if held is not None:
                held[1] += 1
                return
            fd = self._acquire(target, option)
            _HELD[self._key] = [fd, 1]

    def _acquire(self, target: Path, option: str) -> int:
        for _ in range(10):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
            except PermissionError:   # another user's lock file: a read-only descriptor can lock it too
                fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise GnomingError(f"{option} {show(target)}: {show(self.path)} is a symbolic link; "
                                       "remove it") from None
                raise GnomingError(f"{option} {show(target)}: cannot lock it ({reason(exc)})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read_pid(fd)
                os.close(fd)
                raise GnomingError(f"{option} {show(target)} is being written by another gnoming-sim run"
                                   f"{f' (process {holder})' if holder else ''}; wait for it to finish "
                                   "or write elsewhere") from None
            # the lock file may have been removed by a run that just finished: lock the one in place
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path, follow_symlinks=False))
            except FileNotFoundError:
                same = False
            if same:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, 0)
                    os.write(fd, f"{os.getpid()}\n".encode())
                return fd
            os.close(fd)
        raise GnomingError(f"{option} {show(target)}: cannot lock it (its lock file keeps changing)")

    def release(self) -> None:
        if self._released:
            return
        self._released = True
        with _HELD_GUARD:
            held = _HELD.get(self._key)
            if held is None:
                return
            held[1] -= 1
            if held[1]:
                return
            del _HELD[self._key]
            # unlink while still holding the lock: a run waiting on this file re-checks the name
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            os.close(held[0])

    def __del__(self):
        with contextlib.suppress(Exception):   # at interpreter exit the modules may be gone already
            self.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()
        return False


def _read_pid(fd: int) -> str:
    with contextlib.suppress(OSError, ValueError):
        text = os.pread(fd, 32, 0).decode().strip()
        return text if text.isdigit() else ""
    return ""


# ------------------------------------------------------------------ one whole file
def write_file(path, data: bytes | str, option: str = "--out") -> None:
    """Write ``data`` to ``path``, crash-safely (see the module docstring).

    Raises GnomingError (one line) when the disk refuses it: ``path`` is then unchanged.
    """
    path = Path(path)
    raw = show(data).encode("utf-8") if isinstance(data, str) else bytes(data)
    with OutputLock(path, option):
        tmp = None
        try:
            _remove_stale(path.parent, f".{path.name}.", ".tmp")
            tmp, fd = create_unique(path.parent, f".{path.name}.", ".tmp")
            try:
                write_all(fd, raw)
                io.fsync(fd)
            finally:
                os.close(fd)
            if _read_back(tmp) != raw:
                raise OSError(errno.EIO, "the written file reads back differently")
            io.replace(tmp, path)
            tmp = None
        except OSError as exc:
            raise GnomingError(f"{option} {show(path)}: cannot write it ({reason(exc)}); "
                               f"{'it is unchanged' if path.exists() else 'nothing was written'}") from None
        finally:
            if tmp is not None:
                remove_own(tmp)
        try:
            fsync_dir(path.parent)
        except OSError as exc:
            raise GnomingError(f"{option} {show(path)}: written whole, but its folder could not be synced "
                               f"({reason(exc)}): a power cut could still lose it") from None


def _remove_stale(folder: Path, prefix: str, suffix: str) -> None:
    """Remove the temporary files :func:`create_unique` named, left by a run that was killed
    (the caller holds the output's lock, so no live run owns them)."""
    for entry in os.listdir(folder):
        middle = entry[len(prefix):len(entry) - len(suffix)]
        if entry.startswith(prefix) and entry.endswith(suffix) and len(middle) == 12 \
                and all(c in "0123456789abcdef" for c in middle):
            remove_own(folder / entry)


def _read_back(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


# ------------------------------------------------------------------ signals
class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C's KeyboardInterrupt so that every cleanup path runs."""


@contextlib.contextmanager
def sigterm_raises():
    """While the block runs, SIGTERM raises :class:`Terminated` (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
