"""A PostgreSQL server of the tests' own, for the tests on the second backend (the store's
contract, tests/test_store_contract.py; the hosted server; PostgreSQL's own tests):
Debian's binaries (`.ci/run` installs the postgresql package), initialised in a temporary
directory and run as the `postgres` user (PostgreSQL refuses to run as root), listening
on a Unix socket of that directory only, never on a network address."""
import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

TABLES = "games, events, journal, grants, hosts, seats, meta, marks, buckets"
BACKENDS = ["sqlite", "postgresql"]


def binaries() -> Path | None:
    """The folder of initdb and postgres: where Debian puts them, else on the PATH."""
    found = next(iter(sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)),
                 None) or shutil.which("initdb")
    return Path(found).parent if found else None


class Server:
    """A running PostgreSQL: `url` opens its database `templari`; `fresh()` empties it."""

    def __init__(self, folder: Path):
        self.folder = Path(tempfile.mkdtemp(prefix="templari-pg-"))
        self.folder.chmod(0o755)
        self.as_user = []
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.binaries, data = folder, self.folder / "data"
        self._run([folder / "initdb", "-D", data, "-U", "postgres", "--auth=trust",
                   "--no-sync", "-E", "UTF8", "--locale=C"])
        self.command = [*self.as_user, folder / "postgres", "-D", data, "-k", self.folder,
                        "-c", "listen_addresses=", "-c", "fsync=off",
                        "-c", "max_connections=300"]
        self.url = f"postgresql://postgres@/templari?host={self.folder}"
        self.resume()
        self._run([folder / "createdb", "-h", self.folder, "-U", "postgres", "templari"])

    def _run(self, command) -> None:
        subprocess.run([*self.as_user, *map(str, command)], check=True, capture_output=True)

    def resume(self) -> None:
        """Start the server on its data (again, after `pause`), and wait until it takes
        connections."""
        self.process = subprocess.Popen(self.command, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while subprocess.run([self.binaries / "pg_isready", "-q", "-h", self.folder]).returncode:
            assert self.process.poll() is None and time.monotonic() < deadline, \
                "PostgreSQL did not start"
            time.sleep(0.05)

    def fresh(self) -> str:
        """The URL of the database, emptied of what an earlier test left (its tables, if
        made, are kept: making them is the store's, on its first start)."""
        import psycopg
        with psycopg.connect(self.url, autocommit=True) as db:
            # (a connection an earlier test left open, in a server it started, would hold
            # the truncation back until it is gone)
            db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                       "datname = current_database() AND pid <> pg_backend_pid()")
            if db.execute("SELECT to_regclass('games')").fetchone()[0] is not None:
                db.execute(f"TRUNCATE {TABLES} RESTART IDENTITY")
        return self.url

    def pause(self) -> None:
        """PostgreSQL's fast shutdown (the sessions still open are ended, their
        transactions rolled back), asked of the server itself: runuser, told to stop,
        waits 2 s before it kills it. Its data is kept for `resume`."""
        try:
            server = int((self.folder / "data" / "postmaster.pid").read_text().split()[0])
            os.kill(server, signal.SIGINT)
        except (FileNotFoundError, ProcessLookupError):
            self.process.terminate()
        self.process.wait(30)

    def stop(self) -> None:
        """Shut it down for good, its data removed."""
        self.pause()
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server():
    """The tests' PostgreSQL, started once; skipped where PostgreSQL is not installed."""
    folder = binaries()
    if folder is None:
        pytest.skip("PostgreSQL is missing: apt-get install postgresql")
    pytest.importorskip("psycopg", reason="psycopg is missing: pip install -c constraints.txt "
                                          "-e '.[test]'")
    server = Server(folder)
    yield server
    server.stop()


@pytest.fixture(params=BACKENDS)
def database(request):
    """Each backend in turn: None (SQLite in the data directory), then the URL of an empty
    PostgreSQL database."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("postgres_server").fresh()
