"""The parts of a hosted stack on this machine, as several machines would run them: one
PostgreSQL (the tests' own, tests/postgres.py: Debian's package, as the postgres user, on
a Unix socket of a temporary folder) and haproxy (Debian's package: apt-get install
haproxy) on one port of 127.0.0.1, in front of table servers on ports of 127.0.0.1 (each
as if on a machine of its own), passing each device's address in X-Forwarded-For,
checking the servers every 0.5 s and sending nothing to one that stopped answering (3
checks in a row); a request whose server closed the connection without an answer (a
server process killed) is sent again (a form sent twice counts at most once: it carries
the game's version it was made from).

bench/hosted.py starts the table servers between the two and plays tables against them."""
import shutil
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from tests.postgres import Server as PostgreSQL
from tests.postgres import binaries

# Connections haproxy takes at once: two file descriptors each (the device's, the server's)
# within the 20,000 a process may open here.
MAX_CONNECTIONS = 9000
CHECK_EVERY_MS = 500  # how often haproxy asks each table server whether it answers
# A screen's stream is quiet between changes but for a comment every 15 s
# (companion/web/streams.py): a minute of silence is a connection gone.
TIMEOUTS = {"connect": "5s", "client": "60s", "server": "60s", "http-keep-alive": "60s",
            "http-request": "10s", "queue": "30s"}


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


@contextmanager
def haproxy(servers: list[int]):
    """haproxy in front of the table servers on `servers` (ports of 127.0.0.1): (its port,
    its pid); stopped on leaving."""
    if shutil.which("haproxy") is None:
        raise SystemExit("needs haproxy (apt-get install haproxy)")
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "haproxy.cfg"
        config.write_text(haproxy_config(port, servers))
        balancer = subprocess.Popen(["haproxy", "-db", "-f", str(config)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_for(port, balancer, "haproxy")
            yield port, balancer.pid
        finally:
            balancer.terminate()
            balancer.wait(10)


def haproxy_config(port: int, servers: list[int]) -> str:
    """haproxy's configuration: HTTP on `port` of 127.0.0.1, round robin over the table
    servers on `servers` (ports of 127.0.0.1), each checked by asking for a static file:
    three checks unanswered (within 5 s each) and no request goes to it until it answers
    two; a request whose connection failed, or whose server closed it with no answer, is
    sent again (to another server where there is one). Each piece of an answer is passed on
    at once (http-no-delay): else haproxy holds a stream's events, a few bytes each, up to
    200 ms, waiting for more."""
    timeouts = "".join(f"    timeout {name} {value}\n" for name, value in TIMEOUTS.items())
    backends = "".join(f"    server table{number} 127.0.0.1:{server} check inter "
                       f"{CHECK_EVERY_MS} fall 3 rise 2\n"
                       for number, server in enumerate(servers))
    return (f"global\n    maxconn {MAX_CONNECTIONS}\n\ndefaults\n    mode http\n"
            f"    maxconn {MAX_CONNECTIONS}\n"
            f"{timeouts}    option forwardfor\n    option http-no-delay\n"
            f"    option redispatch\n    retries 3\n"
            f"    retry-on conn-failure empty-response\n\n"
            f"frontend tables\n    bind 127.0.0.1:{port}\n    default_backend servers\n\n"
            f"backend servers\n    balance roundrobin\n    option httpchk\n"
            f"    timeout check 5s\n"
            f"    http-check send meth GET uri /static/app.js ver HTTP/1.1 hdr Host 127.0.0.1\n"
            f"    http-check expect status 200\n{backends}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(port: int, process: subprocess.Popen, what: str, within: float = 60.0) -> None:
    """Until `process` accepts connections on `port` of 127.0.0.1 (exits saying so if it
    stopped, or took longer than `within` seconds)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if process.poll() is not None:
            said = process.stderr.read().decode() if process.stderr else ""
            raise SystemExit(f"{what} stopped: {said}".strip())
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        try:
            process.wait(0.05)
        except subprocess.TimeoutExpired:
            pass
    raise SystemExit(f"{what} did not listen on port {port}")

