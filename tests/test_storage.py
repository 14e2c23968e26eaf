"""Storage faults in words: a database that cannot be used stops the start with one line;
while the server runs, a write the disk refuses (full, read-only) answers 503 and records
nothing while every page still reads; a vanished database is never started again empty;
a game whose stored log no longer replays is marked on the host's list, its record still
exported, and the other games play on."""
import gc
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from companion.store.sqlite import Store
from tests.web_helpers import (FIRST_SALE, GAME, CheckedClient, act, action_fields, find_form,
                               join, make_app, new_game, page_headers, phone_client, play,
                               refuse_writes, snapshot, stamp, submit, text)

ROOT = Path(__file__).resolve().parents[1]
FULL = "Could not save: the disk is full; nothing was recorded."
READ_ONLY = "Could not save: the data directory is read-only; nothing was recorded."
UNREACHABLE = "The game database cannot be reached; nothing was recorded. Try again in a moment."
VANISHED = ("has vanished or been replaced while the server ran; nothing was recorded. "
            "Restart the server.")
DAMAGED_PAGE = "This game's log is damaged and no longer replays: action 2:"
DAMAGED_ITEM = "This game's log no longer replays: action 2:"
EXPORT = "Export its record to keep it."
NEXT = GAME[2]  # the action the table records next, after GAME[:2]


class StorageClient(CheckedClient):
    """A checked client for which a 503 is an answer: the words of a storage fault."""

    expected = frozenset({503})


@pytest.fixture
def disk(tmp_path):
    """A small disk of its own (a tmpfs): skipped where mounting is not permitted."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    mounted = shutil.which("mount") and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount_point)],
        capture_output=True, text=True, check=False)
    if not mounted or mounted.returncode != 0:
        pytest.skip("a disk of the test's own cannot be mounted: run the tests as root "
                    f"({mounted.stderr.strip() if mounted else 'no mount command'})")
    yield mount_point
    gc.collect()  # the test's app is gone: its connections to the disk's database close
    subprocess.run(["umount", str(mount_point)], check=True)


def table_on(data_dir, database=None):
    """An app with a game, Bert's phone seated, the first lot sold: (app, host, phone, token)."""
    app = make_app(data_dir, database=database)
    app.test_client_class = StorageClient
    host, phone = app.test_client(), phone_client(app)
    token = new_game(host)
    join(phone, token, "Bert")
    play(host, token, GAME[:2])
    return app, host, phone, token


def fill(disk: Path) -> Path:
    """Fill the disk to the last byte; the file that does it."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(bytes(4096))
        except OSError:
            pass
    return filler


def prepared(client, token, form_key, **values):
    """A form of the table page, filled in now and sent later: send(), its answer."""
    page = client.get(f"/g/{token}")
    form = find_form(page, form_key)
    return lambda: client.post(form.action, data={**form.fields, **values},
                               headers=page_headers(page))


def remount(disk: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(disk)], check=True)


def assert_refused(app, host, phone, token, words):
    """Every write is refused with `words` (htmx shows them in the alert box): an action,
    a new game, a seat taken; nothing changes, and every page still reads."""
    before = snapshot(app)
    flashed = act(host, token, *NEXT, htmx=True)
    assert flashed.status_code == 503 and text(flashed) == words
    assert flashed.headers["HX-Retarget"] == "#flash"
    for refused in (act(host, token, *NEXT),
                    submit(host, "/", "new-game", player=["Dora", "Emil", "Fritz", "", ""]),
                    join(phone_client(app, "192.168.1.21"), token, "Claus")):
        assert refused.status_code == 503 and words in text(refused)
    assert snapshot(app) == before
    assert_reads(app, host, phone, token)


def assert_reads(app, host, phone, token):
    """The table, the phone, their polls, the history, the export and the list all show
    the game as it was."""
    for client, page in ((host, f"/g/{token}"), (phone, f"/g/{token}/me")):
        shown = client.get(page)
        assert shown.status_code == 200 and all(words in text(shown) for words in FIRST_SALE)
        live = client.get(f"{page}/live?v={stamp(app, token)}")
        assert live.status_code == 204
    history = host.get(f"/g/{token}/history")
    assert history.status_code == 200 and "Anna" in text(history)
    exported = host.get(f"/g/{token}/record.json")
    assert exported.status_code == 200 and len(exported.get_json()["events"]) == 2
    assert f"/g/{token}" in host.get("/").get_data(as_text=True)


# --- while the server runs: the disk refuses a write ----------------------------------

def test_a_full_disk_records_nothing_and_says_so_and_pages_still_show(disk):
    app, host, phone, token = table_on(disk / "data")
    filler = fill(disk)
    assert_refused(app, host, phone, token, FULL)
    filler.unlink()  # room again: the table records on
    assert act(host, token, *NEXT).status_code == 303
    assert len(app.config["STORE"].game(token).events) == 3


def test_a_read_only_disk_records_nothing_and_says_so_and_pages_still_show(disk):
    app, host, phone, token = table_on(disk / "data")
    app.config["STORE"].close()  # no remount to read-only while a file is open to write
    remount(disk, "ro")
    try:
        assert_refused(app, host, phone, token, READ_ONLY)
    finally:
        remount(disk, "rw")
    assert act(host, token, *NEXT).status_code == 303


def test_a_database_that_refuses_writes_says_so_without_any_mount(tmp_path, monkeypatch):
    """Where no disk can be mounted: SQLite itself refuses every write (query_only)."""
    app, host, phone, token = table_on(tmp_path / "data")
    refuse_writes(monkeypatch, app.config["STORE"])
    assert_refused(app, host, phone, token, READ_ONLY)


# --- while the server runs: the database file vanishes ---------------------------------

def delete(path: Path) -> None:
    for name in (path.name, path.name + "-wal", path.name + "-shm"):
        (path.parent / name).unlink(missing_ok=True)


def replace(path: Path) -> None:
    other = Store(path.parent.parent / "other")
    os.replace(other.path, path)


@pytest.mark.parametrize(("vanish", "said"), [(delete, UNREACHABLE), (replace, VANISHED)],
                         ids=["deleted", "replaced"])
def test_a_vanished_database_is_reported_and_never_started_again_empty(tmp_path, vanish,
                                                                       said):
    app, host, phone, token = table_on(tmp_path / "data")
    granted = phone_client(app, "192.168.1.30")
    key = app.config["HOST_KEY"]
    assert submit(granted, f"/host/{key}", f"/host/{key}", label="Eva").status_code == 303
    path = app.config["STORE"].path
    record = prepared(host, token, f"action-{NEXT[0]}", **action_fields(*NEXT))
    vanish(path)
    found = path.exists() and path.stat().st_ino
    words = said if said == UNREACHABLE else f"The game database ({path}) {said}"
    for client, page in ((host, f"/g/{token}"), (phone, f"/g/{token}/me"), (host, "/"),
                         (granted, "/"), (phone, f"/g/{token}/me/live?v=0")):
        shown = client.get(page)
        assert shown.status_code == 503 and words in text(shown), page
    recorded = record()
    assert recorded.status_code == 503 and words in text(recorded)
    assert (path.exists() and path.stat().st_ino) == found  # no new, empty database
    assert phone.get("/").status_code == 200  # the welcome page needs no database


def assert_unreachable(app, host, phone, token, record):
    """Every page and a change answer 503 with the sentence."""
    for client, page in ((host, f"/g/{token}"), (phone, f"/g/{token}/me"), (host, "/"),
                         (phone, f"/g/{token}/me/live?v=0"), (host, f"/g/{token}/history"),
                         (host, f"/g/{token}/record.json")):
        shown = client.get(page)
        assert shown.status_code == 503 and UNREACHABLE in text(shown), page
    recorded = record()
    assert recorded.status_code == 503 and UNREACHABLE in text(recorded)


def test_a_data_directory_gone_and_back_is_said_then_played_on_at_once(tmp_path):
    """The folder removed or unmounted while the table plays (here moved away): every
    page and change says the database cannot be reached; put back, the change sent from
    the same page is recorded, without a restart."""
    app, host, phone, token = table_on(tmp_path / "data")
    record = prepared(host, token, f"action-{NEXT[0]}", **action_fields(*NEXT))
    before = snapshot(app)
    (tmp_path / "data").rename(tmp_path / "away")
    assert_unreachable(app, host, phone, token, record)
    (tmp_path / "away").rename(tmp_path / "data")
    assert snapshot(app) == before
    assert record().status_code == 303
    assert len(app.config["STORE"].game(token).events) == 3


@contextmanager
def no_file_opens():
    """Every file descriptor of this process taken (as a server out of them, "too many
    open files"): the system refuses to open any file (EMFILE), and SQLite a connection
    (SQLITE_CANTOPEN), as it does a file made unreadable to a server that is not root."""
    resource = pytest.importorskip("resource", reason="no limit on open files here (the "
                                                     "resource module is Unix's)")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE,
                       (max(map(int, os.listdir("/proc/self/fd"))) + 1, hard))
    held = []
    try:
        while True:
            held.append(os.open(os.devnull, os.O_RDONLY))
    except OSError:
        pass
    try:
        yield
    finally:
        for descriptor in held:
            os.close(descriptor)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_database_that_cannot_be_opened_is_said_then_played_on_at_once(tmp_path):
    """No connection to the database can be opened (each thread of a server opens its
    own): every page and change says the database cannot be reached, not a 500; once files
    open again, the change sent from the same page is recorded."""
    app, host, phone, token = table_on(tmp_path / "data")
    record = prepared(host, token, f"action-{NEXT[0]}", **action_fields(*NEXT))
    assert host.get("/no-such-page").status_code == 404  # (its template read beforehand)
    before = snapshot(app)
    app.config["STORE"].close()  # the next use opens a connection
    with no_file_opens():
        assert_unreachable(app, host, phone, token, record)
    assert snapshot(app) == before
    assert record().status_code == 303
    assert len(app.config["STORE"].game(token).events) == 3


# --- a game whose stored log no longer replays ---------------------------------------

def refused_price(event: str) -> str:
    """Anna's purchase at a price she cannot pay."""
    return json.dumps({**json.loads(event), "price": 999})


def unreadable(event: str) -> str:
    return event[:-5]


@pytest.mark.parametrize(("edit", "reason"), [
    (refused_price, "Anna cannot pay 999 (R5)."),  # (no coin total: any device sees it, R12)
    (unreadable, "its stored text is not valid JSON.")], ids=["refused", "not JSON"])
def test_a_game_edited_by_hand_is_marked_damaged_and_still_exported(tmp_path, edit, reason):
    app, host, phone, token = table_on(tmp_path / "data")
    other = new_game(host, players=("Dora", "Emil", "Fritz"))
    undo = prepared(host, token, "undo")
    with sqlite3.connect(app.config["STORE"].path) as db:  # someone edits the database
        (event,) = db.execute("SELECT data FROM events WHERE seq = 1 AND game_id = "
                              "(SELECT id FROM games WHERE token = ?)", (token,)).fetchone()
        db.execute("UPDATE events SET data = ? WHERE seq = 1 AND game_id = "
                   "(SELECT id FROM games WHERE token = ?)", (edit(event), token))
    before = snapshot(app)

    home = text(host.get("/"))
    assert f"{DAMAGED_ITEM} {reason}" in home and EXPORT in home
    assert "Dora, Emil, Fritz" in home
    exported = host.get(f"/g/{token}/record.json")
    assert exported.status_code == 200
    assert exported.get_json()["players"] == ["Anna", "Bert", "Claus"]
    assert exported.get_json()["events"][1] == app.config["STORE"].game(token).events[1]

    for client, page in ((host, f"/g/{token}"), (phone, f"/g/{token}/me"),
                         (host, f"/g/{token}/history"), (host, f"/g/{token}/score")):
        shown = client.get(page)
        assert shown.status_code == 409 and f"{DAMAGED_PAGE} {reason}" in text(shown), page
    polled = phone.get(f"/g/{token}/me/live?v=0", headers={"HX-Request": "true"})
    assert polled.status_code == 409 and polled.headers["HX-Retarget"] == "#flash"
    refused = undo()
    assert refused.status_code == 409 and f"{DAMAGED_PAGE} {reason}" in text(refused)
    assert snapshot(app) == before

    play(host, other, GAME[:2])  # the other game plays on
    assert "Dora pays 3" in text(host.get(f"/g/{other}"))


# --- at start: one line, no traceback ------------------------------------------------

def start(data_dir: Path) -> subprocess.CompletedProcess:
    """`templari-companion --data-dir DATA_DIR` as the host runs it."""
    return subprocess.run([sys.executable, "-m", "companion.cli", "--host", "127.0.0.1",
                           "--port", "0", "--data-dir", str(data_dir)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)


def assert_stops(data_dir: Path, line: str) -> None:
    started = start(data_dir)
    assert started.returncode == 1 and started.stdout == ""
    assert started.stderr.splitlines() == [line], started.stderr


def test_a_database_of_garbage_stops_the_start_in_one_line(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "companion.sqlite3").write_bytes(b"not a database at all\n" * 200)
    assert_stops(data, f"error: {data / 'companion.sqlite3'} is damaged (file is not a "
                       "database): restore it from a backup or start with another --data-dir")


def test_a_truncated_database_stops_the_start_in_one_line(tmp_path):
    store = Store(tmp_path / "data")
    for number in range(60):
        store.create_game({"players": [f"Player {number}"] * 5}, {},
                          [({"type": "free", "note": "x" * 400}, "host", 0.0)] * 5)
    with open(store.path, "r+b") as database:
        database.truncate(store.path.stat().st_size // 2)
    started = start(tmp_path / "data")
    assert started.returncode == 1 and len(started.stderr.splitlines()) == 1
    assert started.stderr.startswith(f"error: {store.path} is damaged (")
    assert started.stderr.endswith(
        "): restore it from a backup or start with another --data-dir\n")


def test_a_directory_in_place_of_the_database_stops_the_start_in_one_line(tmp_path):
    (tmp_path / "data" / "companion.sqlite3").mkdir(parents=True)
    assert_stops(tmp_path / "data", (
        f"error: {tmp_path / 'data' / 'companion.sqlite3'} cannot be opened (unable to open "
        "database file): check that it is a database file this user may read and write, or "
        "start with another --data-dir"))


def test_a_data_directory_that_cannot_be_made_stops_the_start_in_one_line(tmp_path):
    (tmp_path / "data").write_text("a file, not a directory")
    assert_stops(tmp_path / "data", (
        f"error: the data directory {tmp_path / 'data'} cannot be made or written to "
        "(File exists): start with another --data-dir"))


def test_a_database_another_program_locks_stops_the_start_in_one_line(tmp_path):
    """Another program holds the write lock (the database is in WAL mode, so readers
    would pass): the start does not wait for it."""
    path = Store(tmp_path / "data").path
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert_stops(tmp_path / "data", (
            f"error: {path} is locked by another program (database is locked): stop the "
            "other server using it, or start with another --data-dir"))
    finally:
        holder.close()
