"""How soon a server process tells its screens of a change another process made (issue 29:
within 100 ms): a screen's stream open on the table server, a change written by this
process (as a second server process, or another machine on PostgreSQL, would), and the
time from the change's commit to the stream's `change` event.

    python bench/processes.py [--changes 50] [--database URL | --postgres]

Starts the table server (`python -m companion.cli`) on 127.0.0.1 and a temporary data
directory (or the PostgreSQL `--database`; `--postgres` starts one of its own as the tests
do, tests/postgres.py). Plays the first CHANGES events of tests/fixtures/full-game-2.json:
before each, the table's stream (GET /g/<token>/live/events?v=STAMP, as a screen's htmx opens
it) waits on a connection of its own; this process appends the event through the store
(companion.store.games.append) and times the stream's `change` event from the moment the
append returned (its commit). Prints p50, p99 and max:

    SQLite, 50 changes made by another process: p50 T ms, p99 T ms, max T ms
    goal: within 100 ms: met

With SQLite, the server learns of another process's commit from its data version, read
every 50 ms (store/news.py); with PostgreSQL, from the notification the commit sends.
Exits with status 1 if the goal is missed.
"""
import argparse
import http.client
import json
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.rules.record import parse_event  # noqa: E402
from companion.store import games, open_store  # noqa: E402

RECORD = ROOT / "tests" / "fixtures" / "full-game-2.json"
LOCAL = re.compile(r"On this device, the host, open http://127\.0\.0\.1:(\d+)")
GOAL = 100.0  # ms


def started(data_dir: str, database: str | None):
    """The table server, and its port once it listens."""
    command = [sys.executable, "-m", "companion.cli", "--host", "127.0.0.1", "--port", "0",
               "--data-dir", data_dir, *(["--database", database] if database else [])]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    for line in process.stdout:
        found = LOCAL.search(line)
        if found:
            return process, int(found.group(1))
    raise SystemExit("the server did not start")


def told(port: int, token: str, stamp: int, answered: list) -> threading.Thread:
    """The game's stream from `stamp`, on its own connection: its status and the time its
    first `change` event came go into `answered`."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", f"/g/{token}/live/events?v={stamp}")

    def wait() -> None:
        response = connection.getresponse()
        while response.status == 200 and response.readline() not in (b"event: change\n", b""):
            pass
        answered.append((response.status, time.perf_counter()))
        connection.close()
    thread = threading.Thread(target=wait)
    thread.start()
    return thread


def measure(changes: int, database: str | None) -> list[float]:
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as data_dir:
        store = open_store(data_dir, database)
        token = games.create(store, {**record, "events": []}, games.Options())
        process, port = started(data_dir, database)
        latencies = []
        try:
            for raw in record["events"][:changes]:
                game = games.load(store, token)
                answered: list = []
                thread = told(port, token, game.stamp, answered)
                time.sleep(0.2)  # the stream is open and follows the game (not timed)
                games.append(store, game, game.version, parse_event(raw), "bench")
                committed = time.perf_counter()
                thread.join()
                status, when = answered[0]
                assert status == 200, status
                latencies.append((when - committed) * 1000)
        finally:
            process.terminate()
            process.wait(30)
    return latencies


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=50)
    parser.add_argument("--database", help="a postgresql:// URL")
    parser.add_argument("--postgres", action="store_true",
                        help="start a PostgreSQL of its own (as the tests do)")
    args = parser.parse_args(argv)
    server = None
    if args.postgres:
        from tests.postgres import Server, binaries
        server = Server(binaries())
        args.database = server.fresh()
    try:
        latencies = sorted(measure(args.changes, args.database))
    finally:
        if server:
            server.stop()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    kind = "PostgreSQL" if args.database else "SQLite"
    print(f"{kind}, {len(latencies)} changes made by another process: "
          f"p50 {statistics.median(latencies):.1f} ms, p99 {p99:.1f} ms, "
          f"max {latencies[-1]:.1f} ms")
    met = latencies[-1] <= GOAL
    print(f"goal: within {GOAL:.0f} ms: {'met' if met else 'missed'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
