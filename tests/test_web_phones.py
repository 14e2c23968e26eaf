"""The address phones are shown on the table screen: the first offered, in the QR code and
in words; a host device shows another in one tap, and every screen follows; a phone or a
made-up address changes nothing."""
import pytest

from companion.web import create_app
from companion.web.render.qr import qr_svg
from companion.web.screens import phones
from tests.web_helpers import (find_form, make_app, new_game, page_headers, phone_client,
                               snapshot, submit, text)

WIFI, VPN = "http://192.168.1.20:8421", "http://10.8.0.2:8421"


def make(data_dir):
    return make_app(data_dir, WIFI, others=[(VPN, "VPN")])


@pytest.fixture
def app(tmp_path):
    return make(tmp_path / "data")


@pytest.fixture
def game(app):
    return new_game(app.test_client())


def shown(client, token) -> str:
    """The address the table screen gives in words."""
    words = text(client.get(f"/g/{token}"))
    return words.split("No camera? Open ", 1)[1].split(" ", 1)[0]


def test_the_best_address_is_shown_and_the_host_is_offered_the_others(app, game):
    host = app.test_client()
    page = host.get(f"/g/{game}")
    assert shown(host, game) == WIFI
    assert "Phones cannot open it? Show another address: http://10.8.0.2:8421 (VPN)" in text(page)
    assert host.get(f"/g/{game}/qr.svg").data == qr_svg(f"{WIFI}/g/{game}/join")


def test_one_tap_shows_another_address_on_every_screen(app, game):
    host, phone = app.test_client(), phone_client(app)
    seen = app.config["STORE"].stamp(game)
    answer = submit(host, f"/g/{game}", "phone-address", address=VPN)  # its button
    assert answer.status_code == 303 and answer.headers["Location"] == f"/g/{game}"
    assert shown(host, game) == VPN and shown(phone, game) == VPN
    assert host.get(f"/g/{game}/qr.svg").data == qr_svg(f"{VPN}/g/{game}/join")
    assert "http://192.168.1.20:8421 (Wi-Fi)" in text(host.get(f"/g/{game}"))  # and back
    assert host.get(f"/g/{game}/live?v={seen}").status_code == 200  # screens draw again
    assert VPN in text(host.get(f"/g/{game}/tv"))


def test_a_phone_is_not_offered_the_addresses_and_cannot_change_them(app, game):
    host, phone = app.test_client(), phone_client(app)
    form = find_form(host.get(f"/g/{game}"), "phone-address")
    assert "Show another address" not in text(phone.get(f"/g/{game}"))
    before = snapshot(app)
    answer = phone.post(form.action, data={"csrf_token": phone_csrf(phone, game),
                                           "address": VPN})
    assert answer.status_code == 403 and "Only the host's device can do this." in text(answer)
    assert shown(host, game) == WIFI and snapshot(app) == before


def phone_csrf(client, game) -> str:
    return page_headers(client.get(f"/g/{game}"))["X-CSRF-Token"]


def test_an_address_the_server_does_not_have_is_refused_in_words(app, game):
    host = app.test_client()
    answer = submit(host, f"/g/{game}", "phone-address", address="http://evil.example:80")
    assert answer.status_code == 400
    assert "This server has no address http://evil.example:80" in text(answer)
    assert shown(host, game) == WIFI


def test_a_new_start_shows_the_first_address_again(app, game, tmp_path):
    """The addresses may differ at the next start (another network): the choice is the
    host's for this run of the server."""
    submit(app.test_client(), f"/g/{game}", "phone-address", address=VPN)
    assert shown(make(tmp_path / "data").test_client(), game) == WIFI


def test_with_one_address_nothing_is_offered(tmp_path):
    app = create_app(tmp_path / "data", addresses=[(WIFI, "Wi-Fi")])
    host = app.test_client()
    game = new_game(host)
    assert "Show another address" not in text(host.get(f"/g/{game}"))


def test_a_network_that_comes_up_while_the_server_runs_is_offered(tmp_path, monkeypatch):
    """A hotspot turned on after the start: read again within REREAD seconds, its address
    is offered on the table screen in words, and one gone is no longer."""
    now, found = [0.0], [(WIFI, "Wi-Fi")]
    monkeypatch.setattr(phones, "clock", lambda: now[0])
    app = make_app(tmp_path / "data", others=())
    phones.init(app, lambda: list(found))
    host = app.test_client()
    token = new_game(host)
    assert "Show another address" not in text(host.get(f"/g/{token}"))
    found.append(("http://192.168.43.1:8421", "hotspot"))
    now[0] = phones.REREAD - 1
    assert "Show another address" not in text(host.get(f"/g/{token}"))
    now[0] = phones.REREAD
    assert ("Show another address: http://192.168.43.1:8421 (hotspot)"
            in text(host.get(f"/g/{token}")))
    found.pop()
    now[0] = 2 * phones.REREAD
    assert "Show another address" not in text(host.get(f"/g/{token}"))
