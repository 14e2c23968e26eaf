"""A game survives a server restart: same data directory, a new app."""
import sqlite3

from tests.web_helpers import (FIRST_SALE, GAME, copy_session, join, make_app, new_game,
                               phone_client, play, stamp, stored, text)


def test_game_events_and_seat_survive_a_restart(tmp_path):
    before_app = make_app(tmp_path / "data")
    host, phone = before_app.test_client(), phone_client(before_app)
    token = new_game(host)
    join(phone, token, "Bert")
    play(host, token, GAME[:2])
    old, latest = stamp(before_app, token) - 1, stamp(before_app, token)
    saved = stored(before_app, token)

    app = make_app(tmp_path / "data")  # the server restarts
    host, phone_again = app.test_client(), phone_client(app)
    copy_session(phone, phone_again)  # the phone's browser kept its cookie
    assert stored(app, token) == saved
    assert token in host.get("/").get_data(as_text=True)
    me = phone_again.get(f"/g/{token}/me")
    assert me.status_code == 200 and "<h1>Bert</h1>" in me.get_data(as_text=True)
    assert all(words in text(me) for words in FIRST_SALE)
    unchanged = phone_again.get(f"/g/{token}/me/live?v={latest}")
    assert unchanged.status_code == 204 and unchanged.data == b""
    changed = phone_again.get(f"/g/{token}/me/live?v={old}", headers={"HX-Request": "true"})
    assert changed.status_code == 200 and all(words in text(changed) for words in FIRST_SALE)
    assert host.get(f"/g/{token}/live?v={latest}").status_code == 204


def test_a_data_directory_from_before_the_moves_column_still_opens(tmp_path):
    """An older server's database gains the column on start; its games play on."""
    first = make_app(tmp_path / "data")
    host = first.test_client()
    token = new_game(host)
    play(host, token, GAME[:2])
    with sqlite3.connect(first.config["STORE"].path) as db:
        db.execute("ALTER TABLE games DROP COLUMN moves")
    app = make_app(tmp_path / "data")
    host = app.test_client()
    assert all(words in text(host.get(f"/g/{token}")) for words in FIRST_SALE)
    play(host, token, GAME[2:4])
    assert len(stored(app, token)[1]) == 4
