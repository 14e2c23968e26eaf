"""Shared helpers for the web tests: an app on a temporary data directory, a host
client and phone clients, and form submission the way a browser does it (every
hidden field, csrf_token and version included, is read from the page shown).

Players are named in tests ("Anna") and cards written "red 1"; `seat` and `card`
turn them into the form values the pages use ("0", "0:1").
"""
import html
import json
import re
from urllib.parse import quote
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from html.parser import HTMLParser
from io import BytesIO

import pytest
from flask import got_request_exception
from flask.testing import FlaskClient
from jinja2 import BytecodeCache

from companion.rules.cards import DEFAULT_FAMILIES
from companion.rules.record import dump_record
from companion.web import create_app
from companion.web.guards.pace import PACE
from companion.web.guards.share import SHARE
from tests.helpers import setup

PLAYERS = ("Anna", "Bert", "Claus")
PHONE_ADDRESS = "192.168.1.20"
CONFLICT_NOTE = "was not recorded."  # a change that lost the race to another device

# A whole game as the table records it, with a side sale, a penalty, an overbid, free lots
# and an undo. Deck: red, green, purple show 0-4; yellow, blue, black show 5-9 (R1).
GAME = [
    ("reveal", "red 0", "yellow 5"), ("sold", "Anna", 3),                # 1 nobody holds a 3
    ("side_sale", "Anna", "red 0", "Bert", 2),                           # 2 side sale (R6)
    ("reveal", "red 1", "yellow 6"), ("penalty", "Bert"), ("sold", "Bert", 4),  # penalty (R4):
    # Bert holds the red 0 he just bought, so a bid ending in 0 was forbidden to him
    ("reveal", "red 2", "yellow 7"), ("free",),                          # 3 free lot (R9)
    ("reveal", "green 0", "blue 5"), ("sold", "Claus", 8),               # 4
    ("reveal", "green 1", "blue 6"), ("overbid", "Claus", "green 0"), ("sold", "Anna", 9),  # 5 (R5)
    ("reveal", "green 2", "blue 7"), ("undo",), ("reveal", "green 2", "blue 8"),  # 6 undone
    ("sold", "Bert", 3),
    ("reveal", "red 3", "red 4"), ("free",),                             # 7
    ("reveal", "yellow 8", "yellow 9"), ("sold", "Claus", 4),            # 8 Bert holds the only 4
    ("reveal", "green 3", "green 4"), ("sold", "Anna", 2),               # 9
    ("reveal", "blue 7", "blue 9"), ("free",),                           # 10
    ("reveal", "purple 0", "purple 1"), ("sold", "Claus", 6),            # 11
    ("reveal", "purple 2", "purple 3"), ("free",),                       # 12
    ("reveal", "purple 4", "black 5"), ("sold", "Bert", 9),              # 13
    ("reveal", "black 6", "black 7"), ("free",),                         # 14
    ("reveal", "black 8", "black 9"), ("sold", "Anna", 8),               # 15
]
FIRST_SALE = ["Anna pays 3", "Bert takes 1", "Claus takes 1", "1 stays in the pot"]  # R8


# --- the app and its clients -------------------------------------------------

class CheckedClient(FlaskClient):
    """A test client that fails the test on any server error: no response may be a 500."""

    expected = frozenset()  # server error codes a test means to see (503: a storage fault)

    def open(self, *args, **kwargs):
        response = super().open(*args, **kwargs)
        errors = self.application.extensions["test_errors"]
        answered = response.status_code < 500 or response.status_code in self.expected
        assert answered and not errors, (
            f"server error {response.status_code} for {response.request.method} "
            f"{response.request.full_path}: {errors[-1] if errors else ''!r}")
        return response


class CompiledTemplates(BytecodeCache):
    """The templates compiled once for every app the tests make, in memory (each app's
    Jinja compiles them anew: most of a short web test's time)."""

    def __init__(self):
        self.compiled = {}

    def load_bytecode(self, bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


TEMPLATES = CompiledTemplates()


OPENED = []  # the PostgreSQL stores of the apps a test made: closed after it (conftest.py)


def make_app(data_dir, lan_url=None, others=(), database=None, hosted=False, streams=False,
             **options):
    """create_app with the checked client and a list of the exceptions it raised; phones
    are shown `lan_url`, if given, and the host is offered `others` ((url, label) each);
    the games are kept in the data directory, or the PostgreSQL `database`; `hosted`: a
    hosted server's app (--hosted); `streams`: whether it holds the games' streams (Flask's
    test client reads an answer to its end, and a stream has none: it is told 204);
    `options`: create_app's others."""
    app = create_app(data_dir, addresses=[*([(lan_url, "Wi-Fi")] if lan_url else ()), *others],
                     database=database, hosted=hosted, **options)
    # These tests post a game's worth of changes from one phone in milliseconds, where a
    # table takes an evening: the pace of changes is tests/test_web_pace.py's to check.
    app.config[PACE] = None
    # Nor are they strangers asking for expensive pages faster than the server's budget
    # for them: the budget is tests/test_web_share.py's to check.
    app.config[SHARE] = None
    if not streams:
        app.extensions["changes"].held = 0
    app.jinja_env.bytecode_cache = TEMPLATES
    app.test_client_class = CheckedClient
    app.extensions["test_errors"] = []
    if database:
        OPENED.append(app.config["STORE"])
    got_request_exception.connect(
        lambda sender, exception, **_: sender.extensions["test_errors"].append(exception),
        app, weak=False)
    return app


class Clock:
    """A guard's clock (its `clock`, monkeypatched), moved on by the test."""

    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


def phone_client(app, address=PHONE_ADDRESS):
    """A client seen from the table's Wi-Fi, not from the server itself: a phone."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


@pytest.fixture
def app(tmp_path):
    """The app, its games in SQLite (what the web asks of the store is asked of every
    backend by tests/test_store_contract.py)."""
    return make_app(tmp_path / "data")


@pytest.fixture
def host(app):
    """The server's own device (loopback address): the host."""
    return app.test_client()


@pytest.fixture
def phone(app):
    return phone_client(app)


@pytest.fixture
def game(host):
    """A new 3-player game (English rules, side sales, secret money): its token."""
    return new_game(host)


# --- reading pages -----------------------------------------------------------

@dataclass
class Form:
    """A form as a browser would submit it untouched: defaults of every enabled field."""

    action: str
    classes: list[str]
    fields: dict[str, list[str]] = field(default_factory=dict)

    def add(self, name, value):
        self.fields.setdefault(name, []).append(value)


class _Forms(HTMLParser):
    def __init__(self):
        super().__init__()
        self.forms, self.select, self.first_option = [], None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append(Form(attrs.get("action") or "", (attrs.get("class") or "").split()))
        if not self.forms or "disabled" in attrs:
            return
        form, name = self.forms[-1], attrs.get("name")
        if tag == "input" and name:
            kind = attrs.get("type", "text")
            if kind not in ("checkbox", "radio", "file", "submit") or (
                    kind in ("checkbox", "radio") and "checked" in attrs):
                form.add(name, attrs.get("value", "on" if kind in ("checkbox", "radio") else ""))
        elif tag == "select" and name:
            self.select, self.first_option = name, None
            form.fields.setdefault(name, [])
        elif tag == "option" and self.select:
            value = attrs.get("value", "")
            if self.first_option is None:
                self.first_option = value
            if "selected" in attrs:
                form.fields[self.select] = [value]

    def handle_endtag(self, tag):
        if tag == "select" and self.select:
            if not self.forms[-1].fields[self.select] and self.first_option is not None:
                self.forms[-1].fields[self.select] = [self.first_option]
            self.select = None


def body(page) -> str:
    """The HTML of a response (or the HTML itself)."""
    return page if isinstance(page, str) else page.get_data(as_text=True)


def forms(page) -> list[Form]:
    parser = _Forms()
    parser.feed(body(page))
    return parser.forms


def find_form(page, key) -> Form:
    """The first form with class `key`, or whose action is `key`."""
    found = [form for form in forms(page) if key in form.classes or form.action == key]
    assert found, f"no form {key!r} on the page"
    return found[0]


def text(page) -> str:
    """What a reader sees: the page without tags, entities decoded, spaces collapsed."""
    content = re.sub(r"<(script|style)\b.*?</\1>", " ", body(page), flags=re.S)
    content = re.sub(r'<a class="rule" [^>]*>([^<]*)</a>', r"\1", content)  # within a line
    content = re.sub(r'<span class="rule-ref">([^<]*)</span>', r"\1", content)  # "(R5)."
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", content)).split())


def alerts(page) -> list[str]:
    """The texts of the error messages (role="alert") shown on the page."""
    return [text(content) for tag, content in
            re.findall(r'<(?:p|ul)([^>]*role="alert"[^>]*)>(.*?)</(?:p|ul)>', body(page), re.S)
            if not re.search(r"\shidden\b", tag)]


def rows(page) -> list[list[str]]:
    """The cells of each table row, as text."""
    return [[text(cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body(page), re.S)]


# --- acting through forms ----------------------------------------------------

def submit(client, url, form_key, htmx=False, **values):
    """GET `url`, fill in its form `form_key` (see find_form) with `values`, POST it.

    A value None drops a field. The CSRF token also travels in the X-CSRF-Token header,
    as the page's htmx sends it. With `htmx` the request says so and the answer is the
    fragment.
    """
    page = client.get(url)
    assert page.status_code == 200, page.status_code
    form = find_form(page, form_key)
    data = {name: value for name, value in {**form.fields, **values}.items() if value is not None}
    headers = {**page_headers(page), **({"HX-Request": "true"} if htmx else {})}
    return client.post(form.action or url, data=data, headers=headers)


def page_headers(page) -> dict:
    """The headers the page's htmx adds to every request (hx-headers on <body>)."""
    match = re.search(r"<body[^>]*hx-headers='([^']*)'", body(page))
    return json.loads(html.unescape(match.group(1))) if match else {}


def seat(name, players=PLAYERS) -> str:
    return str(players.index(name))


def card(words, families=DEFAULT_FAMILIES) -> str:
    """'red 1' -> '0:1', as the card travels in a form."""
    family, number = words.split()
    return f"{families.index(family)}:{number}"


def action_fields(kind, *args) -> dict:
    """The form fields of an action written as in the rules: ("sold", "Anna", 7)."""
    if kind == "reveal":
        return {"cards": [card(words) for words in args]}
    if kind == "sold":
        winner, price = args
        return {"winner": seat(winner), "price": str(price)}
    if kind == "penalty":
        return {"player": seat(args[0])}
    if kind == "overbid":
        player, discard = args
        return {"player": seat(player), "discard": card(discard) if discard else ""}
    if kind == "side_sale":
        seller, sold, buyer, price = args
        return {"seller": seat(seller), "card": card(sold),
                "buyer": seat(buyer), "price": str(price)}
    return {}


def act(client, token, kind, *args, htmx=False, **raw):
    """Record an action from the table page: act(host, token, "sold", "Anna", 7), or with
    raw form values act(host, token, "sold", winner="0", price="abc")."""
    fields = action_fields(kind, *args) if args else {}
    return submit(client, f"/g/{token}", f"action-{kind}", htmx=htmx, **fields, **raw)


def play(client, token, steps):
    """Record each step, e.g. ("sold", "Anna", 3) or ("undo",); every one must be accepted.

    Players travel by seat, so the steps play the same in a game with other names."""
    for step in steps:
        response = undo(client, token) if step == ("undo",) else act(client, token, *step)
        assert response.status_code == 303, (step, response.status_code, alerts(response))


def undo(client, token):
    return submit(client, f"/g/{token}", "undo")


def new_game(client, players=PLAYERS, expect=303, **values):
    """Start a game from the host's home page; its token (or the refusal response)."""
    names = list(players) + [""] * (5 - len(players))
    response = submit(client, "/", "new-game", player=names, **values)
    assert response.status_code == expect, (response.status_code, alerts(response))
    if expect != 303:
        return response
    return response.headers["Location"].rsplit("/", 1)[1]


def host_link(client, token) -> str:
    """A hosted game's host link, as its settings page shows it to a host."""
    page = client.get(f"/g/{token}/settings")
    assert page.status_code == 200
    return re.search(r"<code>http://localhost(/g/[^<]+)</code>", page.get_data(as_text=True))[1]


def join(client, token, name, players=PLAYERS):
    """Take `name`'s seat from the join page."""
    return submit(client, f"/g/{token}/join", "seats", seat=seat(name, players))


def import_record(client, data: bytes, **values):
    """Upload a record file through the home page's import form."""
    form = find_form(client.get("/"), "/import")
    return client.post("/import", data={**form.fields, **values,
                                        "record": (BytesIO(data), "game.json")})


def record_of(*events, **settings) -> bytes:
    """A record of `events` on the setup of `settings` (tests.helpers.setup's)."""
    return json.dumps(dump_record(setup(**settings), list(events))).encode()


def imported(host, *events, live=False, **settings) -> str:
    """The token of a game the host imported from a record of `events` (`live`: in live
    auction mode; `settings`: the setup's)."""
    response = import_record(host, record_of(*events, **settings),
                             **({"live": "on"} if live else {}))
    assert response.status_code == 303, alerts(response)
    return response.headers["Location"].rsplit("/", 1)[1]


# --- the store, for checking that nothing changed ------------------------------

def stored(app, token):
    """(version, events) of a game as stored."""
    game = app.config["STORE"].game(token)
    return game.version, game.events


def version(app, token) -> int:
    """The game version a form sends back."""
    return app.config["STORE"].game(token).version


def refuse_writes(monkeypatch, store) -> None:
    """From now on the database itself refuses every write of `store`: SQLite's query_only
    (as a full or read-only disk would, where no disk can be mounted), PostgreSQL's
    read-only transactions (as a standby server would: each new connection's)."""
    if not hasattr(store, "path"):
        read_only = with_options(store.url, "-c default_transaction_read_only=on")
        monkeypatch.setattr(store, "url", read_only)
        store.close()  # the next connections are refusing ones
        return
    connection = store._connection

    def refusing_writes(*args, **kwargs):
        db = connection(*args, **kwargs)
        db.execute("PRAGMA query_only = ON")
        return db
    monkeypatch.setattr(store, "_connection", refusing_writes)
    store.close()  # the thread's next connection is a refusing one


def with_options(url: str, options: str) -> str:
    """A PostgreSQL URL whose connections start with these server `options`."""
    return f"{url}{'&' if '?' in url else '?'}options={quote(options)}"


def hand_edit(app, sql: str, *params) -> list[tuple]:
    """Someone edits the app's database by hand (`?` parameters), with the server running:
    the rows the statement gives back."""
    return by_hand(app.config["STORE"], sql, *params)


def by_hand(store, sql: str, *params) -> list[tuple]:
    """`hand_edit` of the database of `store`."""
    if hasattr(store, "path"):
        with closing(sqlite3.connect(store.path)) as db, db:
            return db.execute(sql, params).fetchall()
    import psycopg
    with psycopg.connect(store.url, autocommit=True) as db:
        cursor = db.execute(sql.replace("?", "%s"), params)
        return cursor.fetchall() if cursor.description else []


def stamp(app, token) -> int:
    """What a screen's poll sends back (`?v=`): the stamp of the game it shows."""
    return app.config["STORE"].stamp(token)


def copy_session(source, target):
    """Carry a browser's session cookie over to a new client (the same phone, a new server)."""
    cookie = source.get_cookie("session")
    target.set_cookie("session", cookie.value, domain=cookie.domain, path=cookie.path)


def snapshot(app):
    """Every stored game with its events and seats: equal before and after means unchanged."""
    return app.config["STORE"].games()


def csrf_headers(client, url="/"):
    """The X-CSRF-Token header of this client's session, read from a page."""
    return page_headers(client.get(url))
