"""Starting the table server: waitress on all interfaces, the address and a QR code printed."""
import errno
import http.client
import io
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from companion import cli
from companion.rules.record import parse_event
from companion.server import channel, network, serve, waitress_api
from companion.server.loop import Loop
from companion.server.drawing import AT_ONCE, Drawing
from companion.server.network import Address
from companion.store import games
from companion.store.sql import SeatTaken
from companion.web import create_app
from companion.web.pages import STAMP_READ
from tests.served import change_elsewhere, new_game_poll, served, until

FIXTURES = Path(__file__).parent / "fixtures"
QR = "█"  # the QR code is drawn in the terminal with these blocks


ADDRESSES = [Address("192.168.1.5", "Wi-Fi"), Address("10.8.0.2", "VPN")]


@pytest.fixture
def started(monkeypatch, tmp_path):
    """Run `templari-companion` with waitress replaced by a recorder: waitress's options
    (the listening sockets under "sockets"), with the keyword arguments create_app had
    under "create_app" and the addresses listened on under "listened". This machine's
    addresses are ADDRESSES (`addresses` changes them); the default port is a free one."""
    calls, apps, listened = [], [], []
    real_listener = serve.listener

    def recorded_create_app(data_dir, **kwargs):
        apps.append(kwargs)
        return create_app(data_dir, **kwargs)

    def loopback_listener(host, port):
        """Listens on the loopback whatever address was asked (none is this machine's):
        127.0.0.1 as asked, 127.0.0.2 for any other."""
        listened.append(host)
        return real_listener(host if host == "127.0.0.1" else "127.0.0.2", port)
    monkeypatch.setattr(serve, "waitress_serve", lambda app, **options: calls.append(options))
    monkeypatch.setattr(network, "phone_addresses", lambda version=4: list(start.addresses))
    monkeypatch.setattr(network, "label_of", lambda ip: "Wi-Fi")
    monkeypatch.setattr(serve, "create_app", recorded_create_app)
    monkeypatch.setattr(serve, "listener", loopback_listener)
    monkeypatch.setattr(serve, "DEFAULT_PORT", free_port())

    def start(*args):
        assert cli.main([*args, "--data-dir", str(tmp_path / "data")]) == 0
        for sock in calls[-1]["sockets"]:
            assert sock.fileno() == -1  # closed once served
        return {**calls[-1], "create_app": apps[-1], "listened": listened[-len(
            calls[-1]["sockets"]):], "port": serve.DEFAULT_PORT}
    start.addresses = ADDRESSES
    return start


def test_the_qr_code_is_printed_where_the_output_s_code_page_has_no_blocks(
        started, monkeypatch):
    """A Windows terminal's output redirected to a file writes cp1252, which has no QR
    blocks: the start printed half its lines, then a traceback (found by a review)."""
    written = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(written, encoding="cp1252"))
    started()
    sys.stdout.flush()
    assert written.getvalue().decode("utf-8").count(QR) > 50


def test_default_start_listens_on_all_interfaces_and_shows_phones_the_best_address(
        started, capsys):
    options = started()
    port, out = options["port"], capsys.readouterr().out
    assert options["listened"] == ["0.0.0.0"]
    assert f"On this device, the host, open http://127.0.0.1:{port}\n" in out
    assert f"Phones on the same network open http://192.168.1.5:{port} (or scan):" in out
    assert out.count(QR) > 50  # the QR code, drawn in the terminal
    assert (f"Phones cannot open it? This machine's other addresses: http://10.8.0.2:{port} "
            "(VPN). The host's table screen shows them in one tap.") in out
    assert f"To host from another device, open http://192.168.1.5:{port}/host/" in out
    assert options["create_app"] == {"addresses": [(f"http://192.168.1.5:{port}", "Wi-Fi"),
                                                   (f"http://10.8.0.2:{port}", "VPN")],
                                     "names": [], "database": None, "proxy": None,
                                     "hosted": False, "keep_days": 30}


def test_the_default_port_is_free_on_stock_laptops():
    """Not 5000 nor 7000 (AirPlay Receiver on macOS 12 and later), not a common dev port."""
    assert network.DEFAULT_PORT not in (5000, 7000, 3000, 8000, 8080, 8888)
    assert 1024 < network.DEFAULT_PORT < 32768  # neither privileged nor ephemeral


def test_a_taken_default_port_moves_to_the_next_free_one_and_says_so(started, capsys,
                                                                      monkeypatch):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        monkeypatch.setattr(serve, "DEFAULT_PORT", port)
        started("--host", "127.0.0.1")
    out = capsys.readouterr().out
    assert f"Port {port} is taken by another program: serving on port {port + 1}." in out
    assert f"On this device, the host, open http://127.0.0.1:{port + 1}\n" in out


def test_a_taken_port_is_one_line_and_no_address_is_printed(tmp_path, capsys):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code = cli.main(["--host", "127.0.0.1", "--port", str(port),
                         "--data-dir", str(tmp_path / "data")])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err == (f"error: port {port} is taken by another program (a server started "
                   f"before?): stop it, or start with another port, e.g. --port {port + 1}\n")


@pytest.mark.parametrize(("port", "refusal", "said"), [
    (80, errno.EACCES, "port 80 may not be used here (ports below 1024 need an administrator; "
                       "a system may reserve others, or another program take one for itself): "
                       "start with another port, e.g. --port 8421"),
    (65535, errno.EADDRINUSE, "port 65535 is taken by another program (a server started "
                              "before?): stop it, or start with another port, e.g. --port 65534")],
    ids=["not-allowed", "the-last-port"])
def test_a_port_that_cannot_be_had_says_why_and_offers_one_that_exists(
        tmp_path, capsys, monkeypatch, port, refusal, said):
    """A port below 1024 refused to a user is not "taken", and the port suggested after
    65535 is not 65536 (found by a review)."""
    def refused(host, port):
        raise OSError(refusal, os.strerror(refusal))
    monkeypatch.setattr(serve, "listener", refused)
    monkeypatch.setattr(serve, "DEFAULT_PORT", 8421)
    code = cli.main(["--host", "127.0.0.1", "--port", str(port),
                     "--data-dir", str(tmp_path / "data")])
    assert (code, capsys.readouterr().err) == (1, f"error: {said}\n")


NOT_A_NAME = "is not a name of this machine: a name such as mylaptop.local, with no http:// nor port"


@pytest.mark.parametrize(("option", "said"), [
    (["--name", "mylaptop.local:8421"], f"argument --name: 'mylaptop.local:8421' {NOT_A_NAME}"),
    (["--name", "http://mylaptop.local/"], f"argument --name: 'http://mylaptop.local/' {NOT_A_NAME}"),
    (["--name", ""], f"argument --name: '' {NOT_A_NAME}"),
    (["--name", "my laptop"], f"argument --name: 'my laptop' {NOT_A_NAME}"),
    (["--proxy", "localhost"], "argument --proxy: 'localhost' is not an address: the proxy's, "
                               "as 127.0.0.1"),
    (["--data-dir", ""], "argument --data-dir: a folder is needed, e.g. templari-data")])
def test_a_value_the_server_could_not_use_stops_the_start_in_one_line(capsys, option, said):
    """A name with its port or scheme (a traceback or 'http://:8421' before), a proxy
    named by a name (never matched), no folder (the current one): found by a review."""
    with pytest.raises(SystemExit) as stopped:
        cli.main(option)
    assert stopped.value.code == 2 and said in capsys.readouterr().err


@pytest.mark.parametrize(("host", "listened"), [("0", "0.0.0.0"), ("127.1", "127.0.0.1"),
                                                ("::0", "::")])
def test_an_address_written_another_way_is_the_same_address(started, host, listened):
    """0 is every IPv4 interface, 127.1 the loopback, ::0 every IPv6 one: not failing
    ('ports all taken': the loopback asked twice) nor showing phones http://[::0]."""
    assert started("--host", host)["listened"][0] == listened


def test_every_default_port_taken_is_one_line(tmp_path, capsys, monkeypatch):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        monkeypatch.setattr(serve, "DEFAULT_PORT", port)
        monkeypatch.setattr(serve, "PORTS_TRIED", 1)
        code = cli.main(["--host", "127.0.0.1", "--data-dir", str(tmp_path / "data")])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and len(err.splitlines()) == 1
    assert f"port {port} is taken by another program" in err


def test_an_address_that_is_not_this_machines_is_one_line(tmp_path, capsys):
    """198.51.100.7 (a documentation address) is on no interface: nothing is sent."""
    code = cli.main(["--host", "198.51.100.7", "--port", "0",
                     "--data-dir", str(tmp_path / "data")])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err == ("error: 198.51.100.7 is not an address of this machine: start without "
                   "--host, or with one of its addresses (templari-companion --check lists "
                   "them)\n")


@pytest.mark.parametrize(("host", "local"), [
    ("127.0.0.1", "http://127.0.0.1"),
    ("127.0.0.2", "http://127.0.0.2"),
    ("::1", "http://[::1]"),
    ("localhost", "http://localhost"),
])
def test_a_loopback_host_tells_phones_they_cannot_reach_it(started, capsys, host, local):
    """Listening on this device only: no address, QR code or host link for phones."""
    options = started("--host", host, "--name", "mylaptop.local")
    out = capsys.readouterr().out
    assert f"On this device, the host, open {local}:{options['port']}\n" in out
    assert ("Phones cannot reach this server: it listens only on this device "
            "(start without --host to let them).") in out
    assert QR not in out and "192.168.1.5" not in out and "/host/" not in out
    assert "mylaptop.local" not in out
    assert options["listened"] == [host] and options["create_app"]["addresses"] == []


@pytest.mark.parametrize(("host", "address"), [
    ("192.168.1.7", "http://192.168.1.7"),
    ("fd00::7", "http://[fd00::7]"),
    ("mylaptop.local", "http://mylaptop.local"),
])
def test_a_specific_address_is_shown_to_phones_and_this_device_stays_the_host(
        started, capsys, host, address):
    """The server listens on that address and on the loopback: this device opens
    http://127.0.0.1:PORT and is the host there."""
    options = started("--host", host)
    port, out = options["port"], capsys.readouterr().out
    assert options["listened"] == [host, "127.0.0.1"]
    assert f"On this device, the host, open http://127.0.0.1:{port}\n" in out
    assert f"Phones on the same network open {address}:{port} (or scan):" in out
    assert out.count(QR) > 50 and "192.168.1.5" not in out
    assert [url for url, _ in options["create_app"]["addresses"]] == [f"{address}:{port}"]


def test_all_ipv6_interfaces_listen_on_the_ipv4_loopback_too(started, capsys):
    started.addresses = [Address("fd00::5", "Wi-Fi")]
    options = started("--host", "::")
    port, out = options["port"], capsys.readouterr().out
    assert options["listened"] == ["::", "127.0.0.1"]
    assert f"On this device, the host, open http://127.0.0.1:{port}\n" in out
    assert f"Phones on the same network open http://[fd00::5]:{port} (or scan):" in out


def test_without_a_network_address_phones_are_told_they_cannot_reach_it_yet(started, capsys):
    started.addresses = []
    options = started()
    out = capsys.readouterr().out
    assert "No network address was found: phones cannot reach this server yet" in out
    assert QR not in out and options["create_app"]["addresses"] == []


def test_the_first_name_given_is_the_address_phones_are_shown(started, capsys):
    options = started("--name", "mylaptop.local", "--name", "table.lan")
    port, out = options["port"], capsys.readouterr().out
    assert f"Phones on the same network open http://mylaptop.local:{port} (or scan):" in out
    assert options["create_app"]["names"] == ["mylaptop.local", "table.lan"]
    assert [url for url, _ in options["create_app"]["addresses"]] == [
        f"http://mylaptop.local:{port}", f"http://table.lan:{port}",
        f"http://192.168.1.5:{port}", f"http://10.8.0.2:{port}"]
    assert (f"other addresses: http://table.lan:{port}, http://192.168.1.5:{port} (Wi-Fi), "
            f"http://10.8.0.2:{port} (VPN).") in out


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


def test_a_poll_that_finds_nothing_new_keeps_its_connection(tmp_path):
    """waitress closes the connection after any 204 unless told otherwise: the table's
    server keeps it, so a phone's poll each second does not open a new one each time."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    with served(app) as (port, _):
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
    """The server's loop answers such a poll itself (channel.Gate), so a phone hears
    that nothing changed however many pages are being drawn; with the same headers as
    any answer, and the connection kept."""
    app = create_app(tmp_path / "data")
    threads = serve.waitress_options(app)["threads"]
    arrived, released = threading.Semaphore(0), threading.Event()

    def slow():
        arrived.release()
        return "slow" if released.wait(10) else "late"

    app.add_url_rule("/slow", "slow", slow)
    poll = new_game_poll(app)
    with served(app) as (port, server):
        busy = [http.client.HTTPConnection("127.0.0.1", port, timeout=10) for _ in range(threads)]
        for connection in busy:
            connection.request("GET", "/slow")
        # every worker has a page: AT_ONCE of them drawing it, the others waiting their turn
        assert all(arrived.acquire(timeout=10) for _ in range(AT_ONCE))
        until(lambda: server.task_dispatcher.active_count == threads, "every worker is busy")
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
    poll = new_game_poll(app)
    with served(app) as (port, _):
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


# --- what the server uses of waitress beyond its documented API -------------------

def test_this_waitress_has_every_name_the_server_uses():
    """A new waitress that drops one fails here, naming it (waitress_api.USED)."""
    assert waitress_api.missing() == []


def test_a_waitress_without_a_name_used_is_told_in_one_line_and_still_serves(
        tmp_path, monkeypatch, capsys):
    """The server then runs waitress as documented: its own loop, its own connections.
    (A later waitress is played by asking this one for a name it lacks.)"""
    from waitress.channel import HTTPChannel
    used = waitress_api.USED["waitress.channel"]["HTTPChannel"]
    monkeypatch.setitem(waitress_api.USED["waitress.channel"], "HTTPChannel",
                        (*used, "outbound_bytes"))
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    with served(app) as (port, server):
        assert not isinstance(server.asyncore, Loop)
        assert server.channel_class is HTTPChannel
        assert get(port, "/").status == 200 and get(port, poll).status == 204
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "waitress.channel.HTTPChannel.outbound_bytes" in lines[0]
    assert "serving with waitress's own loop" in lines[0]


# --- a poll held until its game moves (issue 29) --------------------------------------

def _poll(connection, path: str) -> tuple[int, str]:
    connection.request("GET", path)
    response = connection.getresponse()
    return response.status, response.read().decode()


@contextmanager
def _one_poll_held(tmp_path, database):
    """A new game on the table's server and a phone's poll of it, held (30 s): the app,
    the port, the phone's connection, the poll's URL, and its answer when it comes."""
    app = create_app(tmp_path / "data", database=database)
    poll = new_game_poll(app)
    with served(app, hold=30) as (port, _):
        phone = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        answer = []
        waiting = threading.Thread(target=lambda: answer.append(_poll(phone, poll)))
        waiting.start()
        until(lambda: len(app.extensions[channel.HELD_POLLS]) == 1, "the poll is held")

        def answered() -> tuple[int, str]:
            waiting.join()
            return answer[0]
        yield app, port, phone, poll, answered
        phone.close()


def test_a_held_poll_is_answered_with_the_change_as_soon_as_it_is_made(tmp_path, database):
    """A screen's poll that finds nothing new waits (30 s here); a sale made meanwhile
    answers it at once with the new part, which shows the payment (R8); the same
    connection's next poll is held again."""
    with _one_poll_held(tmp_path, database) as (app, port, phone, poll, answered):
        store, token = app.config["STORE"], poll.split("/")[2]
        held = app.extensions[channel.HELD_POLLS]
        change_elsewhere(store, token)
        status, part = answered()
        assert status == 200 and "red" in part  # within 10 s, not 30
        phone.sock.sendall(f"GET /g/{token}/live?v={store.stamp(token)} HTTP/1.1\r\n"
                           f"Host: 127.0.0.1:{port}\r\n\r\n".encode())
        until(lambda: len(held) == 1, "the next poll is held")
        phone.close()
        until(lambda: len(held) == 0, "a poll whose client went is forgotten")


def test_every_screen_of_a_game_is_answered_with_its_change_and_no_other_game_s(tmp_path):
    """A change wakes the held polls of its game: each of its three screens shows the lot
    (R3); another game's screen waits on."""
    app = create_app(tmp_path / "data")
    poll, other = new_game_poll(app), new_game_poll(app)
    with served(app, hold=30) as (port, _):
        held = app.extensions[channel.HELD_POLLS]
        watching = socket.create_connection(("127.0.0.1", port))
        watching.sendall(f"GET {other} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        screens = [http.client.HTTPConnection("127.0.0.1", port, timeout=10) for _ in range(3)]
        answers = []
        waiting = [threading.Thread(target=lambda screen=screen: answers.append(
            _poll(screen, poll))) for screen in screens]
        for thread in waiting:
            thread.start()
        until(lambda: len(held) == 4, "the four polls are held")
        change_elsewhere(app.config["STORE"], poll.split("/")[2])
        for thread in waiting:
            thread.join()
        assert [(status, "red" in part) for status, part in answers] == [(200, True)] * 3
        assert len(held) == 1  # the other game's screen
        for connection in (*screens, watching):
            connection.close()


def test_a_woken_poll_is_drawn_at_the_stamp_the_watch_read_and_a_stale_one_at_the_loop_s(tmp_path, database):
    """A held poll whose game moved is drawn at the stamp the news.Watch read, and a poll
    that shows an old stamp at the one the loop read for it: the database is not asked
    the game's stamp again (a café's 80 changes a second wake 480 screens)."""
    with _one_poll_held(tmp_path, database) as (app, _, phone, poll, answered):
        store, token = app.config["STORE"], poll.split("/")[2]
        asked = []
        store.stamp = lambda token: asked.append(token) or type(store).stamp(store, token)
        change_elsewhere(store, token)
        status, part = answered()
        assert status == 200 and "red" in part and asked == []
        assert _poll(phone, poll)[0] == 200 and asked == [token]  # the loop's question


def test_a_poll_that_waited_while_its_game_moved_again_shows_the_latest_change(tmp_path):
    """A woken poll waits for a worker (a busy café: seconds) with the stamp read when it
    was woken; the game moves on meanwhile. It shows the latest change, from the game
    this process kept, without reading and folding the game again (a café of 300
    tables did that for every such poll: a fifth of its time)."""
    app = create_app(tmp_path / "data")
    store, kept = app.config["STORE"], app.config["GAMES"]
    poll = new_game_poll(app)
    token = poll.split("/")[2]
    first = games.load(store, token)
    kept.keep(games.append(store, first, first.version, parse_event(
        {"type": "reveal", "cards": [{"family": "red", "number": 1},
                                     {"family": "blue", "number": 2}]}), "host"))
    woken_at = store.stamp(token)
    revealed = games.load(store, token)
    kept.keep(games.append(store, revealed, revealed.version, parse_event({"type": "free"}),
                           "host"))
    read = []
    store.game = lambda token: read.append(token) or type(store).game(store, token)
    answer = app.test_client().get(poll, headers={"HX-Request": "true"},
                                   environ_base={STAMP_READ: woken_at})
    assert answer.status_code == 200 and read == []
    assert f"v={store.stamp(token)}" in answer.text  # the free lot's stamp, not the reveal's
    assert "Round <strong>2</strong>" in answer.text


def test_a_change_made_by_another_process_answers_a_held_poll(tmp_path, database):
    """Another process writes to the games (a second server process, or on PostgreSQL
    another machine's): the held poll learns of it from the database (SQLite's data
    version, PostgreSQL's notification) and is answered."""
    with _one_poll_held(tmp_path, database) as (_, _, _, poll, answered):
        subprocess.run([sys.executable, "-c", (
            "import sys; from companion.rules.record import parse_event;"
            "from companion.store import games, open_store;"
            "store = open_store(sys.argv[1], sys.argv[3] or None);"
            "game = games.load(store, sys.argv[2]);"
            "games.append(store, game, game.version, parse_event({'type': 'reveal', 'cards': "
            "[{'family': 'red', 'number': 1}, {'family': 'blue', 'number': 2}]}), 'host')"),
            str(tmp_path / "data"), poll.split("/")[2], database or ""], check=True)
        status, part = answered()
    assert status == 200 and "red" in part


def test_a_poll_held_when_its_game_had_just_moved_is_answered_at_the_next_look(tmp_path):
    """The race: a change committed between a poll's look at the stamp and its being held
    is news the Watch may have had already; it reads the stamps of the games newly waited
    on anyway."""
    from companion.store.news import News, Watch
    app = create_app(tmp_path / "data")
    store, token = app.config["STORE"], new_game_poll(app).split("/")[2]
    moved, fresh = [], set()
    shown = {token: {store.stamp(token) - 1}}  # the stamp before a change

    def waited(games):
        asked = shown.keys() if games is None else (games | fresh) & shown.keys()
        return {game: shown[game] for game in asked}

    watch = Watch(store, waited, moved.append)
    watch.look(News())
    assert moved == []  # nothing committed, no game newly waited on: nothing read
    fresh.add(token)
    watch.look(News())
    assert moved == [{token: store.stamp(token)}]


def test_the_watch_hears_of_this_process_s_change_by_its_game_and_looks_at_all_at_most_every_80_ms(tmp_path):
    """A change this process makes names its game: the Watch reads that game's stamp
    alone, whichever thread wrote. A change it cannot name (another process's, seen in
    SQLite's data version) has it read every game waited on, but not more often than every
    FULL_EVERY seconds (a café of 400 tables changes 80 times a second)."""
    from companion.store import news, sqlite
    app = create_app(tmp_path / "data")
    store = app.config["STORE"]
    first, second, third = (new_game_poll(app).split("/")[2] for _ in range(3))
    asked, now = [], [100.0]
    shown = {token: {store.stamp(token)} for token in (first, second, third)}

    def waited(games):
        asked.append(games)
        return {game: shown[game] for game in (shown if games is None else games & shown.keys())}

    moved = []
    watch = news.Watch(store, waited, moved.append, clock=lambda: now[0])
    changes = store.news()
    changes.wait(0)
    change_elsewhere(store, first)  # (a thread of its own)
    heard = changes.wait(0)
    assert heard.games == {first} and not heard.anywhere  # no other process wrote
    watch.look(heard)
    assert asked == [{first}] and moved == [{first: store.stamp(first)}]
    shown[first] = {store.stamp(first)}
    elsewhere = sqlite.Store(tmp_path / "data")  # another process's connections
    change_elsewhere(elsewhere, second)
    heard = changes.wait(0)
    assert heard.games == frozenset() and heard.anywhere  # the data version moved
    watch.look(heard)
    assert asked[1:] == [None] and moved[1:] == [{second: store.stamp(second)}]  # a full look
    shown[second] = {store.stamp(second)}
    change_elsewhere(elsewhere, third)
    now[0] += news.FULL_EVERY / 2
    watch.look(changes.wait(0))
    assert asked[2:] == [frozenset()] and len(moved) == 2  # too soon for a full look
    assert watch._patience() == pytest.approx(news.FULL_EVERY / 2)  # one is due
    now[0] += news.FULL_EVERY
    watch.look(changes.wait(0))
    assert asked[3:] == [None] and moved[2:] == [{third: store.stamp(third)}]
    watch.look(changes.wait(0))
    assert asked[4:] == [frozenset()] and watch._patience() == news.WATCH_EVERY


def test_the_watch_does_not_wait_with_a_write_that_waits_for_another_program_s_lock(tmp_path):
    """While a write of this process waits for another program's lock (SQLite waits up to
    30 s), the Watch still hears of this process's other news at once; the other
    program's commit is heard once the write is through."""
    import sqlite3
    from companion.store.news import News
    app = create_app(tmp_path / "data")
    store = app.config["STORE"]
    first, second = (new_game_poll(app).split("/")[2] for _ in range(2))
    changes = store.news()
    changes.wait(0)
    holder = sqlite3.connect(store.path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another program's write, under way
    waiting = threading.Thread(target=change_elsewhere, args=(store, first))
    waiting.start()
    until(store._writing.locked, "this process's write waits for the lock")
    store._told(second)  # (as a write that went through before would have told)
    heard = []
    watch = threading.Thread(target=lambda: heard.append(changes.wait(0)))
    watch.start()
    watch.join(2)
    try:
        assert heard == [News(frozenset({second}))]  # at once, not after the write
    finally:
        holder.execute("UPDATE games SET stamp = stamp + 1 WHERE token = ?", (second,))
        holder.execute("COMMIT")
        holder.close()
        waiting.join()
    assert changes.wait(0) == News(frozenset({first}), anywhere=True)


def test_the_watch_hears_of_another_process_s_change_though_this_one_s_writer_was_opened_again(tmp_path):
    """A write the database refuses (a seat taken twice) closes the connection this
    process writes on, and a new one's data version starts its count over: another
    process's change made meanwhile is still heard."""
    from companion.store import sqlite
    app = create_app(tmp_path / "data")
    store = app.config["STORE"]
    token = new_game_poll(app).split("/")[2]
    store.claim_seat(token, 0)
    changes = store.news()
    changes.wait(0)
    change_elsewhere(sqlite.Store(tmp_path / "data"), token)
    with pytest.raises(SeatTaken):
        store.claim_seat(token, 0)
    assert changes.wait(0).anywhere


def test_the_watch_hears_of_another_process_s_change_while_this_one_writes_without_a_pause(tmp_path):
    """While this process writes without a pause, the Watch cannot ask the connection it
    writes on: each write reads the data version for it."""
    from companion.store import sqlite
    from companion.store.news import News
    app = create_app(tmp_path / "data")
    store = app.config["STORE"]
    first, second = (new_game_poll(app).split("/")[2] for _ in range(2))
    changes = store.news()
    changes.wait(0)
    change_elsewhere(sqlite.Store(tmp_path / "data"), first)
    change_elsewhere(store, second)
    with store._writing:  # (the next write under way)
        assert changes.wait(0) == News(frozenset({second}), anywhere=True)


def test_a_screen_that_failed_to_reach_the_server_is_answered_at_once(tmp_path):
    """`now=1` (static/app.js sends it after a failed poll): not held, so the screen's
    banner goes as soon as the server is back."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    with served(app, hold=30) as (port, _):
        phone = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        assert _poll(phone, poll + "&now=1") == (204, "")
        phone.close()


def _drawing_app(seen: list, lock, release: dict):
    """A WSGI app that notes each request going in and out, held until its method's
    event in `release` is set (if there is one)."""
    def app(environ, start_response):
        with lock:
            seen.append(("in", environ["PATH_INFO"]))
        if environ["REQUEST_METHOD"] in release:
            release[environ["REQUEST_METHOD"]].wait(10)
        with lock:
            seen.append(("out", environ["PATH_INFO"]))
        start_response("200 OK", [])
        return [b""]
    return app


def _ask(drawing, method: str, path: str) -> None:
    list(drawing({"REQUEST_METHOD": method, "PATH_INFO": path}, lambda *_: None))


def _turns_free(drawing) -> int:
    """How many drawings may start now."""
    taken = 0
    while drawing.turns.acquire(blocking=False):
        taken += 1
    for _ in range(taken):
        drawing.turns.release()
    return taken


def test_two_screens_are_drawn_at_once_and_an_action_does_not_wait_its_turn():
    """drawing.Drawing: while two screens are being drawn, a third waits for one of them
    to end, and an action is served at once (a player waits for its answer)."""
    seen, lock, release = [], threading.Lock(), {"GET": threading.Event()}
    drawing = Drawing(_drawing_app(seen, lock, release))
    screens = [threading.Thread(target=_ask, args=(drawing, "GET", f"/screen{n}"))
               for n in range(3)]
    for screen in screens[:2]:
        screen.start()
    until(lambda: len(seen) == 2, "two screens are being drawn")
    assert _turns_free(drawing) == 0
    screens[2].start()
    _ask(drawing, "POST", "/act")
    assert seen[2:] == [("in", "/act"), ("out", "/act")]  # while both screens are drawn
    release["GET"].set()
    for screen in screens:
        screen.join()
    third = seen.index(("in", "/screen2"))
    assert ("out", "/screen0") in seen[:third] or ("out", "/screen1") in seen[:third]


def test_a_screen_is_drawn_after_the_action_in_the_app_or_after_changes_first_seconds(monkeypatch):
    """A drawing waits for the change in the app to end (the player's answer comes first),
    but never more than CHANGES_FIRST seconds: a change stuck on the database does not
    freeze every screen."""
    from companion.server import drawing as drawing_module
    seen, lock, release = [], threading.Lock(), {"POST": threading.Event()}
    drawing = Drawing(_drawing_app(seen, lock, release))
    action = threading.Thread(target=_ask, args=(drawing, "POST", "/act"))
    action.start()
    until(lambda: seen == [("in", "/act")], "the action is in the app")
    screen = threading.Thread(target=_ask, args=(drawing, "GET", "/screen"))
    screen.start()
    until(lambda: _turns_free(drawing) == AT_ONCE - 1, "the screen has its turn")
    assert seen == [("in", "/act")]  # it waits for the action
    release["POST"].set()
    action.join()
    screen.join()
    assert seen == [("in", "/act"), ("out", "/act"), ("in", "/screen"), ("out", "/screen")]
    monkeypatch.setattr(drawing_module, "CHANGES_FIRST", 0)
    seen.clear()
    release["POST"].clear()
    action = threading.Thread(target=_ask, args=(drawing, "POST", "/act"))
    action.start()
    until(lambda: seen == [("in", "/act")], "the action is in the app")
    _ask(drawing, "GET", "/screen")  # at once: the action took too long
    release["POST"].set()
    action.join()
    assert seen[:3] == [("in", "/act"), ("in", "/screen"), ("out", "/screen")]
