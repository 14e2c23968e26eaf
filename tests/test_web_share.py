"""A fair share under load: the pages that cost the most to draw (a game's history, record
and QR code) are drawn for devices that do not play the game within a budget (so many at
once in all, one at once for a network, so many a second); past it such a device is
answered 503 in words, with Retry-After, and nothing changes, while the game's seated
phones and its host are answered as ever; that answer waits, where a thread kept for a
stream is free, one a network. Requests are held open in the history's drawing, and the
answer's wait, until the test lets them go (no sleeps); the rate's clock is the test's
own."""
import threading

import pytest
from flask import request

from companion.web.guards import share
from companion.web.screens import table
from tests.web_helpers import (GAME, Clock, join, make_app, new_game, phone_client, play,
                               snapshot, text)

BUSY = ("The server is busy with the tables playing on it: try again in a few seconds. "
        "Nothing was changed.")
BUSY_FR = ("Le serveur est occupé par les tables qui y jouent : réessayez dans quelques "
           "secondes. Rien n'a été changé.")  # as read: the no-break space a space
HELD = ("198.51.100.1", "198.51.100.2")  # two strangers' networks, their pages held open
STRANGER, SEATED = "198.51.100.3", "192.168.1.20"
WAIT = 10  # seconds: a test that fails does not hang


@pytest.fixture
def clock(monkeypatch) -> Clock:
    moved = Clock(1_000.0)
    monkeypatch.setattr(share, "clock", moved)
    return moved


@pytest.fixture
def app(tmp_path, clock):
    """The table's app with its budget as the server has it (make_app turns it off);
    phones reach it on the Wi-Fi (the QR code has a link to show)."""
    made = make_app(tmp_path / "data", lan_url="http://192.168.1.2:8000")
    made.config[share.SHARE] = share.Share(share.AT_ONCE, share.EACH, share.PER_SECOND,
                                           share.BURST)
    return made


@pytest.fixture
def table_devices(app):
    """A finished game, a phone holding Anna's seat and the host: (token, phone, host)."""
    host = app.test_client()
    token = new_game(host)
    play(host, token, GAME)
    phone = phone_client(app, SEATED)
    assert join(phone, token, "Anna").status_code == 303
    return token, phone, host


def stranger(app, address: str = STRANGER):
    """A device that does not play the game, which may be turned away (503)."""
    client = phone_client(app, address)
    client.expected = frozenset({503})
    return client


class Held:
    """History pages asked for from `addresses`, each in a thread of its own, held in
    their drawing until `let_go` (at the latest when the `with` block ends)."""

    def __init__(self, monkeypatch, app, token: str, addresses=HELD):
        self.drawing = threading.Barrier(len(addresses) + 1, timeout=WAIT)
        self.go = threading.Event()
        self.addresses, self.answers = addresses, {}
        drawn = table.rounds

        def held_rounds(*args):
            if request.remote_addr in self.addresses:
                self.drawing.wait()
                assert self.go.wait(WAIT)
            return drawn(*args)
        monkeypatch.setattr(table, "rounds", held_rounds)
        self.threads = [threading.Thread(target=self._ask, args=(app, token, address))
                        for address in addresses]
        for thread in self.threads:
            thread.start()

    def __enter__(self) -> "Held":
        self.drawing.wait()  # every one of them is being drawn
        return self

    def __exit__(self, *_) -> None:
        self.let_go()

    def _ask(self, app, token: str, address: str) -> None:
        self.answers[address] = stranger(app, address).get(f"/g/{token}/history").status_code

    def let_go(self) -> dict:
        """The held pages' statuses, once drawn."""
        self.go.set()
        for thread in self.threads:
            thread.join(WAIT)
        return self.answers


def refused_in_words(answer) -> bool:
    return (answer.status_code == 503 and BUSY in text(answer)
            and answer.headers["Retry-After"] == str(share.RETRY_AFTER))


def test_past_the_budget_a_stranger_is_turned_away_in_words_and_the_table_is_served(
        app, table_devices, monkeypatch):
    """AT_ONCE pages held for strangers: another stranger's expensive page is 503 in
    words (English and French), nothing changes; the seated phone and the host are
    answered meanwhile; once the held pages are drawn, the stranger is served again."""
    token, phone, host = table_devices
    with Held(monkeypatch, app, token) as held:
        before = snapshot(app)
        for page in ("history", "record.json", "qr.svg"):
            assert refused_in_words(stranger(app).get(f"/g/{token}/{page}")), page
        french = stranger(app).get(f"/g/{token}/history", headers={"Accept-Language": "fr"})
        assert french.status_code == 503 and BUSY_FR in text(french)
        assert snapshot(app) == before
        for device in (phone, host):
            for page in ("history", "history?page=2", "record.json", "qr.svg"):
                assert device.get(f"/g/{token}/{page}").status_code == 200, page
        assert held.let_go() == {address: 200 for address in HELD}
    assert stranger(app).get(f"/g/{token}/history").status_code == 200


def test_a_network_has_one_expensive_page_drawn_at_once_and_another_network_is_served(
        app, table_devices, monkeypatch):
    token, _, _ = table_devices
    with Held(monkeypatch, app, token, HELD[:1]) as held:
        assert refused_in_words(stranger(app, HELD[0]).get(f"/g/{token}/record.json"))
        assert stranger(app).get(f"/g/{token}/record.json").status_code == 200
        assert held.let_go() == {HELD[0]: 200}
    assert stranger(app, HELD[0]).get(f"/g/{token}/record.json").status_code == 200


def test_strangers_have_so_many_expensive_pages_a_second_and_the_table_has_every_one(
        app, table_devices, clock):
    """BURST pages at once (here one after another), then PER_SECOND a second, for all
    the strangers together; the seated phone and the host are never counted."""
    token, phone, host = table_devices
    answers = [stranger(app, f"198.51.100.{number + 10}").get(f"/g/{token}/history")
               for number in range(share.BURST + 1)]
    assert [answer.status_code for answer in answers] == [200] * share.BURST + [503]
    assert refused_in_words(answers[-1])
    for device in (phone, host):
        assert [device.get(f"/g/{token}/history").status_code
                for _ in range(share.BURST)] == [200] * share.BURST
    clock.now += 1 / share.PER_SECOND
    assert [stranger(app).get(f"/g/{token}/history").status_code
            for _ in range(2)] == [200, 503]


def test_on_a_hosted_server_the_device_that_started_a_game_is_never_turned_away(
        tmp_path, clock):
    app = make_app(tmp_path / "data", hosted=True)
    app.config[share.SHARE] = share.Share(share.AT_ONCE, share.EACH, share.PER_SECOND, 0)
    host = phone_client(app, "203.0.113.7")
    token = new_game(host)
    assert refused_in_words(stranger(app).get(f"/g/{token}/history"))
    assert host.get(f"/g/{token}/history").status_code == 200


class Pauses:
    """The share's pause, which holds a turned-away answer: here until the test lets it
    go; the seconds asked for kept."""

    def __init__(self):
        self.asked, self.go = [], threading.Event()
        self.entered = threading.Barrier(2, timeout=WAIT)

    def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)
        self.entered.wait()
        assert self.go.wait(WAIT)


def test_a_turned_away_answer_waits_in_a_thread_no_stream_uses_one_a_network(
        app, table_devices, clock, monkeypatch):
    """The budget spent: a stranger's 503 comes after HOLD seconds, in a thread kept for
    a stream (here one is free); meanwhile another of its network, and a stranger of
    another network (no thread free), are answered at once, and the table is served."""
    token, phone, host = table_devices
    app.config[share.SHARE] = share.Share(share.AT_ONCE, share.EACH, share.PER_SECOND, 0)
    app.extensions["changes"].held = 1
    pauses = Pauses()
    monkeypatch.setattr(share, "pause", pauses)
    answers = {}
    held = threading.Thread(target=lambda: answers.update(
        held=stranger(app, HELD[0]).get(f"/g/{token}/history")))
    held.start()
    try:
        pauses.entered.wait()  # its answer is held
        for address in (HELD[0], HELD[1]):
            assert refused_in_words(stranger(app, address).get(f"/g/{token}/record.json"))
        assert phone.get(f"/g/{token}/history").status_code == 200
        assert host.get(f"/g/{token}/history").status_code == 200
        assert "held" not in answers
    finally:
        pauses.go.set()
        held.join(WAIT)
    assert refused_in_words(answers["held"])
    assert pauses.asked == [share.HOLD]
