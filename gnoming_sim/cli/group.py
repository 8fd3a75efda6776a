"""The ``gnoming-sim`` command group and its one-line error convention.

Every user mistake (a bad option value, a bad rules or deck file, an output file that
cannot be written) ends the program with one line, ``gnoming-sim: error: <message>``,
on stderr and exit code 2, before any simulation starts.  Library code reports such
mistakes as :class:`GnomingError`; :class:`_Group` turns them, and click's own usage
errors, into :class:`UserError`.
"""
from __future__ import annotations

import contextlib
import math
import sys

import click

from gnoming_sim.game.errors import GnomingError, one_line
from gnoming_sim.game.version import __version__

PROG = "gnoming-sim"


class UserError(click.ClickException):
    """A user mistake: one line on stderr, exit code 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        # a file name that is not UTF-8 reaches here with surrogate escapes: print them as \xNN
        text = self.format_message().encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        click.echo(f"{PROG}: error: {text}", file=file or sys.stderr)


_NO_ARGS = getattr(click.exceptions, "NoArgsIsHelpError", ())


class _Group(click.Group):
    """A click group that reports GnomingError and click usage errors as one-line UserErrors."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except _NO_ARGS:
            # no command at all: a one-line hint and exit 2 (the house convention for a command line
            # that cannot run), not the whole usage; `gnoming-sim --help` prints that
            raise UserError(f"no command given; run `{PROG} --help` for the list of commands") from None
        except click.UsageError as exc:
            raise UserError(one_line(exc.format_message())) from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except GnomingError as exc:
            raise UserError(one_line(str(exc))) from None
        except _NO_ARGS:
            raise
        except click.UsageError as exc:
            raise UserError(one_line(exc.format_message())) from None




@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name=PROG, message="%(prog)s %(version)s")
def cli():
    """Monte Carlo simulator for the card game Gnoming A Round."""
    from gnoming_sim.cli import compile_notice

    # every command, whichever kernels it reaches: stderr() is looked up when the notice is due
    compile_notice.install(lambda text: click.echo(f"{PROG}: {text}", file=stderr()))


@contextlib.contextmanager
def interruptible(kept):
    """SIGTERM like Ctrl-C for a long command: either ends it with one line on stderr,
    ``gnoming-sim: interrupted (SIGINT|SIGTERM); <kept>``, and exit 130 or 143.

    ``kept``: what the interruption leaves (text, or a function called at the time); the
    command's own cleanup (a staged folder discarded, a lock released) runs on the way out.
    """
    from gnoming_sim.batch.safe_write import Terminated, sigterm_raises

    try:
        with sigterm_raises():
            yield
    except KeyboardInterrupt as exc:
        term = isinstance(exc, Terminated)
        text = kept() if callable(kept) else kept
        click.echo(f"{PROG}: interrupted ({'SIGTERM' if term else 'SIGINT'}); {text}", file=sys.stderr)
        raise SystemExit(143 if term else 130) from None


def stderr():
    """The stream for progress and notices (a function, so tests can swap it)."""
    return sys.stderr


@contextlib.contextmanager
def progress_bar(total: int, label: str = "games", absolute: bool = True, delay: float = 0.0):
    """Yield a callback for progress: a bar on stderr when it is a terminal, else nothing.

    With ``absolute`` the callback takes the count done so far (``advance(done)``), else the
    count just done (``advance(k)``).  It also takes ``item=`` (a few words shown after the bar:
    ``analyse``'s running leader) and ``total=`` (a new length: a total learnt on the way).
    ``delay``: seconds before the bar first shows, so a run that ends sooner shows none."""
    stream = stderr()
    if not on_terminal(stream):
        yield lambda n, item=None, total=None: None
        return
    import time

    started, state = time.monotonic(), {"bar": None, "pos": 0, "length": total}

    def show():
        state["bar"] = click.progressbar(length=state["length"], label=label, file=stream, show_pos=True,
                                         item_show_func=lambda text: text)
        state["bar"].__enter__()

    def advance(n, item=None, total=None):
        state["pos"] = n if absolute else state["pos"] + n
        if total is not None:
            state["length"] = total
        if state["bar"] is None:
            if time.monotonic() - started < delay:
                return
            show()
        bar = state["bar"]
        bar.length = state["length"]
        bar.update(state["pos"] - bar.pos, current_item=item)

    if delay <= 0:
        show()   # at once, at 0 of the total
    try:
        yield advance
    finally:
        if state["bar"] is not None:
            state["bar"].__exit__(None, None, None)


def on_terminal(stream=None) -> bool:
    """Whether ``stream`` (default: the progress stream, :func:`stderr`) is a terminal."""
    stream = stderr() if stream is None else stream
    return hasattr(stream, "isatty") and stream.isatty()


def finite(x):
    """``x`` with every NaN or infinite float as None (JSON has no NaN; an interval of a constant column)."""
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x
