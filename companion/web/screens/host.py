"""The host's device: the list of games, a new game, importing a record, the devices
granted host rights; and for every other device, the welcome page with its game code. On a
hosted server every device is a host's of the games it starts: its list shows those."""
import secrets
import threading
import time
import unicodedata
from dataclasses import dataclass

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask_babel import gettext

from companion.rules.cards import DEFAULT_FAMILIES
from companion.rules.phrase import N_, Phrase
from companion.rules.record import FORMAT, loads
from companion.rules.refusal import Refusal
from companion.rules.setup import (MAX_PLAYERS, Setup, check_families, check_players,
                                   clean_family, next_clockwise)
from companion.store import games, listing
from companion.store.sql import CODE_SHAPE, game_code
from companion.web.forms import device_label, platform_label, whole
from companion.web.guards.roles import (device_token, hosted, is_granted, is_host, is_owner,
                                        make_host, own_device_token, seen_games)
from companion.web.guards.throttle import Throttle, throttle
from companion.web.pages import store
from companion.web.render.history import clock
from companion.web.render.i18n import english_families
from companion.web.render.paging import Paged, page_count, within
from .phones import phone_url

blueprint = Blueprint("host", __name__)
CODE_TRIES_PER_MINUTE = 10  # wrong game codes one device may type
WRONG_CODES_PER_HOUR = 300  # wrong game codes all devices together may type
EVERYONE = ""  # the server's count of wrong codes, whatever the address
GAMES_PER_PAGE = 20  # of the host's list
GAMES_PER_HOUR = 20  # games one address may start on a hosted server
SWEEP_EVERY = 3600  # seconds between two looks for idle games on a hosted server
NAMES_FROM = 50  # the latest games whose players the new game's form offers


@blueprint.get("/")
def home():
    if not (hosted() or is_host()):
        return render_template("welcome.html")
    return _home()


@blueprint.post("/code")
def enter_code():
    """A game's short code, typed on a phone that cannot scan: to its join page."""
    typed = typed_code(request.form.get("code") or "")
    refusal, token = _code_tries().look_up(request.remote_addr or "", typed)
    if refusal:
        return render_template("welcome.html", error=refusal), 429
    if token is None:
        return render_template("welcome.html", code=typed[:20], error=Phrase(
            N_("There is no game with the code {code} on this server: check it on the "
               "table's screen."), code=typed[:20])), 404
    return redirect(url_for("player.join", token=token), 303)


def typed_code(text: str) -> str:
    """A code as typed, the way codes are kept: 'kxr 4tqm' or 'KXR4TQM' -> 'KXR-4TQM'
    (any spaces and dashes, any case); what cannot be a code, in capitals."""
    characters = "".join(character for character in text.upper() if not (
        character.isspace() or unicodedata.category(character) == "Pd"))
    code = game_code(characters)
    return code if CODE_SHAPE.fullmatch(code) else characters


def token_of_code(code: str) -> str | None:
    """The token of the game with the code `code` (as typed_code gives it), None if there
    is none; what cannot be a code is not looked up."""
    return store().token_of_code(code) if CODE_SHAPE.fullmatch(code) else None


class CodeTries:
    """The wrong game codes typed on this server: at most CODE_TRIES_PER_MINUTE a minute
    from one device, and WRONG_CODES_PER_HOUR an hour from all devices together, whatever
    their addresses (which bounds the odds of guessing a code, see
    tests/test_web_codes.py); past either, typing a code is refused in words, and the
    QR code still opens the game."""

    def __init__(self):
        self.devices = throttle(current_app, "wrong code", CODE_TRIES_PER_MINUTE, 60)
        self.server = throttle(current_app, "wrong codes", WRONG_CODES_PER_HOUR, 3600)
        self._lock = threading.Lock()  # no two requests slip past a limit together

    def look_up(self, device: str, code: str) -> tuple[Phrase | None, str | None]:
        """The token of the game `code` names, sent from `device` (an address), or why no
        code may be typed now: (refusal, token), a wrong code counted."""
        with self._lock:
            refusal = self.refusal(device)
            if refusal:
                return refusal, None
            token = token_of_code(code)
            if token is None:
                self.devices.count(device)
                self.server.count(EVERYONE)
            return None, token

    def refusal(self, device: str) -> Phrase | None:
        """Why `device` may not type a code now, or None."""
        closed = self.closed()
        if closed:
            return Phrase(N_("Too many wrong codes were typed on this server: typing a code "
                             "is refused for everyone until {time}. Scan the QR code on the "
                             "table's screen instead."), time=closed)
        wait = self.devices.blocked(device)
        if wait:
            return Phrase(N_("Too many wrong codes from this device: try again in {seconds} "
                             "seconds."), seconds=wait)
        return None

    def closed(self) -> str | None:
        """The time of day until which nobody may type a code ('21:40'), if too many
        wrong codes were typed in the last hour; else None."""
        wait = self.server.blocked(EVERYONE)
        return clock(time.time() + wait) if wait else None


def _code_tries() -> CodeTries:
    """This server's count of wrong codes (every process counting: guards.throttle)."""
    return current_app.extensions.setdefault("code_tries", CodeTries())


@blueprint.get("/host/<key>")
def host_link(key):
    """The host link: asks before making this device a host of the server. A granted
    device is a host already: it goes to the host's page, and never sees the key again;
    the server's own device sees the page the other device will see."""
    if is_granted():
        return redirect(url_for("host.home"))
    _check_key(key)
    return render_template("grant.html", key=key,
                           label=platform_label(request.user_agent))


@blueprint.post("/host/<key>")
def grant(key):
    """This device becomes a host with a grant of its own, which the owner can revoke; a
    device that is a host already gets no other."""
    if not is_host():
        _check_key(key)
        make_host(device_label(request.form) or gettext("another device"))
    return redirect(url_for("host.home"), 303)


def _check_key(key: str) -> None:
    """404 unless `key` is the host link's; a hosted server has no host link."""
    if hosted() or not secrets.compare_digest(key.encode(), store().secret("host_key").encode()):
        abort(404)


@blueprint.post("/grants/<grant_id>/revoke")
def revoke(grant_id):
    """The device loses its host rights for good: revoking also renews the host link.

    A revoked device kept the link it was granted with (its browser's history holds it),
    and a host who revokes a device at the table means it to be out, not one tap away
    from coming back. The devices still granted keep their grants; the link printed in
    the terminal at start stops working, and the owner's page shows the new one. (A link
    that admits one device only would be stricter, but the host hands the same link to
    each device the table wants, from the terminal too.)"""
    number = whole(grant_id)  # a grant's number, not any: SQLite holds none beyond 64 bits
    if number is None or not store().revoke(number):
        abort(404)  # no such grant: the link stays
    return renew()


@blueprint.post("/host-link/renew")
def renew():
    """A new host link: the old one stops working (devices granted keep their grants)."""
    current_app.config["HOST_KEY"] = store().renew_secret("host_key")
    return redirect(url_for("host.home"), 303)


@blueprint.post("/new")
def new_game():
    try:
        record = _new_record(request.form)
    except Refusal as refusal:
        return _home(request.form, refusal), 422
    return _create(record, _options(request.form), request.form)


def _new_record(form) -> dict:
    """The record of a new game from the form, or a Refusal naming what is wrong (R1)."""
    seats = [name.strip() for name in form.getlist("player")]
    names = [name for name in seats if name]
    check_players(tuple(names))
    start = whole(form.get("start"), len(seats))
    if form.get("start") and start is None:
        raise Refusal("R1", "choose the first start player's seat")
    if start is not None and not seats[start]:
        raise Refusal("R1", "the start player's seat {number} has no name", number=start + 1)
    families = tuple(clean_family(name) for name in form.getlist("family"))
    check_families(families)  # as the table typed them, in its language
    return {
        "format": FORMAT,
        "edition": form.get("edition", "en"),
        "variants": {"side_auctions": "side_sales" in form, "exchange": "exchange" in form},
        "families": english_families(families),
        "players": names,
        "events": [],
        **({} if start is None else {"start_player": seats[start]}),
    }


@blueprint.post("/import")
def import_game():
    upload = request.files.get("record")
    try:
        record = loads(upload.read().decode("utf-8-sig")) if upload else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        return _home(request.form, Phrase(N_("That file is not a game record: choose a JSON "
                                             "file exported by Templari Companion."))), 422
    return _create(record, _options(request.form),
                   request.form)


def _options(form) -> games.Options:
    """The companion's own settings chosen on the new game or import form."""
    return games.Options(money_open=form.get("money") == "open", live_auction="live" in form,
                         guide="guide" in form)


def _create(record, options, form):
    """A new game from `record`; on a hosted server, hosted by this device, at most
    GAMES_PER_HOUR from one address."""
    if hosted():
        refused = start_refused()
        if refused:
            return _home(form, refused), 429
    try:
        token = games.create(store(), record, options, device_token() if hosted() else None)
    except Refusal as refusal:
        return _home(form, games.located(refusal)), 422
    if hosted():
        count_start()
    return redirect(url_for("table.table", token=token), 303)


def start_refused() -> Phrase | None:
    """On a hosted server, why this address may not start a game now (GAMES_PER_HOUR),
    or None; the idle games are swept first (see `sweep`)."""
    wait = _starts().blocked(request.remote_addr or "")
    if wait:
        return Phrase(N_("This network has started {count} games within the hour: start "
                         "another in {minutes} minutes, or go on with one of yours."),
                      count=GAMES_PER_HOUR, minutes=-(-wait // 60))
    sweep(current_app)
    return None


def count_start() -> None:
    """A game started from this address, on a hosted server."""
    _starts().count(request.remote_addr or "")


def sweep(app) -> None:
    """On a hosted server, at start and then at most once an hour in each process, as games
    are started: the games no one has changed for KEEP_DAYS days are removed (their
    records could be exported until then)."""
    now = time.time()
    if now < app.extensions.get("swept", 0) + SWEEP_EVERY:
        return
    app.extensions["swept"] = now
    app.config["STORE"].remove_idle(now - app.config["KEEP_DAYS"] * 86400)


def _starts() -> Throttle:
    """The games each address started within the hour (every process counting)."""
    return throttle(current_app, "game start", GAMES_PER_HOUR, 3600)


def _home(form=None, error=None, seats=None):
    """The host's page: a page of the games (one whose log no longer replays, marked so),
    the forms (`?same=1`: the new game's seats filled with the last game's players),
    whether typing codes is closed for too many wrong ones; on the server's own device, the
    host link and the devices granted host rights."""
    mine = _list_of()
    count = store().game_count(mine)
    offered = _offered()
    if seats is None:
        seats = _seats(form) if form else (
            _last_seats(offered) if request.args.get("same") and offered.last else _Seats())
    return render_template("home.html", listed=_listed(count, mine), form=form, error=error,
                           families=[gettext(family) for family in DEFAULT_FAMILIES],
                           lan_url=phone_url(), first_game=not count,
                           codes_closed=_code_tries().closed(), hosted=hosted(),
                           offered=offered, seats=seats, **_owners_part())


@dataclass(frozen=True)
class Offered:
    """The names the new game's form offers, one tap each: those played on this server
    (the games this device may see, the latest first), and the last game's setup."""

    names: tuple[str, ...] = ()
    last: Setup | None = None


@dataclass(frozen=True)
class _Seats:
    """The new game's seats as the form shows them: a name each ('' for an empty seat),
    and the first start player's seat (None: the form's first)."""

    names: tuple[str, ...] = ("",) * MAX_PLAYERS
    start: int | None = None


def _offered() -> Offered:
    summaries = listing.seen(store(), seen_games(), NAMES_FROM)
    if not summaries:
        return Offered()
    last = summaries[0]
    names = dict.fromkeys(name for summary in summaries for name in summary["players"])
    return Offered(tuple(names), Setup(tuple(last["players"]),
                                       start_player=last.get("start_player")))


def _last_seats(offered: Offered) -> _Seats:
    """The last game's players in their seats, the next one clockwise its start player."""
    players = offered.last.players
    return _Seats(_padded(players), next_clockwise(offered.last))


def _seats(form) -> _Seats:
    """The seats as a form sent them."""
    return _Seats(_padded(form.getlist("player")), whole(form.get("start"), MAX_PLAYERS))


def _padded(names) -> tuple[str, ...]:
    return tuple((list(names) + [""] * MAX_PLAYERS)[:MAX_PLAYERS])


@blueprint.post("/new/players")
def pick_players():
    """One tap on a name played before: seated in the first empty seat of the new game's
    form, or its seat emptied if it sits already; htmx swaps in the seats, with the rest
    of the form as it was (a browser without script gets the whole page)."""
    seats, name = _seats(request.form), request.form.get("pick", "")
    names = list(seats.names)
    if name in names:
        names[names.index(name)] = ""
    elif name and "" in names:
        names[names.index("")] = name
    seats = _Seats(tuple(names), seats.start)
    if request.headers.get("HX-Request") != "true":
        return _home(request.form, seats=seats)
    return render_template("_players.html", seats=seats, offered=_offered())


def _owners_part() -> dict:
    """What the host's page shows on the server's own device alone: the host link's key
    and the grants it may revoke."""
    if not is_owner():
        return {}
    return {"host_key": store().secret("host_key"), "grants": store().grants()}


def _list_of() -> str | None:
    """Whose games the list shows: every game (None), or on a hosted server those this
    device hosts (its device token; "" for a device that has started none)."""
    return (own_device_token() or "") if hosted() else None


def _listed(count: int, mine: str | None) -> Paged:
    """The page of the `count` games asked for (`?page=`, the newest first; page 1 if the
    number is not one, the last one if there are fewer pages): what the list shows of each."""
    pages = page_count(count, GAMES_PER_PAGE)
    page = within(whole(request.args.get("page")) or 1, pages)
    return Paged(listing.listed(store(), (page - 1) * GAMES_PER_PAGE, GAMES_PER_PAGE, mine),
                 page, pages)
