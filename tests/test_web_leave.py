"""A phone that changes hands leaves its seat (issue 27): a seated phone frees its own seat,
confirmed on its screen, and then only watches; no other device can free a seat that way."""
from tests.web_helpers import csrf_headers, join, phone_client, submit, text
from tests.web_helpers import app, game, host, phone  # noqa: F401 (fixtures)


def leave(client, token):
    """The phone's "Leave this seat" form, sent from its own screen."""
    return submit(client, f"/g/{token}/me", "leave-seat")


def test_a_seated_phone_leaves_its_seat_for_another_phone(app, phone, game):
    join(phone, game, "Bert")
    page = text(phone.get(f"/g/{game}/me"))
    assert "Leave this seat" in page and "Leave Bert's seat" in page
    answer = leave(phone, game)
    assert answer.status_code == 303 and answer.headers["Location"] == f"/g/{game}/join"
    assert app.config["STORE"].seats_taken(game) == []
    assert phone.get(f"/g/{game}/me").headers["Location"] == f"/g/{game}/join"  # it watches
    other = phone_client(app, "192.168.1.21")
    assert join(other, game, "Bert").status_code == 303
    assert "Leave Bert's seat" in text(other.get(f"/g/{game}/me"))


def test_only_a_device_holding_a_seat_may_leave_it(app, host, phone, game):
    """A phone without a seat and the host's device without one get 403 in words; the
    seats stay as they were."""
    join(phone_client(app, "192.168.1.21"), game, "Anna")
    for client in (phone, host):
        answer = client.post(f"/g/{game}/me/leave", headers=csrf_headers(client, f"/g/{game}"))
        assert answer.status_code == 403
        assert "holds no seat in this game" in text(answer)
    assert app.config["STORE"].seats_taken(game) == [0]


def test_a_phone_whose_seat_the_host_gave_away_cannot_free_it(app, host, phone, game):
    join(phone, game, "Bert")
    headers = csrf_headers(phone, f"/g/{game}/me")
    submit(host, f"/g/{game}", f"/g/{game}/seats/1/free")
    join(phone_client(app, "192.168.1.21"), game, "Bert")
    assert phone.post(f"/g/{game}/me/leave", headers=headers).status_code == 403
    assert app.config["STORE"].seats_taken(game) == [1]
