"""The operator's path of docs/hosting.md ("Running it"), tried as written: the haproxy
configuration operators are given (docs/deploy/haproxy.cfg: haproxy's own check, then in
front of a real server, a device on another address of this machine, its end of a
network namespace's veth pair, reaching it over HTTPS), the systemd units with their environment file (systemd's own check, and their
command as systemd runs it: a database that cannot be reached fails the start, so that
systemd tries again), and the backup and restore commands against PostgreSQL."""
import http.client
import http.server
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bench import balanced
from companion.rules.record import dump_record
from companion.store import games, open_store
from tests.helpers import setup
from tests.real_http import RealClient, started, stop
from tests.web_helpers import new_game, text

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "docs" / "deploy"
UNITS = ("templari-companion.service", "templari-companion@.service")
INSTALLED = "/opt/templari/.venv/bin/templari-companion"  # where the units run it from
CAP = 500  # connections one network holds at once through haproxy (haproxy.cfg)
RATE = 1000  # requests one network sends in 10 s through haproxy before it is told to wait


def needs(program: str, package: str | None = None) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is missing (apt-get install {package or program})")


# --- haproxy ---------------------------------------------------------------------------

def test_the_haproxy_configuration_is_valid_without_a_warning(tmp_path):
    needs("haproxy")
    needs("openssl")
    certificate = balanced.made_certificate(tmp_path, ("127.0.0.1",))
    config = tmp_path / "haproxy.cfg"
    config.write_text(balanced.haproxy_config(("127.0.0.1",), (8080, 8443), [8421, 8422],
                                              certificate))
    checked = subprocess.run(["haproxy", "-dW", "-c", "-f", str(config)],
                             capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "[WARNING]" not in checked.stdout + checked.stderr


@pytest.fixture
def behind_haproxy(tmp_path, phone_net):
    """A table server (`--proxy 127.0.0.1`) with a game, behind haproxy on this machine's
    end of the namespace's pair (test traffic goes to that address and the loopback
    only): (haproxy, the address, the game's token).
    haproxy changes to its own user and folder (chroot) as it starts: root only."""
    needs("haproxy")
    needs("openssl")
    if os.geteuid() != 0:
        pytest.skip("haproxy's configuration starts it as root: run the tests as root")
    address = phone_net.host_side  # (this machine's end of the namespace's pair)
    process, local, _ = started([sys.executable, "-m", "companion.cli", "--host",
                                 "127.0.0.1", "--port", "0", "--proxy", "127.0.0.1",
                                 "--data-dir", str(tmp_path / "data")], cwd=tmp_path)
    try:
        token = new_game(RealClient(local))  # the server's own device: the host
        with balanced.haproxy([int(local.rsplit(":", 1)[1])], (address,)) as front:
            yield front, address, token
    finally:
        assert "Traceback" not in stop(process)


def test_through_haproxy_a_device_is_itself_over_https(behind_haproxy):
    """Plain HTTP is sent to HTTPS; over HTTPS the device is itself (its address passed on,
    whatever it claims: a viewer, not the host the proxy's loopback would be), its cookies
    go over HTTPS only and the page asks browsers to keep to HTTPS."""
    front, address, token = behind_haproxy
    plain = RealClient(f"http://{address}:{front.http}").get(f"/g/{token}")
    assert plain.status_code == 301
    assert plain.headers["Location"].startswith(f"https://{address}:")
    phone = RealClient(f"https://{address}:{front.port}", tls=front.tls,
                       headers={"X-Forwarded-For": "127.0.0.1"})
    page = phone.get(f"/g/{token}")
    assert page.status_code == 200 and "Anna" in text(page)
    assert "Reveal these 2 cards" not in text(page)  # a viewer's page (the host records)
    assert page.headers["Strict-Transport-Security"] == "max-age=31536000"
    cookies = page.headers.get_all("Set-Cookie")
    assert cookies and all("Secure" in cookie for cookie in cookies)


def test_one_network_past_its_connections_is_refused_and_another_is_served(behind_haproxy):
    """One address holds CAP connections (each its TLS handshake made, so that haproxy
    counts it, and no request sent): its next one is closed at once, while a device on
    another network is served."""
    front, address, token = behind_haproxy
    held = [front.tls.wrap_socket(socket.create_connection((address, front.port), timeout=5),
                                  server_hostname=address) for _ in range(CAP)]
    try:
        assert refused((address, front.port))
        other = http.client.HTTPSConnection(address, front.port, timeout=10,
                                            context=front.tls,
                                            source_address=("127.0.0.1", 0))
        other.request("GET", f"/g/{token}")
        assert other.getresponse().status == 200
        other.close()
    finally:
        for connection in held:
            connection.close()


def test_one_network_past_its_requests_is_told_to_wait_once_and_closed(behind_haproxy):
    """Past RATE requests in 10 s (here redirects haproxy answers itself, sent in one go),
    that network's next request over HTTPS is answered 429 in words and its connection
    closed, the requests pipelined behind it unanswered (haproxy does not answer each one
    of a flood), while a device on another network is served."""
    front, address, token = behind_haproxy
    with socket.create_connection((address, front.http), timeout=10) as plain:
        plain.sendall(f"GET / HTTP/1.1\r\nHost: {address}\r\n\r\n".encode() * RATE)
        assert read_until_closed(plain, b"HTTP/1.1 301 ", RATE).count(b"HTTP/1.1 301 ") == RATE
    with front.tls.wrap_socket(socket.create_connection((address, front.port), timeout=10),
                               server_hostname=address) as flood:
        flood.sendall(f"GET /g/{token} HTTP/1.1\r\nHost: {address}\r\n\r\n".encode() * 50)
        answered = read_until_closed(flood)
    assert answered.startswith(b"HTTP/1.1 429 ") and answered.count(b"HTTP/1.1 ") == 1
    assert b"This network sends too many requests" in answered
    other = http.client.HTTPSConnection(address, front.port, timeout=10, context=front.tls,
                                        source_address=("127.0.0.1", 0))
    other.request("GET", f"/g/{token}")
    assert other.getresponse().status == 200
    other.close()


class Named(http.server.BaseHTTPRequestHandler):
    """A stand-in table server that answers every GET and POST with its own port."""

    def answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        said = str(self.server.server_address[1]).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(said)))
        self.end_headers()
        self.wfile.write(said)

    do_GET = do_POST = answer

    def log_message(self, *_) -> None:
        pass


def test_every_request_of_one_game_goes_to_one_server(tmp_path):
    """With several servers (the systemd template's), each game's page, live part, stream
    and forms reach the same one, which then reads and folds the game once for them all;
    the games spread over the servers."""
    needs("haproxy")
    needs("openssl")
    if os.geteuid() != 0:
        pytest.skip("haproxy's configuration starts it as root: run the tests as root")
    servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), Named) for _ in range(3)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with balanced.haproxy([server.server_address[1] for server in servers]) as front:
            reached = {}
            for number in range(30):
                token = f"game{number}x"
                requests = [("GET", f"/g/{token}"), ("GET", f"/g/{token}/live?v=3"),
                            ("GET", f"/g/{token}/me/live/events"), ("POST", f"/g/{token}"),
                            ("GET", f"/g/{token}/tv/live/events?v=1")]
                held = [http.client.HTTPSConnection("127.0.0.1", front.port,
                                                    context=front.tls, timeout=10)
                        for _ in requests]  # each kept open, as a screen's stream is
                answers = set()
                for connection, (method, path) in zip(held, requests):
                    connection.request(method, path, body=b"" if method == "POST" else None)
                    answers.add(connection.getresponse().read())
                for connection in held:
                    connection.close()
                assert len(answers) == 1, (token, answers)
                reached[token] = answers.pop()
            assert len(set(reached.values())) == len(servers)
    finally:
        for server in servers:
            server.shutdown()


def read_until_closed(connection: socket.socket, mark: bytes = b"", count: int = 0) -> bytes:
    """What `connection` receives until it is closed (a timeout if it is held open), or
    until `mark` came `count` times."""
    received = b""
    while not count or received.count(mark) < count:
        piece = connection.recv(65536)
        if not piece:
            break
        received += piece
    return received


def refused(server: tuple[str, int]) -> bool:
    """Whether a new connection to `server` is closed (or reset, as soon as it is made)
    without a byte; a timeout if it is held open."""
    try:
        with socket.create_connection(server, timeout=5) as connection:
            return connection.recv(1) == b""
    except ConnectionResetError:
        return True


# --- systemd ---------------------------------------------------------------------------

def unit_command(unit: str, environment: dict, instance: str = "") -> list[str]:
    """The unit's ExecStart as systemd runs it: %i its instance, each ${NAME} the value of
    the environment file (one argument); the program this checkout's, on any free port."""
    line = re.search(r"^ExecStart=(.+)$", (DEPLOY / unit).read_text(), re.M).group(1)
    words = shlex.split(line.replace("%i", instance).replace("--port 8421", "--port 0"))
    command = [re.sub(r"\$\{(\w+)\}", lambda name: environment[name.group(1)], word)
               for word in words]
    assert command[0] == INSTALLED
    return [sys.executable, "-m", "companion.cli", *command[1:]]


def environment_file() -> dict:
    """docs/deploy/templari-companion.env read as systemd's EnvironmentFile= reads it."""
    lines = (DEPLOY / "templari-companion.env").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def test_systemd_takes_the_units_without_a_word(tmp_path):
    """`systemd-analyze verify` on each unit (the template's instance for port 8421), its
    program this checkout's: no unknown setting, nothing it would refuse."""
    needs("systemd-analyze", "systemd")
    program = Path(sys.executable).with_name("templari-companion")
    for unit in UNITS:
        (tmp_path / unit).write_text((DEPLOY / unit).read_text().replace(INSTALLED,
                                                                          str(program)))
    checked = subprocess.run(["systemd-analyze", "verify", "--man=no",
                              str(tmp_path / UNITS[0]),
                              str(tmp_path / "templari-companion@8421.service")],
                             capture_output=True, text=True, check=False)
    assert (checked.returncode, checked.stdout + checked.stderr) == (0, "")


@pytest.mark.parametrize(("unit", "instance"), [(UNITS[0], ""), (UNITS[1], "0")])
def test_a_unit_waits_for_its_database_then_serves(tmp_path, postgres_server, unit, instance):
    """The unit's command with the environment file's settings (a strong operator's key
    added, as the file says to): while the database cannot be reached it exits 1, saying
    so in one line (systemd starts it again RestartSec later, never giving up); once it
    can, the same command serves. The unit's settings that make systemd wait so."""
    settings = (DEPLOY / unit).read_text()
    for setting in ("Restart=on-failure", "RestartSec=5s", "StartLimitIntervalSec=0",
                    "Wants=network-online.target postgresql.service",
                    "After=network-online.target postgresql.service",
                    "EnvironmentFile=/etc/templari/companion.env"):
        assert re.search(rf"^{re.escape(setting)}$", settings, re.M), setting
    key = subprocess.run([sys.executable, "-m", "companion.cli", "--new-operator-key"],
                         capture_output=True, text=True, check=True).stdout.strip()
    environment = {**environment_file(), "TEMPLARI_OPERATOR_KEY": key}
    away = {**environment, "TEMPLARI_DATABASE": f"postgresql://templari@/templari?host="
                                                f"{tmp_path}"}  # no server listens there
    failed = subprocess.run(unit_command(unit, away, instance), cwd=tmp_path, env=away,
                            capture_output=True, text=True, timeout=60, check=False)
    assert failed.returncode == 1 and len(failed.stderr.splitlines()) == 1
    assert "cannot be used" in failed.stderr
    up = {**environment, "TEMPLARI_DATABASE": postgres_server.fresh()}
    process, _, said = started(unit_command(unit, up, instance), cwd=tmp_path, env=up)
    assert "Traceback" not in stop(process)
    assert "games.example.org" in "".join(said)


# --- backup and restore ----------------------------------------------------------------

def test_the_backup_is_restored_clean_into_a_new_database(tmp_path, postgres_server):
    """docs/hosting.md's commands, run as its `templari` role: pg_dump's custom format,
    then into a database made anew, pg_restore without owners; each exits 0 without a
    word, and the restored database serves the game and the same session key."""
    for program in ("pg_dump", "pg_restore", "createdb", "dropdb", "psql"):
        needs(program, "postgresql")
    folder = postgres_server.folder
    as_postgres = ["-h", str(folder), "-U", "postgres"]
    as_templari = ["-h", str(folder), "-U", "templari"]
    run = subprocess.run
    run(["psql", *as_postgres, "-d", "templari", "-q", "-c",
         "DO $$ BEGIN CREATE ROLE templari LOGIN; EXCEPTION WHEN duplicate_object THEN "
         "NULL; END $$"], check=True, capture_output=True)
    for database in ("kept", "restored"):
        run(["dropdb", *as_postgres, "--if-exists", database], check=True)
    run(["createdb", *as_postgres, "--owner=templari", "kept"], check=True)
    url = f"postgresql://templari@/kept?host={folder}"
    store = open_store(None, url)
    token = games.create(store, dump_record(setup(), []), games.Options())
    key = store.secret("session_key")
    store.close()
    dump = tmp_path / "templari.dump"
    with open(dump, "wb") as written:  # pg_dump ... > FILE
        done = run(["pg_dump", *as_templari, "--format=custom", "kept"], stdout=written,
                   stderr=subprocess.PIPE, check=False)
    assert (done.returncode, done.stderr) == (0, b"") and dump.stat().st_size > 0
    for command in (["createdb", *as_postgres, "--owner=templari", "restored"],
                    ["pg_restore", *as_templari, "--no-owner", "--dbname=restored"]):
        with open(dump, "rb") as read:  # pg_restore ... < FILE
            done = run(command, stdin=read, capture_output=True, check=False)
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), command
    restored = open_store(None, f"postgresql://templari@/restored?host={folder}")
    try:
        assert games.load(restored, token) is not None
        assert restored.secret("session_key") == key
    finally:
        restored.close()
    for database in ("kept", "restored"):
        run(["dropdb", *as_postgres, database], check=True)
