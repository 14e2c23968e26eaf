"""Storage damage is told, never taken in silence: a write-ahead log damaged before its
last commits, or an empty database file, stops the start in one line; a log whose
failing frames come only at its end starts as it always did; an I/O error of the disk
is called one. The logs are SQLite's own, copied while the server's connection is open
(as a power cut leaves them), then damaged a byte at a time."""
import shutil
import sqlite3
import struct
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from companion.store import wal
from companion.store.sql import StorageFault
from companion.store.sqlite import Store
from tests.test_storage import NEXT, assert_refused, table_on
from tests.web_helpers import act

ACTIONS = 25
IO_ERROR = ("Could not save: the disk reported an input/output error; nothing was recorded. "
            "The disk may be failing: export the games that matter.")
REMEDY = ("keep a copy of the data directory, then restore the database from a backup, or "
          "truncate this file to {intact} bytes to start with what precedes the damage")


@pytest.fixture
def table(tmp_path):
    """A store holding a game, made and checkpointed into the database file, then its
    first 25 actions, each acknowledged (committed) and all in the log: (store, the
    game's token)."""
    store = Store(tmp_path / "server")
    token = store.create_game({"players": ["Anna", "Bert", "Claus"]}, {})
    store.close()  # the last connection: SQLite checkpoints, and the next write starts a log
    record(store, token, ACTIONS)
    return store, token


def record(store, token, count):
    """`count` more actions, each acknowledged: a transaction of its own."""
    for _ in range(count):
        game = store.game(token)
        store.write_events(token, game.version, len(game.events),
                           [({"type": "free", "note": f"action {len(game.events)}"}, "host", 1.0)])


def copied(store, target: Path) -> Path:
    """The database and its log as they are on disk now, copied to the data directory
    `target`: its log's path."""
    target.mkdir()
    for name in (store.path.name, store.path.name + "-wal"):
        shutil.copy(store.path.with_name(name), target / name)
    return target / (store.path.name + "-wal")


def frame_at(log: bytes, number: int) -> int:
    """Where frame `number` (from 1) of a log starts."""
    page_size = wal.HEADER.unpack_from(log)[2]
    return wal.HEADER.size + (number - 1) * (wal.FRAME.size + page_size)


def frame_count(log: bytes) -> int:
    """How many whole frames a log holds."""
    return (len(log) - wal.HEADER.size) // (frame_at(log, 2) - frame_at(log, 1))


def flipped(path: Path, offset: int) -> None:
    """One byte of the file changed, as a disk or a copy may do."""
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def actions_sqlite_keeps(log: Path, tmp_path: Path) -> int:
    """How many actions SQLite itself reads from a copy of the data directory: what the
    server would have started with, without a word."""
    copy = tmp_path / "as-sqlite-reads"
    shutil.copytree(log.parent, copy)
    with closing(sqlite3.connect(copy / "companion.sqlite3")) as db:
        assert db.execute("PRAGMA quick_check").fetchone() == ("ok",)
        return db.execute("SELECT COUNT(*) FROM events").fetchone()[0]


def events(data_dir: Path, token: str) -> list:
    return Store(data_dir).game(token).events


def refusal(data_dir: Path) -> str:
    """The line the start stops with (the console shows it after "error: ")."""
    with pytest.raises(StorageFault) as refused:
        Store(data_dir)
    return str(refused.value)


# --- a damaged log: refused, in words that name the file and the loss --------------------

def in_page(log: bytes) -> tuple[int, int]:
    """A byte of the page a middle frame holds: (where it is, that frame's number)."""
    middle = frame_count(log) // 2
    return frame_at(log, middle) + wal.FRAME.size + 100, middle


def in_frame_header(log: bytes) -> tuple[int, int]:
    """The lowest byte of a middle frame's page number."""
    middle = frame_count(log) // 2
    return frame_at(log, middle) + 3, middle


def in_frame_salt(log: bytes) -> tuple[int, int]:
    """A byte of a middle frame's first salt: the frame no longer seems of this log."""
    middle = frame_count(log) // 2
    return frame_at(log, middle) + 8, middle


def in_last_transaction(log: bytes) -> tuple[int, int]:
    """A byte of the page of the last transaction's first frame, its commit frame after it."""
    commits = [number for number in range(1, frame_count(log) + 1)
               if wal.FRAME.unpack_from(log, frame_at(log, number))[1]]
    first = commits[-2] + 1
    assert first < commits[-1]
    return frame_at(log, first) + wal.FRAME.size + 100, first


def in_log_header(_: bytes) -> tuple[int, int]:
    """A byte of the log's checkpoint number: SQLite then ignores every frame."""
    return 15, 0


@pytest.mark.parametrize("where", [in_page, in_frame_header, in_frame_salt,
                                   in_last_transaction, in_log_header])
def test_a_log_damaged_before_its_last_commit_stops_the_start(table, tmp_path, where):
    """Refused, in words that name the log, the loss and what to do; the remedy they give
    starts with what SQLite alone would have kept, without a word."""
    store, token = table
    log = copied(store, tmp_path / "data")
    frames = frame_count(log.read_bytes())
    offset, frame = where(log.read_bytes())
    flipped(log, offset)
    damaged = log.read_bytes()
    lost = ACTIONS - actions_sqlite_keeps(log, tmp_path)
    intact = frame and frame_at(damaged, frame)
    assert lost > 0 and wal.damage(damaged) == wal.Damage(frame, frames, lost, intact)
    found = (f"frame {frame} of {frames} does not match its checksum" if frame else
             "its header does not match its checksum")
    transactions = "1 transaction" if lost == 1 else f"{lost} transactions"
    assert refusal(log.parent) == (f"{log} is damaged ({found}; {transactions} committed "
                                   f"from there on would be lost): "
                                   f"{REMEDY.format(intact=intact)}")
    assert log.read_bytes() == damaged  # the evidence is kept
    log.write_bytes(damaged[:intact])
    assert len(events(log.parent, token)) == ACTIONS - lost


def test_a_log_read_half_written_is_read_again(table, tmp_path, monkeypatch):
    """Another process was writing the log as it was read: read again, it is whole."""
    store, token = table
    log = copied(store, tmp_path / "data")
    whole = log.read_bytes()
    offset, _ = in_page(whole)
    readings = iter([whole[:offset] + bytes(100) + whole[offset + 100:], whole])
    monkeypatch.setattr("companion.store.sqlite._read", lambda path: next(readings))
    assert len(events(log.parent, token)) == ACTIONS


def test_a_log_signed_big_endian_is_read_too(table, tmp_path):
    """A log written on a big-endian machine (magic 0x377f0683): SQLite reads it whole,
    and its damage is found the same."""
    store, token = table
    log = copied(store, tmp_path / "data")
    log.write_bytes(big_endian(log.read_bytes()))
    assert wal.damage(log.read_bytes()) is None
    assert actions_sqlite_keeps(log, tmp_path) == ACTIONS
    offset, frame = in_page(log.read_bytes())
    flipped(log, offset)
    assert wal.damage(log.read_bytes()).frame == frame


def big_endian(log: bytes) -> bytes:
    """The same log with the other magic, every checksum worked out again on big-endian
    words."""
    data = bytearray(log)
    data[3] |= 1
    sums = wal._checksum(data, 0, 24, (0, 0), ">")
    data[24:32] = struct.pack(">2I", *sums)
    page_size = wal.HEADER.unpack_from(data)[2]
    for number in range(1, frame_count(log) + 1):
        start = frame_at(log, number)
        sums = wal._checksum(data, start, 8, sums, ">")
        sums = wal._checksum(data, start + wal.FRAME.size, page_size, sums, ">")
        data[start + 16:start + 24] = struct.pack(">2I", *sums)
    return bytes(data)


# --- what SQLite leaves normally: the start goes on, every action kept ------------------

def test_a_whole_log_starts_with_every_action(table, tmp_path):
    store, token = table
    log = copied(store, tmp_path / "data")
    assert wal.damage(log.read_bytes()) is None
    assert len(events(log.parent, token)) == ACTIONS


def test_a_torn_last_write_starts_with_every_acknowledged_action(table, tmp_path):
    """The next action was being written when the power went: its last frame is cut
    short, and it was never acknowledged."""
    store, token = table
    acknowledged = store.path.with_name("companion.sqlite3-wal").stat().st_size
    record(store, token, 1)
    log = copied(store, tmp_path / "data")
    log.write_bytes(log.read_bytes()[:-1000])
    assert len(log.read_bytes()) > acknowledged
    assert len(events(log.parent, token)) == ACTIONS


def test_a_torn_last_commit_frame_starts_with_every_acknowledged_action(table, tmp_path):
    """The next action's last frame was written whole but with the wrong bytes: it is the
    last frame, so nothing acknowledged follows it."""
    store, token = table
    record(store, token, 1)
    log = copied(store, tmp_path / "data")
    flipped(log, len(log.read_bytes()) - 100)
    assert wal.damage(log.read_bytes()) is None
    assert len(events(log.parent, token)) == ACTIONS


def test_an_older_logs_leftover_frames_start_with_every_action(table, tmp_path):
    """After a checkpoint the log starts again from its beginning with new salts; the
    older log's frames stay after the new ones, and SQLite ignores them."""
    store, token = table
    with closing(sqlite3.connect(store.path)) as db:
        assert db.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()[0] == 0
    record(store, token, 3)
    log = copied(store, tmp_path / "data")
    data = log.read_bytes()
    salts = {wal.FRAME.unpack_from(data, frame_at(data, number))[2:4]
             for number in range(1, frame_count(data) + 1)}
    assert len(salts) == 2  # the new log's frames, then the older log's
    assert wal.damage(data) is None
    assert len(events(log.parent, token)) == ACTIONS + 3


@pytest.mark.parametrize("data", [b"", b"\0" * 5000, b"not a log at all\n" * 300],
                         ids=["empty", "zeros", "garbage"])
def test_bytes_that_are_no_log_have_nothing_to_tell(data):
    assert wal.damage(data) is None


# --- an empty database file -------------------------------------------------------------

def test_an_empty_database_file_stops_the_start(tmp_path):
    path = tmp_path / "data" / "companion.sqlite3"
    path.parent.mkdir()
    path.touch()
    assert refusal(path.parent) == (f"{path} is empty (0 bytes): restore it from a backup, "
                                    "or remove it to start afresh with no games")
    assert path.stat().st_size == 0  # not made into a new, empty database


# --- an I/O error of the disk -----------------------------------------------------------

@contextmanager
def files_limited_to(size: int):
    """No file of this process may grow past `size` bytes: the system refuses such a write
    (EFBIG), and SQLite reports an I/O error (SQLITE_IOERR_WRITE). Skipped where the system
    has no such limit."""
    resource = pytest.importorskip("resource", reason="no limit on a file's size here (the "
                                                     "resource module is Unix's)")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def test_an_io_error_is_told_as_one_and_pages_still_show(tmp_path):
    app, host, phone, token = table_on(tmp_path / "data")
    log = app.config["STORE"].path.with_name("companion.sqlite3-wal")
    with files_limited_to(log.stat().st_size):
        assert_refused(app, host, phone, token, IO_ERROR)
    assert act(host, token, *NEXT).status_code == 303  # the disk answers again


def test_an_io_error_at_start_is_told_as_one(tmp_path):
    with files_limited_to(0):
        refused = refusal(tmp_path / "data")
    assert refused == (
        f"{tmp_path / 'data' / 'companion.sqlite3'} cannot be used: the disk reported an "
        "input/output error (disk I/O error): copy the data directory to another disk and "
        "start with that --data-dir, or restore the database from a backup")


def test_the_check_tells_a_damaged_log_before_the_server_is_started(table, tmp_path):
    """`templari-companion --check` reads the log as the start would, and changes nothing."""
    from companion.check import report
    store, _ = table
    log = copied(store, tmp_path / "data")
    offset, _ = in_page(log.read_bytes())
    flipped(log, offset)
    damaged = log.read_bytes()
    told = report("127.0.0.1", 0, str(log.parent))
    assert f"- The server will not start: {log} is damaged (frame " in told.text
    assert not told.starts
    assert log.read_bytes() == damaged
