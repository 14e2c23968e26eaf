"""The parts of a hosted stack on this machine, as several machines would run them: one
PostgreSQL (the tests' own, tests/postgres.py: Debian's package, as the postgres user, on
a Unix socket of a temporary folder) and haproxy (Debian's package: apt-get install
haproxy) with the configuration operators are given, docs/deploy/haproxy.cfg (HTTPS with
a certificate made here by openssl, each device's address and scheme passed on, the table
servers checked, streams passed on at once, each network's connections bounded), on ports
of 127.0.0.1 (or of other addresses of this machine), in front of table servers on other
ports of 127.0.0.1 (each as if on a machine of its own).

bench/hosted.py starts the table servers between the two and plays tables against them;
bench/attacks.py --hosted attacks them from a network namespace."""
import http.client
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.postgres import Server as PostgreSQL
from tests.postgres import binaries

CONFIG = Path(__file__).resolve().parents[1] / "docs" / "deploy" / "haproxy.cfg"
# A server line of the configuration: its indent, then what follows its address.
SERVER = re.compile(r"^(?P<indent>[ \t]*)server table\d+ 127\.0\.0\.1:\d+(?P<rest>.*\n)",
                    re.MULTILINE)


@contextmanager
def postgresql(connections: int | None = None):
    """A PostgreSQL of the benchmark's own (the tests'), its database empty, taking
    `connections` connections at once if given (else the tests' number): its URL; stopped
    on leaving."""
    with database_server(connections) as database:
        yield database.fresh()


@contextmanager
def database_server(connections: int | None = None):
    """The same: the server itself (tests/postgres.Server: its `url`, `pause`, `resume`)."""
    if binaries() is None:
        raise SystemExit("needs postgresql (apt-get install postgresql)")
    database = PostgreSQL(binaries())
    try:
        if connections is not None:
            _allow(database, connections)
        yield database
    finally:
        database.stop()


def _allow(database: PostgreSQL, connections: int) -> None:
    """Let `database` take `connections` at once: started again with its command but for
    max_connections (read at start only)."""
    database.pause()
    database.command = [f"max_connections={connections}"
                        if str(part).startswith("max_connections=") else part
                        for part in database.command]
    database.resume()


def postmaster(url: str) -> int:
    """The pid of the PostgreSQL server at `url` (its own word for it)."""
    import psycopg
    with psycopg.connect(url) as db:
        directory = db.execute("SHOW data_directory").fetchone()[0]
    return int(Path(directory, "postmaster.pid").read_text().split()[0])


@dataclass(frozen=True)
class Balancer:
    """haproxy running: its HTTPS port (HTTP on `http`, each request sent to HTTPS), its
    pid, and what a client trusts its certificate with (`tls`, made of the file
    `certificate`)."""

    port: int
    http: int
    pid: int
    tls: ssl.SSLContext
    certificate: Path


@contextmanager
def haproxy(servers: list[int], addresses: tuple[str, ...] = ("127.0.0.1",)):
    """haproxy as docs/deploy/haproxy.cfg runs it, listening on each of `addresses` (the
    same ports), in front of the table servers on `servers` (ports of 127.0.0.1), with a
    certificate of its own for those addresses: the Balancer; stopped on leaving."""
    if shutil.which("haproxy") is None:
        raise SystemExit("needs haproxy (apt-get install haproxy)")
    with tempfile.TemporaryDirectory() as folder:
        certificate = made_certificate(Path(folder), addresses)
        https, http = free_port(addresses[0]), free_port(addresses[0])
        config = Path(folder) / "haproxy.cfg"
        config.write_text(haproxy_config(addresses, (http, https), servers, certificate))
        balancer = subprocess.Popen(["haproxy", "-db", "-f", str(config)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_for(https, balancer, "haproxy", address=addresses[0])
            trusted = certificate.with_suffix(".crt")
            tls = ssl.create_default_context(cafile=trusted)
            _until_passed_on(addresses[0], https, tls)
            yield Balancer(https, http, balancer.pid, tls, trusted)
        finally:
            balancer.terminate()
            balancer.wait(10)


def _until_passed_on(address: str, port: int, tls: ssl.SSLContext,
                     within: float = 60.0) -> None:
    """Until haproxy passes a request on to a table server (a static file answered 200):
    a server whose first health check took too long (a busy machine) gets no request
    until it answers two, and each request is answered 503 meanwhile."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        front = http.client.HTTPSConnection(address, port, context=tls, timeout=within)
        try:
            front.request("GET", "/static/app.js")
            if front.getresponse().status == 200:
                return
        finally:
            front.close()
        time.sleep(0.1)
    raise SystemExit(f"haproxy passed no request on to the table servers within {within:g} s")


def haproxy_config(addresses: tuple[str, ...], ports: tuple[int, int], servers: list[int],
                   certificate: Path) -> str:
    """docs/deploy/haproxy.cfg as written, but for what differs on this machine: its HTTP
    and HTTPS `ports` on each of `addresses`, its `certificate` (a PEM file of the
    certificate, then its key), a server line for each port of `servers` (as the file's
    first)."""
    config = CONFIG.read_text()
    for port, public in zip(ports, (80, 443)):
        config = _substituted(config, rf"bind :::{public} v4v6",
                              "bind " + ",".join(f"{address}:{port}" for address in addresses))
    config = _substituted(config, r"crt /etc/haproxy/certs/", f"crt {certificate}")
    first = SERVER.search(config)
    lines = "".join(f"{first['indent']}server table{number} 127.0.0.1:{port}{first['rest']}"
                    for number, port in enumerate(servers, 1))
    return config[:first.start()] + lines + SERVER.sub("", config[first.start():])


def _substituted(config: str, pattern: str, replacement: str) -> str:
    """`config` with its one match of `pattern` replaced (none or several: the file no
    longer reads as this bench expects)."""
    replaced, count = re.subn(pattern, replacement, config)
    if count != 1:
        raise SystemExit(f"{CONFIG}: {count} lines match {pattern!r}, 1 expected")
    return replaced


def made_certificate(folder: Path, addresses: tuple[str, ...]) -> Path:
    """A self-signed certificate for `addresses`, made with openssl: the PEM file haproxy
    reads (the certificate, then its key), the certificate alone beside it (.crt)."""
    key, certificate = folder / "server.key", folder / "server.crt"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                    "-subj", f"/CN={addresses[0]}", "-addext",
                    "subjectAltName=" + ",".join(f"IP:{address}" for address in addresses),
                    "-keyout", str(key), "-out", str(certificate)],
                   check=True, capture_output=True)
    both = folder / "server.pem"
    both.write_bytes(certificate.read_bytes() + key.read_bytes())
    return both


def free_port(address: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((address, 0))
        return probe.getsockname()[1]


def wait_for(port: int, process: subprocess.Popen, what: str, within: float = 60.0,
             address: str = "127.0.0.1") -> None:
    """Until `process` accepts connections on `port` of `address` (exits saying so if it
    stopped, or took longer than `within` seconds)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if process.poll() is not None:
            said = process.stderr.read().decode() if process.stderr else ""
            raise SystemExit(f"{what} stopped: {said}".strip())
        with socket.socket() as probe:
            if probe.connect_ex((address, port)) == 0:
                return
        try:
            process.wait(0.05)
        except subprocess.TimeoutExpired:
            pass
    raise SystemExit(f"{what} did not listen on port {port}")

