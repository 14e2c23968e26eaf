"""Every pair of changes two devices can send at once, each route with itself too: no
server error, one applies and the other is told (or both apply when they do not touch
the same thing), and the game ends as if the winners alone had been sent.

Both devices read their form from the same version of the game first. Each pair is
raced in three fixed orders (one after the other, both ways; both read the game before
either writes), and once more truly at once.
"""
import itertools
import threading

import pytest

from companion.rules.events import Penalty, SideSale, Sold
from companion.rules.record import dump_event
from companion.store import games
from tests.helpers import card, reveal
from tests.web_helpers import (CONFLICT_NOTE, action_fields, alerts, find_form, forms,
                               make_app, page_headers, phone_client, seat, text)

PLAYERS = ("Anna", "Bert", "Claus", "Dora")
# Round 2's lot is out and Bert paid a penalty (action 5); Anna and Dora hold seats.
BASE = [reveal("red 0 yellow 5"), Sold("Anna", 3), SideSale("Anna", card("red 0"), "Bert", 2),
        reveal("red 1 yellow 6"), Penalty("Bert")]
RECORD = {"format": "templari-game/1", "edition": "en", "players": list(PLAYERS),
          "variants": {"side_auctions": True}, "events": [dump_event(e) for e in BASE]}
ANNA, DORA = 0, 3
LAST = len(BASE) - 1
TAKEN = "That seat is already taken on another phone"

# Each change: the page its form is read from, the form, the fields filled in.
CHANGES = {
    "action": ("/g/{t}", "action-sold", action_fields("sold", "Bert", 4)),
    "undo": ("/g/{t}", "undo", {}),
    "correction": (f"/g/{{t}}/history/{LAST}", "action-penalty", {"player": seat("Anna")}),
    "removal": (f"/g/{{t}}/history/{LAST}", "action-remove", {}),
    "seat claim": ("/g/{t}/join", "seats", {"seat": seat("Bert")}),
    "other seat claim": ("/g/{t}/join", "seats", {"seat": seat("Claus")}),
    "seat freeing": ("/g/{t}", f"/g/{{t}}/seats/{DORA}/free", {}),
}
GAME_CHANGES = ("action", "undo", "correction", "removal")  # each moves the game's version
PAIRS = [*itertools.combinations_with_replacement(
    [change for change in CHANGES if change != "other seat claim"], 2),
    ("seat claim", "other seat claim")]


def conflicting(first: str, second: str) -> bool:
    """Whether only one of the two may apply."""
    return ({first, second} <= set(GAME_CHANGES)
            or first == second == "seat claim")


def base_game(app) -> tuple[str, dict]:
    """A new game at BASE with Anna's and Dora's phones seated: its token and those phones."""
    store = app.config["STORE"]
    token = games.create(store, RECORD, games.Options())
    phones = {}
    for number in (ANNA, DORA):
        phones[number] = phone_client(app, f"192.168.1.{20 + number}")
        with phones[number].session_transaction() as session:
            session["seats"] = {token: store.claim_seat(token, number)}
    return token, phones


def device(app, change: str, slot: int, phones: dict):
    """Who sends the change: a host device, or for game changes Anna's phone as the second
    device; a seat is claimed by a phone without one."""
    if change in GAME_CHANGES and slot == 1:
        return phones[ANNA]
    if "claim" in change:
        return phone_client(app, f"192.168.1.{40 + slot}")
    return app.test_client()


def prepared(app, token, change, client):
    """The change's form read from its page, ready to send: a function that sends it."""
    url, key, fields = (part.format(t=token) if isinstance(part, str) else part
                        for part in CHANGES[change])
    page = client.get(url)
    assert page.status_code == 200, (change, page.status_code)
    form = find_form(page, key)
    data, headers = form.fields | fields, page_headers(page)
    return lambda: client.post(form.action or url, data=data, headers=headers)


def outcome(app, token) -> tuple:
    """What a race leaves: the log, the seats held, the kinds of journal entries."""
    game = app.config["STORE"].game(token)
    return game.events, sorted(game.seats), [entry["kind"] for _, _, entry in game.journal]


def alone(app, changes) -> tuple:
    """The outcome of sending `changes` one after the other on a fresh base game."""
    token, phones = base_game(app)
    for slot, change in enumerate(changes):
        assert prepared(app, token, change, device(app, change, slot, phones))().status_code == 303
    return outcome(app, token)


def run_threads(sends) -> list:
    """Send both at once (a barrier starts them together); their responses in order."""
    start, results = threading.Barrier(len(sends), timeout=20), [None] * len(sends)

    def send(index):
        start.wait()
        try:
            results[index] = sends[index]()
        except BaseException as error:  # noqa: BLE001 (reported by the main thread)
            results[index] = error

    threads = [threading.Thread(target=send, args=(index,)) for index in range(len(sends))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results


def both_read_then_write(app, sends, monkeypatch) -> list:
    """Send both at once, and hold each at its write until both have read the game."""
    store, gate = app.config["STORE"], threading.Barrier(len(sends), timeout=20)

    def held(write):
        def wait_then_write(*args, **kwargs):
            gate.wait()
            return write(*args, **kwargs)
        return wait_then_write

    for name in ("write_events", "claim_seat", "free_seat"):
        monkeypatch.setattr(store, name, held(getattr(store, name)))
    try:
        return run_threads(sends)
    finally:
        monkeypatch.undo()


SCHEDULES = {
    "first, then second": lambda app, sends, monkeypatch: [send() for send in sends],
    "second, then first": lambda app, sends, monkeypatch: [send() for send in sends[::-1]][::-1],
    "both read, then write": both_read_then_write,
    "at once": lambda app, sends, monkeypatch: run_threads(sends),
}


def check_loser(app, token, change, response):
    """The device that lost is told why, on a screen showing the game as it now is."""
    assert response.status_code == 409, (change, response.status_code, alerts(response))
    if change in GAME_CHANGES:
        assert CONFLICT_NOTE in text(response), text(response)
        version = app.config["STORE"].game(token).version
        shown = {value for form in forms(response) for value in form.fields.get("version", [])}
        assert shown <= {str(version)}, (change, shown, version)
    else:
        assert TAKEN in text(response)


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """One app for every race: each race plays on a new game of its own."""
    return make_app(tmp_path_factory.mktemp("data"))


@pytest.fixture(scope="module")
def expected() -> dict:
    """The outcome of each set of changes sent alone, worked out once for all the pairs."""
    return {}


@pytest.mark.parametrize("pair", PAIRS, ids=[" + ".join(pair) for pair in PAIRS])
def test_two_devices_send_changes_at_once(app, pair, expected, monkeypatch):
    for schedule, race in SCHEDULES.items():
        token, phones = base_game(app)
        sends = [prepared(app, token, change, device(app, change, slot, phones))
                 for slot, change in enumerate(pair)]
        responses = race(app, sends, monkeypatch)
        statuses = [response.status_code for response in responses]
        applied = tuple(change for change, status in zip(pair, statuses) if status == 303)
        if conflicting(*pair):
            assert sorted(statuses) == [303, 409], (schedule, statuses)
            loser = statuses.index(409)
            check_loser(app, token, pair[loser], responses[loser])
        else:
            assert statuses == [303, 303], (schedule, statuses)
        if applied not in expected:  # a seat freed twice is freed once
            expected[applied] = alone(app, tuple(dict.fromkeys(applied)))
        assert outcome(app, token) == expected[applied], (schedule, applied)
