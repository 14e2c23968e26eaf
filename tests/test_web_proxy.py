"""Behind a reverse proxy (`--proxy ADDRESS`, issue 30): the devices' own addresses and
scheme, believed from the proxy only; under HTTPS, cookies over HTTPS only and HSTS; the
public name answered; the server's limits leave the proxy to the app's, which count each
device."""
import http.client


from companion.web import create_app
from companion.web.guards.pace import DEVICE_PACE, PACE
from companion.web.screens.host import CODES_PER_HOUR
from companion.web.guards.proxy import HSTS
from tests.served import served
from tests.web_helpers import (CheckedClient, csrf_headers, join, new_game, phone_client,
                               submit, text)

PROXY = "10.0.0.2"
CHANGES_BURST = DEVICE_PACE[1]


def behind_proxy(tmp_path):
    """An app behind the proxy at PROXY, whose public name is games.example.org."""
    app = create_app(tmp_path / "data", names=["games.example.org"], proxy=PROXY)
    app.test_client_class = CheckedClient
    app.extensions["test_errors"] = []
    return app


def through_proxy(app, device: str, scheme: str = "https"):
    """A device reaching the server through the proxy: the proxy's address, the device's
    in X-Forwarded-For."""
    client = phone_client(app, PROXY)
    client.environ_base.update(HTTP_X_FORWARDED_FOR=device, HTTP_X_FORWARDED_PROTO=scheme)
    return client


def test_a_device_through_the_proxy_is_itself_and_the_proxy_s_machine_is_not_the_host(
        tmp_path):
    """The proxy runs on another machine; a device it forwards is a viewer (R12: the
    host's rights are the server's own device's), told so in words, never the proxy."""
    app = behind_proxy(tmp_path)
    game = new_game(app.test_client())
    device = through_proxy(app, "203.0.113.5")
    page = device.get(f"/g/{game}")
    assert page.status_code == 200 and "Reveal these 2 cards" not in text(page)
    refused = device.post(f"/g/{game}/undo", headers=csrf_headers(device, f"/g/{game}"))
    assert refused.status_code == 403 and text(refused)


def test_forwarded_headers_from_anyone_but_the_proxy_are_ignored(tmp_path):
    """A phone that claims to be the server's own device (X-Forwarded-For: 127.0.0.1) is
    still the phone."""
    app = behind_proxy(tmp_path)
    game = new_game(app.test_client())
    liar = phone_client(app, "192.168.1.20")
    liar.environ_base.update(HTTP_X_FORWARDED_FOR="127.0.0.1")
    assert "Reveal these 2 cards" not in text(liar.get(f"/g/{game}"))
    assert "Reveal these 2 cards" in text(app.test_client().get(f"/g/{game}"))


def test_under_https_cookies_go_over_https_only_and_browsers_are_told_to_keep_to_it(
        tmp_path):
    app = behind_proxy(tmp_path)
    game = new_game(app.test_client())
    secure = through_proxy(app, "203.0.113.5").get(f"/g/{game}")
    assert secure.headers["Strict-Transport-Security"] == "max-age=31536000"
    assert all("Secure" in cookie for cookie in secure.headers.getlist("Set-Cookie"))
    plain = through_proxy(app, "203.0.113.6", scheme="http").get(f"/g/{game}")
    assert "Strict-Transport-Security" not in plain.headers
    assert not any("Secure" in cookie for cookie in plain.headers.getlist("Set-Cookie"))
    assert plain.headers.getlist("Set-Cookie")  # the session's cookie, sent all the same


def test_without_a_proxy_no_forwarded_header_is_believed(tmp_path):
    app = create_app(tmp_path / "data")
    app.test_client_class = CheckedClient
    app.extensions["test_errors"] = []
    game = new_game(app.test_client())
    phone = phone_client(app, "192.168.1.20")
    phone.environ_base.update(HTTP_X_FORWARDED_PROTO="https")
    answer = phone.get(f"/g/{game}")
    assert "Strict-Transport-Security" not in answer.headers
    assert not any("Secure" in cookie for cookie in answer.headers.getlist("Set-Cookie"))


def test_only_the_public_name_and_this_machine_s_are_answered(tmp_path):
    app = behind_proxy(tmp_path)
    game = new_game(app.test_client())
    device = through_proxy(app, "203.0.113.5")
    assert device.get(f"/g/{game}", headers={"Host": "evil.example.com"}).status_code == 400
    assert device.get(f"/g/{game}", headers={"Host": "games.example.org"}).status_code == 200


def test_each_device_behind_the_proxy_has_its_own_pace_of_changes(tmp_path):
    """Two devices through one proxy: one past its burst is refused (429), the other
    not."""
    app = behind_proxy(tmp_path)
    game = new_game(app.test_client())
    fast, calm = through_proxy(app, "203.0.113.5"), through_proxy(app, "203.0.113.6")
    assert join(fast, game, "Anna").status_code == 303
    headers = csrf_headers(fast, f"/g/{game}")
    answers = [fast.post(f"/g/{game}/undo", headers=headers).status_code
               for _ in range(2 * CHANGES_BURST)]  # (a burst, then one a second)
    assert 429 in answers[CHANGES_BURST:] and 429 not in answers[:CHANGES_BURST - 1]  # (and a join)
    assert join(calm, game, "Bert").status_code == 303


def test_each_network_behind_the_proxy_has_its_own_count_of_game_codes(tmp_path):
    """The game codes anyone may type are counted for the network the proxy forwards: one
    past its count waits, another reaching the server through the same proxy does not."""
    app = behind_proxy(tmp_path)
    app.config[PACE] = None  # (the codes, not the pace of a device's forms)
    new_game(app.test_client())
    guesser, other = through_proxy(app, "2001:db8:5:1::7"), through_proxy(app, "2001:db8:5:2::7")
    headers = csrf_headers(guesser)
    answers = [guesser.post("/code", headers=headers, data={"code": "AAA-AAAA"}).status_code
               for _ in range(CODES_PER_HOUR + 1)]
    assert answers == [404] * CODES_PER_HOUR + [429]
    assert submit(other, "/", "game-code", code="AAA-AAAA").status_code == 404


def test_the_real_server_leaves_the_proxy_s_headers_to_the_app(tmp_path):
    """On waitress, as the table runs it (not Flask's test client): a device the proxy on
    this machine forwards is itself, not the host, and HTTPS is seen (waitress took the
    headers out before the app saw them, found by a review)."""
    app = create_app(tmp_path / "data", names=["games.example.org"], proxy="127.0.0.1")
    with served(app) as (port, _):
        forwarded = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        forwarded.request("GET", "/", headers={"Host": "games.example.org",
                                               "X-Forwarded-For": "203.0.113.5",
                                               "X-Forwarded-Proto": "https"})
        answer = forwarded.getresponse()
        page = answer.read().decode()
        forwarded.close()
    assert answer.status == 200 and "New game" not in page  # not the host's page
    assert answer.getheader("Strict-Transport-Security") == HSTS
