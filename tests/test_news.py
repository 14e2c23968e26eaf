"""The store's news (store/news.py): a Watch hears of every change to the games followed,
whichever thread or process made it, and reads only the stamps it must."""
import threading

import pytest

from companion.store.sql import SeatTaken
from companion.web import create_app
from tests.served import change_elsewhere, new_game_poll, until


def test_a_poll_held_when_its_game_had_just_moved_is_answered_at_the_next_look(tmp_path):
    """The race: a change committed between a poll's look at the stamp and its being held
    is news the Watch may have had already; it reads the stamps of the games newly waited
    on anyway."""
    from companion.store.news import News, Watch
    app = create_app(tmp_path / "data")
    store, token = app.config["STORE"], new_game_poll(app).split("/")[2]
    moved, fresh = [], set()
    shown = {token: {store.stamp(token) - 1}}  # the stamp before a change

    def waited(games):
        asked = shown.keys() if games is None else (games | fresh) & shown.keys()
        return {game: shown[game] for game in asked}

    watch = Watch(store, waited, moved.append)
    watch.look(News())
    assert moved == []  # nothing committed, no game newly waited on: nothing read
    fresh.add(token)
    watch.look(News())
    assert moved == [{token: store.stamp(token)}]


def test_the_watch_hears_of_this_process_s_change_by_its_game_and_of_another_s_by_a_full_look(tmp_path):
    """A change this process makes names its game: the Watch reads that game's stamp
    alone, whichever thread wrote. A change it cannot name (another process's, seen in
    SQLite's data version) has it read every game followed."""
    from companion.store import news, sqlite
    app = create_app(tmp_path / "data")
    store = app.config["STORE"]
    first, second = (new_game_poll(app).split("/")[2] for _ in range(2))
    asked = []
    shown = {token: {store.stamp(token)} for token in (first, second)}

    def waited(games):
        asked.append(games)
        return {game: shown[game] for game in (shown if games is None else games & shown.keys())}

    moved = []
    watch = news.Watch(store, waited, moved.append)
    changes = store.news()
    changes.wait(0)
    change_elsewhere(store, first)  # (a thread of its own)
    heard = changes.wait(0)
    assert heard.games == {first} and not heard.anywhere  # no other process wrote
    watch.look(heard)
    assert asked == [{first}] and moved == [{first: store.stamp(first)}]
    shown[first] = {store.stamp(first)}
    change_elsewhere(sqlite.Store(tmp_path / "data"), second)  # another process's
    heard = changes.wait(0)
    assert heard.games == frozenset() and heard.anywhere  # the data version moved
    watch.look(heard)
    assert asked[1:] == [None] and moved[1:] == [{second: store.stamp(second)}]  # a full look


def test_the_watch_does_not_wait_with_a_write_that_waits_for_another_program_s_lock(tmp_path):
    """While a write of this process waits for another program's lock (SQLite waits up to
    30 s), the Watch still hears of this process's other news at once; the other
    program's commit is heard once the write is through."""
    import sqlite3
    from companion.store.news import News
    app = create_app(tmp_path / "data")
    store = app.config["STORE"]
    first, second = (new_game_poll(app).split("/")[2] for _ in range(2))
    changes = store.news()
    changes.wait(0)
    holder = sqlite3.connect(store.path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another program's write, under way
    waiting = threading.Thread(target=change_elsewhere, args=(store, first))
    waiting.start()
    until(store._writing.locked, "this process's write waits for the lock")
    store._told(second)  # (as a write that went through before would have told)
    heard = []
    watch = threading.Thread(target=lambda: heard.append(changes.wait(0)))
    watch.start()
    watch.join(2)
    try:
        assert heard == [News(frozenset({second}))]  # at once, not after the write
    finally:
        holder.execute("UPDATE games SET stamp = stamp + 1 WHERE token = ?", (second,))
        holder.execute("COMMIT")
        holder.close()
        waiting.join()
    assert changes.wait(0) == News(frozenset({first}), anywhere=True)


def test_the_watch_hears_of_another_process_s_change_though_this_one_s_writer_was_opened_again(tmp_path):
    """A write the database refuses (a seat taken twice) closes the connection this
    process writes on, and a new one's data version starts its count over: another
    process's change made meanwhile is still heard."""
    from companion.store import sqlite
    app = create_app(tmp_path / "data")
    store = app.config["STORE"]
    token = new_game_poll(app).split("/")[2]
    store.claim_seat(token, 0)
    changes = store.news()
    changes.wait(0)
    change_elsewhere(sqlite.Store(tmp_path / "data"), token)
    with pytest.raises(SeatTaken):
        store.claim_seat(token, 0)
    assert changes.wait(0).anywhere


def test_the_watch_hears_of_another_process_s_change_while_this_one_writes_without_a_pause(tmp_path):
    """While this process writes without a pause, the Watch cannot ask the connection it
    writes on: each write reads the data version for it."""
    from companion.store import sqlite
    from companion.store.news import News
    app = create_app(tmp_path / "data")
    store = app.config["STORE"]
    first, second = (new_game_poll(app).split("/")[2] for _ in range(2))
    changes = store.news()
    changes.wait(0)
    change_elsewhere(sqlite.Store(tmp_path / "data"), first)
    change_elsewhere(store, second)
    with store._writing:  # (the next write under way)
        assert changes.wait(0) == News(frozenset({second}), anywhere=True)


