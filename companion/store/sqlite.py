"""SQLite storage: each game's record header, its event log, its seats and its journal.

The event log is the only truth about a game; every change bumps the game's
version, and a write names the version it was based on, so two devices
submitting at once cannot both apply. Each event keeps who recorded it and when,
and the journal keeps every undo and correction (companion data, not part of the
game record); the server's host grants are kept here too.

The database must be whole and writable when the server starts, its file not empty
and its write-ahead log without damage (StorageFault says why not, in one line); while
it runs, a write the disk refuses (full, read-only, an I/O error) changes nothing and
says so, reads go on, and a database file that has vanished or been replaced is never
silently started again empty.
"""
import json
import os
import secrets
import shutil
import sqlite3
import tempfile
import threading
import time
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from companion.rules.phrase import N_, Phrase
from . import wal

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
CREATE TABLE IF NOT EXISTS seats (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    token TEXT NOT NULL UNIQUE,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
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
                            "summary TEXT", "summary_stamp INTEGER"),
                  "events": ("by TEXT", "at REAL")}
# A game's short code, typed on a phone without a camera: CODE_LENGTH letters and digits
# without look-alikes (0/O, 1/I/L, 2/Z, 5/S, 8/B), unique among the server's games, kept
# and shown in two groups ("KXR-4TQM") that a person reads and types in seconds. 25^7
# codes: tests/test_web_codes.py works out the odds of guessing one.
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 7
CODE_GROUP = 3  # characters before the dash (a code is kept with its dash)
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


_BATCH = 500  # tokens asked in one query (SQLite allows 32,766 parameters)


class StorageFault(Exception):
    """The database cannot be used: `text` says why and what to do (a Phrase shown on a
    page while the server runs; plain English printed on the console at start)."""

    def __init__(self, text):
        super().__init__(str(text))
        self.text = text


class Unreadable(str):
    """A stored text that is not JSON (the database edited by hand), kept as it is."""


class Conflict(Exception):
    """The game changed since the version a write was based on."""


class SeatTaken(Exception):
    """Another device already holds that seat."""


@dataclass(frozen=True)
class StoredGame:
    """One game as stored: header and events are record JSON values."""

    token: str
    header: dict
    options: dict
    version: int
    events: list
    seats: dict[int, str]
    moves: dict | None = None  # after an undo or a correction: the coins it moved
    code: str = ""
    created: float = 0.0
    signatures: list = ()  # per event: (who recorded it, when), or (None, None)
    journal: list = ()  # undos, corrections and settings: (when, who, entry)
    stamp: int = 0  # moves with every change (see _STAMP_TRIGGERS)


@dataclass(frozen=True)
class Grant:
    """Host rights given to another device, revocable (never the host key itself)."""

    id: int
    label: str
    created: float


class Store:
    """The data directory's database: opened at start (made if need be), checked whole,
    and from then on only that very file is used."""

    def __init__(self, data_dir):
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
        self.committed = threading.Event()  # set by every write of this process (news.Watch)

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
        """A code for each game of an older data directory that has none, or one of another
        length than codes have now (5 characters before): its screens show the new one
        (its stamp moves)."""
        for (game_id,) in db.execute("SELECT id FROM games WHERE code IS NULL OR "
                                     "length(code) != ?", (CODE_LENGTH + 1,)).fetchall():
            db.execute("UPDATE games SET code = ? WHERE id = ?", (_free_code(db), game_id))

    def secret(self, name: str) -> str:
        """A random secret kept across restarts (created on first use: read otherwise, so
        that pages showing it open on a full or read-only disk)."""
        with self._connect() as db:
            value = self._secret(db, name)
        if value is None:
            with self._write() as db:
                db.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)",
                           (name, secrets.token_hex(32)))
                value = self._secret(db, name)
        return value

    @staticmethod
    def _secret(db, name: str) -> str | None:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (name,)).fetchone()
        return row and row[0]

    def renew_secret(self, name: str) -> str:
        """A new random value for the secret `name`; the old one stops working."""
        with self._write() as db:
            value = secrets.token_hex(32)
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (name, value))
            return value

    def setting(self, name: str) -> str | None:
        """A setting of the server kept in the database (shared by its processes)."""
        with self._connect() as db:
            return self._secret(db, name)

    def show_everywhere(self, name: str, value: str | None) -> None:
        """Keep the setting `name` (None: forget it) and move every game's stamp, since
        every screen shows it: the screens draw themselves again (the address phones are
        shown, in the QR code)."""
        with self._write() as db:
            if value is None:
                changed = db.execute("DELETE FROM meta WHERE key = ?", (name,)).rowcount
            else:
                changed = db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                     (name, value)).rowcount
            if changed:
                db.execute("UPDATE games SET stamp = stamp + 1")

    def create_game(self, header: dict, options: dict, entries=()) -> str:
        """Store a new game and return its unguessable token; `entries` as for write_events."""
        token = secrets.token_urlsafe(16)
        with self._write() as db:
            cursor = db.execute(
                "INSERT INTO games (token, header, options, created, code) VALUES (?, ?, ?, ?, ?)",
                (token, json.dumps(header), json.dumps(options), time.time(), _free_code(db)))
            self._insert_events(db, cursor.lastrowid, 0, entries)
        return token

    def token_of_code(self, code: str) -> str | None:
        """The token of the game with that short code, or None."""
        with self._connect() as db:
            row = db.execute("SELECT token FROM games WHERE code = ?", (code,)).fetchone()
            return row and row[0]

    def game(self, token: str) -> StoredGame | None:
        """The stored game with that token, or None."""
        with self._snapshot() as db:
            return self._read(db, token)

    def stamp(self, token: str) -> int | None:
        """The cheap question a screen's poll asks: the game's stamp, which moves with every
        change to the game or its seats; None for an unknown game."""
        with self._connect() as db:
            row = db.execute("SELECT stamp FROM games WHERE token = ?", (token,)).fetchone()
            return row and row[0]

    def stamps(self, tokens: list[str]) -> dict[str, int]:
        """The stamps of the games `tokens` (those that exist)."""
        found = {}
        with self._connect() as db:
            for start in range(0, len(tokens), _BATCH):
                batch = tokens[start:start + _BATCH]
                found.update(db.execute(
                    f"SELECT token, stamp FROM games WHERE token IN ({', '.join('?' * len(batch))})",
                    batch).fetchall())
        return found

    def data_version(self) -> int:
        """A number that moves whenever another connection (of this process or another)
        has committed a change since this thread's connection last asked."""
        with self._connect() as db:
            return db.execute("PRAGMA data_version").fetchone()[0]

    def seats_taken(self, token: str) -> list[int] | None:
        """The seats devices hold in a game, in order (what the join page's poll asks);
        None for an unknown game."""
        with self._connect() as db:
            row = db.execute("SELECT id FROM games WHERE token = ?", (token,)).fetchone()
            return row and [seat for (seat,) in db.execute(
                "SELECT seat FROM seats WHERE game_id = ? ORDER BY seat", row)]

    def games(self) -> list[StoredGame]:
        """Every game, newest first."""
        with self._snapshot() as db:
            tokens = db.execute("SELECT token FROM games ORDER BY created DESC, id DESC").fetchall()
            return [self._read(db, token) for (token,) in tokens]

    def write_events(self, token: str, version: int, keep: int, entries,
                     moves: dict | None = None, journal: tuple | None = None,
                     tail: int = 0) -> tuple[int, int]:
        """Keep the first `keep` events, put `entries` ((event, who, when) each) after
        them, then the last `tail` events stored, unchanged in their places (a correction
        rewrites only what it changed); Conflict if the game moved on. `moves`: for an
        undo or a correction, the coins it moved (None for an action); `journal`: (when,
        who, entry) to keep about it. Returns the game's stamp before the change and
        after it."""
        with self._change(token, version) as (db, game_id, stamped):
            db.execute("DELETE FROM events WHERE game_id = ? AND seq >= ? AND seq < ?",
                       (game_id, keep, keep + len(entries) if tail else 2 ** 62))
            self._insert_events(db, game_id, keep, entries)
            db.execute("UPDATE games SET moves = ? WHERE id = ?",
                       (None if moves is None else json.dumps(moves), game_id))
            if journal is not None:
                self._note(db, game_id, journal)
        return stamped[0], stamped[1]

    def set_options(self, token: str, options: dict, journal: tuple) -> None:
        """Change a game's companion settings; every screen follows (the version moves on)."""
        with self._write() as db:
            row = db.execute("SELECT id FROM games WHERE token = ?", (token,)).fetchone()
            if row is None:
                raise Conflict(token)
            db.execute("UPDATE games SET options = ?, version = version + 1 WHERE id = ?",
                       (json.dumps(options), row[0]))
            self._note(db, row[0], journal)

    def remove_game(self, token: str) -> None:
        """Delete a game with its events, seats and journal."""
        with self._write() as db:
            row = db.execute("SELECT id FROM games WHERE token = ?", (token,)).fetchone()
            if row is None:
                raise Conflict(token)
            for table in ("events", "seats", "journal"):
                db.execute(f"DELETE FROM {table} WHERE game_id = ?", row)
            db.execute("DELETE FROM games WHERE id = ?", row)

    def grant(self, label: str) -> str:
        """Give a device host rights: its own random token, revocable."""
        token = secrets.token_urlsafe(24)
        with self._write() as db:
            db.execute("INSERT INTO grants (token, label, created) VALUES (?, ?, ?)",
                       (token, label, time.time()))
        return token

    def granted(self, token: str) -> int | None:
        """The id of the grant a device holds, if the host has not revoked it."""
        with self._connect() as db:
            row = db.execute("SELECT id FROM grants WHERE token = ?", (token,)).fetchone()
            return row and row[0]

    def grants(self) -> list[Grant]:
        with self._connect() as db:
            return [Grant(*row) for row in db.execute(
                "SELECT id, label, created FROM grants ORDER BY created")]

    def revoke(self, grant_id: int) -> None:
        with self._write() as db:
            db.execute("DELETE FROM grants WHERE id = ?", (grant_id,))

    def claim_seat(self, token: str, seat: int) -> str:
        """Give a device the seat; SeatTaken if another device holds it."""
        seat_token = secrets.token_urlsafe(16)
        with self._seats(token) as (db, game_id):
            try:
                db.execute("INSERT INTO seats VALUES (?, ?, ?)", (game_id, seat, seat_token))
            except sqlite3.IntegrityError:
                raise SeatTaken(seat) from None
        return seat_token

    def free_seat(self, token: str, seat: int) -> None:
        """Let another device take the seat."""
        with self._seats(token) as (db, game_id):
            db.execute("DELETE FROM seats WHERE game_id = ? AND seat = ?", (game_id, seat))

    @contextmanager
    def _change(self, token: str, version: int):
        """A write transaction on one game's log that bumps its version; the list it yields
        holds the game's stamp before the change and, once made, after it."""
        with self._write() as db:
            row = db.execute("SELECT id, version, stamp FROM games WHERE token = ?",
                             (token,)).fetchone()
            if row is None or row[1] != version:
                raise Conflict(token)
            stamped = [row[2]]
            yield db, row[0], stamped
            db.execute("UPDATE games SET version = version + 1 WHERE id = ?", (row[0],))
            stamped.append(db.execute("SELECT stamp FROM games WHERE id = ?",
                                      (row[0],)).fetchone()[0])

    @contextmanager
    def _seats(self, token: str):
        """A write transaction on one game's seats: the game itself does not change."""
        with self._write() as db:
            row = db.execute("SELECT id FROM games WHERE token = ?", (token,)).fetchone()
            if row is None:
                raise Conflict(token)
            yield db, row[0]

    @staticmethod
    def _read(db, token: str) -> StoredGame | None:
        row = db.execute("SELECT id, header, options, version, moves, code, created, stamp "
                         "FROM games WHERE token = ?", (token,)).fetchone()
        if row is None:
            return None
        game_id, header, options, version, moves, code, created, stamp = row
        rows = db.execute("SELECT data, by, at FROM events WHERE game_id = ? ORDER BY seq",
                          (game_id,)).fetchall()
        seats = dict(db.execute("SELECT seat, token FROM seats WHERE game_id = ?", (game_id,)))
        journal = [(at, by, _loads(entry)) for at, by, entry in db.execute(
            "SELECT at, by, entry FROM journal WHERE game_id = ? ORDER BY rowid", (game_id,))]
        return StoredGame(token, _loads(header), _loads(options), version,
                          [_loads(data) for data, _, _ in rows], seats,
                          None if moves is None else _loads(moves), code, created,
                          [(by, at) for _, by, at in rows], journal, stamp)

    @staticmethod
    def _insert_events(db, game_id: int, first: int, entries) -> None:
        db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?)",
                       [(game_id, first + offset, json.dumps(event), by, at)
                        for offset, (event, by, at) in enumerate(entries)])

    @staticmethod
    def _note(db, game_id: int, journal: tuple) -> None:
        at, by, entry = journal
        db.execute("INSERT INTO journal VALUES (?, ?, ?, ?)",
                   (game_id, at, by, json.dumps(entry)))

    @contextmanager
    def _write(self):
        """BEGIN IMMEDIATE ... COMMIT: committed before the caller answers; on a full or
        read-only disk, nothing is written and StorageFault says so."""
        try:
            with self._connect() as db:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                except BaseException:
                    if db.in_transaction:  # SQLite may have rolled back already
                        db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
            self.committed.set()
        except sqlite3.OperationalError as error:
            if _code(error) not in _DISK_ERRORS:
                raise
            raise StorageFault(self._disk_fault(error)) from error

    def _disk_fault(self, error: sqlite3.OperationalError) -> Phrase:
        """Why the disk refused a write: read-only, full (said by SQLite, or an I/O error
        with no room left), or failing (any other I/O error)."""
        directory = self.path.parent
        if not os.access(directory, os.W_OK):
            return READ_ONLY
        if (_code(error) == sqlite3.SQLITE_FULL
                or shutil.disk_usage(directory).free < ROOM):
            return DISK_FULL
        return IO_ERROR if _code(error) == sqlite3.SQLITE_IOERR else READ_ONLY

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
        """A connection to the database file the server started with: StorageFault if
        that file has vanished or been replaced (never a new, empty one). Each thread
        keeps its connection from one request to the next (opening one costs more than
        a poll's query), unless it failed for another cause than the disk (closing the
        last connection would empty the write-ahead log, and a full disk would seem to
        have room for one more write, then none)."""
        if _identity(self.path) != self._file:
            self._forget()
            raise StorageFault(Phrase(N_(
                "The game database ({path}) has vanished or been replaced while the server "
                "ran; nothing was recorded. Restart the server."), path=str(self.path)))
        db = getattr(self._local, "db", None) or self._open()
        try:
            yield db
        except sqlite3.Error as error:
            if _code(error) not in _DISK_ERRORS:
                self._forget()
            raise
        finally:
            if getattr(self._local, "db", None) is not db:
                db.close()

    def close(self) -> None:
        """Close this thread's connection (before the process forks: a connection is never
        shared between processes); the next use opens a new one."""
        self._forget()

    def _forget(self) -> None:
        """Close this thread's kept connection: the next use opens a new one."""
        db = getattr(self._local, "db", None)
        self._local.db = None
        if db is not None:
            db.close()

    def _open(self):
        """Read and write, kept for the thread; read only where SQLite cannot make its
        shared index beside the file (a full or read-only disk): then the file holds
        every change, as the last connection closed put them in it, and a write is
        refused (see _write); such a connection is used once, not kept."""
        db = self._connection("mode=rw")
        try:
            db.execute("PRAGMA schema_version")  # opens the index now
        except sqlite3.OperationalError as error:
            db.close()
            if _code(error) not in (sqlite3.SQLITE_IOERR,
                                                      sqlite3.SQLITE_CANTOPEN):
                raise
            return self._connection("mode=ro&immutable=1")
        self._local.db = db
        return db

    def _connection(self, query: str, timeout: float = BUSY_TIMEOUT):
        return sqlite3.connect(f"{self._uri}?{query}", uri=True, timeout=timeout,
                               isolation_level=None)

    def game_count(self) -> int:
        """How many games the server holds."""
        with self._connect() as db:
            return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]

    def summaries(self, offset: int, limit: int) -> list[tuple[str, dict | None]]:
        """Up to `limit` games after the first `offset`, newest first: each one's token and
        the summary kept with it (see keep_summaries), None if it has none or the game
        has changed since (its stamp moved)."""
        with self._connect() as db:
            return [(token, None if summary is None else _loads(summary)) for token, summary in
                    db.execute("SELECT token, CASE WHEN summary_stamp = stamp THEN summary END "
                               "FROM games ORDER BY created DESC, id DESC LIMIT ? OFFSET ?",
                               (limit, offset))]

    def keep_summaries(self, summaries) -> None:
        """Keep with each game what the list shows of it: (token, the stamp it was worked
        out at, the summary) each. No stamp moves (see _STAMP_TRIGGERS); StorageFault if
        the disk refuses."""
        with self._write() as db:
            db.executemany("UPDATE games SET summary = ?, summary_stamp = ? WHERE token = ?",
                           [(json.dumps(summary), stamp, token)
                            for token, stamp, summary in summaries])


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


def _loads(text):
    """A stored JSON value, or the text as Unreadable if it is not JSON."""
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return Unreadable(text)


def _free_code(db) -> str:
    """A short code no other game of this server has."""
    while True:
        code = game_code("".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH)))
        if db.execute("SELECT 1 FROM games WHERE code = ?", (code,)).fetchone() is None:
            return code


def game_code(characters: str) -> str:
    """A code as kept and shown, from its characters: 'KXR4TQM' -> 'KXR-4TQM'."""
    return f"{characters[:CODE_GROUP]}-{characters[CODE_GROUP:]}"
