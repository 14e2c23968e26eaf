"""Time a phone's polls while other connections try to stall the server.

    python bench/stall.py [--idle 300] [--trickle 50] [--polls 20]

Starts the table server with its waitress configuration (companion.server.serve) on a free
port of 127.0.0.1, in a process of its own; opens IDLE connections that send nothing
and TRICKLE connections that send a request one header line every 3 seconds, never
finishing it; then times POLLS polls that find nothing new (204), from another client
on one kept-alive connection, as a phone's screen sends them each second. Waits until
the idle connections are past the channel timeout and counts those the server closed.
Prints, e.g.:

    20 polls beside 300 idle and 50 trickling connections: p50 2.1 ms, max 4.0 ms,
    all on one connection (target: each within 100 ms)
    idle connections closed by the server 17.9 s after they went quiet: 300 of 300
    trickling connections still open: 50 of 50 (each holds a connection until it goes
    quiet, never a thread)
    (this machine runs sum(range(1000)) in 27 µs: the times scale with it)

Traffic goes to 127.0.0.1 only; a run takes about 25 seconds, and the server process
is stopped at the end, or after 55 seconds whatever happens.
"""
import argparse
import http.client
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import timeit

TRICKLE_EVERY = 3.0  # seconds between two header lines of a trickling connection
POLL_EVERY = 0.25  # seconds between two polls (a phone polls each second)
DEADLINE = 55.0  # seconds: the server is stopped by then, whatever happens


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=int, default=300)
    parser.add_argument("--trickle", type=int, default=50)
    parser.add_argument("--polls", type=int, default=20)
    parser.add_argument("--serve", metavar="DATA_DIR", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return _serve(args.serve)
    with tempfile.TemporaryDirectory() as data_dir:
        server = subprocess.Popen([sys.executable, __file__, "--serve", data_dir],
                                  stdout=subprocess.PIPE, text=True)
        watchdog = threading.Timer(DEADLINE, server.kill)
        watchdog.start()
        try:
            ready = server.stdout.readline().split()
            if len(ready) != 4:
                sys.exit("the server did not start")
            port, token, version, closes_within = ready
            _bench(int(port), token, version, float(closes_within), args)
            if server.poll() is not None:
                sys.exit(f"the server was stopped at the {DEADLINE:.0f} s deadline: "
                         "the figures above are not to be trusted")
        finally:
            watchdog.cancel()
            server.terminate()
            try:
                server.wait(5)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def _serve(data_dir: str) -> None:
    """The server process: a game to poll, and the table's waitress, until stopped."""
    from companion.store import games
    from companion.server.serve import create_server, waitress_options
    from companion.web import create_app

    app = create_app(data_dir)
    store = app.config["STORE"]
    token = games.create(store, {"format": "templari-game/1", "edition": "en",
                                 "players": ["Anna", "Bert", "Claus"], "events": []},
                         games.Options())
    options = waitress_options(app)
    server = create_server(app, host="127.0.0.1", port=0, **options)
    closes_within = options["channel_timeout"] + options["cleanup_interval"]  # an idle connection
    print(server.effective_port, token, store.game(token).version, closes_within, flush=True)
    server.run()


def _bench(port: int, token: str, version: str, closes_within: float, args) -> None:
    address = ("127.0.0.1", port)
    poll = f"/g/{token}/live?v={version}"
    idle = [socket.create_connection(address) for _ in range(args.idle)]
    quiet_since = time.monotonic()
    trickling = [socket.create_connection(address) for _ in range(args.trickle)]
    for connection in trickling:
        connection.sendall(f"GET {poll} HTTP/1.1\r\nHost: 127.0.0.1\r\n".encode())
    stop = threading.Event()
    trickler = threading.Thread(target=_trickle, args=(trickling, stop), daemon=True)
    trickler.start()
    try:
        time.sleep(1)  # every connection accepted, the first lines trickled
        times, connections = _polls(address, poll, args.polls)
        print(f"{args.polls} polls beside {args.idle} idle and {args.trickle} trickling "
              f"connections: p50 {statistics.median(times) * 1000:.1f} ms, "
              f"max {max(times) * 1000:.1f} ms, "
              f"{'all on one connection' if connections == 1 else f'on {connections} connections'}"
              f" (target: each within 100 ms)")
        closed, after = _closed(idle, quiet_since, timeout=closes_within + 3)
        print(f"idle connections closed by the server {after:.1f} s after they went quiet: "
              f"{closed} of {len(idle)}")
        still_open = len(trickling) - _closed(trickling, time.monotonic(), timeout=0.1)[0]
        print(f"trickling connections still open: {still_open} of {len(trickling)} (each "
              f"holds a connection until it goes quiet, never a thread)")
        speed = min(timeit.repeat("sum(range(1000))", number=200, repeat=5)) / 200
        print(f"(this machine runs sum(range(1000)) in {speed * 1e6:.0f} µs: the times scale "
              f"with it)")
    finally:
        stop.set()
        trickler.join()
        for connection in idle + trickling:
            connection.close()


def _trickle(connections, stop: threading.Event) -> None:
    """One header line on each connection every TRICKLE_EVERY seconds, never the end."""
    line = 0
    while not stop.wait(TRICKLE_EVERY):
        line += 1
        for connection in connections:
            try:
                connection.sendall(f"X-Trickle-{line}: 1\r\n".encode())
            except OSError:  # closed by the server
                pass


def _polls(address, path: str, count: int) -> tuple[list[float], int]:
    """The time of each poll on a kept-alive connection, and how many connections they took."""
    client = http.client.HTTPConnection(*address, timeout=10)
    client.connect()
    times, sockets = [], set()
    for _ in range(count):
        start = time.perf_counter()
        try:
            client.request("GET", path)
            response = client.getresponse()
            response.read()
        except OSError as error:
            sys.exit(f"a poll got no answer: {error}")
        times.append(time.perf_counter() - start)
        if response.status != 204:
            sys.exit(f"a poll answered {response.status}, not 204")
        if client.sock is not None:
            sockets.add(client.sock.getsockname())
        else:  # closed by the server: the next poll connects again
            sockets.add(None)
        time.sleep(POLL_EVERY)
    client.close()
    return times, len(sockets)


def _closed(connections, since: float, timeout: float) -> tuple[int, float]:
    """How many of `connections` the server has closed by `timeout` seconds after `since`
    (each checked without waiting), and when the last of them was found closed."""
    open_ = set(connections)
    for connection in connections:
        connection.setblocking(False)
    last = 0.0
    while open_ and time.monotonic() - since < timeout:
        for connection in list(open_):
            try:
                if connection.recv(1) == b"":
                    open_.discard(connection)
                    last = time.monotonic() - since
            except BlockingIOError:
                pass
            except OSError:
                open_.discard(connection)
                last = time.monotonic() - since
        time.sleep(0.2)
    return len(connections) - len(open_), last



if __name__ == "__main__":
    main()
