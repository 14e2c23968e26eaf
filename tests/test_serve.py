"""Starting the table server: waitress on all interfaces, the address and a QR code printed."""
import errno
import http.client
import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion import cli
from companion.rules.record import parse_event
from companion.server import network, serve
from companion.server.network import Address
from companion.store import games
from companion.web import create_app, streams
from companion.web.guards.limits import Limits
from companion.web.screens import operator
from tests.served import InThread

FIXTURES = Path(__file__).parent / "fixtures"
QR = "█"  # the QR code is drawn in the terminal with these blocks
BLANK = "\xa0"  # and its light modules with these (no-break) spaces


ADDRESSES = [Address("192.168.1.5", "Wi-Fi"), Address("10.8.0.2", "VPN")]


LOOPBACKS = {"127.0.0.1": "127.0.0.1", "::": "127.0.0.3"}  # what the recorder listens on
# instead


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
        127.0.0.1 as asked, 127.0.0.3 for every IPv6 interface (this machine has IPv6, as
        far as the server can tell), 127.0.0.2 for any other."""
        listened.append(host)
        return real_listener(LOOPBACKS.get(host, "127.0.0.2"), port)
    monkeypatch.setattr(serve, "waitress_serve", lambda app, **options: calls.append(options))
    monkeypatch.setattr(serve, "has_ipv6", lambda: True)
    monkeypatch.setattr(network, "phone_addresses", lambda version=4: list(start.addresses))
    monkeypatch.setattr(network, "label_of", lambda ip: "Wi-Fi")
    monkeypatch.setattr(serve, "create_app", recorded_create_app)
    monkeypatch.setattr(serve, "listener", loopback_listener)
    monkeypatch.setattr(serve, "DEFAULT_PORT", free_port())

    def start(*args):
        assert cli.main([*args, "--data-dir", str(tmp_path / "data")]) == 0
        for sock in calls[-1]["sockets"]:
            assert sock.fileno() == -1  # closed once served
        made = apps[-1]  # (the addresses phones may use: read as each app reads them)
        made = {**made, "addresses": list(made["addresses"]())} if callable(
            made["addresses"]) else made
        return {**calls[-1], "create_app": made, "listened": listened[-len(
            calls[-1]["sockets"]):], "port": serve.DEFAULT_PORT}
    start.addresses = ADDRESSES
    return start


class Terminal(io.StringIO):
    """What the server prints to, as a terminal."""

    def isatty(self) -> bool:
        return True


def test_the_terminal_s_qr_code_has_its_quiet_zone_and_is_black_on_white_in_any_theme(
        monkeypatch):
    """The QR standard's margin of 4 modules (2 lines of text, 4 blank columns); on a
    terminal, the code is drawn in black and white of its own (ANSI colors), so that a dark
    theme does not invert it; written to a file or a pipe, no color codes."""
    from companion.web.render.qr import print_qr
    plain, terminal = io.StringIO(), Terminal()
    print_qr("http://192.168.1.20:8421/g/x/join", plain)
    lines = plain.getvalue().splitlines()
    assert lines[0].strip() == lines[1].strip() == "" and QR in lines[2]
    assert all(line.startswith(BLANK * 4) for line in lines) and "\x1b[" not in plain.getvalue()
    monkeypatch.setattr(os, "name", "posix")
    print_qr("http://192.168.1.20:8421/g/x/join", terminal)
    assert "\x1b[48;5;232m" in terminal.getvalue() and "\x1b[38;5;255m" in terminal.getvalue()


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
    assert options["listened"] == ["0.0.0.0", "::"]
    assert f"On this device, the host, open http://127.0.0.1:{port}\n" in out
    assert f"Phones on the same network open http://192.168.1.5:{port} (or scan):" in out
    assert out.count(QR) > 50  # the QR code, drawn in the terminal
    assert (f"Phones cannot open it? This machine's other addresses: http://10.8.0.2:{port} "
            "(VPN). The host's table screen shows them in one tap.") in out
    assert f"To host from another device, open http://192.168.1.5:{port}/host/" in out
    assert options["create_app"] == {"addresses": [(f"http://192.168.1.5:{port}", "Wi-Fi"),
                                                   (f"http://10.8.0.2:{port}", "VPN")],
                                     "names": [], "database": None, "proxy": None,
                                     "hosted": False, "keep_days": 30, "screens": 48,
                                     "chosen": Limits()}


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


def test_a_port_taken_by_a_server_already_running_is_said_to_be_this_app_s(tmp_path, capsys):
    """A second start on the port of a table server already running names it, with the
    address that opens it (not "another program")."""
    first = InThread(create_app(tmp_path / "first"), host="127.0.0.1", port=0)
    port = int(first.server.effective_port)
    try:
        code = cli.main(["--host", "127.0.0.1", "--port", str(port),
                         "--data-dir", str(tmp_path / "second")])
    finally:
        first.stop()
    assert code == 1 and capsys.readouterr().err == (
        f"error: port {port} is taken by a Templari Companion server already running (open "
        f"http://127.0.0.1:{port}): stop it, or start this one with another port, e.g. "
        f"--port {port + 1}\n")


def test_a_taken_port_is_one_line_and_no_address_is_printed(tmp_path, capsys):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code = cli.main(["--host", "127.0.0.1", "--port", str(port),
                         "--data-dir", str(tmp_path / "data")])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err == (f"error: port {port} is taken by another program (a server started "
                   f"before?): stop it, or start with another port, e.g. --port {port + 1}\n")


def test_the_check_exits_1_when_the_server_would_not_start_and_0_when_it_would(tmp_path,
                                                                              capsys):
    """--check on a port another program holds, or on a data directory that is a file:
    the server would not start (status 1); on a free port and a new folder it would."""
    (tmp_path / "a-file").write_text("")
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        assert cli.main(["--check", "--host", "127.0.0.1", "--port", port,
                         "--data-dir", str(tmp_path / "data")]) == 1
    assert cli.main(["--check", "--host", "127.0.0.1", "--port", port,
                     "--data-dir", str(tmp_path / "a-file")]) == 1
    assert cli.main(["--check", "--host", "127.0.0.1", "--port", port,
                     "--data-dir", str(tmp_path / "data")]) == 0
    assert "is a file, not a directory" in capsys.readouterr().out


@pytest.mark.parametrize("key, said", [
    ("short-key", "TEMPLARI_OPERATOR_KEY has 9 characters, fewer than 22"),
    ("abcabcabcabcabcabcabcabc", "TEMPLARI_OPERATOR_KEY has 3 different characters, fewer "
                                 "than 12")])
def test_a_hosted_server_with_a_weak_operator_key_does_not_start(tmp_path, capsys,
                                                                 monkeypatch, key, said):
    """A key that could be guessed stops the start in one line that says how to make one;
    `--new-operator-key` prints one the server takes (192 random bits)."""
    monkeypatch.setenv("TEMPLARI_OPERATOR_KEY", key)
    assert cli.main(["--hosted", "--host", "127.0.0.1", "--port", "0",
                     "--data-dir", str(tmp_path / "data")]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == (f"error: {said}: it could be guessed; make one with "
                                 "templari-companion --new-operator-key\n")
    assert cli.main(["--new-operator-key"]) == 0
    made = capsys.readouterr().out.strip()
    monkeypatch.setenv("TEMPLARI_OPERATOR_KEY", made)
    assert len(made) == 32 and operator.operator_key() == made and operator.weak_key() is None


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


def test_waitress_has_a_thread_for_each_stream_and_workers_besides(started):
    """Each screen's stream holds a thread: waitress has STREAMS_HELD of them and WORKERS
    for the requests; tens of screens' connections; uploads bounded."""
    options = started()
    assert options["threads"] == streams.HELD + serve.WORKERS
    assert options["connection_limit"] >= 200 and options["asyncore_use_poll"]
    assert options["channel_timeout"] <= 30 and options["backlog"] >= 1024
    assert options["max_request_body_size"] == 1024 * 1024  # the app's MAX_CONTENT_LENGTH
    assert started("--screens", "200")["threads"] == 200 + serve.WORKERS  # a club's night


def test_a_system_that_allows_fewer_open_files_gets_fewer_connections(tmp_path, monkeypatch):
    """With room for 300 open files only, waitress takes 200 connections, not 250 it
    could not open (each connection is a file)."""
    import resource
    monkeypatch.setattr(resource, "getrlimit", lambda which: (300, 300))
    monkeypatch.setattr(resource, "setrlimit", lambda which, limits: None)
    app = create_app(tmp_path / "data")
    server = serve.create_server(app, map={}, host="127.0.0.1", port=0,
                                 **serve.waitress_options(app))
    try:
        assert server.adj.connection_limit == 200
    finally:
        server.close()


def test_several_processes_share_the_games_and_show_each_change(tmp_path):
    """`--processes 2`: two server processes take turns at one port; a change made by a
    third (another process writing to the data directory) shows on every connection,
    whichever process answers it (their caches are keyed by the stamp in the database)."""
    store, record, token, port, server = two_processes(tmp_path)
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


def test_a_killed_server_process_is_replaced_and_the_games_are_served_on(tmp_path):
    """Of 2 processes, each killed in turn (kill -9) is replaced: the games are served by
    the processes that replaced them."""
    _, _, token, port, server = two_processes(tmp_path)
    try:
        assert get_when_up(port, f"/g/{token}").status == 200
        first = child_pids(server.pid)
        for replaced, killed in enumerate(sorted(first), 1):
            os.kill(killed, signal.SIGKILL)
            deadline = time.monotonic() + 30
            while len(child_pids(server.pid) - first) < replaced:
                assert time.monotonic() < deadline, "the killed process was not replaced"
                time.sleep(0.05)
        assert {get_when_up(port, f"/g/{token}").status for _ in range(20)} == {200}
    finally:
        server.terminate()
        assert server.wait(timeout=30) is not None
    assert b"Traceback" not in server.stderr.read()


def two_processes(tmp_path):
    """A game of its first event, and the server started on it with `--processes 2`:
    (the store, the record, the game's token, the port, the server's process)."""
    store = create_app(tmp_path / "data").config["STORE"]
    record = json.loads((FIXTURES / "full-game-3.json").read_text(encoding="utf-8"))
    token = games.create(store, {**record, "events": record["events"][:1]}, games.Options())
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "companion.cli", "--host", "127.0.0.1",
                               "--port", str(port), "--data-dir", str(tmp_path / "data"),
                               "--processes", "2"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    return store, record, token, port, server


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
    return len(child_pids(pid))


def child_pids(pid: int) -> set[int]:
    return set(map(int, Path(f"/proc/{pid}/task/{pid}/children").read_text().split()))


def test_where_there_is_no_poll_waitress_holds_what_select_can_watch(tmp_path, monkeypatch):
    """Windows' Python has no poll(): waitress watches its sockets with select(), which
    takes 512 at most, so a server of many screens holds CONNECTIONS there."""
    import select
    monkeypatch.delattr(select, "poll")
    app = create_app(tmp_path / "data", screens=400)
    server = serve.create_server(app, map={}, host="127.0.0.1", port=0,
                                 **serve.waitress_options(app))
    try:
        assert server.adj.connection_limit == serve.CONNECTIONS
    finally:
        server.close()


def test_the_check_of_port_0_and_of_a_folder_that_cannot_be_made(tmp_path, capsys):
    """--port 0: any free port, and the addresses are tried on the one the check had (not
    "port 0 is free" and a firewall blamed); a data folder under a file cannot be made,
    and the check says so rather than promise it."""
    (tmp_path / "a-file").write_text("")
    assert cli.main(["--check", "--host", "127.0.0.1", "--port", "0",
                     "--data-dir", str(tmp_path / "a-file" / "data")]) == 1
    out = capsys.readouterr().out
    assert "- Port 0: the server will take any free port and print it" in out
    assert f"- {tmp_path / 'a-file' / 'data'} cannot be made ({tmp_path / 'a-file'} cannot " \
           "be written): start with another --data-dir." in out
    assert "Port 0 is free" not in out


def test_every_interface_is_every_ipv6_one_too_and_the_host_opens_the_ipv6_loopback(tmp_path):
    """Where the machine has IPv6, the default start listens on every IPv6 interface too
    (beside every IPv4 one, on the same port), and http://[::1]:PORT is the server's own
    device as http://127.0.0.1:PORT is: the host (R12)."""
    if not serve.has_ipv6():
        pytest.skip("this machine has no IPv6 (its loopback ::1 takes no socket)")
    assert serve.listen_on("0.0.0.0") == ["0.0.0.0", "::"]
    sockets = serve.bind(["127.0.0.1", "::1"], 0)  # (the loopback's of each: nothing else)
    running = InThread(create_app(tmp_path / "data"), sockets=sockets)
    try:
        port = sockets[0].getsockname()[1]
        for address in ("127.0.0.1", "::1"):
            connection = http.client.HTTPConnection(address, port, timeout=10)
            connection.request("GET", "/")
            page = connection.getresponse().read().decode()
            connection.close()
            assert "Start the game" in page, address
    finally:
        running.stop()



STOPPING = Path(__file__).with_name("stopping.py")


def stopped_at(moment: str, folder: Path, *args: str) -> str:
    """What tests/stopping.py `moment` printed, within 30 s (what it left running killed)."""
    process = subprocess.Popen([sys.executable, str(STOPPING), moment, str(folder), *args],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    try:
        return process.communicate(timeout=30)[0]
    except subprocess.TimeoutExpired:
        return "still running after 30 s"
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:  # all ended
            pass


def test_a_second_stop_while_the_first_ends_the_streams_still_stops_the_process(tmp_path):
    """Ctrl+C and, just behind it, the parent's SIGTERM (or a service manager's, or a
    second Ctrl+C): Python may run the second stop inside the first, here while it ends
    the screens' streams; the process still stops (the second once waited forever for the
    lock the first held)."""
    assert stopped_at("twice", tmp_path).strip() == "stopped"


def test_a_stop_as_an_ended_process_is_waited_for_still_stops_the_others(tmp_path):
    """`--processes 2`: one process ends by itself, and Ctrl+C comes as the server waits
    for it, before it knows which one ended: the other is stopped, and the server, with
    no traceback (telling the ended one once failed, and left the other serving)."""
    assert stopped_at("reaped", tmp_path).strip() == "stopped"


@pytest.mark.parametrize("processes", ["1", "2"])
def test_ctrl_c_as_soon_as_the_server_says_so_stops_it_even_started_in_the_background(
        tmp_path, processes):
    """"Press Ctrl+C to stop the server", and Ctrl+C at once, the server started as a
    script's background job (`&`: Ctrl+C ignored until the server handles it): it stops,
    with no traceback (it once ignored it until its handlers were set, and served on)."""
    said = stopped_at("told", tmp_path, processes)
    assert said.strip().endswith("stopped") and "Traceback" not in said, said
