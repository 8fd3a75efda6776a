"""The one exception type for user mistakes (bad files, bad options, bad counts)."""


class GnomingError(ValueError):
    """A user error: the CLI prints its message on one line and exits with code 2."""


def one_line(what: str | BaseException) -> str:
    """A message (or an exception's) on one line, whitespace runs collapsed: what a one-line
    error shows.  An empty exception message falls back to the exception's type name."""
    text = " ".join(str(what).split())
    if text:
        return text
    return type(what).__name__ if isinstance(what, BaseException) else "error"
