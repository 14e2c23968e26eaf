"""The servers the benchmarks time, each in a process of its own, on 127.0.0.1 with the
table's waitress configuration (companion.server.serve: `create_server` with
`waitress_options`):

    python bench/serving.py bare
    python bench/serving.py companion DATA_DIR [--game RECORD] [--listen ADDRESS]...

`bare` is a Flask app whose only route (/) answers an empty 204: the floor any request
stands on. `companion` is the table's app on DATA_DIR, with the game of RECORD imported
first if given. Each listens on 127.0.0.1 (and on each --listen address, the same port),
prints its port (and the game's token) on one line, then serves until stopped, or until
its standard input closes: the benchmark that started it has ended, however it ended. A
benchmark starts one with `started`.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import timeit
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from flask import Flask

from companion.server.serve import bind, create_server, waitress_options
from companion.store import games
from companion.web import create_app
from companion.web.streams import HELD, STREAMS_HELD

HOST = "127.0.0.1"
# The bare app takes uploads as large as the table's app does (MAX_CONTENT_LENGTH), and
# says it holds as many streams (STREAMS_HELD), so that waitress_options gives both the
# same configuration.
MAX_UPLOAD = 1024 * 1024
STARTS_WITHIN = 30.0  # seconds: the server prints its port by then, or the benchmark fails


@dataclass(frozen=True)
class Server:
    """A running server process: where it listens, and the game imported, if any."""

    pid: int
    port: int
    token: str | None


@contextmanager
def started(*args: str):
    """A server of this script (`args` as on its command line), once it listens; stopped
    on leaving."""
    process = subprocess.Popen([sys.executable, __file__, *args], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    timer = threading.Timer(STARTS_WITHIN, process.kill)
    timer.start()
    try:
        ready = process.stdout.readline().split()
        timer.cancel()
        if not ready:
            raise SystemExit(f"the {args[0]} server did not start")
        yield Server(process.pid, int(ready[0]), ready[1] if len(ready) > 1 else None)
    finally:
        timer.cancel()
        stop(process)


def load_average() -> str:
    """The machine's load average over 1, 5 and 15 minutes: what else it runs."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def machine_speed() -> float:
    """The machine's speed: µs that sum(range(1000)) takes, the best of 5 times 1,000
    (about 10 µs on a current laptop)."""
    return min(timeit.repeat("sum(range(1000))", number=1000, repeat=5)) * 1000


def stop(process: subprocess.Popen) -> None:
    """Stop the server: SIGTERM, then SIGKILL if it is still there after 5 s."""
    process.terminate()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def bare_app():
    """A Flask app with one route, /, that answers an empty 204."""
    app = Flask(__name__)
    app.config.update({"MAX_CONTENT_LENGTH": MAX_UPLOAD, STREAMS_HELD: HELD})
    app.add_url_rule("/", "empty", lambda: ("", 204))
    return app


def companion_app(data_dir: str, record: Path | None):
    """The table's app on `data_dir`, and the token of the game of `record` (or None)."""
    app = create_app(data_dir)
    if record is None:
        return app, None
    game = json.loads(record.read_text(encoding="utf-8"))
    return app, games.create(app.config["STORE"], game, games.Options())


def _end_with_stdin() -> None:
    """Stop when standard input closes: the benchmark that started this process is gone."""
    sys.stdin.read()
    os.kill(os.getpid(), signal.SIGTERM)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["bare", "companion"])
    parser.add_argument("data_dir", nargs="?")
    parser.add_argument("--game", type=Path, metavar="RECORD")
    parser.add_argument("--listen", action="append", default=[], metavar="ADDRESS",
                        help="an address to listen on besides 127.0.0.1 (the same port)")
    args = parser.parse_args(argv)
    if args.kind == "companion" and not args.data_dir:
        parser.error("the companion server needs a DATA_DIR")
    if args.kind == "bare":
        app, token = bare_app(), None
    else:
        app, token = companion_app(args.data_dir, args.game)
    listening = bind([HOST, *args.listen], 0)
    server = create_server(app, sockets=listening, **waitress_options(app))
    print(listening[0].getsockname()[1], *([token] if token else []), flush=True)
    threading.Thread(target=_end_with_stdin, daemon=True).start()
    server.run()


if __name__ == "__main__":
    main()
