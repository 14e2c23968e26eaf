"""What both databases share: the tables' rows as the store reads and writes them, every
query (written once, for SQLite and PostgreSQL alike), and what a store says back.

The event log is the only truth about a game; every change bumps the game's version, and
a write names the version it was based on, so two devices submitting at once cannot both
apply. Each event keeps who recorded it and when, and the journal keeps every undo and
correction (companion data, not part of the game record); the server's host grants,
keys and settings are kept here too. A game's stamp moves with every change to what it
shows (the database's triggers move it, whoever writes): screens poll it and caches are
keyed by it.

A backend (sqlite.Store, postgres.Store) opens connections and transactions (`_connect`,
`_write`, `_snapshot`, each yielding a connection whose `execute` takes `?` parameters;
`_write` tells the news.Watch of the commit, and of its game when it names one),
and says how it locks a game's row for a change (`LOCK`), which errors mean a unique
value was taken (`TAKEN`), and in what order the journal was written (`JOURNAL_ORDER`).
"""
import json
import re
import secrets
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

from companion.rules.phrase import N_, Phrase

# A game's short code, typed on a phone without a camera: letters and digits without
# look-alikes (0/O, 1/I/L, 2/Z, 5/S, 8/B), unique among the server's games, kept and shown
# in groups ("KXR-4TQM") that a person reads and types in seconds: CODE_LENGTH characters
# on a table's server (25^7 codes), HOSTED_CODE_LENGTH on a hosted one (25^12), which an
# attacker with a whole IPv6 /48 cannot guess (docs/faults.md works out the odds).
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
CODE_LENGTH = 7
HOSTED_CODE_LENGTH = 12
CODE_GROUPS = {CODE_LENGTH: (3, 4), HOSTED_CODE_LENGTH: (4, 4, 4)}  # a code's groups
CODE_SHAPE = re.compile("|".join(  # a code as kept, with its dashes
    "-".join(f"[{CODE_ALPHABET}]{{{size}}}" for size in groups)
    for groups in CODE_GROUPS.values()))
BATCH = 500  # tokens asked in one query
STARTS = "game start"  # the marks of the games a hosted server started (Bounds)
HOUR = 3600.0
# The events recorded at a table (not imported with a record) since a time.
_RECORDED = "FROM events WHERE at >= ? AND by != 'import'"


# What a page or a change says while the database cannot be used at all (PostgreSQL's
# server away, SQLite's file or folder gone or refused): a moment later, it may be back.
UNREACHABLE = Phrase(N_("The game database cannot be reached; nothing was recorded. Try "
                        "again in a moment."))


class _Empty(Exception):
    """A bucket with no token: the write that took from the others is rolled back."""

    def __init__(self, index: int):
        super().__init__(index)
        self.index = index


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


class Bounded(Exception):
    """A new game would go past a bound of the server (Bounds): which one ("network",
    "hour", "games" or "bytes"), the bound, and the seconds until a game may be started
    (0: none will be until games are removed)."""

    def __init__(self, bound: str, limit: int, wait: float = 0.0):
        super().__init__(bound, limit, wait)
        self.bound, self.limit, self.wait = bound, limit, wait


@dataclass(frozen=True)
class Bounds:
    """What the games a hosted server starts may not go past: `per_network` started
    within an hour from the network `network` (a keyed hash), `per_hour` from all
    networks together, `games` kept, `size` bytes stored (as the database counts them:
    `_size`)."""

    network: str
    per_network: int
    per_hour: int
    games: int
    size: int


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
    stamp: int = 0  # moves with every change (the database's triggers)
    next_game: str | None = None  # the token of the game played next by the same table


@dataclass(frozen=True)
class Grant:
    """Host rights given to another device, revocable (never the host key itself)."""

    id: int
    label: str
    created: float


class SQLStore:
    """The games and the server's keys, settings and grants, in a database; a backend
    subclasses it (see the module's docstring)."""

    LOCK = ""  # what a SELECT of a game's row adds to hold it until the change commits
    TAKEN: tuple = ()  # the errors of a unique value taken (a seat)
    ERRORS: tuple = (StorageFault,)  # what the database may raise when it is away or fails
    JOURNAL_ORDER = "rowid"

    def __init__(self):
        self.committed = threading.Event()  # set by every write of this process (news.Watch)
        self._written: set[str] = set()  # the games it changed, until the Watch asks
        self._written_lock = threading.Lock()

    def written(self) -> frozenset[str]:
        """The games this process changed since the last call (a news.Watch's)."""
        with self._written_lock:
            games, self._written = frozenset(self._written), set()
        return games

    def _told(self, token: str | None) -> None:
        """After a commit: the news.Watch hears of it, and of its game `token` if given."""
        if token is not None:
            with self._written_lock:
                self._written.add(token)
        self.committed.set()

    def secret(self, name: str) -> str:
        """A random secret kept across restarts (created on first use: read otherwise, so
        that pages showing it open on a full or read-only disk)."""
        with self._connect() as db:
            value = self._secret(db, name)
        if value is None:
            with self._write() as db:
                db.execute("INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
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
            self._keep(db, name, value)
            return value

    @staticmethod
    def _keep(db, name: str, value: str) -> int:
        return db.execute("INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE "
                          "SET value = excluded.value", (name, value)).rowcount

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
                changed = self._keep(db, name, value)
            if changed:
                db.execute("UPDATE games SET stamp = stamp + 1")

    def create_game(self, header: dict, options: dict, entries=(), host: str | None = None,
                    code_length: int = CODE_LENGTH, bounds: Bounds | None = None) -> str:
        """Store a new game and return its unguessable token; `entries` as for write_events;
        the device `host` (a device token, on a hosted server) hosts it from the start; its
        code has `code_length` characters. Within `bounds`, if given, or Bounded says
        which it would pass: the bounds are looked at and the start counted in the write
        that stores the game, one start at a time, so that no number of starts at once
        goes past them."""
        with self._write() as db:
            self._count_start(db, bounds)
            return self._insert_game(db, header, options, entries, host, code_length)

    def _count_start(self, db, bounds: Bounds | None) -> None:
        """One more game started within `bounds` (none: not counted), in the write `db`."""
        if bounds is None:
            return
        now = time.time()
        self._hold(db, STARTS)
        db.execute("DELETE FROM marks WHERE kind = ? AND at < ?", (STARTS, now - HOUR))
        self._check(db, bounds, now)
        db.execute("INSERT INTO marks VALUES (?, ?, ?)", (STARTS, bounds.network, now))

    def _insert_game(self, db, header: dict, options: dict, entries, host: str | None,
                     code_length: int) -> str:
        token = secrets.token_urlsafe(16)
        game_id = db.execute(
            "INSERT INTO games (token, header, options, created, code) "
            "VALUES (?, ?, ?, ?, ?) RETURNING id",
            (token, json.dumps(header), json.dumps(options), time.time(),
             free_code(db, code_length))).fetchone()[0]
        self._insert_events(db, game_id, 0, entries)
        if host is not None:
            self._add_host(db, game_id, host, "")
        return token

    def rematch(self, token: str, header: dict, options: dict, host: str | None = None,
                code_length: int = CODE_LENGTH, bounds: Bounds | None = None) -> str:
        """The game the table of the game `token` plays next: the one started already, or
        a new one of `header` and `options` (no events), hosted by the device `host` if
        given, its code of `code_length` characters, started within `bounds` as by
        create_game; the game `token` then names it (its stamp moves: its screens offer
        it). Conflict if the game `token` is gone."""
        with self._write(token) as db:
            game_id = self._game_id(db, token)
            (after,) = db.execute("SELECT next_game FROM games WHERE id = ?",
                                  (game_id,)).fetchone()
            if after is not None:
                return after
            self._count_start(db, bounds)
            after = self._insert_game(db, header, options, (), host, code_length)
            db.execute("UPDATE games SET next_game = ?, stamp = stamp + 1 WHERE id = ?",
                       (after, game_id))
            return after

    def check_bounds(self, bounds: Bounds) -> None:
        """Bounded if a game started now would pass `bounds` (a look that changes nothing,
        before a record is checked: create_game looks again as it stores the game)."""
        with self._connect() as db:
            self._check(db, bounds, time.time())

    def _check(self, db, bounds: Bounds, now: float) -> None:
        """Bounded unless one more game may be started at the time `now` within `bounds`."""
        count = "SELECT COUNT(*), MIN(at) FROM marks WHERE kind = ? AND at >= ?"
        for bound, limit, (started, first) in (
                ("network", bounds.per_network,
                 db.execute(count + " AND key = ?", (STARTS, now - HOUR, bounds.network))
                 .fetchone()),
                ("hour", bounds.per_hour, db.execute(count, (STARTS, now - HOUR)).fetchone())):
            if started >= limit:
                raise Bounded(bound, limit, first + HOUR - now)
        if db.execute("SELECT COUNT(*) FROM games").fetchone()[0] >= bounds.games:
            raise Bounded("games", bounds.games)
        if self._size(db) >= bounds.size:
            raise Bounded("bytes", bounds.size)

    def _size(self, db) -> int:
        """The bytes the games take in the database (the backend's own count)."""
        raise NotImplementedError

    def _hold(self, db, name: str) -> None:
        """Until the write transaction on `db` ends, no other one holding `name` goes on
        (SQLite: none goes on, a write holds the whole database)."""

    def lengthen_codes(self, length: int) -> int:
        """A new code of `length` characters for each game whose code is shorter (a hosted
        server's games made on a table): how many (with none, nothing is written). Their
        screens show it (stamps move)."""
        shorter = "SELECT id FROM games WHERE length(code) < ? ORDER BY id"
        shown = (len(game_code("A" * length)),)  # with its dashes
        with self._connect() as db:
            if db.execute(shorter + " LIMIT 1", shown).fetchone() is None:
                return 0
        with self._write() as db:
            games = db.execute(shorter, shown).fetchall()
            for (game_id,) in games:
                db.execute("UPDATE games SET code = ? WHERE id = ?",
                           (free_code(db, length), game_id))
        return len(games)

    def hosts(self, token: str, device: str) -> bool:
        """Whether the device `device` (its device token) hosts the game `token`."""
        with self._connect() as db:
            return db.execute("SELECT 1 FROM hosts JOIN games ON games.id = hosts.game_id "
                              "WHERE games.token = ? AND hosts.device = ?",
                              (token, device)).fetchone() is not None

    def game_hosts(self, token: str, device: str) -> list[Grant]:
        """The devices hosting the game `token` but `device`, in the order they came (the
        one that started it has the label "")."""
        with self._connect() as db:
            return [Grant(*row) for row in db.execute(
                "SELECT hosts.id, label, hosts.created FROM hosts JOIN games ON games.id = "
                "hosts.game_id WHERE games.token = ? AND device != ? ORDER BY hosts.id",
                (token, device))]

    def add_host(self, token: str, device: str, label: str) -> None:
        """The device `device` hosts the game `token` too (once, whatever it asks)."""
        with self._write(token) as db:
            self._add_host(db, self._game_id(db, token), device, label)

    @staticmethod
    def _add_host(db, game_id: int, device: str, label: str) -> None:
        db.execute("INSERT INTO hosts (game_id, device, label, created) VALUES (?, ?, ?, ?) "
                   "ON CONFLICT DO NOTHING", (game_id, device, label, time.time()))

    def revoke_host(self, token: str, host_id: int, device: str) -> bool:
        """The host `host_id` of the game `token` hosts it no more (unless it is `device`,
        the one asking), and the game's host link changes; whether there was such a host
        (if not, nothing changes)."""
        with self._write(token) as db:
            game_id = self._game_id(db, token)
            revoked = db.execute("DELETE FROM hosts WHERE id = ? AND game_id = ? AND device != ?",
                                 (host_id, game_id, device)).rowcount > 0
            if revoked:
                db.execute("UPDATE games SET host_key = NULL WHERE id = ?", (game_id,))
            return revoked

    def host_key(self, token: str) -> str:
        """The key of the game's host link, made on first asking (and after a revocation)."""
        with self._connect() as db:
            row = db.execute("SELECT host_key FROM games WHERE token = ?", (token,)).fetchone()
        if row and row[0]:
            return row[0]
        with self._write() as db:
            game_id = self._game_id(db, token)
            db.execute("UPDATE games SET host_key = ? WHERE id = ? AND host_key IS NULL",
                       (secrets.token_urlsafe(18), game_id))
            return db.execute("SELECT host_key FROM games WHERE id = ?",
                              (game_id,)).fetchone()[0]

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
            for start in range(0, len(tokens), BATCH):
                batch = tokens[start:start + BATCH]
                found.update(db.execute(
                    f"SELECT token, stamp FROM games WHERE token IN ({', '.join('?' * len(batch))})",
                    batch).fetchall())
        return found

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
            if journal is not None:
                self._note(db, game_id, journal)
            db.execute("UPDATE games SET moves = ?, version = version + 1 WHERE id = ?",
                       (None if moves is None else json.dumps(moves), game_id))
        return stamped[0], stamped[1]

    def set_options(self, token: str, options: dict, journal: tuple) -> None:
        """Change a game's companion settings; every screen follows (the version moves on)."""
        with self._write(token) as db:
            game_id = self._game_id(db, token)
            db.execute("UPDATE games SET options = ?, version = version + 1 WHERE id = ?",
                       (json.dumps(options), game_id))
            self._note(db, game_id, journal)

    def remove_game(self, token: str) -> None:
        """Delete a game with its events, seats, journal and hosts."""
        with self._write(token) as db:
            self._remove(db, self._game_id(db, token))

    def remove_idle(self, before: float) -> int:
        """Delete every game last changed before the time `before` (started, an event or a
        settings change), with all it holds: how many."""
        with self._write() as db:
            idle = [game_id for (game_id,) in db.execute(
                "SELECT id FROM games WHERE created < ? AND NOT EXISTS (SELECT 1 FROM events "
                "WHERE game_id = games.id AND at >= ?) AND NOT EXISTS (SELECT 1 FROM journal "
                "WHERE game_id = games.id AND at >= ?)", (before, before, before)).fetchall()]
            for game_id in idle:
                self._remove(db, game_id)
        return len(idle)

    def mark_within(self, kind: str, key: str, now: float, window: float, limit: int) -> float:
        """`key` does the `kind` of thing limited (guards.throttle) once more at the time
        `now`, if it did it fewer than `limit` times within `window` seconds: 0.0 then, the
        time kept; else the seconds until it may, nothing kept. One step however many
        processes ask at once; the times of the kind past the window are forgotten."""
        with self._write() as db:
            self._hold(db, kind)
            db.execute("DELETE FROM marks WHERE kind = ? AND at < ?", (kind, now - window))
            count, first = db.execute("SELECT COUNT(*), MIN(at) FROM marks WHERE kind = ? AND "
                                      "key = ?", (kind, key)).fetchone()
            if count >= limit:
                return max(first + window - now, 0.001)
            db.execute("INSERT INTO marks VALUES (?, ?, ?)", (kind, key, now))
            return 0.0

    def take(self, buckets, now: float) -> int | None:
        """A token now from each bucket of `buckets` ((key, rate, burst): `burst` tokens
        that fill at `rate` a second), all or none, in one write: None if taken, else the
        index of the first bucket that had none (nothing taken). Buckets full again are
        forgotten."""
        refill = ("CASE WHEN buckets.tokens + (? - buckets.at) * ? > ? THEN ? "
                  "ELSE buckets.tokens + (? - buckets.at) * ? END")
        try:
            with self._write() as db:
                db.execute("DELETE FROM buckets WHERE at < ?",
                           (now - max(burst / rate for _, rate, burst in buckets),))
                for index, (key, rate, burst) in enumerate(buckets):
                    rate, burst = float(rate), float(burst)
                    if db.execute(
                            "INSERT INTO buckets VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE "
                            f"SET tokens = {refill} - 1, at = ? WHERE {refill} >= 1 "
                            "RETURNING tokens",
                            (key, burst - 1, now, now, rate, burst, burst, now, rate, now,
                             now, rate, burst, burst, now, rate)).fetchone() is None:
                        raise _Empty(index)
        except _Empty as empty:
            return empty.index
        return None

    def usage(self, now: float) -> dict[str, int]:
        """What an operator reads of the server's use at the time `now`: the games kept,
        those started and those played within the day, the actions recorded at tables
        within the day and the hour."""
        day, hour = now - 86400, now - 3600
        with self._snapshot() as db:
            return {"games": db.execute("SELECT COUNT(*) FROM games").fetchone()[0],
                    "started": db.execute("SELECT COUNT(*) FROM games WHERE created >= ?",
                                          (day,)).fetchone()[0],
                    "played": db.execute(f"SELECT COUNT(DISTINCT game_id) {_RECORDED}",
                                         (day,)).fetchone()[0],
                    "actions_day": db.execute(f"SELECT COUNT(*) {_RECORDED}",
                                              (day,)).fetchone()[0],
                    "actions_hour": db.execute(f"SELECT COUNT(*) {_RECORDED}",
                                               (hour,)).fetchone()[0]}

    @staticmethod
    def _remove(db, game_id: int) -> None:
        """Delete a game with all it holds; the game before it no longer names it as the
        next one (its screens no longer offer it)."""
        for table in ("events", "seats", "journal", "hosts"):
            db.execute(f"DELETE FROM {table} WHERE game_id = ?", (game_id,))
        db.execute("UPDATE games SET next_game = NULL, stamp = stamp + 1 WHERE next_game = "
                   "(SELECT token FROM games WHERE id = ?)", (game_id,))
        db.execute("DELETE FROM games WHERE id = ?", (game_id,))

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

    def revoke(self, grant_id: int) -> bool:
        """The grant `grant_id` no more; whether there was one."""
        with self._write() as db:
            return db.execute("DELETE FROM grants WHERE id = ?", (grant_id,)).rowcount > 0

    def claim_seat(self, token: str, seat: int) -> str:
        """Give a device the seat; SeatTaken if another device holds it."""
        seat_token = secrets.token_urlsafe(16)
        try:
            with self._write(token) as db:
                db.execute("INSERT INTO seats VALUES (?, ?, ?)",
                           (self._game_id(db, token), seat, seat_token))
        except self.TAKEN:
            raise SeatTaken(seat) from None
        return seat_token

    def free_seat(self, token: str, seat: int) -> None:
        """Let another device take the seat."""
        with self._write(token) as db:
            db.execute("DELETE FROM seats WHERE game_id = ? AND seat = ?",
                       (self._game_id(db, token), seat))

    def game_count(self, host: str | None = None) -> int:
        """How many games the server holds (those the device `host` hosts, if given)."""
        where, values = _hosted_by(host)
        with self._connect() as db:
            return db.execute(f"SELECT COUNT(*) FROM games{where}", values).fetchone()[0]

    def summaries(self, offset: int, limit: int,
                  host: str | None = None) -> list[tuple[str, dict | None]]:
        """Up to `limit` games after the first `offset` (of those the device `host` hosts, if
        given), newest first: each one's token and the summary kept with it (see
        keep_summaries), None if it has none or the game has changed since (its stamp
        moved)."""
        where, values = _hosted_by(host)
        with self._connect() as db:
            return [(token, None if summary is None else loads(summary)) for token, summary in
                    db.execute("SELECT token, CASE WHEN summary_stamp = stamp THEN summary END "
                               f"FROM games{where} ORDER BY created DESC, id DESC LIMIT ? "
                               "OFFSET ?", (*values, limit, offset))]

    def seen_summaries(self, device: str | None = None, tokens=(), everyone: bool = False,
                       limit: int | None = None) -> list[tuple[str, dict | None]]:
        """The games the device `device` hosts or whose token is in `tokens` (the games it
        sat in; every game with `everyone`), newest first (the first `limit`, if given):
        each one's token and its summary as `summaries` gives it."""
        where, values = ("", ()) if everyone else _seen_by(device, tuple(tokens))
        with self._connect() as db:
            return [(token, None if summary is None else loads(summary)) for token, summary in
                    db.execute("SELECT token, CASE WHEN summary_stamp = stamp THEN summary END "
                               f"FROM games{where} ORDER BY created DESC, id DESC"
                               + ("" if limit is None else " LIMIT ?"),
                               values if limit is None else (*values, limit))]

    def keep_summaries(self, summaries) -> None:
        """Keep with each game what the list shows of it: (token, the stamp it was worked
        out at, the summary) each. No stamp moves (the triggers leave these columns out);
        StorageFault if the database refuses."""
        with self._write() as db:
            db.executemany("UPDATE games SET summary = ?, summary_stamp = ? WHERE token = ?",
                           [(json.dumps(summary), stamp, token)
                            for token, stamp, summary in summaries])

    @contextmanager
    def _change(self, token: str, version: int):
        """A write transaction on one game's log, whose version the caller moves on; the
        list it yields holds the game's stamp before the change and, once made, after it."""
        with self._write(token) as db:
            row = db.execute("SELECT id, version, stamp FROM games WHERE token = ?" + self.LOCK,
                             (token,)).fetchone()
            if row is None or row[1] != version:
                raise Conflict(token)
            stamped = [row[2]]
            yield db, row[0], stamped
            stamped.append(db.execute("SELECT stamp FROM games WHERE id = ?",
                                      (row[0],)).fetchone()[0])

    def _game_id(self, db, token: str) -> int:
        """The id of the game `token`, its row held until the write commits; Conflict if
        there is none."""
        row = db.execute("SELECT id FROM games WHERE token = ?" + self.LOCK, (token,)).fetchone()
        if row is None:
            raise Conflict(token)
        return row[0]

    def _read(self, db, token: str) -> StoredGame | None:
        row = db.execute("SELECT id, header, options, version, moves, code, created, stamp, "
                         "next_game FROM games WHERE token = ?", (token,)).fetchone()
        if row is None:
            return None
        game_id, header, options, version, moves, code, created, stamp, after = row
        rows = db.execute("SELECT data, by, at FROM events WHERE game_id = ? ORDER BY seq",
                          (game_id,)).fetchall()
        seats = dict(db.execute("SELECT seat, token FROM seats WHERE game_id = ?", (game_id,)))
        journal = [(at, by, loads(entry)) for at, by, entry in db.execute(
            "SELECT at, by, entry FROM journal WHERE game_id = ? ORDER BY " + self.JOURNAL_ORDER,
            (game_id,))]
        return StoredGame(token, loads(header), loads(options), version,
                          [loads(data) for data, _, _ in rows], seats,
                          None if moves is None else loads(moves), code, created,
                          [(by, at) for _, by, at in rows], journal, stamp, after)

    @staticmethod
    def _insert_events(db, game_id: int, first: int, entries) -> None:
        db.executemany("INSERT INTO events (game_id, seq, data, by, at) VALUES (?, ?, ?, ?, ?)",
                       [(game_id, first + offset, json.dumps(event), by, at)
                        for offset, (event, by, at) in enumerate(entries)])

    @staticmethod
    def _note(db, game_id: int, journal: tuple) -> None:
        at, by, entry = journal
        db.execute("INSERT INTO journal (game_id, at, by, entry) VALUES (?, ?, ?, ?)",
                   (game_id, at, by, json.dumps(entry)))


def _hosted_by(host: str | None) -> tuple[str, tuple]:
    """The WHERE clause and its values that keep the games the device `host` hosts (all
    games for None)."""
    if host is None:
        return "", ()
    return " WHERE id IN (SELECT game_id FROM hosts WHERE device = ?)", (host,)


def _seen_by(device: str | None, tokens: tuple) -> tuple[str, tuple]:
    """The WHERE clause and its values that keep the games the device `device` hosts and
    those of `tokens`."""
    hosted = "id IN (SELECT game_id FROM hosts WHERE device = ?)" if device else "FALSE"
    listed = f"token IN ({', '.join('?' * len(tokens))})" if tokens else "FALSE"
    return f" WHERE {hosted} OR {listed}", ((device,) if device else ()) + tokens


def loads(text):
    """A stored JSON value, or the text as Unreadable if it is not JSON."""
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return Unreadable(text)


def free_code(db, length: int = CODE_LENGTH) -> str:
    """A short code of `length` characters no other game of this server has."""
    while True:
        code = game_code("".join(secrets.choice(CODE_ALPHABET) for _ in range(length)))
        if db.execute("SELECT 1 FROM games WHERE code = ?", (code,)).fetchone() is None:
            return code


def game_code(characters: str) -> str:
    """A code as kept and shown, from its characters, in its groups: 'KXR4TQM' ->
    'KXR-4TQM'; characters of no code's length as they are."""
    groups, parts = CODE_GROUPS.get(len(characters), ()), []
    for size in groups:
        parts.append(characters[:size])
        characters = characters[size:]
    return "-".join(parts) if groups else characters


def shown(url: str) -> str:
    """A database URL as said on the console: without its password."""
    return re.sub(r"(//[^:/@]+):[^@/]*@", r"\1:***@", url)
