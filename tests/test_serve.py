"""Starting the table server: waitress on all interfaces, the address and a QR code printed."""
import http.client
import json
import re
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from waitress import wasyncore

from companion import cli, games, serve
from companion.loop import Loop
from companion.record import parse_event
from companion.web import create_app

FIXTURES = Path(__file__).parent / "fixtures"
QR = "█"  # the QR code is drawn in the terminal with these blocks


@pytest.fixture
def started(monkeypatch, tmp_path):
    """Run `templari-companion` with waitress replaced by a recorder: waitress's options,
    with the keyword arguments create_app had under "create_app"."""
    calls, apps = [], []

    def recorded_create_app(data_dir, **kwargs):
        apps.append(kwargs)
        return create_app(data_dir, **kwargs)
    monkeypatch.setattr(serve, "waitress_serve", lambda app, **options: calls.append(options))
    monkeypatch.setattr(serve, "lan_address", lambda: "192.168.1.5")
    monkeypatch.setattr(serve, "create_app", recorded_create_app)

    def start(*args):
        assert cli.main([*args, "--data-dir", str(tmp_path / "data")]) == 0
        return {**calls[-1], "create_app": apps[-1]}
    return start


def test_default_start_listens_on_all_interfaces_port_5000_and_prints_a_qr_code(started, capsys):
    options = started()
    out = capsys.readouterr().out
    assert (options["host"], options["port"]) == ("0.0.0.0", 5000)
    assert "On this device, open http://127.0.0.1:5000\n" in out
    assert "Phones on the same network open http://192.168.1.5:5000" in out
    assert out.count(QR) > 50  # the QR code, drawn in the terminal
    assert "To host from another device, open http://192.168.1.5:5000/host/" in out
    assert options["create_app"] == {"lan_url": "http://192.168.1.5:5000", "names": []}


def test_host_port_and_data_dir_options(started, tmp_path):
    options = started("--host", "127.0.0.1", "--port", "8123")
    assert (options["host"], options["port"]) == ("127.0.0.1", 8123)
    assert (tmp_path / "data" / "companion.sqlite3").exists()


@pytest.mark.parametrize(("host", "local"), [
    ("127.0.0.1", "http://127.0.0.1:8123"),
    ("127.0.0.2", "http://127.0.0.2:8123"),
    ("::1", "http://[::1]:8123"),
    ("localhost", "http://localhost:8123"),
])
def test_a_loopback_host_tells_phones_they_cannot_reach_it(started, capsys, host, local):
    """Listening on this device only: no address, QR code or host link for phones."""
    options = started("--host", host, "--port", "8123", "--name", "mylaptop.local")
    out = capsys.readouterr().out
    assert f"On this device, open {local}\n" in out
    assert ("Phones cannot reach this server: it listens only on this device "
            "(start with --host 0.0.0.0 to let them).") in out
    assert QR not in out and "192.168.1.5" not in out and "/host/" not in out
    assert "mylaptop.local" not in out
    assert options["host"] == host and options["create_app"]["lan_url"] is None


@pytest.mark.parametrize(("host", "address"), [
    ("192.168.1.7", "http://192.168.1.7:5000"),
    ("fd00::7", "http://[fd00::7]:5000"),
    ("mylaptop.local", "http://mylaptop.local:5000"),
])
def test_a_specific_address_is_the_one_to_open_on_this_device_and_on_phones(
        started, capsys, host, address):
    """The server does not listen on 127.0.0.1 then: this device opens the address too."""
    options = started("--host", host)
    out = capsys.readouterr().out
    assert f"On this device, open {address}\n" in out
    assert f"Phones on the same network open {address} (or scan):" in out
    assert f"To host from another device, open {address}/host/" in out
    assert out.count(QR) > 50 and "127.0.0.1" not in out and "192.168.1.5" not in out
    assert options["host"] == host and options["create_app"]["lan_url"] == address


def test_all_ipv6_interfaces_are_opened_on_this_device_at_the_ipv6_loopback(started, capsys):
    options = started("--host", "::")
    out = capsys.readouterr().out
    assert "On this device, open http://[::1]:5000\n" in out
    assert options["create_app"]["lan_url"] is None and QR not in out


def test_without_a_network_address_phones_are_told_they_cannot_reach_it_yet(
        started, capsys, monkeypatch):
    monkeypatch.setattr(serve, "lan_address", lambda: None)
    options = started()
    out = capsys.readouterr().out
    assert "On this device, open http://127.0.0.1:5000\n" in out
    assert "No local network address was found: phones cannot reach this server yet." in out
    assert QR not in out and options["create_app"]["lan_url"] is None


def test_host_names_phones_may_use_are_given_to_the_app_and_printed(started, capsys):
    options = started("--name", "mylaptop.local", "--name", "table.lan")
    out = capsys.readouterr().out
    assert options["create_app"]["names"] == ["mylaptop.local", "table.lan"]
    assert "Phones may also open http://mylaptop.local:5000\n" in out
    assert "Phones may also open http://table.lan:5000\n" in out


def test_waitress_holds_many_connections_closes_idle_ones_and_bounds_uploads(started):
    """So that no device can stall the others (bench/stall.py measures it)."""
    options = started()
    assert options["connection_limit"] >= 4000 and options["asyncore_use_poll"]
    assert options["cleanup_interval"] < options["channel_timeout"] <= 30
    assert options["max_request_body_size"] == 1024 * 1024  # the app's MAX_CONTENT_LENGTH
    assert options["threads"] == 8 and options["backlog"] >= 1024


def test_a_system_that_allows_fewer_open_files_gets_fewer_connections(tmp_path, monkeypatch):
    """With room for 600 open files only, waitress takes 500 connections, not 4,000 it
    could not open (each connection is a file)."""
    import resource
    monkeypatch.setattr(resource, "getrlimit", lambda which: (600, 600))
    monkeypatch.setattr(resource, "setrlimit", lambda which, limits: None)
    app = create_app(tmp_path / "data")
    server = serve.create_server(app, map={}, host="127.0.0.1", port=0,
                                 **serve.waitress_options(app))
    try:
        assert server.adj.connection_limit == 500
    finally:
        server.close()


def _new_game(app) -> str:
    """A 3-player game's poll URL, at the stamp it has: a poll that finds nothing new."""
    store = app.config["STORE"]
    token = games.create(store, {"format": "templari-game/1", "edition": "en",
                                 "players": ["Anna", "Bert", "Claus"], "events": []},
                         games.Options())
    return f"/g/{token}/live?v={store.stamp(token)}"


@contextmanager
def _served(app):
    """`app` on the table's waitress, its loop turned in a thread: the port."""
    sockets, stop = {}, threading.Event()
    server = serve.create_server(app, map=sockets, host="127.0.0.1", port=0,
                                 **serve.waitress_options(app))

    def loop():
        while not stop.is_set():
            wasyncore.loop(timeout=0.05, map=sockets, count=1, use_poll=True)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield server.effective_port
    finally:
        stop.set()
        thread.join()
        server.task_dispatcher.shutdown()
        wasyncore.close_all(sockets)


def test_a_poll_that_finds_nothing_new_keeps_its_connection(tmp_path):
    """waitress closes the connection after any 204 unless told otherwise: the table's
    server keeps it, so a phone's poll each second does not open a new one each time."""
    app = create_app(tmp_path / "data")
    poll = _new_game(app)
    with _served(app) as port:
        client = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        answers = []
        for headers in ({}, {}, {"Connection": "close"}):
            client.request("GET", poll, headers=headers)
            response = client.getresponse()
            answers.append((response.status, response.read(), response.getheader("Connection"),
                            client.sock is not None))
        client.close()
    assert answers == [(204, b"", None, True), (204, b"", None, True),
                       (204, b"", "close", False)]  # closed when the client asks


def test_a_poll_that_finds_nothing_new_is_answered_while_every_worker_is_busy(tmp_path):
    """The server's loop answers such a poll itself (serve._PollsInLoop), so a phone hears
    that nothing changed however many pages are being drawn; with the same headers as
    any answer, and the connection kept."""
    app = create_app(tmp_path / "data")
    threads = serve.waitress_options(app)["threads"]
    arrived, released = threading.Semaphore(0), threading.Event()

    def slow():
        arrived.release()
        return "slow" if released.wait(10) else "late"

    app.add_url_rule("/slow", "slow", slow)
    poll = _new_game(app)
    with _served(app) as port:
        busy = [http.client.HTTPConnection("127.0.0.1", port, timeout=10) for _ in range(threads)]
        for connection in busy:
            connection.request("GET", "/slow")
        assert all(arrived.acquire(timeout=10) for _ in busy)  # every worker is drawing
        phone = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        answers = []
        for _ in range(2):
            phone.request("GET", poll)
            response = phone.getresponse()
            answers.append((response.status, response.read(), response.getheader("X-Frame-Options"),
                            phone.sock is not None))
        released.set()
        slow_answers = [connection.getresponse().read() for connection in busy]
        for connection in [*busy, phone]:
            connection.close()
    assert answers == [(204, b"", "DENY", True)] * 2
    assert slow_answers == [b"slow"] * threads


def test_a_form_waiting_to_continue_behind_a_quiet_poll_is_told_to(tmp_path):
    """A client that sends a page's request, a poll that finds nothing new and a form
    with 'Expect: 100-continue' at once hears the page, the 204, then that it may send
    the form (HTTP/1.1's 100 Continue), as it would from waitress alone."""
    app = create_app(tmp_path / "data")
    poll = _new_game(app)
    with _served(app) as port:
        connection = socket.create_connection(("127.0.0.1", port), timeout=10)
        host = f"Host: 127.0.0.1:{port}\r\n"
        connection.sendall((f"GET {poll.split('/live')[0]} HTTP/1.1\r\n{host}\r\n"
                            f"GET {poll} HTTP/1.1\r\n{host}\r\n"
                            f"POST /import HTTP/1.1\r\n{host}Content-Length: 10\r\n"
                            "Expect: 100-continue\r\n\r\n").encode())
        heard = b""
        while heard.count(b"HTTP/1.1 ") < 3:
            received = connection.recv(65536)
            assert received, heard[-300:]
            heard += received
        connection.close()
    assert re.findall(rb"HTTP/1\.1 (\d+)", heard) == [b"200", b"204", b"100"]


def test_without_epoll_the_server_runs_waitress_loop_on_a_plain_socket_map(tmp_path,
                                                                           monkeypatch):
    """Where there is no epoll (Windows, macOS) waitress's own loop runs, and the socket
    map notes nothing (loop.Sockets' notes are read by the server's own loop only: kept
    otherwise, they would grow with every connection)."""
    import select
    monkeypatch.delattr(select, "epoll")
    app = create_app(tmp_path / "data")
    server = serve.create_server(app, host="127.0.0.1", port=0, **serve.waitress_options(app))
    try:
        assert not isinstance(server.asyncore, Loop)
        assert type(server._map) is dict
    finally:
        server.close()


def test_several_processes_share_the_games_and_show_each_change(tmp_path):
    """`--processes 2`: two server processes take turns at one port; a change made by a
    third (another process writing to the data directory) shows on every connection,
    whichever process answers it (their caches are keyed by the stamp in the database)."""
    store = create_app(tmp_path / "data").config["STORE"]
    record = json.loads((FIXTURES / "full-game-3.json").read_text(encoding="utf-8"))
    token = games.create(store, {**record, "events": record["events"][:1]}, games.Options())
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "companion.cli", "--host", "127.0.0.1",
                               "--port", str(port), "--data-dir", str(tmp_path / "data"),
                               "--processes", "2"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    try:
        first = get_when_up(port, f"/g/{token}")
        assert first.status == 200 and children(server.pid) == 2
        seen = store.stamp(token)
        assert {get(port, f"/g/{token}/live?v={seen}").status for _ in range(20)} == {204}
        game = games.load(store, token)
        games.append(store, game, game.version, parse_event(record["events"][1]), "host")
        for _ in range(20):  # new connections, handed to either process
            answer = get(port, f"/g/{token}/live?v={seen}")
            assert answer.status == 200 and "bought the lot" in answer.read().decode()
            assert get(port, f"/g/{token}/live?v={store.stamp(token)}").status == 204
    finally:
        server.terminate()
        assert server.wait(timeout=30) is not None
    assert b"Traceback" not in server.stderr.read()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(port: int, path: str) -> http.client.HTTPResponse:
    """GET on a new connection, as the table's host (loopback)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", path, headers={"Connection": "close"})
    return connection.getresponse()


def get_when_up(port: int, path: str, tries: int = 600) -> http.client.HTTPResponse:
    """GET once the server accepts connections (it may still be starting)."""
    for _ in range(tries):
        try:
            return get(port, path)
        except ConnectionRefusedError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on port {port}")


def children(pid: int) -> int:
    """How many child processes `pid` has."""
    return len(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
