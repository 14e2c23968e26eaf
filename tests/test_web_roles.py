"""Who may do what (companion/web/guards/roles.py): the table of route x role, each refusal a 403
page in words that changes nothing; live bids for oneself only; a foreign Host header."""
import pytest

from tests.web_helpers import (GAME, act, alerts, csrf_headers, join, make_app,
                               new_game, phone_client, play, snapshot, submit, text, version)
from tests.web_helpers import app  # noqa: F401 (fixture)

HOST, GRANTED, SEATED, PHONES_OFF, VIEWER = ("host", "granted device", "seated phone",
                                             "seated phone, recording off", "viewer")
ROLES = (HOST, GRANTED, SEATED, PHONES_OFF, VIEWER)
OWNER = {HOST}  # the server's own device
EVERY_HOST = {HOST, GRANTED}
RECORDERS = EVERY_HOST | {SEATED}
# A lot is on the table: round 1 sold to Anna for 3, round 2's lot revealed.
STEPS = [*GAME[:2], ("reveal", "red 1", "yellow 6")]
ROUTES = {  # what each route does, as a form would send it, and who may do it
    "record a sale": ("/g/{t}/act", {"action": "sold", "winner": "1", "price": "4"}, RECORDERS),
    "undo": ("/g/{t}/undo", {}, RECORDERS),
    "correct an action": ("/g/{t}/history/1", {"action": "sold", "winner": "0", "price": "2"},
                          RECORDERS),
    "remove an action": ("/g/{t}/history/2/remove", {}, RECORDERS),
    "free a seat": ("/g/{t}/seats/0/free", {}, EVERY_HOST),
    "game settings": ("/g/{t}/settings", {"phones_record": "on"}, EVERY_HOST),
    "remove the game": ("/g/{t}/delete", {}, EVERY_HOST),
    "new game": ("/new", {"player": ["Dora", "Emil", "Fritz"],
                          "family": ["a", "b", "c", "d", "e", "f"]}, EVERY_HOST),
    "renew the host link": ("/host-link/renew", {}, OWNER),
    "revoke a host device": ("/grants/{g}/revoke", {}, OWNER),
}
LOG_CHANGES = ("record a sale", "undo", "correct an action", "remove an action")
PAGES = {  # pages that only show the way to a change
    "correction form": ("/g/{t}/history/1", RECORDERS),
    "sale preview": ("/g/{t}/preview?winner=0&price=3", RECORDERS),
    "settings page": ("/g/{t}/settings", EVERY_HOST),
}
REFUSALS = {GRANTED: "", SEATED: "", HOST: "",
            PHONES_OFF: "The host has turned off recording from phones",
            VIEWER: "This device only watches the table: take a seat to record."}
ONLY_HOST = "Only the host's device can do this."
ONLY_OWNER = "Only the server's own device can do this: it alone shows the host link"


def grant_host(app, client):
    """The device opens the host link and accepts: a grant of its own."""
    key = app.config["STORE"].secret("host_key")
    return submit(client, f"/host/{key}", f"/host/{key}", label="Eva's tablet")


@pytest.fixture
def table(tmp_path):
    """An app with a game under way, and a client for each role: (app, token, clients)."""
    app = make_app(tmp_path / "data")
    host = app.test_client()
    token = new_game(host)
    play(host, token, STEPS)
    clients = {HOST: host, GRANTED: phone_client(app, "192.168.1.30"),
               SEATED: phone_client(app, "192.168.1.20"), VIEWER: phone_client(app, "192.168.1.40")}
    assert grant_host(app, clients[GRANTED]).status_code == 303
    join(clients[SEATED], token, "Anna")
    return app, token, clients


def client_for(table, role):
    app, token, clients = table
    if role == PHONES_OFF:
        submit(clients[HOST], f"/g/{token}/settings", "settings", phones_record=None)
        return clients[SEATED]
    return clients[role]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("route", ROUTES)
def test_each_change_route_is_done_or_refused_by_role(table, route, role):
    app, token, _ = table
    client = client_for(table, role)
    path, data, allowed = ROUTES[route]
    path = path.format(t=token, g=app.config["STORE"].grants()[0].id)
    before = everything(app)
    response = client.post(path, data={**data, "version": str(version(app, token))},
                           headers=csrf_headers(client, f"/g/{token}"))
    if role in allowed:
        assert response.status_code == 303, (response.status_code, alerts(response))
        assert everything(app) != before
    else:
        assert response.status_code == 403
        assert refusal_words(route, role) in text(response)
        assert "Traceback" not in text(response)
        assert everything(app) == before


def everything(app) -> tuple:
    """The games, the host grants and the host link's key: what a route may change."""
    store = app.config["STORE"]
    return snapshot(app), store.grants(), store.secret("host_key")


def refusal_words(route: str, role: str) -> str:
    """What a device refused the route reads."""
    if ROUTES[route][2] == OWNER:
        return ONLY_OWNER
    return (route in LOG_CHANGES and REFUSALS[role]) or ONLY_HOST


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("page", PAGES)
def test_each_page_of_a_change_is_shown_or_refused_by_role(table, page, role):
    _, token, _ = table
    path, allowed = PAGES[page]
    response = client_for(table, role).get(path.format(t=token))
    assert response.status_code == (200 if role in allowed else 403)


@pytest.mark.parametrize("role", (VIEWER, PHONES_OFF))
def test_a_device_that_may_not_record_sees_the_table_without_any_form(table, role):
    _, token, _ = table
    page = client_for(table, role).get(f"/g/{token}")
    assert page.status_code == 200 and "Round 2" in text(page)
    assert "<form" not in page.get_data(as_text=True).split('<div id="live"')[1]
    assert REFUSALS[role] in text(page)
    history = client_for(table, role).get(f"/g/{token}/history")
    assert "correct" not in [word.strip() for word in text(history).split()]


def test_a_viewer_is_offered_a_seat_and_once_seated_records(table):
    app, token, clients = table
    viewer = clients[VIEWER]
    assert f"/g/{token}/join" in viewer.get(f"/g/{token}").get_data(as_text=True)
    join(viewer, token, "Claus")
    assert act(viewer, token, "sold", "Bert", 4).status_code == 303


def test_a_revoked_grant_is_no_host_any_more(table):
    app, token, clients = table
    host, granted = clients[HOST], clients[GRANTED]
    home = host.get("/")
    assert "Eva's tablet" in text(home)
    assert submit(host, "/", "revoke").status_code == 303
    assert "Scan the QR code" in text(granted.get("/"))
    response = granted.post("/new", data=ROUTES["new game"][1], headers=csrf_headers(granted))
    assert response.status_code == 403


def test_the_session_cookie_never_holds_the_host_key(table):
    app, _, clients = table
    key = app.config["STORE"].secret("host_key")
    cookie = clients[GRANTED].get_cookie("session").value
    from flask.sessions import SecureCookieSessionInterface
    session = SecureCookieSessionInterface().get_signing_serializer(app).loads(cookie)
    assert key not in str(session) and "grant" in session


def test_a_renewed_host_link_stops_the_old_one(table):
    app, _, clients = table
    old = app.config["STORE"].secret("host_key")
    assert submit(clients[HOST], "/", "renew").status_code == 303
    stranger = phone_client(app, "192.168.1.50")
    assert stranger.get(f"/host/{old}").status_code == 404
    assert grant_host(app, stranger).status_code == 303
    assert "Your games" in text(stranger.get("/"))


# --- live auction: bids for oneself only -------------------------------------------

@pytest.fixture
def live(tmp_path):
    app = make_app(tmp_path / "data")
    host = app.test_client()
    token = new_game(host, live="on")
    act(host, token, "reveal", "red 1", "blue 5")  # Anna's turn to bid
    anna, bert = phone_client(app, "192.168.1.20"), phone_client(app, "192.168.1.21")
    join(anna, token, "Anna")
    join(bert, token, "Bert")
    return app, token, host, anna, bert


@pytest.mark.parametrize("kind, fields", [
    ("bid", {"player": "0", "amount": "2"}), ("pass", {"player": "0"}),
    ("penalty", {"player": "0"}), ("overbid", {"player": "0", "discard": ""})])
def test_R3_in_a_live_auction_a_phone_records_nothing_for_another_player(live, kind, fields):
    app, token, host, anna, bert = live
    before = snapshot(app)
    response = bert.post(f"/g/{token}/act",
                         data={"action": kind, "version": str(version(app, token)), **fields},
                         headers=csrf_headers(bert, f"/g/{token}"))
    assert response.status_code == 403
    assert "In a live auction a phone records only its own player's bids" in text(response)
    assert "Anna's are recorded on the host's device" in text(response)
    assert snapshot(app) == before


def test_R3_a_phone_bids_for_its_own_player_and_the_host_for_anyone(live):
    app, token, host, anna, bert = live
    assert submit(anna, f"/g/{token}", "action-bid", amount="2").status_code == 303
    assert "action-bid" not in anna.get(f"/g/{token}").get_data(as_text=True)  # Bert's turn
    assert submit(host, f"/g/{token}", "action-bid", amount="3").status_code == 303
    assert "High bid: Bert, 3" in text(host.get(f"/g/{token}"))


# --- the Host header ------------------------------------------------------------

@pytest.mark.parametrize("name", ["evil.example", "evil.example:5000", "127.0.0.1.nip.io",
                                  "attacker.localhost.example", "203.0.113.9"])
def test_a_foreign_host_header_gets_400_and_no_host_rights(app, name):
    """DNS rebinding: a page whose name now points at 127.0.0.1 gets nothing."""
    host = app.test_client()
    token = new_game(host)
    for path in ("/", f"/g/{token}", f"/g/{token}/record.json"):
        response = host.get(path, headers={"Host": name})
        assert response.status_code == 400 and "could not be understood" in text(response)
        assert "Anna" not in text(response) and "Your games" not in text(response)
    assert token not in host.get("/", headers={"Host": name}).get_data(as_text=True)
    before = snapshot(app)
    response = host.post("/new", data=ROUTES["new game"][1],
                         headers={**csrf_headers(host), "Host": name})
    assert response.status_code == 400 and snapshot(app) == before


@pytest.mark.parametrize("name", ["localhost", "localhost:5000", "127.0.0.1:5000", "[::1]:5000",
                                  "table.localhost"])
def test_loopback_names_keep_host_rights(app, name):
    assert "Your games" in text(app.test_client().get("/", headers={"Host": name}))


def test_a_name_given_on_the_command_line_is_accepted(tmp_path):
    from companion.web import create_app
    app = create_app(tmp_path / "data", names=["mylaptop.local"])
    assert "Your games" in text(app.test_client().get("/", headers={"Host": "MyLaptop.local:5000"}))
    assert app.test_client().get("/", headers={"Host": "other.local"}).status_code == 400


def test_every_route_has_its_rule(app):
    """A route missing from the table would be the host's alone: say so for each one."""
    from companion.web.guards.roles import ROUTES as RULES
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()}
    assert endpoints - set(RULES) == set()


def test_a_refusal_sent_by_htmx_is_shown_in_the_page_s_alert_box(table):
    """htmx swaps the words into #flash: a tap the device may no longer make is not lost."""
    _, token, clients = table
    viewer = clients[VIEWER]
    response = viewer.post(f"/g/{token}/undo", data={"version": "0"},
                           headers={**csrf_headers(viewer, f"/g/{token}"), "HX-Request": "true"})
    assert response.status_code == 403 and response.headers["HX-Retarget"] == "#flash"
    assert "<html" not in response.get_data(as_text=True)
    assert alerts(response) == [REFUSALS[VIEWER]]
