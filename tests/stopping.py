"""A server stopped at one of its worst moments, made certain rather than waited for:

    python tests/stopping.py twice DIR   a server process: a second stop (SIGTERM) comes
                                         while the first (Ctrl+C) is ending the streams
    python tests/stopping.py reaped DIR  `--processes 2`: the stop comes just as a process
                                         that ended by itself is waited for
    python tests/stopping.py told DIR N  `--processes N` started as a script's background
                                         job (Ctrl+C ignored): Ctrl+C as soon as it said
                                         it listens

It prints "stopped" once the server stopped (a hang or a traceback: it did not). DIR is a
fresh folder of its own.
"""
import os
import signal
import sys
from pathlib import Path

from companion import cli
from companion.server import serve
from companion.web import create_app


def twice(folder: Path) -> None:
    app = create_app(folder / "data")

    class Woken:
        """A stream's wake-up, which end_all calls holding its lock: a stop comes now."""

        def notify_all(self) -> None:
            signal.raise_signal(signal.SIGTERM)
    app.extensions["changes"]._moved["a game"] = Woken()
    made = serve.create_server

    def ctrl_c_as_it_serves(app, **options):
        server = made(app, **options)
        server.run = lambda: signal.raise_signal(signal.SIGINT)
        return server
    serve.create_server = ctrl_c_as_it_serves
    try:
        serve.waitress_serve(app, sockets=[serve.listener(serve.LOOPBACK, 0)],
                             **serve.waitress_options(app))
    except KeyboardInterrupt:
        print("stopped")


def reaped(folder: Path) -> None:
    def one_ends(app, **options) -> None:
        """The first process to serve ends by itself; the other serves until stopped."""
        try:
            os.close(os.open(folder / "ended", os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            signal.pause()
    serve.waitress_serve, serve.waitress_options = one_ends, lambda app: {}
    waited, told = os.waitpid, []

    def waitpid(pid, options):
        ended = waited(pid, options)
        if not told:  # Ctrl+C now, before serve_processes knows which one ended
            told.append(True)
            signal.raise_signal(signal.SIGTERM)
        return ended
    os.waitpid = waitpid
    serve.serve_processes(lambda: None, [], 2)
    print("stopped")


def told(folder: Path, processes: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as `&` in a script leaves it
    said = serve.tell

    def ctrl_c_once_said(*args, **kwargs) -> None:
        said(*args, **kwargs)
        signal.raise_signal(signal.SIGINT)
    serve.tell = ctrl_c_once_said
    if cli.main(["--host", serve.LOOPBACK, "--port", "0", "--processes", processes,
                 "--data-dir", str(folder / "data")]) == 0:
        print("stopped")


if __name__ == "__main__":
    {"twice": twice, "reaped": reaped, "told": told}[sys.argv[1]](Path(sys.argv[2]),
                                                                 *sys.argv[3:])
