"""Two devices record the same round at once: exactly one applies, the other is told."""
import threading

from companion.store import games
from tests.web_helpers import (CONFLICT_NOTE, GAME, action_fields, alerts, find_form, join,
                               page_headers, phone_client, play, stored, text)
from tests.web_helpers import app, game, host  # noqa: F401 (fixtures)


def race(app, token, monkeypatch) -> list:
    """Two table screens showing the same version submit a different sale of the lot: the
    responses.

    A barrier starts both requests together; a second one inside games.append lets both
    read the game before either writes, so the store's version check decides.
    """
    clients = [app.test_client(), app.test_client()]
    pages = [client.get(f"/g/{token}") for client in clients]
    sales = [action_fields("sold", "Anna", 3), action_fields("sold", "Bert", 5)]
    start, write = threading.Barrier(2, timeout=10), threading.Barrier(2, timeout=10)
    append, results = games.append, []

    def both_read_then_append(*args):
        write.wait()
        return append(*args)

    monkeypatch.setattr(games, "append", both_read_then_append)

    def submit(client, page, sale):
        form = find_form(page, "action-sold")
        start.wait()
        results.append(client.post(form.action, data=form.fields | sale,
                                   headers=page_headers(page)))

    threads = [threading.Thread(target=submit, args=args)
               for args in zip(clients, pages, sales)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    return results


def test_two_devices_submit_the_same_round_at_once(app, host, game, monkeypatch):
    play(host, game, GAME[:1])
    version, events = stored(app, game)
    results = race(app, game, monkeypatch)
    assert sorted(response.status_code for response in results) == [303, 409]
    new_version, new_events = stored(app, game)
    assert len(new_events) == len(events) + 1 and new_version == version + 1
    applied = new_events[-1]
    loser = next(response for response in results if response.status_code == 409)
    note = text(loser)
    assert CONFLICT_NOTE in note
    assert ("Recorded first by the host's device at" in note and
            f"{applied['winner']} bought the lot for {applied['price']}. "
            "Your sale was not recorded." in note)


def test_stale_version_alone_gives_409(app, host, game):
    """A form showing an old version is refused even if the action is still legal."""
    play(host, game, GAME[:1])
    page = host.get(f"/g/{game}")
    play(host, game, [("overbid", "Claus", None)])
    before = stored(app, game)
    form = find_form(page, "action-sold")
    response = host.post(form.action, data=form.fields | action_fields("sold", "Anna", 3),
                         headers=page_headers(page))
    assert response.status_code == 409 and CONFLICT_NOTE in text(response)
    assert "Claus bid more than they hold" in text(response)
    assert stored(app, game) == before


def test_a_device_that_missed_the_sale_is_told_another_device_recorded_it(app, host, game):
    play(host, game, GAME[:1])
    other = app.test_client()
    page = other.get(f"/g/{game}")
    play(host, game, GAME[1:2])
    before = stored(app, game)
    form = find_form(page, "action-sold")
    response = other.post(form.action, data=form.fields | action_fields("sold", "Bert", 5),
                          headers=page_headers(page))
    assert stored(app, game) == before
    assert response.status_code == 409 and CONFLICT_NOTE in text(response), (
        response.status_code, alerts(response))


def test_a_phone_taking_a_seat_does_not_make_the_table_form_stale(app, host, game):
    play(host, game, GAME[:1])
    page = host.get(f"/g/{game}")
    join(phone_client(app), game, "Bert")
    form = find_form(page, "action-sold")
    response = host.post(form.action, data=form.fields | action_fields("sold", "Anna", 3),
                         headers=page_headers(page))
    assert response.status_code == 303, text(response)
