"""No device can buy the server's time with changes: past what a table does (a burst, then
one a second) a device's changes are refused in words and nothing is done; the server's
own device is never held back, and another device is not either. The count is kept in
the database: two server processes on it count a device's changes together."""
from companion.web import create_app
from companion.web.guards.pace import CHANGES_BURST, CHANGES_RATE, PACE
from tests.web_helpers import (GAME, CheckedClient, copy_session, csrf_headers, join, new_game,
                               phone_client, play, snapshot, submit, text)

TOO_FAST = ("This device sends changes faster than a table plays: try again in a few "
            "seconds. Nothing was changed.")


def paced_app(data_dir, hosted=False):
    """The app as the server runs it: its pace on (the tests' make_app turns it off), with
    the burst it allows and a refill too slow to matter while a test runs (however slow the
    machine: the store's bucket and its refill are tests/test_store_contract.py's)."""
    app = create_app(data_dir, hosted=hosted)
    app.config[PACE] = (CHANGES_RATE / 1000, CHANGES_BURST)
    app.test_client_class = CheckedClient
    app.extensions["test_errors"] = []
    return app


def test_a_device_sending_changes_faster_than_a_table_plays_is_refused_in_words(tmp_path):
    app = paced_app(tmp_path / "data")
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
    assert TOO_FAST in text(refused)
    assert snapshot(app) == before
    assert join(other, game, "Bert").status_code == 303  # another device is not held back
    play(host, game, GAME)  # 41 changes at once: the server's own device is never held back


def test_two_server_processes_count_a_device_s_changes_together(tmp_path):
    """Half the burst through each of two apps on one database (two processes, or two
    machines behind a load balancer): the next change is refused by either."""
    first, second = (paced_app(tmp_path / "data") for _ in range(2))
    game = new_game(first.test_client())
    phone, phone_there = phone_client(first), phone_client(second)
    assert join(phone, game, "Anna").status_code == 303
    copy_session(phone, phone_there)
    for client in (phone, phone_there):
        headers = csrf_headers(client, f"/g/{game}")
        for _ in range(CHANGES_BURST // 2 - 1):
            assert client.post(f"/g/{game}/undo", headers=headers).status_code != 429
    answers = [client.post(f"/g/{game}/undo", headers=csrf_headers(client, f"/g/{game}"))
               for client in (phone, phone_there)]
    assert answers[0].status_code != 429  # the 30th change: the burst's last
    assert answers[1].status_code == 429 and TOO_FAST in text(answers[1])


def test_a_hosted_server_paces_the_loopback_too(tmp_path):
    """--hosted has no device of its own: the loopback is counted as any device is."""
    app = paced_app(tmp_path / "data", hosted=True)
    maker = app.test_client()
    game = new_game(maker)  # one change
    headers = csrf_headers(maker, f"/g/{game}")
    answers = [maker.post(f"/g/{game}/undo", headers=headers).status_code
               for _ in range(CHANGES_BURST)]
    assert answers.count(429) == 1 and answers[-1] == 429
