"""Hostile names, CSRF, tokens, cookies, the host's rights, seats, bad input, no 500s,
security headers and pages that need no inline script or style."""
import re
from html.parser import HTMLParser

import pytest

from companion.web.screens import phones
from tests.web_helpers import (GAME, PLAYERS, act, action_fields, alerts, body, csrf_headers,
                               find_form, import_record, join, new_game, phone_client, play,
                               snapshot, stamp, submit, text, version)
from tests.web_helpers import app, game, host, phone  # noqa: F401 (fixtures)
from tests.web_helpers import make_app

SCRIPT = "<script>alert(1)</script>"
QUOTES = "\"'><img src=x onerror=alert(1)>"
HOSTILE = (SCRIPT, QUOTES, "Claus")


def assert_inert(page):
    """No hostile markup got through as markup, and the names still show as text."""
    raw = body(page)
    assert "<script>alert" not in raw and "<img src=x" not in raw
    assert SCRIPT in text(page) or QUOTES in text(page)


def test_hostile_names_are_shown_as_text_on_every_page(host, phone):
    token = new_game(host, players=HOSTILE)
    assert join(phone, token, SCRIPT, players=HOSTILE).status_code == 303
    play(host, token, GAME[:-1])  # round 15 is revealed: names in every form
    pages = [host.get("/"), host.get(f"/g/{token}"), host.get(f"/g/{token}/live"),
             host.get(f"/g/{token}/join"), phone.get(f"/g/{token}/me"),
             phone.get(f"/g/{token}/me/live"), host.get(f"/g/{token}/history"),
             host.get(f"/g/{token}/history/1"),
             host.get(f"/g/{token}/preview?winner=0&price=5")]
    play(host, token, GAME[-1:])
    pages += [host.get(f"/g/{token}/score"), host.get(f"/g/{token}")]
    for page in pages:
        assert page.status_code == 200
        assert_inert(page)
    assert f"Winner: {QUOTES}" in text(pages[-2])


@pytest.mark.parametrize("players, message", [
    (("A" * 41, "Bert", "Claus"), "is longer than 40 characters (R1)"),
    (("Anna", "Anna", "Claus"), "Two players are called 'Anna' (R1)."),
    (("Anna", "   ", "Claus"), "Templari is for 3 to 5 players, not 2 (R1)"),  # blank is dropped
    (("", "", ""), "Templari is for 3 to 5 players, not 0 (R1)"),
])
def test_bad_names_are_refused_with_a_message(app, host, players, message):
    """R1: 3-5 players with distinct non-empty names of at most 40 characters."""
    response = new_game(host, players=players, expect=422)
    assert any(message in alert for alert in alerts(response)), alerts(response)
    assert snapshot(app) == []


def test_blank_name_in_an_imported_record_is_refused(app, host):
    record = b'{"format": "templari-game/1", "edition": "en", "players": ["A", " ", "C"], ' \
             b'"events": []}'
    response = import_record(host, record)
    assert response.status_code == 422
    assert "A player needs a non-empty name (R1)." in alerts(response)
    assert snapshot(app) == []


POSTS = {  # what each form would change, as a browser would send it
    "/g/{t}/act": {"action": "sold", "winner": "0", "price": "3"},
    "/g/{t}/undo": {},
    "/g/{t}/join": {"seat": "1"},
    "/g/{t}/seats/0/free": {},
    "/new": {"player": list(PLAYERS), "family": ["a", "b", "c", "d", "e", "f"]},
}


@pytest.mark.parametrize("csrf", [None, "wrong"], ids=["missing", "wrong"])
@pytest.mark.parametrize("path", POSTS)
def test_post_without_the_right_csrf_token_gets_400_and_changes_nothing(app, host, game, path,
                                                                        csrf):
    play(host, game, GAME[:1])
    join(host, game, "Anna")
    before = snapshot(app)
    data = {**POSTS[path], "version": str(version(app, game))}
    headers = {} if csrf is None else {"X-CSRF-Token": csrf}
    response = host.post(path.format(t=game), data=data | ({"csrf_token": csrf} if csrf else {}),
                         headers=headers)
    assert response.status_code == 400
    assert "could not be understood" in text(response)
    assert snapshot(app) == before


@pytest.mark.parametrize("path", ["/g/{t}", "/g/{t}/live?v=0", "/g/{t}/join", "/g/{t}/me",
                                  "/g/{t}/history", "/g/{t}/score", "/g/{t}/record.json",
                                  "/g/{t}/qr.svg", "/nowhere"])
def test_unknown_game_gives_the_404_page(host, path):
    response = host.get(path.format(t="no-such-game-0123456789"))
    assert response.status_code == 404
    assert "There is no such page or game here" in text(response)
    assert "Traceback" not in body(response)


def test_game_urls_carry_long_random_tokens(host):
    tokens = [new_game(host) for _ in range(3)]
    assert len(set(tokens)) == 3
    assert all(len(token) >= 20 and re.fullmatch(r"[A-Za-z0-9_-]+", token) for token in tokens)


def test_session_cookie_is_http_only_and_same_site_lax(host):
    cookie = host.get("/").headers["Set-Cookie"]
    assert "session=" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_a_phone_is_not_the_host(app, host, phone, game):
    """A phone sees no game list, cannot create or import games, nor free seats."""
    join(host, game, "Anna")
    home = phone.get("/")
    assert home.status_code == 200 and "Scan the QR code" in text(home)
    assert game not in body(home) and "Anna" not in text(home) and "New game" not in text(home)
    headers = csrf_headers(phone, f"/g/{game}/join")
    before = snapshot(app)
    for path, data in [("/new", POSTS["/new"]), ("/import", {}), (f"/g/{game}/seats/0/free", {})]:
        response = phone.post(path, data=data, headers=headers)
        assert response.status_code == 403 and "Only the host's device can do this." in text(response)
    assert phone.get("/host/not-the-key").status_code == 404
    assert "Free Anna's seat" not in text(phone.get(f"/g/{game}/join"))
    assert snapshot(app) == before


def test_a_seat_is_held_by_one_phone_until_the_host_frees_it(app, host, game):
    first, second = phone_client(app, "192.168.1.20"), phone_client(app, "192.168.1.21")
    assert join(first, game, "Anna").headers["Location"].endswith(f"/g/{game}/me")
    assert "Anna (taken)" in text(second.get(f"/g/{game}/join"))
    refused = join(second, game, "Anna")
    assert refused.status_code == 409 and "already taken on another phone" in text(refused)
    assert submit(host, f"/g/{game}", f"/g/{game}/seats/0/free").status_code == 303
    assert first.get(f"/g/{game}/me").headers["Location"].endswith(f"/g/{game}/join")
    assert join(second, game, "Anna").status_code == 303
    assert "<h1>Anna</h1>" in body(second.get(f"/g/{game}/me"))


BAD_INPUT = {  # steps before, the action, its fields, the message shown
    "price abc": (GAME[:1], "sold", {"winner": "0", "price": "abc"}, "whole number of coins"),
    "price -3": (GAME[:1], "sold", {"winner": "0", "price": "-3"}, "whole number of coins"),
    "no winner": (GAME[:1], "sold", {"price": "3"}, "Choose a player for winner."),
    "3 cards (R2)": ([], "reveal", action_fields("reveal", "red 0", "red 1", "red 2"),
                     "Choose 2 cards for the lot, not 3 (R2)."),
    "a card twice (R1)": ([], "reveal", action_fields("reveal", "red 0", "red 0"),
                          "The lot shows the red 0 twice (R1)."),
    "unaffordable (R5)": (GAME[:1], "sold", action_fields("sold", "Anna", 13),
                          "Anna cannot pay 13 (R5)"),  # money is secret (R12)
    "forbidden ending (R3)": (GAME[:2] + GAME[3:4], "sold", action_fields("sold", "Anna", 5),
                              "Anna holds a 5: a bid of 5 is forbidden (R3)"),
}


@pytest.mark.parametrize("case", BAD_INPUT)
def test_bad_form_input_gets_a_clear_message_and_changes_nothing(app, host, game, case):
    steps, kind, fields, message = BAD_INPUT[case]
    play(host, game, steps)
    before = snapshot(app)
    response = act(host, game, kind, **fields)
    assert response.status_code == 422
    assert message in " ".join(alerts(response)), alerts(response)
    assert snapshot(app) == before


def test_refused_action_with_htmx_answers_200_with_the_message(app, host, game):
    play(host, game, GAME[:1])
    before = snapshot(app)
    response = act(host, game, "sold", htmx=True, winner="0", price="abc")
    assert response.status_code == 200 and b'<div id="live"' in response.data  # the part htmx swaps
    assert b"<html" not in response.data
    assert "whole number of coins" in " ".join(alerts(response))
    assert snapshot(app) == before


SUPERSCRIPT = "\u00b2"  # "²": str.isdigit() says yes, int() says no
BUG_DIGITS = "digits other than 0-9, such as a superscript two, are refused, not a crash"
ODD_REQUESTS = [  # method, path, form data: none may crash the server
    ("GET", "/g/{t}/live?v=abc", None), ("GET", "/g/{t}/live?v=-1", None),
    ("GET", "/g/{t}/live?v=" + "9" * 40, None),
    ("GET", "/g/{t}/preview?winner=abc&price=3", None),
    ("GET", "/g/{t}/preview?winner=99&price=3", None),
    ("GET", "/g/{t}/preview?winner=0&price=99999", None),
    ("GET", "/g/{t}/preview?winner=0&price=" + SUPERSCRIPT, None),
    ("GET", "/g/{t}/me/check?amount=-1", None), ("GET", "/g/{t}/me/check?amount=abc", None),
    ("GET", "/g/{t}/history/99999", None), ("GET", "/g/{t}/history/abc", None),
    ("GET", "/g/{t}/history/-1", None), ("GET", "/vendor/htmx-0.min.js", None),
    ("POST", "/g/{t}/act", {"action": "bogus"}), ("POST", "/g/{t}/act", {}),
    ("POST", "/g/{t}/act", {"action": "free", "version": "abc"}),
    ("POST", "/g/{t}/act", {"action": "reveal", "cards": ["x:y", "0:99"]}),
    ("POST", "/g/{t}/act", {"action": "reveal", "cards": ["9:1", "0:1"]}),
    ("POST", "/g/{t}/act", {"action": "sold", "winner": "99", "price": "1"}),
    ("POST", "/g/{t}/act", {"action": "sold", "winner": "-1", "price": "1"}),
    ("POST", "/g/{t}/act", {"action": "sold", "winner": "0", "price": "1" * 50}),
    ("POST", "/g/{t}/act", {"action": "overbid", "player": "0", "discard": "0:0"}),
    ("POST", "/g/{t}/act", {"action": "exchange", "player": "0", "gives": "0:0",
                            "opponent": "1", "takes": "1:5"}),
    ("POST", "/g/{t}/history/0", {"action": "free"}), ("POST", "/g/{t}/history/7", {}),
    ("POST", "/g/{t}/join", {"seat": "abc"}), ("POST", "/g/{t}/join", {"seat": "-1"}),
    ("POST", "/g/{t}/join", {"seat": "99"}), ("POST", "/g/{t}/seats/99/free", {}),
    ("POST", "/new", {}), ("POST", "/new", {"player": ["a", "b", "c"], "start": "abc",
                                            "edition": "xx"}),
    ("POST", "/import", {}), ("DELETE", "/g/{t}", None), ("PUT", "/new", None),
    ("POST", "/g/{t}/seats/99999999999999999999/free", {}),
    ("POST", "/grants/99999999999999999999/revoke", {}),  # beyond SQLite's 64-bit integers
    ("GET", "/g/{t}/preview?winner=-1&price=3", None),
    ("GET", "/g/{t}/history/" + "9" * 5000, None), ("POST", "/g/{t}/history/" + "9" * 5000, {}),
    ("POST", "/g/{t}/seats/" + "9" * 5000 + "/free", {}), ("GET", "/host/clé", None),
]
DIGITS_OTHER_THAN_0_TO_9 = [
    ("POST", "/g/{t}/act", {"action": "sold", "winner": "0", "price": SUPERSCRIPT}, BUG_DIGITS),
    ("POST", "/g/{t}/act", {"action": "free", "version": SUPERSCRIPT}, BUG_DIGITS),
    ("POST", "/g/{t}/act", {"action": "penalty", "player": SUPERSCRIPT}, BUG_DIGITS),
    ("POST", "/g/{t}/act", {"action": "reveal", "cards": [SUPERSCRIPT + ":1", "0:1"]}, BUG_DIGITS),
    ("POST", "/g/{t}/join", {"seat": SUPERSCRIPT}, BUG_DIGITS),
    ("POST", "/new", {"player": ["a", "b", "c"], "start": SUPERSCRIPT}, BUG_DIGITS),
]
CASES = [pytest.param(*request, id=f"{request[0]} {request[1][:60]} {request[2] or ''}")
         for request in ODD_REQUESTS] + [
    pytest.param(method, path, data, id=f"{method} {path} {data or ''}")
    for method, path, data, _ in DIGITS_OTHER_THAN_0_TO_9]


@pytest.mark.parametrize("method, path, data", CASES)
def test_odd_requests_never_crash_the_server(app, host, game, method, path, data):
    """The checked client fails on any 500; the answer is a page in words."""
    play(host, game, GAME[:1])
    headers = csrf_headers(host)
    if data is not None:
        data = {"version": str(version(app, game)), **data}
    response = host.open(path.format(t=game), method=method, data=data, headers=headers)
    assert response.status_code in (200, 204, 303, 400, 403, 404, 405, 409, 413, 422)
    assert "Traceback" not in body(response)


def test_an_oversized_upload_gets_the_413_page(host):
    response = import_record(host, b" " * (2 * 1024 * 1024))
    assert response.status_code == 413 and "too large" in text(response)


@pytest.mark.parametrize("url, form, fields", [
    ("/g/{t}", "action-sold", action_fields("sold", "Anna", 3)),
    ("/g/{t}/history/0", "action-reveal", action_fields("reveal", "red 1", "blue 5"))])
def test_a_form_sent_without_javascript_is_accepted(host, game, url, form, fields):
    """What a browser posts for a plain form: its fields only, no htmx header."""
    play(host, game, GAME[:1])
    found = find_form(host.get(url.format(t=game)), form)
    assert found.fields["csrf_token"] != [""], "the form carries no CSRF token"
    assert host.post(found.action, data=found.fields | fields).status_code == 303


def test_start_player_is_the_seat_chosen_even_with_a_blank_seat(host):
    """Seat 2 left empty, Claus in seat 3 chosen to start: Claus starts (R1)."""
    response = submit(host, "/", "new-game", player=["Anna", "", "Claus", "Dora", ""], start="2")
    assert "Start player Claus" in text(host.get(response.headers["Location"]))


def test_a_start_player_on_an_empty_seat_is_refused(app, host):
    before = snapshot(app)
    response = submit(host, "/", "new-game", player=["Anna", "", "Claus", "Dora", ""], start="1")
    assert response.status_code == 422
    assert "The start player's seat 2 has no name (R1)." in alerts(response)
    assert snapshot(app) == before


def test_a_deeply_nested_import_is_refused_with_a_message(app, host):
    response = import_record(host, b"[" * 100_000 + b"]" * 100_000)
    assert response.status_code == 422 and "That file is not a game record" in text(response)


@pytest.mark.parametrize("referrer", ["http://[", "http://[::1", "//\\x", "\x00"])
def test_a_malformed_referer_header_is_ignored(host, game, referrer):
    """The Referer is never read (the pages ask browsers to send none); a broken one is no
    crash."""
    headers = {**csrf_headers(host), "Referer": referrer}
    response = host.post(f"/g/{game}/act", data={"action": "free", "version": "0"},
                         headers=headers)
    assert response.status_code == 422
    assert "'nobody bid' needs a lot: reveal round 1's 2 cards first (R2)." in alerts(response)


def test_a_host_header_too_long_for_a_qr_code_gets_400(host, game):
    response = host.get(f"/g/{game}/qr.svg", headers={"Host": "a" * 3000})
    assert response.status_code == 400 and "could not be understood" in text(response)


def test_a_malformed_host_header_gets_400_in_words(host):
    response = host.get("/", headers={"Host": "x" * 100 + ":5000"})  # a label over 63 letters
    assert response.status_code == 400 and "could not be understood" in text(response)


@pytest.mark.parametrize("url, form, fields, back", [
    ("/g/{t}/history/1", "action-sold", {"price": "abc"}, "/g/{t}/history/1"),
    ("/g/{t}", "action-reveal", action_fields("reveal", "red 1", "red 1"), "/g/{t}"),
    ("/", "new-game", {"player": ["Anna", "Anna", "Claus"]}, "/")], ids=["edit", "table", "home"])
def test_the_language_switch_on_a_refused_form_comes_back_to_its_page(host, game, url, form,
                                                                     fields, back):
    """With no Referer sent (Referrer-Policy), the way back is the page the form posts from."""
    play(host, game, GAME[:2])
    response = submit(host, url.format(t=game), form, **fields)
    assert response.status_code == 422
    assert f'href="/lang/fr?next={back.format(t=game)}"' in body(response)


# --- security headers on every response, and no inline script or style ----------

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; "
                               "img-src 'self'; connect-src 'self'; form-action 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # game links carry their token
    "X-Frame-Options": "DENY",
}


def htmx_url(client) -> str:
    return re.search(r'<script src="(/[^"]+)"', body(client.get("/"))).group(1)


def qr_code(app, client, token):
    # phones reach it there:
    app.config["PHONE_URLS"] = phones.Offered((("http://192.168.1.2:5000", "Wi-Fi"),))
    return client.get(f"/g/{token}/qr.svg")


RESPONSES = {  # what to ask, with (app, host, phone, token); the status it answers
    "home": (200, lambda app, host, phone, t: host.get("/")),
    "table": (200, lambda app, host, phone, t: host.get(f"/g/{t}")),
    "live fragment": (200, lambda app, host, phone, t: host.get(
        f"/g/{t}/live?v=0", headers={"HX-Request": "true"})),
    "poll, nothing new": (204, lambda app, host, phone, t: host.get(
        f"/g/{t}/live?v={stamp(app, t)}", headers={"HX-Request": "true"})),
    "join": (200, lambda app, host, phone, t: host.get(f"/g/{t}/join")),
    "me": (200, lambda app, host, phone, t: phone.get(f"/g/{t}/me")),
    "bid check": (200, lambda app, host, phone, t: phone.get(f"/g/{t}/me/check?amount=5")),
    "history": (200, lambda app, host, phone, t: host.get(f"/g/{t}/history")),
    "score": (200, lambda app, host, phone, t: host.get(f"/g/{t}/score")),
    "record.json": (200, lambda app, host, phone, t: host.get(f"/g/{t}/record.json")),
    "qr.svg": (200, lambda app, host, phone, t: qr_code(app, host, t)),
    "app.css": (200, lambda app, host, phone, t: host.get("/static/app.css")),
    "htmx": (200, lambda app, host, phone, t: host.get(htmx_url(host))),
    "redirect": (303, lambda app, host, phone, t: host.get("/lang/en?next=/")),
    "404": (404, lambda app, host, phone, t: host.get("/nowhere")),
    "400 without CSRF token": (400, lambda app, host, phone, t: host.post(
        f"/g/{t}/undo", data={"version": str(version(app, t))})),
    "403": (403, lambda app, host, phone, t: phone.post(
        "/new", data=POSTS["/new"], headers=csrf_headers(phone, f"/g/{t}/me"))),
    "405": (405, lambda app, host, phone, t: host.delete(f"/g/{t}")),
    "413": (413, lambda app, host, phone, t: import_record(host, b" " * (2 * 1024 * 1024))),
}


def assert_security_headers(response):
    for name, value in SECURITY_HEADERS.items():
        assert response.headers.get(name) == value, (name, response.headers.get(name))


@pytest.mark.parametrize("case", RESPONSES)
def test_every_response_carries_the_security_headers(app, host, phone, case):
    token = new_game(host)
    join(phone, token, "Anna")
    play(host, token, GAME[:2])
    status, ask = RESPONSES[case]
    response = ask(app, host, phone, token)
    assert response.status_code == status
    assert_security_headers(response)


def test_a_server_error_page_carries_the_security_headers(tmp_path):
    app = make_app(tmp_path / "data")

    @app.get("/fail")
    def fail():
        raise RuntimeError("a bug")

    app.test_client_class = None  # the plain test client: this 500 is the point
    response = app.test_client().get("/fail")
    assert response.status_code == 500 and "Something went wrong" in text(response)
    assert_security_headers(response)


class _Inline(HTMLParser):
    """What a strict Content-Security-Policy would block in a page: style attributes,
    event handler attributes, javascript: URLs, <style> and inline <script>."""

    def __init__(self):
        super().__init__()
        self.found, self.script = [], False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name == "style" or name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")
            elif (value or "").strip().lower().startswith("javascript:"):
                self.found.append(f"<{tag} {name}={value!r}>")
        if tag == "style":
            self.found.append("<style>")
        self.script = tag == "script"

    def handle_endtag(self, tag):
        self.script = False

    def handle_data(self, data):
        if self.script and data.strip():
            self.found.append(f"<script>{data.strip()[:60]}")


def inline_code(page) -> list[str]:
    parser = _Inline()
    parser.feed(body(page))
    return parser.found + re.findall(r'style="|\son[a-z]+="|javascript:', body(page))


def test_no_page_has_inline_script_or_style(app, host, phone):
    token = new_game(host)
    join(phone, token, "Anna")
    pages = {"home": host.get("/"), "join": host.get(f"/g/{token}/join")}
    play(host, token, GAME[:1])  # a lot revealed: the sale form, and the payment preview
    pages |= {"table": host.get(f"/g/{token}"), "me": phone.get(f"/g/{token}/me"),
              "preview": host.get(f"/g/{token}/preview?winner=0&price=3")}
    play(host, token, GAME[1:])
    pages |= {"history": host.get(f"/g/{token}/history"),
              "edit": host.get(f"/g/{token}/history/0"),  # the reveal grid
              "score": host.get(f"/g/{token}/score"),  # the chart
              "finished table": host.get(f"/g/{token}"), "404": host.get("/nowhere")}
    for name, page in pages.items():
        assert page.status_code in (200, 404), name
        assert inline_code(page) == [], name
    # The families' colours come from classes (static/app.css), not from style attributes.
    assert 'class="cell fam-0"' in body(pages["edit"])
    assert 'class="card fam-5"' in body(pages["finished table"])
