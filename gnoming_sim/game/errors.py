"""The one exception type for user mistakes (bad files, bad options, bad counts)."""


class GnomingError(ValueError):
    """A user error: the CLI prints its message on one line and exits with code 2."""
