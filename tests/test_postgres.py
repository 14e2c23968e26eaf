"""The games in PostgreSQL (issue 30): several server processes, or machines, share one
database. What every backend does is tests/test_store_contract.py's, on both; these are
what only PostgreSQL shows, through the app and the server."""
import json
import os
import signal
import sys
import threading
from pathlib import Path

import pytest

from companion.rules.record import dump_record
from companion.store import games, open_store, postgres
from companion.store.sql import StorageFault
from tests.helpers import setup
from tests.postgres import TABLES
from tests.real_http import RealClient, started, stop
from tests.served import change_elsewhere
from tests.test_storage import assert_refused, table_on
from tests.web_helpers import (FIRST_SALE, GAME, find_form, make_app, new_game, page_headers,
                               phone_client, play, refuse_writes, text, with_options)

pytestmark = pytest.mark.usefixtures("postgres_server")
FIXTURES = Path(__file__).parent / "fixtures"
MEGABYTE = 1024 * 1024


@pytest.fixture
def url(postgres_server):
    return postgres_server.fresh()


def test_two_servers_on_one_database_share_the_games_and_each_change(tmp_path, url):
    """Two apps, as two processes would run them (each its own caches and connections):
    a game started through one is played through the other, and each shows the other's
    changes (R8's payment on both)."""
    first, second = (make_app(tmp_path / name, database=url) for name in ("a", "b"))
    token = new_game(first.test_client())
    play(second.test_client(), token, GAME[:2])
    for app in (first, second):
        page = text(app.test_client().get(f"/g/{token}"))
        assert all(words in page for words in FIRST_SALE), page


def test_a_url_that_is_not_postgresql_or_cannot_be_reached_stops_the_start_in_one_line(url):
    with pytest.raises(StorageFault, match="give a postgresql://"):
        open_store(None, "mysql://db/templari")
    with pytest.raises(StorageFault, match=r"the database postgresql://someone:\*\*\*@"):
        open_store(None, "postgresql://someone:secret@127.0.0.1:1/templari")


def test_the_server_started_on_postgresql_serves_a_whole_game(tmp_path, url):
    """`templari-companion --database URL`: said at start, and a game played through it is
    kept in the database (read back without the server)."""
    process, local, lines = started([sys.executable, "-m", "companion.cli", "--host", "127.0.0.1", "--port",
                                     "0", "--database", url, "--data-dir",
                                     str(tmp_path / "unused")], cwd=tmp_path)
    try:
        assert f"games are kept in {url}" in "".join(lines)
        host = RealClient(local)
        token = new_game(host)
        play(host, token, GAME)
        assert "Final score" in text(host.get(f"/g/{token}/score"))
    finally:
        assert "Traceback" not in stop(process)
    store = open_store(None, url)
    try:
        assert games.load(store, token).state.finished
    finally:
        store.close()
    assert not (tmp_path / "unused").exists()


def test_a_database_that_accepts_no_changes_says_so_and_pages_still_show(tmp_path, url,
                                                                          monkeypatch):
    """A standby, or a database made read-only: every write refused in words, nothing
    changed, every page still read."""
    app, host, phone, token = table_on(tmp_path / "data", database=url)
    refuse_writes(monkeypatch, app.config["STORE"])
    assert_refused(app, host, phone, token, "Could not save: the game database accepts no "
                   "changes now (it is read-only); nothing was recorded.")


def test_a_database_that_cannot_be_reached_is_told_in_words(tmp_path, url, monkeypatch):
    """The database server goes away while the table plays: each screen says so (503), and
    the table carries on once it is back."""
    app, host, phone, token = table_on(tmp_path / "data", database=url)
    store = app.config["STORE"]
    monkeypatch.setattr(postgres, "POOL_WAIT", 0.5)  # (a request waits that long for it)
    monkeypatch.setattr(store, "url", f"postgresql://postgres@/templari?host={tmp_path}")
    store.close()  # its connections now go where no server listens
    for client, page in ((host, f"/g/{token}"), (phone, f"/g/{token}/me")):
        answer = client.get(page)
        assert answer.status_code == 503
        assert "The game database cannot be reached" in text(answer)
    monkeypatch.undo()
    store.close()
    assert all(words in text(host.get(f"/g/{token}")) for words in FIRST_SALE)


def test_the_check_says_whether_the_database_can_be_used_and_changes_nothing(url):
    from companion.check import report
    usable = report("127.0.0.1", 0, "unused", (), url)
    assert "- Games are kept in " + url + ": 0 games." in usable.text and usable.starts
    said = report("127.0.0.1", 0, "unused", (), "postgresql://someone:secret@127.0.0.1:1/x")
    assert "- The server will not start: the database postgresql://someone:***@127.0.0.1:1/x " \
           "cannot be used (" in said.text and "secret" not in said.text and not said.starts


def test_two_hosted_servers_share_the_games_and_their_hosts(tmp_path, url):
    """`--hosted` twice on one PostgreSQL, as two machines behind a load balancer would run
    it: the device that started a game hosts it through either, another device is refused
    in words, a change through one shows through the other, and a server killed outright
    (SIGKILL) loses nothing it acknowledged: the table carries on through the other."""
    command = [sys.executable, "-m", "companion.cli", "--hosted", "--database", url,
               "--host", "127.0.0.1", "--port", "0"]
    (first, first_url, said), (second, second_url, _) = (
        started(command, cwd=tmp_path) for _ in range(2))
    try:
        assert "Any device that opens" in "".join(said)
        maker = RealClient(first_url)
        token = new_game(maker)
        maker_there = RealClient(second_url, jar=maker.jar)  # the same browser, other server
        play(maker_there, token, GAME[:2])
        assert all(words in text(maker.get(f"/g/{token}")) for words in FIRST_SALE)
        stranger = RealClient(second_url)
        refused = stranger.get(f"/g/{token}/settings")
        assert refused.status_code == 403
        assert "Only the host's device can do this." in text(refused)
        play(maker, token, GAME[2:4])  # a side sale and a reveal, each answered 303
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(30)
        page = text(maker_there.get(f"/g/{token}"))
        assert "Round 2: the auction" in page and "Bert ♦ 0 red" in page  # he bought it
        play(maker_there, token, GAME[4:6])
        assert "Bert pays 4" in text(maker_there.get(f"/g/{token}"))
    finally:
        for process in (first, second):
            if process.poll() is None:
                assert "Traceback" not in stop(process)


def test_notices_listened_to_anew_first_say_any_game_may_have_moved(url):
    """A game changed while the news connection was lost was never notified to it: the
    first news of a connection listened to anew has every game followed read again; a
    connection that fails is closed (the Watch listens anew)."""
    import psycopg
    store = open_store(None, url)
    try:
        first = store.news()
        assert first.wait(0).anywhere and not first.wait(0).anywhere
        token = games.create(store, dump_record(setup(), []), games.Options())
        change_elsewhere(store, token)
        assert first.wait(1).games == {token}
        with psycopg.connect(url, autocommit=True) as db:  # the database ends that connection
            db.execute("SELECT pg_terminate_backend(%s)", (first.connection.info.backend_pid,))
        with pytest.raises(psycopg.Error):
            first.wait(1)
        assert first.connection.closed
        again = store.news()
        assert again.wait(0).anywhere
    finally:
        store.close()


def test_a_process_holds_a_bounded_pool_of_connections_however_many_threads_ask(tmp_path, url):
    """40 requests at once from as many threads (waitress gives a thread to each stream
    held and each request) use at most the pool's connections, and each is answered."""
    import psycopg
    app = make_app(tmp_path / "data", database=url)
    token = new_game(app.test_client())
    answers, start = [], threading.Barrier(40)

    def ask():
        start.wait()
        answers.append(app.test_client().get(f"/g/{token}").status_code)
    askers = [threading.Thread(target=ask) for _ in range(40)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join()
    with psycopg.connect(url, autocommit=True) as db:
        held = db.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = 'templari' "
                          "AND pid <> pg_backend_pid()").fetchone()[0]
    assert answers == [200] * 40 and 1 <= held <= postgres.POOL_SIZE


def test_a_server_started_beside_a_write_under_way_neither_waits_for_it_nor_changes_a_table(url):
    """A second process started while a table records an action (its transaction open)
    starts at once: the tables and triggers are there as it would make them."""
    import psycopg
    store = open_store(None, url)
    token = games.create(store, dump_record(setup(), []), games.Options())
    try:
        with psycopg.connect(url) as writer:  # a write under way, not yet committed
            writer.execute("UPDATE games SET moves = 'x' WHERE token = %s", (token,))
            with psycopg.connect(url, autocommit=True) as db:
                schema = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            # (a start that would wait for the write gives up after 2 s, and fails)
            open_store(None, with_options(url, "-c lock_timeout=2s")).close()
            writer.rollback()
        assert schema == (postgres.SCHEMA_VERSION,)
    finally:
        store.close()


def test_a_hosted_server_whose_database_is_down_says_so_on_every_page_and_change(
        tmp_path, url, monkeypatch):
    """Every page of a hosted game and a change answer 503 with the sentence (the error
    page asks the database nothing: not who hosts the game); the database back, the
    change made from the same page is recorded."""
    app = make_app(tmp_path / "data", database=url, hosted=True)
    host = phone_client(app, "203.0.113.5")
    host.expected = {503}
    token = new_game(host)
    play(host, token, GAME[:2])
    page = host.get(f"/g/{token}")
    undo = find_form(page, f"/g/{token}/undo")
    store = app.config["STORE"]
    monkeypatch.setattr(postgres, "POOL_WAIT", 0.1)
    monkeypatch.setattr(store, "url", f"postgresql://postgres@/templari?host={tmp_path}")
    store.close()  # its connections now go where no server listens
    for path in ("/", "", "/live?v=0", "/history", "/score", "/tv", "/me", "/settings",
                 "/record.json"):
        answer = host.get(f"/g/{token}{path}" if path != "/" else path)
        assert answer.status_code == 503, path
        assert "The game database cannot be reached" in text(answer), path
    sent = dict(data=undo.fields, headers=page_headers(page))
    assert host.post(undo.action, **sent).status_code == 503
    monkeypatch.undo()
    store.close()
    assert host.post(undo.action, **sent).status_code in (200, 303)
    assert "Round 1: the auction" in text(host.get(f"/g/{token}"))  # the sale undone


def full_size_game() -> dict:
    """The example game full-game-1 (R1-R10) as long as a game may be (MAX_EVENTS
    actions): penalties (R4) once every player holds a card, paid from 1,000 coins each."""
    record = json.loads((FIXTURES / "full-game-1.json").read_text())
    events, players = record["events"], record["players"]
    penalties = [{"type": "penalty", "player": players[number % len(players)]}
                 for number in range(games.MAX_EVENTS - len(events))]
    return {**record, "start_coins": 1000, "events": events[:15] + penalties + events[15:]}


def stored_bytes(url: str) -> int:
    """What the store's tables hold on disk, their indexes and TOAST included."""
    import psycopg
    with psycopg.connect(url, autocommit=True) as db:
        return db.execute("SELECT sum(pg_total_relation_size(name::regclass)) FROM "
                          "unnest(string_to_array(%s, ', ')) AS name",
                          (TABLES,)).fetchone()[0]


def imported_cost(url: str) -> int:
    """The bytes a full-size game imported costs the database, before any vacuum; its
    stamp moved."""
    store = open_store(None, url)
    try:
        before = stored_bytes(url)
        token = games.create(store, full_size_game(), games.Options())
        assert len(games.load(store, token).events) == games.MAX_EVENTS
        assert store.stamp(token) > 0
        return stored_bytes(url) - before
    finally:
        store.close()


def test_a_full_size_game_costs_under_a_megabyte_before_any_vacuum(url):
    """The stamp moves once a transaction, not once an event: the game's row is not
    written anew for each of the 2,000 events an import adds."""
    assert imported_cost(url) < MEGABYTE


def test_a_database_made_before_the_stamp_moved_once_a_transaction_is_brought_up_to_date(url):
    """A database as the schema before made it (no `stamped` column, the trigger that
    moved the stamp for each row, another schema version in meta) is brought up to date at
    the next start, and its imports cost what a new database's do."""
    import psycopg
    open_store(None, url).close()
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("""CREATE OR REPLACE FUNCTION templari_stamp_owner() RETURNS trigger AS $$
            BEGIN
                UPDATE games SET stamp = stamp + 1
                 WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.game_id ELSE NEW.game_id END;
                RETURN NULL;
            END $$ LANGUAGE plpgsql""")
        db.execute("ALTER TABLE games DROP COLUMN stamped")
        db.execute("UPDATE meta SET value = 'before' WHERE key = 'schema'")
    assert imported_cost(url) < MEGABYTE
    with psycopg.connect(url, autocommit=True) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == (
            postgres.SCHEMA_VERSION,)
