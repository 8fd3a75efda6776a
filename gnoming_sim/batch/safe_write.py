"""Crash-safe writing: the one way gnoming-sim writes a file or a folder.

Every output (a batch file, a report folder, a tuned strategy, its log and plot) is:

- **locked**: :class:`OutputLock` holds ``fcntl.flock`` on ``.NAME.lock`` beside it for
  as long as it is written, so a second run to the same output is refused in one line; the lock
  file is created exclusively too, and one that no live run holds is stale;
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
import re
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
class Busy(GnomingError):
    """Refused because a live run holds the output's lock: the one refusal a caller may wait out."""


_HELD: dict[str, list] = {}   # lock path -> [fd, count]: a process may re-enter its own lock
_HELD_GUARD = threading.RLock()   # re-entrant: a collected lock's __del__ may release while another is taken
_LOCK_TEXT = re.compile(rb"\A(\d{1,10})( \d{1,20})?\n?\Z")   # what a lock of ours holds: its run's pid (start time)
_LOCK_SIZE = 64   # a lock of ours is never longer


class OutputLock:
    """``flock`` on ``.NAME.lock`` beside ``target`` until :meth:`release`.

    The lock file is created exclusively (``O_CREAT | O_EXCL | O_NOFOLLOW``) and only that file is
    ever written: a link planted at its name (symbolic or hard) is refused in one line, never opened
    for writing, truncated or removed.  A lock file already there is *held* when a live run holds
    ``flock`` on it (the kernel drops it when that run ends, however it ends): then the run is
    refused in one line.  One that nobody holds was left by a run that was killed: when it is a
    regular file of this user with a single link holding only what a lock of ours holds (a pid and
    the process's start time, or nothing), it is removed and a fresh one created; otherwise it is
    refused (one line naming it), never removed.

    Re-entrant within a process: the batch and its report, or a tuner and its three files, share it.
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
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
            except FileExistsError:
                self._clear_stale(target, option)   # refuses, or removes a stale lock of ours: then try again
                continue
            except OSError as exc:
                raise GnomingError(f"{option} {show(target)}: cannot lock it in {show(self.path.parent)} "
                                   f"({reason(exc)})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:   # another run found the new file first and holds it
                os.close(fd)
                raise self._busy(target, option, "") from None
            # between the create and the flock another run may have found the file empty and unheld, taken it
            # for a killed run's and removed it (then made its own): the lock is ours only if the name still
            # leads to this file
            try:
                ours = os.path.samestat(os.lstat(self.path), os.fstat(fd))
            except FileNotFoundError:
                ours = False
            if not ours:
                os.close(fd)
                continue
            with contextlib.suppress(OSError):
                os.write(fd, f"{os.getpid()} {_start_time(os.getpid())}\n".encode())
            return fd
        raise GnomingError(f"{option} {show(target)}: cannot lock it (its lock file keeps changing)")

    def _clear_stale(self, target: Path, option: str) -> None:
        """The lock file at :attr:`path` exists: refuse (held, or not a lock of ours), or remove it
        (a lock of ours nobody holds); return to try again (also when it changed meanwhile)."""
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            return
        self._refuse_foreign(target, option, st)
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                self._refuse_foreign(target, option, os.lstat(self.path))
            raise GnomingError(f"{option} {show(target)}: cannot read its lock file {show(self.path)} "
                               f"({reason(exc)}); remove it if no run is writing {show(target)}") from None
        try:
            here = os.fstat(fd)
            if not os.path.samestat(here, st) or here.st_nlink == 0:
                return   # replaced, or removed by the run that held it, meanwhile: look again
            self._refuse_foreign(target, option, here)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise self._busy(target, option, _read_pid(fd)) from None
            # nobody holds it: the run that made it was killed
            text = os.pread(fd, _LOCK_SIZE + 1, 0)
            if here.st_uid != os.geteuid():
                raise GnomingError(f"{option} {show(target)}: {show(self.path)} is another user's lock, left by a "
                                   "run that has ended; remove it if no run is writing there")
            if not (text == b"" or _LOCK_TEXT.match(text)):
                raise GnomingError(f"{option} {show(target)}: {show(self.path)} holds other text, not a lock "
                                   "gnoming-sim made; remove it if no run is writing there")
            with contextlib.suppress(FileNotFoundError):
                if os.path.samestat(os.lstat(self.path), here):
                    os.unlink(self.path)   # held by us while removed: a run that opened it looks again
        finally:
            os.close(fd)

    def _refuse_foreign(self, target: Path, option: str, st: os.stat_result) -> None:
        """A symbolic link, something not a regular file, or a file with other names (a hard link): one line."""
        if stat.S_ISLNK(st.st_mode):
            raise GnomingError(f"{option} {show(target)}: {show(self.path)} is a symbolic link, not a lock "
                               "gnoming-sim made; remove it") from None
        if not stat.S_ISREG(st.st_mode):
            raise GnomingError(f"{option} {show(target)}: {show(self.path)} is not a regular file, not a lock "
                               "gnoming-sim made; remove it") from None
        if st.st_nlink != 1:
            raise GnomingError(f"{option} {show(target)}: {show(self.path)} has {st.st_nlink} names (a hard link to "
                               "another file), not a lock gnoming-sim made; remove that name (the file "
                               "is left alone)") from None

    @staticmethod
    def _busy(target: Path, option: str, holder: str) -> Busy:
        return Busy(f"{option} {show(target)} is being written by another gnoming-sim run"
                            f"{f' (process {holder})' if holder else ''}; wait for it to finish "
                            "or write elsewhere")

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
            # unlink while still holding the lock (a run waiting on this file re-checks the name), and only
            # the file this lock made: whatever else was put at its name meanwhile is left alone
            with contextlib.suppress(OSError):
                if os.path.samestat(os.lstat(self.path), os.fstat(held[0])):
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
        match = _LOCK_TEXT.match(os.pread(fd, _LOCK_SIZE + 1, 0))
        return match.group(1).decode() if match else ""
    return ""


def _start_time(pid: int) -> int:
    """When process ``pid`` started, in clock ticks since boot (``/proc/PID/stat`` field 22; 0 where there
    is no /proc): with the pid, it names one process, as a pid alone (reused) does not."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return int(fh.read().rpartition(b")")[2].split()[19])
    return 0


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
