"""The host's device: the list of games, a new game, importing a record, the devices
granted host rights; and for every other device, the welcome page with its game code. On a
hosted server every device is a host's of the games it starts: its list shows those."""
import math
import secrets
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
from companion.store.sql import (CODE_LENGTH, CODE_SHAPE, HOSTED_CODE_LENGTH, Bounded, Bounds,
                                  game_code)
from companion.web.forms import device_label, platform_label, whole
from companion.web.guards.roles import (device_token, hosted, is_granted, is_host, is_owner,
                                        make_host, own_device_token, seen_games)
from companion.web.guards.limits import limits
from companion.web.guards.networks import asking_network
from companion.web.guards.throttle import Throttle, hashed, minutes, throttle
from companion.web.pages import store
from companion.web.render.i18n import english_families
from companion.web.render.paging import Paged, page_count, within
from .phones import phone_url

blueprint = Blueprint("host", __name__)
CODES_PER_HOUR = 100  # game codes one network may type (docs/faults.md: the odds)
GAMES_PER_PAGE = 20  # of the host's list
STARTS_PER_NETWORK = 20  # games one network may start in an hour on a hosted server
SWEEP_EVERY = 3600  # seconds between two looks for idle games on a hosted server
NAMES_FROM = 50  # the latest games whose players the new game's form offers


@blueprint.get("/")
def home():
    if not (hosted() or is_host()):
        return render_template("welcome.html")
    return _home()


@blueprint.post("/code")
def enter_code():
    """A game's short code, typed on a phone that cannot scan: to its join page. Each code
    typed is counted for its network, right or wrong (at most CODES_PER_HOUR)."""
    typed = typed_code(request.form.get("code") or "")
    wait = _code_tries().take(asking_network())
    if wait:
        return render_template("welcome.html", error=Phrase(N_(
            "Too many game codes were typed from this network: try again in {minutes} min, "
            "or scan the QR code on the table's screen."), minutes=minutes(wait))), 429
    token = token_of_code(typed)
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


def _code_tries() -> Throttle:
    """The game codes each network typed within the hour (every process counting)."""
    return throttle(current_app, "code", CODES_PER_HOUR, 3600)


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
    """A new game from `record`; on a hosted server, hosted by this device, within the
    server's bounds (looked at before the record is checked, then as it is stored)."""
    bounds = start_bounds()
    try:
        if bounds:
            sweep(current_app)
            store().check_bounds(bounds)
        token = games.create(store(), record, options, device_token() if hosted() else None,
                             HOSTED_CODE_LENGTH if hosted() else CODE_LENGTH, bounds)
    except Refusal as refusal:
        return _home(form, games.located(refusal)), 422
    except Bounded as bounded:
        return _home(form, past_bound(bounded)), 429
    return redirect(url_for("table.table", token=token), 303)


def start_bounds() -> Bounds | None:
    """The bounds of a game this device starts on a hosted server (None on a table)."""
    if not hosted():
        return None
    chosen = limits()
    return Bounds(hashed(current_app.secret_key.encode(), asking_network()),
                  STARTS_PER_NETWORK, chosen.starts_per_hour, chosen.max_games,
                  chosen.max_megabytes * 1_000_000)


def past_bound(bounded: Bounded) -> Phrase:
    """The words of a start refused at a bound of the server."""
    said = {
        "network": N_("This network has started as many games within the hour as one "
                      "network may ({count}): start another in {minutes} min, or go on "
                      "with one of yours."),
        "hour": N_("This server has started as many games within the hour as its operator "
                   "allows ({count}): start another in {minutes} min. The games under way "
                   "play on."),
        "games": N_("This server keeps as many games as its operator allows ({count}): a "
                    "new one can be started once older ones are removed. The games under "
                    "way play on."),
        "bytes": N_("This server's games take as much room as its operator allows ({count} "
                    "MB): a new one can be started once older ones are removed. The games "
                    "under way play on.")}
    count = bounded.limit // 1_000_000 if bounded.bound == "bytes" else bounded.limit
    return Phrase(said[bounded.bound], count=count, minutes=minutes(math.ceil(bounded.wait)))


def sweep(app) -> None:
    """On a hosted server, at start and then at most once an hour in each process, as games
    are started: the games no one has changed for KEEP_DAYS days are removed (their
    records could be exported until then)."""
    now = time.time()
    if now < app.extensions.get("swept", 0) + SWEEP_EVERY:
        return
    app.extensions["swept"] = now
    app.config["STORE"].remove_idle(now - app.config["KEEP_DAYS"] * 86400)


def _home(form=None, error=None, seats=None):
    """The host's page: a page of the games (one whose log no longer replays, marked so)
    and the forms (`?same=1`: the new game's seats filled with the last game's players);
    on the server's own device, the host link and the devices granted host rights."""
    mine = _list_of()
    count = store().game_count(mine)
    offered = _offered()
    if seats is None:
        seats = _seats(form) if form else (
            _last_seats(offered) if request.args.get("same") and offered.last else _Seats())
    return render_template("home.html", listed=_listed(count, mine), form=form, error=error,
                           families=[gettext(family) for family in DEFAULT_FAMILIES],
                           lan_url=phone_url(), first_game=not count,
                           hosted=hosted(),
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
