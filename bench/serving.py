"""The servers the benchmarks time, each in a process of its own, on 127.0.0.1 with the
table's waitress configuration (companion.server.serve):

    python bench/serving.py bare
    python bench/serving.py companion DATA_DIR [--game RECORD] [--processes N]
                                               [--listen ADDRESS]... [--stats FILE]

`bare` is a Flask app whose only route (/) answers an empty 204: the floor any request
stands on. `companion` is the table's app on DATA_DIR, with the game of RECORD imported
first if given, in N processes sharing the listening socket as `templari-companion
--processes N` runs them (1 by default). Prints its port (and the game's token) on one
line, then serves until stopped, or until its standard input closes: the benchmark that
started it has ended, however it ended. A benchmark starts one with `started`.

With --stats (one process only), what its worker threads did is appended to FILE each
second, a line of JSON (see `Stats`): each request the app served, how long it waited
for a worker and how long the app took (wall and CPU time of its thread).
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
import timeit
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from flask import Flask

from companion.server.channel import STREAMING
from companion.server.serve import bind, create_server, serve_processes, waitress_options
from companion.store import games
from companion.web import create_app

HOST = "127.0.0.1"
# The bare app takes uploads as large as the table's app does (MAX_CONTENT_LENGTH), so
# that waitress_options gives both the same configuration.
MAX_UPLOAD = 1024 * 1024
STARTS_WITHIN = 30.0  # seconds: the server prints its port by then, or the benchmark fails


@dataclass(frozen=True)
class Server:
    """A running server process: where it listens, and the game imported, if any."""

    pid: int
    port: int
    token: str | None


@contextmanager
def started(*args: str, script: str = __file__):
    """A server of this script, or of `script` (`args` as on its command line), which
    prints its port (and where its figures go) when it listens; stopped on leaving."""
    process = subprocess.Popen([sys.executable, script, *args], stdin=subprocess.PIPE,
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
    app.config["MAX_CONTENT_LENGTH"] = MAX_UPLOAD
    app.add_url_rule("/", "empty", lambda: ("", 204))
    return app


def companion_app(data_dir: str, record: Path | None):
    """The table's app on `data_dir`, and the token of the game of `record` (or None)."""
    app = create_app(data_dir)
    if record is None:
        return app, None
    game = json.loads(record.read_text(encoding="utf-8"))
    return app, games.create(app.config["STORE"], game, games.Options())


class Stats:
    """What the server's worker threads do, second by second: a line of JSON appended to
    `path` each second, {"at": the monotonic clock, "requests": [[kind, waited, wall,
    cpu], ...]} (seconds) for the requests the app answered in that second, where kind is
    "post" (an action's form), "import", "live" (a poll that reached the app: the new live
    part, or a 204 decided by Flask; or a stream's part drawn, server/streams.py),
    "events" (a stream opened), "page" or "other"; waited is the time from the
    connection's request going to the worker queue to the app's start (the time a request
    waits for a free worker, and for Python's lock to start), wall the time in the app,
    cpu its thread's CPU time in the app (wall much above cpu: it waited for Python's lock,
    held by other threads, or for SQLite), began when the app began (monotonic clock);
    and "workers": the CPU time the worker threads used so far, in the app or not
    (/proc/self/task/TID/stat of each thread that served a request)."""

    def __init__(self, path: str):
        self.path, self.lock, self.requests = path, threading.Lock(), []
        self.workers = set()  # the native ids of the worker threads

    def install(self, app, server) -> None:
        """Time the requests that reach the Flask app of `app` (behind QuietPolls, which
        must stay app.wsgi_app for the server to hold polls), from their being handed
        to `server`'s add_task (its Gate, which puts a change first in the worker queue):
        when a held poll's game moves, from then; and the streams' polls drawn
        (server/streams.py), which do not go through the app's WSGI stack."""
        polls = app.wsgi_app
        polls.flask = self._timed(polls.flask)
        listening = app.extensions.get(STREAMING)
        if listening is not None:
            listening.draw = self._timed(listening.draw)
        add_task = server.add_task

        def queued(channel):
            channel.bench_queued = time.monotonic()
            add_task(channel)
        server.add_task = queued
        threading.Thread(target=self._write, daemon=True).start()

    def _timed(self, answer):
        """`answer` (a WSGI app, or a stream's draw: its first argument the environ),
        timed."""
        def timed(environ, *rest):
            began, cpu = time.monotonic(), time.thread_time()
            try:
                return answer(environ, *rest)
            finally:
                wall, cpu = time.monotonic() - began, time.thread_time() - cpu
                channel = getattr(environ.get("waitress.client_disconnected"), "__self__", None)
                queued = getattr(channel, "bench_queued", began)
                with self.lock:
                    self.requests.append((_kind(environ), began - queued, wall, cpu, began))
                    self.workers.add(threading.get_native_id())
        return timed

    def _write(self) -> None:
        while True:
            time.sleep(1.0)
            with self.lock:
                requests, self.requests = self.requests, []
                workers = list(self.workers)
            second = {"at": time.monotonic(), "requests": requests,
                      "workers": sum(map(_thread_cpu, workers))}
            with open(self.path, "a", encoding="utf-8") as out:
                out.write(json.dumps(second) + "\n")


def _thread_cpu(native_id: int) -> float:
    """Seconds of CPU a thread of this process used so far."""
    fields = Path(f"/proc/self/task/{native_id}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _kind(environ) -> str:
    """What a request is, for Stats."""
    path = environ.get("PATH_INFO", "")
    if environ.get("REQUEST_METHOD") == "POST":
        return "import" if path.endswith("/import") else "post"
    if path.endswith("/live"):
        return "live"
    if path.endswith("/live/events"):
        return "events"
    return "page" if path.startswith("/g/") else "other"


def _end_with_stdin() -> None:
    """Stop when standard input closes: the benchmark that started this process is gone
    (SIGTERM, which also stops the server processes this one started, if any)."""
    sys.stdin.read()
    os.kill(os.getpid(), signal.SIGTERM)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["bare", "companion"])
    parser.add_argument("data_dir", nargs="?")
    parser.add_argument("--game", type=Path, metavar="RECORD")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--listen", action="append", default=[], metavar="ADDRESS",
                        help="an address to listen on besides 127.0.0.1 (the same port)")
    parser.add_argument("--stats", metavar="FILE",
                        help="append what the worker threads did to FILE each second")
    args = parser.parse_args(argv)
    if args.stats and (args.kind != "companion" or args.processes > 1):
        parser.error("--stats is for the companion server in one process")
    if args.kind == "companion" and not args.data_dir:
        parser.error("the companion server needs a DATA_DIR")
    if args.kind == "bare":
        app, token = bare_app(), None
    else:
        app, token = companion_app(args.data_dir, args.game)
    listening = bind([HOST, *args.listen], 0)
    print(listening[0].getsockname()[1], *([token] if token else []), flush=True)
    if args.processes > 1:
        threading.Thread(target=_end_with_stdin, daemon=True).start()
        app.config["STORE"].close()  # each process opens its own connections
        serve_processes(lambda: create_app(args.data_dir), listening, args.processes)
        return
    server = create_server(app, sockets=listening, **waitress_options(app))
    if args.stats:
        Stats(args.stats).install(app, server)
    threading.Thread(target=_end_with_stdin, daemon=True).start()
    server.run()


if __name__ == "__main__":
    main()
