"""A hosted stack on this machine, as several machines would run it: one PostgreSQL (the
tests' own, tests/postgres.py: Debian's package, as the postgres user, on a Unix socket of
a temporary folder), PROCESSES table servers on it (`templari-companion --database URL
--proxy 127.0.0.1`, each a process of its own on a port of its own, as if on a machine of
its own), and haproxy (Debian's package: apt-get install haproxy) in front of them on one
port of 127.0.0.1, passing each device's address in X-Forwarded-For, checking the servers
every 0.5 s and sending nothing to one that stopped answering (3 checks in a row); a
request whose server closed the connection without an answer (a server killed) is sent
again to another (a form sent twice counts at most once: it carries the game's version
it was made from).

bench/cafe.py --balanced PROCESSES plays its café against it and kills one table server
(SIGKILL) in the middle of the measured seconds."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.postgres import Server as PostgreSQL, binaries
from tests.real_http import started, stop

# Connections haproxy takes at once: two file descriptors each (the device's, the server's)
# within the 20,000 a process may open here.
MAX_CONNECTIONS = 9000
CHECK_EVERY_MS = 500  # how often haproxy asks each table server whether it answers
# The screens' polls are held up to 20 s, their answers awaited 45 s (static/app.js).
TIMEOUTS = {"connect": "5s", "client": "60s", "server": "60s", "http-keep-alive": "60s",
            "http-request": "10s", "queue": "30s"}


@dataclass
class Stack:
    """The running stack: haproxy's port, the database's URL, each table server's process
    (a killed one stays in the list), and haproxy's and PostgreSQL's processes."""

    port: int
    database: str
    servers: list[subprocess.Popen]
    others: list[int]

    def roots(self) -> dict[int, str]:
        """The processes whose CPU and memory are the stack's (with all they started), and
        what each is."""
        return {**{server.pid: "table servers" for server in self.servers},
                self.others[0]: "haproxy", self.others[1]: "PostgreSQL"}

    def kill_one(self) -> int:
        """Kill the first table server outright, as a machine that fails: its pid."""
        victim = self.servers[0]
        os.killpg(victim.pid, signal.SIGKILL)
        return victim.pid


@contextmanager
def stack(processes: int):
    """PostgreSQL, `processes` table servers on it, haproxy in front: the Stack, stopped
    on leaving whatever happens."""
    if shutil.which("haproxy") is None:
        raise SystemExit("needs haproxy (apt-get install haproxy)")
    with ExitStack() as cleanup, tempfile.TemporaryDirectory() as folder:
        url = cleanup.enter_context(postgresql())
        servers = []
        for number in range(processes):
            process, local, _ = started(
                [sys.executable, "-m", "companion.cli", "--database", url, "--host",
                 "127.0.0.1", "--port", "0", "--proxy", "127.0.0.1"], cwd=folder)
            cleanup.callback(_stopped, process)
            servers.append((process, int(local.rsplit(":", 1)[1])))
        port = _free_port()
        config = Path(folder) / "haproxy.cfg"
        config.write_text(haproxy_config(port, [port for _, port in servers]))
        balancer = subprocess.Popen(["haproxy", "-db", "-f", str(config)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        cleanup.callback(_stopped_balancer, balancer)
        _wait_for(port, balancer)
        yield Stack(port, url, [process for process, _ in servers],
                    [balancer.pid, _postmaster(url)])


@contextmanager
def postgresql():
    """A PostgreSQL of the benchmark's own (the tests'), its database empty: its URL;
    stopped on leaving."""
    if binaries() is None:
        raise SystemExit("needs postgresql (apt-get install postgresql)")
    database = PostgreSQL(binaries())
    try:
        yield database.fresh()
    finally:
        database.stop()


def _postmaster(url: str) -> int:
    """The pid of the PostgreSQL server at `url` (its own word for it)."""
    import psycopg
    with psycopg.connect(url) as db:
        directory = db.execute("SHOW data_directory").fetchone()[0]
    return int(Path(directory, "postmaster.pid").read_text().split()[0])


def haproxy_config(port: int, servers: list[int]) -> str:
    """haproxy's configuration: HTTP on `port` of 127.0.0.1, round robin over the table
    servers on `servers` (ports of 127.0.0.1), each checked by asking for a static file:
    three checks unanswered (within 5 s each) and no request goes to it until it answers
    two; a request it refused the connection of goes to another."""
    timeouts = "".join(f"    timeout {name} {value}\n" for name, value in TIMEOUTS.items())
    backends = "".join(f"    server table{number} 127.0.0.1:{server} check inter "
                       f"{CHECK_EVERY_MS} fall 3 rise 2\n"
                       for number, server in enumerate(servers))
    return (f"global\n    maxconn {MAX_CONNECTIONS}\n\ndefaults\n    mode http\n"
            f"{timeouts}    option forwardfor\n    option redispatch\n    retries 3\n"
            f"    retry-on conn-failure empty-response\n\n"
            f"frontend tables\n    bind 127.0.0.1:{port}\n    default_backend servers\n\n"
            f"backend servers\n    balance roundrobin\n    option httpchk\n"
            f"    timeout check 5s\n"
            f"    http-check send meth GET uri /static/app.js ver HTTP/1.1 hdr Host 127.0.0.1\n"
            f"    http-check expect status 200\n{backends}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(port: int, balancer: subprocess.Popen) -> None:
    """Until haproxy accepts connections on `port` (it says why if it stopped)."""
    for _ in range(200):
        if balancer.poll() is not None:
            raise SystemExit("haproxy stopped: " + balancer.stderr.read().decode())
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        try:
            balancer.wait(0.05)
        except subprocess.TimeoutExpired:
            pass
    raise SystemExit(f"haproxy did not listen on port {port}")


def _stopped(process: subprocess.Popen) -> None:
    if process.poll() is None:
        stop(process)


def _stopped_balancer(balancer: subprocess.Popen) -> None:
    balancer.terminate()
    balancer.wait(10)
