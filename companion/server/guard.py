"""What one network address may take of the server, so that no device can stall the
others: open connections, requests a second, the time to send a request's headers, and
requests sent on one connection before their answers were read.

A real screen needs far less: a phone's browser opens up to 6 connections to a server,
polls once a second, loads a page with 4 files, sends one request at a time on a
connection (browsers do not pipeline) and its headers in one packet. The server's own
device (a loopback address) is never limited. The counts are kept per process, in
memory (one table's server, or each process of several).
"""
import threading
import time

from companion.web.guards.buckets import Buckets, own_device

CONNECTIONS = 32  # open at once per address
RATE = 30.0  # requests a second per address, sustained...
BURST = 300  # ...after a burst of this many (a screen reloaded again and again)
HEADER_DEADLINE = 10.0  # seconds from a request's first byte to the end of its headers
PIPELINED = 16  # requests waiting on one connection for the answers before them


class Guard:
    """Per-address connection counts, and request Buckets; the addresses `exempt` (a
    reverse proxy, whose devices the app counts one by one) are not limited."""

    def __init__(self, clock=time.monotonic, exempt=frozenset()):
        self._connections: dict[str, int] = {}
        self.requests = Buckets(RATE, BURST, clock, exempt)
        self.exempt = exempt
        self._lock = threading.Lock()

    def admit(self, address: str) -> bool:
        """Whether a new connection from `address` may stay open (counted if so)."""
        if self._limitless(address):
            return True
        with self._lock:
            count = self._connections.get(address, 0)
            if count >= CONNECTIONS:
                return False
            self._connections[address] = count + 1
            return True

    def leave(self, address: str) -> None:
        """A connection admitted from `address` closed."""
        if self._limitless(address):
            return
        with self._lock:
            count = self._connections.get(address, 0) - 1
            if count > 0:
                self._connections[address] = count
            else:
                self._connections.pop(address, None)

    def request(self, address: str) -> bool:
        """Whether `address` may send a request now."""
        return self.requests.take(address)

    def forget_idle(self) -> None:
        self.requests.forget_idle()

    def _limitless(self, address: str) -> bool:
        return own_device(address) or address in self.exempt


class SlowHeaders:
    """The connections whose request headers are taking too long: each partial request
    seen at a sweep is remembered with when it was first seen; one still partial
    HEADER_DEADLINE seconds later is late."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self._seen: dict[int, tuple[object, float]] = {}  # connection id: (request, since)

    def late(self, partial) -> list:
        """Of `partial` ((connection, request whose headers are unfinished) pairs, every
        such connection at this sweep), the connections that are late."""
        now, seen, late = self.clock(), {}, []
        for connection, request in partial:
            earlier = self._seen.get(id(connection))
            since = earlier[1] if earlier and earlier[0] is request else now
            seen[id(connection)] = (request, since)
            if now - since >= HEADER_DEADLINE:
                late.append(connection)
        self._seen = seen
        return late
