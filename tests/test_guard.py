"""No device can stall the others: what one address may hold and send (companion/server/guard.py),
counted by the Guard, and applied by the real server to a device on another network
address (the phones' namespace, tests/browser_helpers.phone_net) while the host's own
device (the loopback) is never limited.
"""
import re
import select
import socket
import time

from companion.server import guard
from companion.server.guard import BURST, CONNECTIONS, PIPELINED, RATE, Guard, SlowHeaders
from tests.netns import inside


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


# --- the counts ------------------------------------------------------------------------

def test_an_address_holds_at_most_its_connections_and_gets_one_back_when_one_closes():
    counts = Guard()
    assert all(counts.admit("192.168.1.20") for _ in range(CONNECTIONS))
    assert not counts.admit("192.168.1.20")
    assert counts.admit("192.168.1.21")  # another device is not held back
    counts.leave("192.168.1.20")
    assert counts.admit("192.168.1.20") and not counts.admit("192.168.1.20")


def test_an_address_sends_a_burst_then_its_rate():
    clock = Clock()
    counts = Guard(clock)
    assert all(counts.request("192.168.1.20") for _ in range(BURST))
    assert not counts.request("192.168.1.20")
    clock.now += 1.0
    allowed = sum(counts.request("192.168.1.20") for _ in range(int(RATE) * 2))
    assert allowed == int(RATE)
    assert counts.request("192.168.1.21")


def test_the_servers_own_device_is_never_limited():
    counts = Guard(Clock())
    assert all(counts.admit("127.0.0.1") for _ in range(CONNECTIONS * 4))
    assert all(counts.request("::1") for _ in range(BURST * 4))


def test_a_quiet_devices_bucket_is_forgotten():
    clock = Clock()
    counts = Guard(clock)
    counts.request("192.168.1.20")
    clock.now += BURST / RATE
    counts.forget_idle()
    assert len(counts.requests) == 0


def test_headers_still_unfinished_after_the_deadline_are_late():
    clock = Clock()
    slow = SlowHeaders(clock)
    first, second, trickling, prompt = object(), object(), object(), object()
    assert slow.late([(trickling, first), (prompt, second)]) == []
    clock.now += guard.HEADER_DEADLINE
    assert slow.late([(trickling, first), (prompt, object())]) == [trickling]  # a new request


# --- the real server, a device on another address --------------------------------------

def open_connection(address: str, port: int) -> socket.socket:
    return socket.create_connection((address, port), timeout=30)


def closed_by_server(connections: list[socket.socket], expected: int) -> list[bool]:
    """For each connection (which has sent nothing, so the server answers nothing),
    whether the server closed it, once `expected` of them are closed (or 5 s passed)."""
    closed = set()
    deadline = time.monotonic() + 5
    while len(closed) < expected and time.monotonic() < deadline:
        readable, _, _ = select.select([s for s in connections if s not in closed], [], [],
                                       deadline - time.monotonic())
        for sock in readable:
            try:
                if sock.recv(1) == b"":
                    closed.add(sock)
            except ConnectionResetError:
                closed.add(sock)
    return [sock in closed for sock in connections]


def test_a_device_opening_too_many_connections_keeps_its_share(server, phone_net):
    """The connections past an address's share are closed at once; the host's pages and
    a slot freed for the same device still come."""
    port = int(server.phone_url.rsplit(":", 1)[1])

    def flood():
        connections = [open_connection(phone_net.host_side, port)
                       for _ in range(CONNECTIONS + 8)]
        closed = closed_by_server(connections, expected=8)
        connections[0].close()
        answer = b""
        for _ in range(50):  # until the server has seen that one close: a slot is free
            again = open_connection(phone_net.host_side, port)
            again.sendall(b"GET / HTTP/1.1\r\nHost: " + phone_net.host_side.encode()
                          + b"\r\n\r\n")
            try:
                answer = again.recv(12)
            except ConnectionResetError:
                answer = b""
            again.close()
            if answer:
                break
        for sock in connections:
            sock.close()
        return closed, answer
    closed, answer = inside(phone_net.namespace, flood)
    assert closed.count(False) == CONNECTIONS and closed.count(True) == 8
    assert answer == b"HTTP/1.1 200"


def test_a_device_pipelining_requests_it_never_reads_is_cut_off(server, phone_net):
    """Browsers send one request at a time: a connection with more waiting is closed
    without serving them (200 sent at once: at most PIPELINED + 1 answered)."""
    port = int(server.phone_url.rsplit(":", 1)[1])
    request = (b"GET /rules HTTP/1.1\r\nHost: " + phone_net.host_side.encode() + b"\r\n\r\n")

    def pipeline():
        sock = open_connection(phone_net.host_side, port)
        sock.sendall(request * 200)
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except ConnectionResetError:  # closed with requests it did not read: reset
            pass
        sock.close()
        return received
    received = inside(phone_net.namespace, pipeline)
    assert len(re.findall(rb"HTTP/1\.1 200", received)) <= PIPELINED + 1


def test_a_device_over_its_request_rate_is_answered_in_words(server, phone_net):
    """A burst, then 429 in words, at once; the host's own device is not counted."""
    port = int(server.phone_url.rsplit(":", 1)[1])
    request = b"GET /static/app.css HTTP/1.1\r\nHost: " + phone_net.host_side.encode() + b"\r\n\r\n"

    def hammer():
        sock = open_connection(phone_net.host_side, port)
        statuses, words = [], b""
        reader = sock.makefile("rb")
        for _ in range(BURST + 50):
            sock.sendall(request)
            status = reader.readline().split()[1]
            length = 0
            while (line := reader.readline()) != b"\r\n":
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = reader.read(length)
            statuses.append(int(status))
            words = body if status == b"429" else words
        sock.close()
        return statuses, words
    began = time.monotonic()
    statuses, words = inside(phone_net.namespace, hammer)
    allowed = BURST + RATE * (time.monotonic() - began)
    assert statuses.count(200) <= allowed and 429 in statuses
    assert words.startswith(b"Too many requests from this device: wait a few seconds")
    host = open_connection("127.0.0.1", port)
    host.sendall(b"GET /static/app.css HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert host.recv(12) == b"HTTP/1.1 200"
    host.close()


def test_a_device_trickling_its_headers_is_cut_off(server, phone_net, monkeypatch):
    """A header line every half second: closed once the deadline has passed (the check
    runs every few seconds, waitress's cleanup_interval), never served."""
    deadline = 2.0  # seconds, for the test (10 in play)
    monkeypatch.setattr(guard, "HEADER_DEADLINE", deadline)
    port = int(server.phone_url.rsplit(":", 1)[1])

    def trickle():
        sock = open_connection(phone_net.host_side, port)
        sock.sendall(b"GET / HTTP/1.1\r\n")
        began = time.monotonic()
        try:
            for number in range(120):  # at most a minute of it
                sock.sendall(b"X-Trickle-%d: 1\r\n" % number)
                sock.settimeout(0.5)
                try:
                    if sock.recv(1) == b"":
                        return time.monotonic() - began
                except (TimeoutError, socket.timeout):
                    continue
        except (BrokenPipeError, ConnectionResetError):
            return time.monotonic() - began
        finally:
            sock.close()
        return None
    lasted = inside(phone_net.namespace, trickle)
    assert lasted is not None and deadline <= lasted < deadline + 15
