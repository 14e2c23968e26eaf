"""SQLite storage: each game's record header, its event log and its seats.

The event log is the only truth about a game; every change bumps the game's
version, and a write names the version it was based on, so two devices
submitting at once cannot both apply.
"""
import json
import secrets
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

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
CREATE TABLE IF NOT EXISTS events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS seats (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    token TEXT NOT NULL UNIQUE,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


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


class Store:
    """The data directory's database."""

    def __init__(self, data_dir):
        directory = Path(data_dir)
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / "companion.sqlite3"
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)
            columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
            if "moves" not in columns:  # a data directory from before the column
                db.execute("ALTER TABLE games ADD COLUMN moves TEXT")

    def secret(self, name: str) -> str:
        """A random secret kept across restarts (created on first use)."""
        with self._write() as db:
            db.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)", (name, secrets.token_hex(32)))
            return db.execute("SELECT value FROM meta WHERE key = ?", (name,)).fetchone()[0]

    def create_game(self, header: dict, options: dict, events=()) -> str:
        """Store a new game and return its unguessable token."""
        token = secrets.token_urlsafe(16)
        with self._write() as db:
            cursor = db.execute(
                "INSERT INTO games (token, header, options, created) VALUES (?, ?, ?, ?)",
                (token, json.dumps(header), json.dumps(options), time.time()))
            self._insert_events(db, cursor.lastrowid, 0, events)
        return token

    def game(self, token: str) -> StoredGame | None:
        """The stored game with that token, or None."""
        with self._snapshot() as db:
            return self._read(db, token)

    def poll(self, token: str, seat_token: str | None = None) -> tuple[int, bool] | None:
        """The cheap question a screen's poll asks: the game's version, and whether the
        device's seat (if it names one) is still its own; None for an unknown game."""
        with self._connect() as db:
            return db.execute(
                "SELECT version, ? IS NULL OR EXISTS (SELECT 1 FROM seats WHERE "
                "seats.game_id = games.id AND seats.token = ?) FROM games WHERE token = ?",
                (seat_token, seat_token, token)).fetchone()

    def games(self) -> list[StoredGame]:
        """Every game, newest first."""
        with self._snapshot() as db:
            tokens = db.execute("SELECT token FROM games ORDER BY created DESC, id DESC").fetchall()
            return [self._read(db, token) for (token,) in tokens]

    def write_events(self, token: str, version: int, keep: int, new_events,
                     moves: dict | None = None) -> None:
        """Keep the first `keep` events, append `new_events`; Conflict if the game moved on.
        `moves`: for an undo or a correction, the coins it moved (None for an action)."""
        with self._change(token, version) as (db, game_id):
            db.execute("DELETE FROM events WHERE game_id = ? AND seq >= ?", (game_id, keep))
            self._insert_events(db, game_id, keep, new_events)
            db.execute("UPDATE games SET moves = ? WHERE id = ?",
                       (None if moves is None else json.dumps(moves), game_id))

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
        """A write transaction on one game's log that bumps its version."""
        with self._write() as db:
            row = db.execute("SELECT id, version FROM games WHERE token = ?", (token,)).fetchone()
            if row is None or row[1] != version:
                raise Conflict(token)
            yield db, row[0]
            db.execute("UPDATE games SET version = version + 1 WHERE id = ?", (row[0],))

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
        row = db.execute("SELECT id, header, options, version, moves FROM games "
                         "WHERE token = ?", (token,)).fetchone()
        if row is None:
            return None
        game_id, header, options, version, moves = row
        events = [json.loads(data) for (data,) in db.execute(
            "SELECT data FROM events WHERE game_id = ? ORDER BY seq", (game_id,))]
        seats = dict(db.execute("SELECT seat, token FROM seats WHERE game_id = ?", (game_id,)))
        return StoredGame(token, json.loads(header), json.loads(options), version, events, seats,
                          None if moves is None else json.loads(moves))

    @staticmethod
    def _insert_events(db, game_id: int, first: int, events) -> None:
        db.executemany("INSERT INTO events VALUES (?, ?, ?)",
                       [(game_id, first + offset, json.dumps(event))
                        for offset, event in enumerate(events)])

    @contextmanager
    def _write(self):
        """BEGIN IMMEDIATE ... COMMIT: committed before the caller answers."""
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

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
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            yield db
        finally:
            db.close()
