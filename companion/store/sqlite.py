"""The games in SQLite, in the data directory: the default, with nothing to set up
(the queries are sql.SQLStore's).

The database must be whole and writable when the server starts, its file not empty
and its write-ahead log without damage (StorageFault says why not, in one line); while
it runs, a write the disk refuses (full, read-only, an I/O error) changes nothing and
says so, reads go on, and a database file that has vanished or been replaced is never
silently started again empty.
"""
import os
import shutil
import sqlite3
import tempfile
import threading
from contextlib import closing, contextmanager
from pathlib import Path
from types import SimpleNamespace

from companion.rules.phrase import N_, Phrase
from . import wal
from .news import News
from .sql import CODE_LENGTH, UNREACHABLE, SQLStore, StorageFault, free_code

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    token TEXT NOT NULL UNIQUE,
    header TEXT NOT NULL,
    options TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    moves TEXT
);
CREATE INDEX IF NOT EXISTS games_by_age ON games(created, id);
CREATE TABLE IF NOT EXISTS events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    data TEXT NOT NULL,
    by TEXT,
    at REAL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS journal (
    game_id INTEGER NOT NULL REFERENCES games(id),
    at REAL NOT NULL,
    by TEXT NOT NULL,
    entry TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS grants (
    id INTEGER PRIMARY KEY,
    token TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS hosts (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    device TEXT NOT NULL,
    label TEXT NOT NULL,
    created REAL NOT NULL,
    UNIQUE (game_id, device)
);
CREATE INDEX IF NOT EXISTS hosts_by_device ON hosts(device, game_id);
CREATE TABLE IF NOT EXISTS seats (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    token TEXT NOT NULL UNIQUE,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS marks (kind TEXT NOT NULL, key TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS marks_by_key ON marks(kind, key, at);
CREATE INDEX IF NOT EXISTS marks_by_age ON marks(kind, at);
CREATE TABLE IF NOT EXISTS buckets (
    key TEXT PRIMARY KEY,
    tokens REAL NOT NULL,
    at REAL NOT NULL
);
"""
# A game's stamp moves with every change to what it shows: its events, seats, journal,
# settings, version and moves, whoever makes the change (this server, another process on the same
# data directory, or someone editing the database by hand). Screens poll it and caches are
# keyed by it.
_STAMP_TRIGGERS = tuple(
    f"CREATE TRIGGER IF NOT EXISTS stamp_{name} AFTER {change} BEGIN UPDATE games "
    f"SET stamp = stamp + 1 WHERE id = {game}; END" for name, change, game in (
        ("event_added", "INSERT ON events", "NEW.game_id"),
        ("event_edited", "UPDATE ON events", "NEW.game_id"),
        ("event_removed", "DELETE ON events", "OLD.game_id"),
        ("seat_taken", "INSERT ON seats", "NEW.game_id"),
        ("seat_changed", "UPDATE ON seats", "NEW.game_id"),
        ("seat_freed", "DELETE ON seats", "OLD.game_id"),
        ("journal_added", "INSERT ON journal", "NEW.game_id"),
        ("journal_edited", "UPDATE ON journal", "NEW.game_id"),
        ("journal_removed", "DELETE ON journal", "OLD.game_id"),
        ("game_changed", "UPDATE OF header, options, version, moves, code ON games", "NEW.id")))
# Columns added since the first data directories: added on start when missing.
_ADDED_COLUMNS = {"games": ("moves TEXT", "code TEXT", "stamp INTEGER NOT NULL DEFAULT 0",
                            "summary TEXT", "summary_stamp INTEGER", "host_key TEXT",
                            "next_game TEXT"),
                  "events": ("by TEXT", "at REAL")}
DATABASE = "companion.sqlite3"
BUSY_TIMEOUT = 30  # seconds a connection waits for another one's write
START_TIMEOUT = 1  # at start, another program's lock is not waited out
# Free bytes under which a write that failed with an I/O error is put down to a full disk.
ROOM = 1024 * 1024
# A failed write whose cause is the disk: full, read-only, or failing (an I/O error).
_DISK_ERRORS = (sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR,
                sqlite3.SQLITE_CANTOPEN)
DISK_FULL = Phrase(N_("Could not save: the disk is full; nothing was recorded."))
READ_ONLY = Phrase(N_("Could not save: the data directory is read-only; nothing was "
                      "recorded."))
IO_ERROR = Phrase(N_("Could not save: the disk reported an input/output error; nothing was "
                     "recorded. The disk may be failing: export the games that matter."))
# At start, what is wrong with a database that cannot be used and what to do about it:
# by SQLite's error code, else it cannot be opened.
_DAMAGED = ("is damaged", "restore it from a backup or start with another --data-dir")
_LOCKED = ("is locked by another program",
           "stop the other server using it, or start with another --data-dir")
_START_FAULTS = {sqlite3.SQLITE_CORRUPT: _DAMAGED, sqlite3.SQLITE_NOTADB: _DAMAGED,
                 sqlite3.SQLITE_BUSY: _LOCKED, sqlite3.SQLITE_LOCKED: _LOCKED,
                 sqlite3.SQLITE_FULL: ("cannot be written",
                                       "free some disk space or start with another --data-dir"),
                 sqlite3.SQLITE_IOERR: ("cannot be used: the disk reported an input/output "
                                        "error", "copy the data directory to another disk and "
                                        "start with that --data-dir, or restore the database "
                                        "from a backup")}
_UNOPENED = ("cannot be opened", "check that it is a database file this user may read and "
                                 "write, or start with another --data-dir")
_EMPTY = ("is empty", "restore it from a backup, or remove it to start afresh with no games")


class Store(SQLStore):
    """The data directory's database: opened at start (made if need be), checked whole,
    and from then on only that very file is used."""

    TAKEN = (sqlite3.IntegrityError,)
    ERRORS = (StorageFault, sqlite3.Error)

    def __init__(self, data_dir):
        super().__init__()
        directory = Path(data_dir)
        _check_directory(directory)
        self.path = directory / DATABASE
        check_files(self.path)
        self._uri = self.path.resolve().as_uri()
        try:
            with closing(self._connection("mode=rwc", START_TIMEOUT)) as db:
                report = db.execute("PRAGMA quick_check").fetchone()[0]
                if report != "ok":
                    raise StorageFault(_start_fault(self.path, sqlite3.SQLITE_CORRUPT,
                                                    _first_problem(report)))
                self._prepare(db)
        except sqlite3.Error as error:
            raise StorageFault(_start_fault(self.path, _code(error), error)) from None
        self._file = _identity(self.path)
        self._local = threading.local()  # each thread's connection, kept between requests
        # This process's writers take turns here rather than in SQLite's busy handler,
        # which sleeps 1, 2, 5, 10... ms between tries: a thread waiting for Python's
        # lock in the middle of its transaction held the others that long. Other
        # processes' writers still wait in SQLite's. They all write on one connection,
        # kept for the writer of the turn: its data version moves only for the other
        # processes' commits (news).
        self._writing = threading.Lock()
        self._writer = SimpleNamespace(db=None, opened=0)
        self._seen = None  # the writer's data version last read: (opened, version)

    def _prepare(self, db) -> None:
        """The tables, made or brought up to date in one write (so a lock held by another
        program shows now, not at the first action)."""
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript("BEGIN IMMEDIATE;" + _SCHEMA)
        for table, added in _ADDED_COLUMNS.items():
            columns = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            for column in added:
                if column.split()[0] not in columns:  # an older data directory
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
        self._give_codes(db)
        db.execute("CREATE UNIQUE INDEX IF NOT EXISTS game_codes ON games(code)")
        for trigger in _STAMP_TRIGGERS:
            db.execute(trigger)
        db.execute("COMMIT")

    @staticmethod
    def _give_codes(db) -> None:
        """A code for each game of an older data directory that has none, or a shorter one
        than codes have now (5 characters before): its screens show the new one (its stamp
        moves)."""
        for (game_id,) in db.execute("SELECT id FROM games WHERE code IS NULL OR "
                                     "length(code) < ?", (CODE_LENGTH + 1,)).fetchall():
            db.execute("UPDATE games SET code = ? WHERE id = ?", (free_code(db), game_id))

    def _size(self, db) -> int:
        """The bytes of the database's pages in use (its free pages are used again)."""
        page_size, pages, free = (db.execute(f"PRAGMA {name}").fetchone()[0] for name in
                                  ("page_size", "page_count", "freelist_count"))
        return (pages - free) * page_size

    def news(self) -> "Changes":
        """What a news.Watch waits on: this process's writes, and SQLite's data version
        for the other processes'."""
        return Changes(self)

    def data_version(self) -> tuple[int, int] | None:
        """A value that moves whenever another process has committed a change: SQLite's
        data version of the connection this process writes on (its own commits leave it
        as it is), with how many times that connection was opened (a new one starts its
        count over). While a write of this process holds the connection (it may wait for
        another program's lock for BUSY_TIMEOUT: the Watch does not wait with it), the
        one read after the last write (None before any)."""
        if self._writing.acquire(blocking=False):
            try:
                with self._use(self._writer) as db:
                    self._note_version(db)
            finally:
                self._writing.release()
        return self._seen

    def _note_version(self, db) -> None:
        """Read the data version on the writers' connection `db` (theirs held)."""
        self._seen = (self._writer.opened, db.execute("PRAGMA data_version").fetchone()[0])

    @contextmanager
    def _write(self, token: str | None = None):
        """BEGIN IMMEDIATE ... COMMIT: committed before the caller answers; on a full or
        read-only disk, nothing is written and StorageFault says so."""
        try:
            with self._writing, self._use(self._writer) as db:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                    self._note_version(db)  # (a process that writes without a pause
                    # is asked nothing between its writes)
                except BaseException:
                    if db.in_transaction:  # SQLite may have rolled back already
                        db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
            self._told(token)
        except sqlite3.OperationalError as error:
            if _code(error) not in _DISK_ERRORS:
                raise
            raise StorageFault(self._disk_fault(error)) from error

    def _disk_fault(self, error: sqlite3.OperationalError) -> Phrase:
        """Why the disk refused a write: read-only, full (said by SQLite, or an I/O error
        with no room left), failing (any other I/O error), or the file not opened."""
        directory = self.path.parent
        if not os.access(directory, os.W_OK):
            return READ_ONLY
        if (_code(error) == sqlite3.SQLITE_FULL
                or shutil.disk_usage(directory).free < ROOM):
            return DISK_FULL
        return {sqlite3.SQLITE_IOERR: IO_ERROR,
                sqlite3.SQLITE_CANTOPEN: UNREACHABLE}.get(_code(error), READ_ONLY)

    @contextmanager
    def _snapshot(self):
        """A read transaction: every query in it sees the same committed state."""
        with self._connect() as db:
            db.execute("BEGIN")
            try:
                yield db
            finally:
                db.execute("COMMIT")

    @contextmanager
    def _connect(self):
        """This thread's connection, to read: StorageFault in words if the database
        cannot be used (see _use), or the disk refuses to open or read it."""
        try:
            with self._use(self._local) as db:
                yield db
        except sqlite3.OperationalError as error:
            if _code(error) not in _DISK_ERRORS:
                raise
            raise StorageFault(UNREACHABLE) from error

    @contextmanager
    def _use(self, kept):
        """A connection to the database file the server started with: StorageFault if
        there is no file at its path (its folder removed, unmounted or refused: it may
        come back), or another one (never a new, empty one). Each thread keeps its
        connection from one request to the next (opening one costs more than a poll's
        query), and the writers theirs in `kept`, unless it failed for another cause than
        the disk (closing the last connection would empty the write-ahead log, and a full
        disk would seem to have room for one more write, then none)."""
        found = _identity(self.path)
        if found != self._file:
            self._forget(kept)
            raise StorageFault(UNREACHABLE if found is None else Phrase(N_(
                "The game database ({path}) has vanished or been replaced while the server "
                "ran; nothing was recorded. Restart the server."), path=str(self.path)))
        db = getattr(kept, "db", None) or self._open(kept)
        try:
            yield db
        except sqlite3.Error as error:
            if _code(error) not in _DISK_ERRORS:
                self._forget(kept)
            raise
        finally:
            if getattr(kept, "db", None) is not db:
                db.close()

    def close(self) -> None:
        """Close this thread's connection and the writers' (before the process forks: a
        connection is never shared between processes); the next use opens a new one."""
        self._forget(self._local)
        with self._writing:
            self._forget(self._writer)

    @staticmethod
    def _forget(kept) -> None:
        """Close the connection kept in `kept`: the next use opens a new one."""
        db = getattr(kept, "db", None)
        kept.db = None
        if db is not None:
            db.close()

    def _open(self, kept):
        """Read and write, kept in `kept`; read only where SQLite cannot make its shared
        index beside the file (a full or read-only disk): then the file holds every
        change, as the last connection closed put them in it, and a write is refused
        (see _write); such a connection is used once, not kept."""
        db = self._connection("mode=rw", shared=kept is self._writer)
        try:
            db.execute("PRAGMA schema_version")  # opens the index now
        except sqlite3.OperationalError as error:
            db.close()
            if _code(error) not in (sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN):
                raise
            return self._connection("mode=ro&immutable=1")
        kept.db = db
        kept.opened = getattr(kept, "opened", 0) + 1
        return db

    def _connection(self, query: str, timeout: float = BUSY_TIMEOUT, shared: bool = False):
        """A connection for one thread, or `shared` by threads taking turns (the
        writers')."""
        return sqlite3.connect(f"{self._uri}?{query}", uri=True, timeout=timeout,
                               isolation_level=None, check_same_thread=not shared)


class Changes:
    """Whether another process may have changed the database: asked by one thread (a
    news.Watch's)."""

    def __init__(self, store: Store):
        self.store, self.version = store, None

    def wait(self, timeout: float) -> News:
        """Wait up to `timeout` seconds for a write of this process: the games it changed
        since the last call, and whether another process committed meanwhile."""
        if self.store.committed.wait(timeout):
            self.store.committed.clear()
        games = self.store.written()
        version, self.version = self.version, self.store.data_version()
        return News(games, version != self.version)

def _check_directory(directory: Path) -> None:
    """The data directory exists (made if need be) and this user may write in it."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
    except OSError as error:
        raise StorageFault(f"the data directory {directory} cannot be made or written to "
                           f"({error.strerror or error}): start with another --data-dir"
                           ) from None


def check_files(path: Path) -> None:
    """Before SQLite opens the database (taking in its write-ahead log, and dropping
    what follows a damaged frame of it): the database file is not empty, and its log has
    no damage. A log another process is writing may be read half-written: damage found
    is read again before it is told."""
    if path.is_file() and path.stat().st_size == 0:
        raise StorageFault(_fault_line(path, _EMPTY, "0 bytes"))
    log = path.with_name(path.name + "-wal")
    found = wal.damage(_read(log))
    if found and found == wal.damage(_read(log)):
        raise StorageFault(_log_fault(log, found))


def _read(path: Path) -> bytes:
    """The file's bytes; none if it cannot be read (SQLite then says why in its words)."""
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _log_fault(log: Path, found: wal.Damage) -> str:
    """The line for a damaged log: where, what it would lose, what to do (truncated before
    its damage, the log holds what SQLite would have started with)."""
    where = (f"frame {found.frame} of {found.frames} does not match its checksum"
             if found.frame else "its header does not match its checksum")
    count = f"{found.lost} transaction{'s' if found.lost > 1 else ''}"
    return _fault_line(log, ("is damaged", "keep a copy of the data directory, then restore "
                                           "the database from a backup, or truncate this "
                                           f"file to {found.intact} bytes to start with what "
                                           "precedes the damage"),
                       f"{where}; {count} committed from there on would be lost")


def _start_fault(path: Path, code: int | None, cause) -> str:
    """One line for the console: the database, what is wrong with it, what to do."""
    return _fault_line(path, _START_FAULTS.get((code or 0) & 0xFF, _UNOPENED), cause)


def _fault_line(path: Path, fault: tuple[str, str], cause) -> str:
    """`path` and what is wrong with it, the cause in brackets, then what to do."""
    problem, remedy = fault
    return f"{path} {problem} ({cause}): {remedy}"


def _first_problem(report: str) -> str:
    """The first problem SQLite's integrity check reports (it may list many, on lines)."""
    found = [line for line in report.splitlines() if line and not line.startswith("***")]
    return f"integrity check: {found[0] if found else report}"


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file is at `path` (device and inode), None if there is none."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def _code(error: sqlite3.Error) -> int:
    """SQLite's primary error code of `error` (0 for an error Python's module raised)."""
    return (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF


