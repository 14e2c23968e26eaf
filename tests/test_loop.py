"""The table server's event loop (companion/server/loop.py): every connection is answered, a slow
answer holds up no other connection, and idle connections are still closed, with the
loop asking only the connections whose wishes may have changed."""
import http.client
import queue
import select
import socket
import threading

import pytest
from flask import Flask

from companion.server import serve
from companion.server.loop import Loop, Sockets, Turns

if not hasattr(select, "epoll"):
    pytest.skip("the loop needs epoll (Linux)", allow_module_level=True)


@pytest.fixture
def served():
    """A Flask app on the table's waitress with this loop, turned in a thread; its `/slow`
    answers once the test lets it, `/n` answers its number."""
    yield from serving()


@pytest.fixture
def served_briefly():
    """The same, closing connections quiet for 1 s (looked for every 0.2 s)."""
    yield from serving(channel_timeout=1, cleanup_interval=0.2)


def serving(**adjusted):
    app, released = Flask(__name__), threading.Event()
    app.add_url_rule("/slow", "slow", lambda: "slow" if released.wait(10) else "late")
    app.add_url_rule("/<int:n>", "n", lambda n: str(n))
    app.config["MAX_CONTENT_LENGTH"] = 1024
    options = {**serve.waitress_options(app), **adjusted}
    sockets, stop = Sockets(), threading.Event()
    server = serve.create_server(app, map=sockets, host="127.0.0.1", port=0, **options)
    assert isinstance(server.asyncore, Loop)
    turns, asked = Turns(sockets), queue.Queue()

    def loop():
        while not stop.is_set():
            turns.turn(0.05)
            while not asked.empty():  # between two turns, where the loop holds still
                question, answer = asked.get()
                answer.put(question(turns))

    def between_turns(question):
        """`question(turns)` answered by the loop's thread after a turn (during one, the
        loop changes what it holds: a socket it registers again is briefly out of it)."""
        answer = queue.Queue()
        asked.put((question, answer))
        return answer.get(timeout=10)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    yield server.effective_port, released, between_turns
    stop.set()
    thread.join()
    server.close()
    turns.epoll.close()


def get(connection: http.client.HTTPConnection, path: str) -> str:
    connection.request("GET", path)
    return connection.getresponse().read().decode()


class Raw:
    """One connection kept alive, never opened again behind the test's back (as
    http.client would after a close): what it asks is answered on it or not at all."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)

    def ask(self, path: str) -> None:
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())

    def answer(self) -> str:
        response = http.client.HTTPResponse(self.sock)  # asked one at a time: no read-ahead
        response.begin()
        return response.read().decode()


def test_many_kept_alive_connections_each_get_their_own_answers(served):
    port, _, _ = served
    connections = [http.client.HTTPConnection("127.0.0.1", port, timeout=10) for _ in range(50)]
    for round_ in range(3):  # each asks again on the same connection, idle in between
        assert [get(c, f"/{i * 10 + round_}") for i, c in enumerate(connections)] == [
            str(i * 10 + round_) for i in range(50)]
    for connection in connections:
        connection.close()


def test_a_slow_answer_holds_up_no_other_connection(served):
    port, released, _ = served
    slow = Raw(port)
    slow.ask("/slow")
    other = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    assert get(other, "/7") == "7"  # while /slow is under way
    released.set()
    assert slow.answer() == "slow"
    slow.ask("/8")  # the same connection, busy a while ago, is heard again
    assert slow.answer() == "8"


def test_an_idle_connection_is_closed_and_the_loop_forgets_it(served_briefly):
    port, _, between_turns = served_briefly
    idle = socket.create_connection(("127.0.0.1", port), timeout=10)
    assert idle.recv(1) == b""  # closed by the server once quiet for channel_timeout (1 s)
    idle.close()
    open_ones = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    assert get(open_ones, "/1") == "1"  # a turn after the close: the loop forgot it
    assert between_turns(lambda turns: turns.known.keys() == turns.sockets.keys())
