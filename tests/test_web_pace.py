"""No device can buy the server's time with changes: past what a table does (a burst, then
one a second) a device's changes are refused in words and nothing is done; the server's
own device is never held back, and another device is not either."""
from companion.web import create_app
from companion.web.guards.pace import CHANGES_BURST
from tests.web_helpers import (GAME, CheckedClient, csrf_headers, join, new_game, phone_client, play,
                               snapshot, submit, text)


def test_a_device_sending_changes_faster_than_a_table_plays_is_refused_in_words(tmp_path):
    app = create_app(tmp_path / "data")
    app.test_client_class = CheckedClient
    app.extensions["test_errors"] = []
    host = app.test_client()
    game = new_game(host)
    phone, other = phone_client(app), phone_client(app, "192.168.1.21")
    assert join(phone, game, "Anna").status_code == 303
    headers = csrf_headers(phone, f"/g/{game}")
    for _ in range(CHANGES_BURST - 1):  # a burst is fine: here, undos with nothing to undo
        assert phone.post(f"/g/{game}/undo", headers=headers).status_code != 429
    before = snapshot(app)
    refused = submit(phone, f"/g/{game}", "action-reveal", cards=["0:0", "1:5"])
    assert refused.status_code == 429
    assert ("This device sends changes faster than a table plays: try again in a few "
            "seconds. Nothing was changed.") in text(refused)
    assert snapshot(app) == before
    assert join(other, game, "Bert").status_code == 303  # another device is not held back
    play(host, game, GAME)  # 41 changes at once: the server's own device is never held back
