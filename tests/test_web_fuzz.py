"""Anything posted to any form, from the host and from a seated phone, at several moments
of a game: never a server error, every refusal a page in words, and a refused request
changes nothing.

The routes come from the app's URL map and each route's fields from the forms the pages
show, so a new route or a new field is tried here without a change to this file; the
values sent are the forms' own, numbers of every size, any text, huge strings, lists of
a field sent again and again, unknown fields, and records of any shape to import. Now and
then the CSRF token or the game version is missing or wrong.
"""
import dataclasses
import json
import operator
import re
import tempfile
from dataclasses import dataclass
from html.parser import HTMLParser
from io import BytesIO
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules.cards import DEFAULT_FAMILIES
from companion.rules.events import EVENT_TYPES, Sold
from companion.rules.record import FORMAT, dump_event
from companion.store import games
from companion.web import create_app
from companion.web.forms import ACTIONS
from companion.web.screens import phones
from tests.helpers import all_rounds_free, reveal
from tests.web_helpers import body, by_hand, make_app, phone_client, text

PLAYERS = ("Anna", "Bert", "Claus")
MOMENTS = {  # the game's events so far, and the companion settings that go with them
    "new game": ([], {}),
    "lot revealed": ([reveal("red 0 yellow 5")], {}),
    "live auction running": ([reveal("red 0 yellow 5")], {"live_auction": True}),
    "finished": (all_rounds_free(), {}),
    "finished, unlocked": (all_rounds_free(), {"unlocked": True}),
    "changed by other devices": ([reveal("red 0 yellow 5"), Sold("Anna", 3),
                                  reveal("red 1 yellow 6")], {}),
    "finished, played again": (all_rounds_free(), {}),  # its table started the next game
}
CSRF = "the-csrf-token-of-this-device"
VALID = "valid"  # a URL's part as the app makes it: this game, its host link, a grant
EXAMPLES = 20  # per route


def post_endpoints() -> list[str]:
    """Every route a form may post to, from the app's URL map."""
    with tempfile.TemporaryDirectory() as data:
        rules = create_app(data).url_map.iter_rules()
        return sorted({rule.endpoint for rule in rules if "POST" in rule.methods})


POST_ENDPOINTS = post_endpoints()


def record(events) -> dict:
    """The record of a game of PLAYERS with both variants, up to `events`."""
    return {"format": FORMAT, "edition": "en", "players": list(PLAYERS),
            "variants": {"side_auctions": True, "exchange": True},
            "events": [dump_event(event) for event in events]}


# --- what the pages' forms send ------------------------------------------------

@dataclass
class Field:
    """A form field as a page shows it: the values it offers, how many inputs carry its
    name (the lot's cards are chosen among many), and whether it is a file."""

    values: list
    inputs: int = 0
    file: bool = False


class _Forms(HTMLParser):
    """The action and the named fields (with the values shown) of each POST form."""

    def __init__(self):
        super().__init__()
        self.forms, self.open, self.select = [], None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            post = (attrs.get("method") or "").lower() == "post"
            self.open = (attrs.get("action") or "", {}) if post else None
            self.forms += [self.open] if post else []
        elif self.open and tag in ("input", "select", "textarea", "button") and attrs.get("name"):
            field = self.open[1].setdefault(attrs["name"], Field([]))
            field.inputs, field.file = field.inputs + 1, attrs.get("type") == "file"
            self.select = field if tag == "select" else None
            if attrs.get("value") is not None:
                field.values.append(attrs["value"])
        elif tag == "option" and self.select is not None:
            self.select.values.append(attrs.get("value") or "")
        if self.open and attrs.get("hx-post") not in (None, self.open[0]):
            self.forms.append((attrs["hx-post"], self.open[1]))  # (htmx posts its form there)

    def handle_endtag(self, tag):
        if tag == "form":
            self.open = None
        if tag == "select":
            self.select = None


def change_from_other_devices(store, token: str) -> None:
    """Bert's phone corrects the first sale, a granted device undoes the last reveal and
    the host changes a setting: the journal holds each (a stale form lost to them)."""
    game = games.load(store, token)
    games.correct(store, game, game.version, 1, Sold("Bert", 3), "seat:1")
    game = games.load(store, token)
    games.undo(store, game, game.version, f"grant:{store.grants()[0].id}")
    games.set_options(store, games.load(store, token), "host", money_open=True)


def new_world(app, moment: str, options=None, seat: int = 0):
    """The store holding one game, at `moment`, and a host grant at least; the game's
    token, the host and a phone seated at `seat`, both with their CSRF token."""
    store = app.config["STORE"]
    for stored in store.games():
        store.remove_game(stored.token)
    if not store.grants():
        store.grant("another device")
    by_hand(store, "DELETE FROM marks")  # the game codes each network typed
    app.extensions["test_errors"].clear()
    events, chosen = MOMENTS[moment]
    token = games.create(store, record(events), games.Options(**{**chosen, **(options or {})}))
    if moment == "changed by other devices":
        change_from_other_devices(store, token)
    if moment == "finished, played again":
        games.rematch(store, games.load(store, token), 1)
    return token, device(app.test_client()), device(phone_client(app), token, seat)


def device(client, token=None, seat=None):
    """The client with its CSRF token, and the seat if one is given."""
    seats = {} if seat is None else {token: client.application.config["STORE"].claim_seat(
        token, seat)}
    with client.session_transaction() as session:
        session.update(csrf_token=CSRF, seats=seats)
    return client


def pages(app, moment) -> list[tuple[str, object]]:
    """Every page with a form at `moment`, as the host and as a phone in each seat see it
    (in a live auction, the phone whose turn it is has its own forms)."""
    token, host, phone = new_world(app, moment)
    phones = [phone] + [device(phone_client(app, f"192.168.1.{30 + seat}"), token, seat)
                        for seat in range(1, len(PLAYERS))]
    key, events = app.config["HOST_KEY"], app.config["STORE"].game(token).events
    urls = ["/", f"/host/{key}", f"/g/{token}", f"/g/{token}/score", f"/g/{token}/join",
            f"/g/{token}/settings",
            f"/g/{token}/confirm/unlock", f"/g/{token}/confirm/delete",
            *(f"/g/{token}/history/{index}" for index in range(min(len(events), 3)))]
    return [(url, host.get(url)) for url in urls] + [
        (url, client.get(url)) for client in phones for url in ("/", f"/g/{token}/me")]


@pytest.fixture(scope="module")
def app():
    """One app for the whole module: each example makes the store anew, in memory where the
    system has a place for it (on a disk, those writes would take most of the time)."""
    memory = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=memory if memory.is_dir() else None) as data:
        app = make_app(data)
        # two addresses phones may use: the table screen offers the other in one tap
        app.config["PHONE_URLS"] = phones.Offered((("http://192.168.1.2:5000", "Wi-Fi"),
                                                   ("http://10.8.0.2:5000", "VPN")))
        yield app


class Forms(dict):
    """Each route's forms as the pages show them, {endpoint: [(moment, {name: Field})]}:
    shown short in a failing example."""

    def __repr__(self):
        return f"<the forms of {len(self)} routes>"


@pytest.fixture(scope="module")
def forms(app) -> Forms:
    """For each route, the forms posting to it on any page, at any moment."""
    adapter, found = app.url_map.bind("localhost"), Forms()
    for moment in MOMENTS:
        for url, page in pages(app, moment):
            for action, fields in _forms_of(page):
                endpoint = adapter.match(urlsplit(action or url).path, method="POST")[0]
                found.setdefault(endpoint, []).append((moment, fields))
    return found


def _forms_of(page):
    parser = _Forms()
    parser.feed(body(page))
    return parser.forms


def test_every_route_a_form_posts_to_is_on_a_page(forms):
    """Else the fuzz below would not know its fields: show its form on a page `pages` reads."""
    assert set(POST_ENDPOINTS) <= set(forms), set(POST_ENDPOINTS) - set(forms)


# --- anything at all ---------------------------------------------------------

def mostly(usual, unusual):
    """`usual` about four times in five, else `unusual` (one_of would draw both alike)."""
    return st.sampled_from((usual,) * 5 + (unusual,)).flatmap(lambda strategy: strategy)


PLAUSIBLE = ("", "0", "1", "2", "3", "4", "5", "9", "12", "99", "-1", "999999", "1000000",
             "0:0", "0:1", "1:5", "5:9", "6:0", "0:10", "x:y", ":", "on", "open", "secret",
             "en", "fr", "xx", *ACTIONS, "undo", "remove", "\u00b2", "\u0663", " 1 ", "1.5",
             "1e3", "0x1", "<script>alert(1)</script>", "\x00", "Anna", "red")
SMALL = st.integers(0, 15).map(str)  # a seat, a price, a bid
HUGE = st.builds(operator.mul, st.characters(codec="utf-8"), st.integers(1_000, 300_000))
VALUES = mostly(st.one_of(SMALL, st.sampled_from(PLAUSIBLE), st.text(max_size=30)),
                st.integers(-10 ** 40, 10 ** 40).map(str) | HUGE)

# Records to import: a real game's, cut anywhere, with values of any shape here and there.
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10 ** 30, 10 ** 30) | st.floats()
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)
CARDS = st.fixed_dictionaries({"family": mostly(st.sampled_from(DEFAULT_FAMILIES), JSON),
                               "number": mostly(st.integers(-2, 12), JSON)})
EVENT_FIELDS = sorted({field.name for cls in EVENT_TYPES for field in dataclasses.fields(cls)})
EVENTS = st.builds(
    lambda kind, values: {"type": kind, **values}, mostly(st.sampled_from(ACTIONS), JSON),
    st.dictionaries(st.sampled_from(EVENT_FIELDS), st.sampled_from(PLAYERS) | st.integers(
        -5, 200_000) | CARDS | st.lists(CARDS, max_size=3) | JSON, max_size=5))
A_GAME = [dump_event(event) for event in all_rounds_free()]
RECORDS = st.fixed_dictionaries(
    {"format": mostly(st.just(FORMAT), JSON),
     "edition": mostly(st.sampled_from(("en", "fr")), JSON),
     "players": mostly(st.just(list(PLAYERS)), st.lists(st.text(max_size=8), max_size=6) | JSON),
     "events": mostly(st.builds(operator.add, st.integers(0, len(A_GAME)).map(
         lambda size: A_GAME[:size]), st.lists(EVENTS, max_size=2)), JSON)},
    optional={"variants": mostly(st.dictionaries(st.sampled_from(("side_auctions", "exchange")),
                                                 st.booleans()), JSON),
              "start_coins": mostly(st.integers(-10, 2_000), JSON),
              "families": mostly(st.just(list(DEFAULT_FAMILIES)), JSON),
              "start_player": mostly(st.sampled_from(PLAYERS), JSON)})
FILES = mostly(RECORDS.map(json.dumps),
               st.one_of(JSON.map(json.dumps), st.binary(max_size=64), st.text(max_size=64))).map(
    lambda data: (BytesIO(data if isinstance(data, bytes) else data.encode()), "game.json"))


def values_of(field: Field):
    """What a field may be sent: left out, once, or several times; one of the values the
    page offers, a small number, or anything."""
    if field.file:
        return mostly(FILES, st.none())
    shown = [value for value in field.values if value]  # else the user types it
    one = mostly(st.sampled_from(shown), VALUES) if shown else VALUES
    if field.inputs > 1:  # choose among many, like the lot's cards or the players' names
        return st.lists(one, max_size=field.inputs + 1)
    return mostly(one.map(lambda value: [value]),
                  st.none() | st.lists(one, min_size=2, max_size=4))


def url_part(name: str):
    """A part of a route's URL: mostly the real one, else anything."""
    real = {"number": st.integers(0, 35).map(str), "seat": SMALL}.get(name, st.just(VALID))
    return mostly(real, st.text(min_size=1, max_size=40) | st.integers(2 ** 63 - 2, 2 ** 70))


@dataclass
class Post:
    """One request as drawn: the game's moment and settings, who sends it, the URL's parts,
    the form, and how the CSRF token and the version travel."""

    moment: str
    options: dict
    phone: bool
    seat: int
    parts: dict
    form: dict
    csrf: str
    version: object
    htmx: bool


@st.composite
def posts(draw, rule_arguments, route_forms):
    """A post to a route: one of its forms as a page showed it, at that moment or another,
    with what the user typed and what a hostile client sends instead."""
    moment, fields = draw(st.sampled_from(route_forms))
    form = {name: draw(values_of(field)) for name, field in sorted(fields.items())
            if name not in ("csrf_token", "version")}
    form.update(draw(st.dictionaries(st.text(min_size=1, max_size=12), values_of(Field([])),
                                     max_size=2)))
    version = draw(mostly(st.just("current"), st.sampled_from(("missing", "older", "other"))))
    return Post(
        moment=draw(mostly(st.just(moment), st.sampled_from(sorted(MOMENTS)))),
        options=draw(st.fixed_dictionaries({}, optional={
            "money_open": st.booleans(), "phones_record": st.booleans(),
            "unlocked": st.booleans()})),
        phone=draw(st.booleans()), seat=draw(st.integers(0, len(PLAYERS) - 1)),
        parts={name: draw(url_part(name)) for name in sorted(rule_arguments)},
        form={name: value for name, value in form.items() if value is not None},
        csrf=draw(mostly(st.sampled_from(("field", "header")), st.just("missing") | VALUES)),
        version=draw(VALUES) if version == "other" else version,
        htmx=draw(st.booleans()))


def prepare(app, rule, post: Post):
    """Make the world the post was drawn for: the client, URL, form and headers to send."""
    token, host, phone = new_world(app, post.moment, post.options, post.seat)
    store = app.config["STORE"]
    real = {"token": token, "key": app.config["HOST_KEY"], "grant_id": store.grants()[0].id}
    parts = {name: real[name] if value == VALID else value for name, value in post.parts.items()}
    data, headers = dict(post.form), {"HX-Request": "true"} if post.htmx else {}
    current = store.game(token).version
    if post.version != "missing":
        data["version"] = {"current": str(current), "older": str(current - 1)}.get(
            post.version, post.version)
    if post.csrf == "header":
        headers["X-CSRF-Token"] = CSRF
    elif post.csrf != "missing":
        data["csrf_token"] = CSRF if post.csrf == "field" else post.csrf
    url = re.sub(r"<(?:[^<>:]+:)?([^<>]+)>",  # any text in any part, whatever its converter
                 lambda part: quote(str(parts[part.group(1)]), safe=""), rule.rule)
    return phone if post.phone else host, url, data, headers


def everything(app) -> tuple:
    """All the store keeps: every game (its version, events, seats, options, journal), the
    host grants; and the host link's key."""
    store = app.config["STORE"]
    return store.games(), store.grants(), app.config["HOST_KEY"]


def assert_in_words(response):
    """An error page of this app, in words: no traceback, not the framework's own page."""
    page = body(response)
    assert "Traceback" not in page and "Internal Server Error" not in page, page[:500]
    assert text(response), f"{response.status_code} with no words"
    assert "<title>" not in page or "Templari Companion" in page, page[:500]


@pytest.mark.parametrize("endpoint", POST_ENDPOINTS)
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.large_base_example])
@given(data=st.data())
def test_anything_posted_is_applied_or_refused_in_words_changing_nothing(app, forms, endpoint,
                                                                        data):
    rule = next(rule for rule in app.url_map.iter_rules(endpoint) if "POST" in rule.methods)
    post = data.draw(posts(rule.arguments, forms[endpoint]), label="post")
    client, url, form, headers = prepare(app, rule, post)
    before = everything(app)
    response = client.post(url, data=form, headers=headers)  # the client fails on a 5xx
    if response.status_code >= 400:
        assert_in_words(response)
    if not (200 <= response.status_code < 300 or response.status_code == 303):
        assert everything(app) == before, response.status_code
