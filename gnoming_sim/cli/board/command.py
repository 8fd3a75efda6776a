"""``gnoming-sim board``: serve the analysis page on 127.0.0.1 and open it in the browser.

The server stack (Starlette, uvicorn: the ``[board]`` extra) is imported only here, when the command runs,
so the other commands start as fast without it and work where it is not installed.
"""
from __future__ import annotations

import errno
import socket
import sys

import click

from gnoming_sim.cli import options as opt
from gnoming_sim.cli.group import PROG, cli
from gnoming_sim.game.errors import GnomingError
from gnoming_sim.search import evaluator

HOST = "127.0.0.1"   # loopback only: the board is never reachable from another machine
DEFAULT_POLICY = evaluator.BASE   # the oracle's base player (gnoming_sim.search.evaluator)


@cli.command()
@click.argument("input_path", required=False, type=click.Path(dir_okay=True),
                metavar="[POSITION.toml | RECORD.toml | review.json]")
@click.option("--port", type=int, default=0, show_default="a free port", metavar="PORT",
              help="The port on 127.0.0.1 to serve on (1024..65535).")
@click.option("--no-browser", is_flag=True, help="Print the address only; do not open a browser.")
@opt.rules
@opt.deck
@click.option("--drill-deck", "drill_deck", default=None, metavar="PATH",
              help="The drill deck the page drills (default: drills.parquet in the user's data folder, where "
                   "`review` adds the decisions it marks).")
@click.option("--policy", default=DEFAULT_POLICY, show_default=True, metavar="NAME",
              help="Base policy of the rollouts, every seat (as analyse --policy).")
@click.option("--seed", type=int, default=0, show_default=True, metavar="S",
              help="Seed of the rollouts (as analyse --seed); the page can change it.")
@click.option("--threads", type=int, default=None, metavar="K",
              help="Threads of the rollouts (default: all cores). Results do not depend on it.")
def board(input_path, port, no_browser, rules_path, deck_path, drill_deck, policy, seed, threads):
    """Serve the analysis board, a local web page: set up a position by clicking and watch the rollouts
    decide live (analyse's oracle and criterion), or step through a game record or a review with its
    marks and win-chance graph.  Served on 127.0.0.1 only; Ctrl-C stops it."""
    if port != 0:
        opt.check_range("--port", port, 1024, 65535)
    opt.check_threads(threads)
    opt.check_seed(seed)
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise GnomingError("board needs the web server of the [board] extra: pip install 'gnoming-sim[board]' "
                           "(starlette and uvicorn)") from None
    from gnoming_sim.cli.board import inputs
    from gnoming_sim.search.estimates import refuse_mc

    refuse_mc([policy], "--policy")
    rules_, deck_ = opt.load_rules_file(rules_path), opt.load_deck_file(deck_path)
    opened = inputs.open_input(input_path, rules_, deck_)
    from gnoming_sim.drills import deck as drill

    if drill_deck is not None:
        drill.load(drill_deck, "--drill-deck")   # a deck named but not readable: one line now, left as it is
    drills = drill.default_path() if drill_deck is None else drill_deck
    sock = listen(port)   # before anything is served: a port in use is one line and exit 2
    serve(sock, f"http://{HOST}:{sock.getsockname()[1]}/", opened, rules_, deck_, policy, seed, threads,
          not no_browser, drills)


def listen(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1 (``port`` 0: a free one), or one GnomingError line."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((HOST, port))
        sock.listen(64)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise GnomingError(f"--port {port}: the port is in use on {HOST}; name another, or leave --port out "
                               "for a free one") from None
        raise GnomingError(f"--port {port}: cannot listen on {HOST}: {exc.strerror}") from None
    return sock


def serve(sock, base, opened, rules_, deck_, policy, seed, threads, browser: bool, drills=None) -> None:
    """Serves the board on ``sock`` until Ctrl-C or SIGTERM; the address printed and opened is ``base`` with
    the launch's token (the board answers only the page opened from it)."""
    import signal
    import threading
    import time
    import webbrowser

    import uvicorn

    from gnoming_sim.cli.board.live import warm_up
    from gnoming_sim.cli.board.server import Board, make_app

    state = Board(opened, rules_, deck_, [policy], seed, threads, drill_deck=drills)
    url = f"{base}?token={state.token}"
    app = make_app(state)
    config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)

    class Server(uvicorn.Server):
        async def shutdown(self, sockets=None):
            state.close()   # open streams end at once, so none is cancelled mid-batch (and none logs it)
            await super().shutdown(sockets)

    server = Server(config)

    def when_serving():
        # the kernels load (or, with an empty cache, compile: minutes, holding the interpreter much of the
        # time) once the server answers, so it is ready at once and the page loads while they do
        while not server.started and not server.should_exit:
            time.sleep(0.02)
        click.echo(f"{PROG} board: serving on {url} (127.0.0.1 only; Ctrl-C stops it)")
        sys.stdout.flush()
        state.worker.submit(warm_up, [policy], rules_, deck_, threads, state.asked)
        if browser:
            webbrowser.open(url)

    def ended(signum, frame):
        raise KeyboardInterrupt

    threading.Thread(target=when_serving, daemon=True).start()
    # uvicorn raises the Ctrl-C or SIGTERM it caught again once it has stopped: SIGTERM, as Ctrl-C, is then
    # the KeyboardInterrupt below (not the default handler's silent death), so both end in "stopped", exit 0
    main = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGTERM, ended) if main else None
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        if main:
            signal.signal(signal.SIGTERM, before)
    stop(state)


def stop(state) -> None:
    """After the server: every analysis cancelled; a batch or a compile under way cannot be interrupted, so
    after a short wait the process ends without it (no stray work, no minutes spent on a cold compile)."""
    import os
    import threading
    import time

    for live in list(state.jobs.values()):
        live.cancel()
    state.asked.set()
    state.worker.shutdown(wait=False, cancel_futures=True)
    click.echo(f"{PROG} board: stopped")
    busy = [t for t in threading.enumerate() if t.name.startswith("board-rollouts")]
    end = time.monotonic() + 2.0
    for t in busy:
        t.join(max(0.0, end - time.monotonic()))
    if any(t.is_alive() for t in busy):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
