"""Reading a file the user names, safely: regular files only, bounded in size and in nesting.

Every path the command line reads (``--rules``, ``--deck``, ``--strategies-file``,
``--position``, ``--from``) comes through here, so each of these ends in one
:class:`GnomingError` line, never a hang, a traceback or a read until memory runs out:

- a named pipe (opened with ``O_NONBLOCK``, so the open never waits for a writer), a
  device (``/dev/zero``), a socket or a directory: not a regular file;
- a missing file, a symlink loop (``ELOOP``), a path through a file (``ENOTDIR``), a
  name too long (``ENAMETOOLONG``), no permission, a read error (``/proc/self/mem``:
  ``EIO``);
- more than ``limit`` bytes (read at most ``limit + 1``: a file that grows while it is
  read, or a ``/proc`` file that says it is empty, cannot get past it);
- not UTF-8 text; TOML nested deeper than :data:`MAX_TOML_DEPTH` (tomllib recurses per
  level, so 3,000 nested arrays would end in a RecursionError).
"""
from __future__ import annotations

import errno
import os
import re
import stat
import tomllib

from gnoming_sim.game.errors import GnomingError

MAX_TOML_BYTES = 16 * 2**20     # a rules, deck, strategies or position file is a few KiB
MAX_TOML_DEPTH = 32             # tables and arrays inside each other; real files need 3
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
_READ_STEP = 2**20

# what the open or the read of a path can say, in words (strerror is terse: "Not a directory")
_ERRNO_WORDS = {
    errno.ENOTDIR: "a part of the path is a file, not a directory",
    errno.ELOOP: "too many levels of symbolic links (a symlink loop?)",
    errno.ENAMETOOLONG: "the name is too long",
    errno.EACCES: "not readable (permission denied)",
    errno.EPERM: "not readable (operation not permitted)",
    errno.EISDIR: "is a directory, not a file",
    errno.ENXIO: "not a regular file (a socket or a device)",
    errno.EIO: "cannot be read (input/output error)",
}


def shown(path) -> str:
    """``path`` as printable text: bytes that are not UTF-8 as ``\\xNN``, control characters escaped,
    so a hostile name can neither break the one-line error nor the terminal's encoding."""
    text = os.fsdecode(path) if isinstance(path, bytes) else str(path)
    text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _os_error(exc: OSError, what: str, path) -> GnomingError:
    if exc.errno == errno.ENOENT:   # the wording the commands have always used
        return GnomingError(f"{what} file not found: {shown(path)}")
    words = _ERRNO_WORDS.get(exc.errno) or f"cannot be read ({exc.strerror or exc})"
    return GnomingError(f"{what} file {shown(path)}: {words}")


def check_regular(path, what: str, missing_ok: bool = False) -> None:
    """Raise a one-line GnomingError unless ``path`` is a readable regular file (following links).

    For files read by another library (a Parquet batch): nothing is read here, and a named pipe is
    refused on ``stat`` alone, so nothing blocks.  ``missing_ok``: a missing file passes (the
    reader has its own words for it).
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if missing_ok:
            return
        raise _os_error(FileNotFoundError(errno.ENOENT, "not found"), what, path) from None
    except OSError as exc:
        raise _os_error(exc, what, path) from None
    except ValueError:   # an embedded NUL byte
        raise GnomingError(f"{what} file {shown(path)}: not a valid path") from None
    if not stat.S_ISREG(st.st_mode):
        raise GnomingError(f"{what} file {shown(path)} is {_kind(st.st_mode)}, not a regular file")
    if not os.access(path, os.R_OK):
        raise GnomingError(f"{what} file {shown(path)}: not readable (permission denied)")


def read_bytes(path, what: str, limit: int = MAX_TOML_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; else a one-line GnomingError."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _os_error(exc, what, path) from None
    except ValueError:
        raise GnomingError(f"{what} file {shown(path)}: not a valid path") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise GnomingError(f"{what} file {shown(path)} is {_kind(mode)}, not a regular file")
        parts, size = [], 0
        while size <= limit:
            part = os.read(fd, min(_READ_STEP, limit + 1 - size))
            if not part:
                break
            parts.append(part)
            size += len(part)
        if size > limit:
            raise GnomingError(f"{what} file {shown(path)} is larger than {_size(limit)}")
        return b"".join(parts)
    except OSError as exc:
        raise _os_error(exc, what, path) from None
    finally:
        os.close(fd)


def read_text(path, what: str, limit: int = MAX_TOML_BYTES) -> str:
    """The UTF-8 text of ``path`` (see :func:`read_bytes`)."""
    raw = read_bytes(path, what, limit)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GnomingError(f"{what} file {shown(path)} is not UTF-8 text (byte {exc.start})") from None


def _size(n: int) -> str:
    return f"{n // 2**20} MiB" if n % 2**20 == 0 else f"{n:,} bytes"


# ------------------------------------------------------------------ TOML
# The tokens that matter for nesting: strings and comments (whose brackets do not count),
# and the brackets themselves.  Multi-line strings first, so '''...''' is not read as ''.
_TOKENS = re.compile(r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]',
                     re.DOTALL)


def bracket_depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` in TOML ``text``, strings and comments skipped."""
    depth = deepest = 0
    for m in _TOKENS.finditer(text):
        tok = m.group()
        if tok in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif tok in "]}":
            depth = max(depth - 1, 0)
    return deepest


def data_depth(data) -> tuple[int, bool]:
    """(how deep dicts and lists nest in ``data``, whether it holds an integer outside int64), without
    recursion: dotted keys (``a.b.c.d = 1``) nest tables with no bracket at all.  A scalar is depth 0,
    ``{}`` is 1.  TOML integers are 64-bit; tomllib reads any size, which ``repr`` may then refuse."""
    deepest, big, stack = 0, False, [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, int) and not isinstance(item, bool):
            big = big or not INT64_MIN <= item <= INT64_MAX
            continue
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        stack.extend((c, depth + 1) for c in children)
    return deepest, big


def read_toml(path, what: str, limit: int = MAX_TOML_BYTES, max_depth: int = MAX_TOML_DEPTH) -> dict:
    """The TOML document of ``path``: a regular UTF-8 file of at most ``limit`` bytes, nested at most
    ``max_depth`` deep; every failure one GnomingError line naming ``what`` and the file."""
    text = read_text(path, what, limit)
    deep = f"{what} file {shown(path)} nests tables and arrays deeper than {max_depth} levels"
    if bracket_depth(text) > max_depth:
        raise GnomingError(deep)
    try:
        data = tomllib.loads(text)
    except ValueError as exc:   # TOMLDecodeError, and int() of more than 4,300 digits
        raise GnomingError(f"{what} file {shown(path)} is not valid TOML: {_short(str(exc))}") from None
    except RecursionError:   # a nesting the bracket count missed cannot take the program down
        raise GnomingError(deep) from None
    depth, big = data_depth(data)
    if depth > max_depth + 1:   # the document itself is one level
        raise GnomingError(deep)
    if big:
        raise GnomingError(f"{what} file {shown(path)} holds an integer outside -2**63..2**63-1 "
                           "(TOML integers are 64-bit)")
    return data


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
