"""A table server on a real waitress in this process, its loop turned in a thread, and
what the tests of its connections share: a new game's poll, a change made meanwhile, a
game's stream read as a browser reads it."""
import socket
import threading
import time
from contextlib import contextmanager

from waitress import wasyncore

from companion.rules.record import parse_event
from companion.server import serve
from companion.store import games


def new_game_poll(app) -> str:
    """A 3-player game's poll URL, at the stamp it has: a poll that finds nothing new."""
    store = app.config["STORE"]
    token = games.create(store, {"format": "templari-game/1", "edition": "en",
                                 "players": ["Anna", "Bert", "Claus"], "events": []},
                         games.Options())
    return f"/g/{token}/live?v={store.stamp(token)}"


class InThread:
    """`app` served as the table server serves it (serve.create_server with its
    waitress_options), waitress's loop turned in a thread in short steps, so that it
    stops between two (`stop`): its streams ended, its threads and connections closed.
    `listen`: waitress's `sockets`, or `host` and `port`."""

    def __init__(self, app, **listen):
        self.app, self.map, self.stopping = app, {}, threading.Event()
        self.server = serve.create_server(app, map=self.map, **listen,
                                          **serve.waitress_options(app))
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stopping.is_set():
            wasyncore.loop(timeout=0.05, map=self.map, count=1, use_poll=True)

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join()
        self.app.extensions["changes"].end_all()
        self.server.task_dispatcher.shutdown()
        wasyncore.close_all(self.map)


@contextmanager
def served(app):
    """`app` on the table's waitress in a thread: its port, and the server."""
    running = InThread(app, host="127.0.0.1", port=0)
    try:
        yield running.server.effective_port, running.server
    finally:
        running.stop()


def until(condition, what: str) -> None:
    """Wait for `condition()` (a state of the server's loop, turned in its thread)."""
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


REVEAL = {"type": "reveal", "cards": [{"family": "red", "number": 1},
                                      {"family": "blue", "number": 2}]}  # a lot (R3)


def change_elsewhere(store, token: str, event: dict = REVEAL) -> None:
    """`event` (a record's, a lot revealed if none) recorded in the game `token` by
    another thread."""
    game = games.load(store, token)
    writer = threading.Thread(target=games.append,
                              args=(store, game, game.version, parse_event(event), "host"))
    writer.start()
    writer.join()


def events_of(poll: str) -> str:
    """The stream URL of a live part's game, from the stamp it shows (its poll's)."""
    path, stamp = poll.split("?v=")
    return f"{path}/events?v={stamp}"


class Listener:
    """A screen's stream read as a browser's EventSource reads it: chunks (RFC 9112), then
    events (id and data lines, comments), over a raw socket."""

    def __init__(self, address: tuple[str, int], path: str, headers: str = ""):
        self.socket = socket.create_connection(address, timeout=10)
        self.socket.sendall(f"GET {path} HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\n"
                            f"Accept: text/event-stream\r\n{headers}\r\n".encode("latin-1"))
        self.received = b""
        head = self._until(b"\r\n\r\n").decode()
        self.status, self.head = int(head.split()[1]), head.lower()
        self.body = b""

    def _until(self, end: bytes) -> bytes:
        while end not in self.received:
            more = self.socket.recv(65536)
            assert more, "the server closed the stream"
            self.received += more
        found, self.received = self.received.split(end, 1)
        return found

    def chunk(self) -> bytes:
        """The next chunk of the answer (b"" for the last one)."""
        size = int(self._until(b"\r\n"), 16)
        while len(self.received) < size + 2:
            more = self.socket.recv(65536)
            assert more, "the server closed the stream within a chunk"
            self.received += more
        data, self.received = self.received[:size], self.received[size + 2:]
        return data

    def event(self) -> tuple[str, str]:
        """The next event: its id and data, comments skipped."""
        while b"\n\n" not in self.body:
            data = self.chunk()
            assert data, "the stream ended"
            self.body += data
        block, self.body = self.body.split(b"\n\n", 1)
        lines = block.decode().split("\n")
        if all(line.startswith(":") for line in lines):
            return self.event()
        fields = [line.split(": ", 1) if ": " in line else [line.rstrip(":"), ""]
                  for line in lines]
        ident = [value for name, value in fields if name == "id"]
        return (ident[0] if ident else ""), "\n".join(value for name, value in fields
                                                      if name == "data")

    def close(self) -> None:
        self.socket.close()
