"""The host's device: the list of games, a new game, importing a record, the devices
granted host rights; and for every other device, the welcome page with its game code."""
import secrets

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask_babel import gettext

from .. import games, listing
from ..cards import DEFAULT_FAMILIES
from ..phrase import N_, Phrase
from ..record import FORMAT, loads
from ..refusal import Refusal
from ..setup import check_families, check_players, clean_family
from .forms import whole
from .i18n import english_families
from .pages import store
from .phones import phone_url
from .paging import Paged, page_count, within
from .roles import is_host, make_host
from .throttle import Throttle

blueprint = Blueprint("host", __name__)
CODE_TRIES_PER_MINUTE = 10  # wrong game codes one device may type
MAX_LABEL_LENGTH = 40
GAMES_PER_PAGE = 20  # of the host's list


@blueprint.get("/")
def home():
    if not is_host():
        return render_template("welcome.html")
    return _home()


@blueprint.post("/code")
def enter_code():
    """A game's short code, typed on a phone that cannot scan: to its join page."""
    device, tries = request.remote_addr or "", _code_tries()
    wait = tries.blocked(device)
    if wait:
        return render_template("welcome.html", error=Phrase(
            N_("Too many wrong codes from this device: try again in {seconds} seconds."),
            seconds=wait)), 429
    code = "".join((request.form.get("code") or "").split()).upper().replace("-", "")
    token = store().token_of_code(code) if code.isalnum() and code.isascii() else None
    if token is None:
        tries.failed(device)
        return render_template("welcome.html", code=code[:20], error=Phrase(
            N_("There is no game with the code {code} on this server: check it on the "
               "table's screen."), code=code[:20])), 404
    return redirect(url_for("player.join", token=token), 303)


def _code_tries() -> Throttle:
    """This server's count of wrong codes per device."""
    return current_app.extensions.setdefault("code_tries", Throttle(CODE_TRIES_PER_MINUTE, 60))


@blueprint.get("/host/<key>")
def host_link(key):
    """The host link: asks before making this device a host of the server."""
    _check_key(key)
    return render_template("grant.html", key=key,
                           label=(request.user_agent.platform or "")[:MAX_LABEL_LENGTH])


@blueprint.post("/host/<key>")
def grant(key):
    """This device becomes a host with a grant of its own, which the host can revoke."""
    _check_key(key)
    label = " ".join((request.form.get("label") or "").split())[:MAX_LABEL_LENGTH]
    make_host(label or gettext("another device"))
    return redirect(url_for("host.home"), 303)


def _check_key(key: str) -> None:
    if not secrets.compare_digest(key.encode(), store().secret("host_key").encode()):
        abort(404)


@blueprint.post("/grants/<grant_id>/revoke")
def revoke(grant_id):
    number = whole(grant_id)  # a grant's number, not any: SQLite holds none beyond 64 bits
    if number is None:
        abort(404)
    store().revoke(number)
    return redirect(url_for("host.home"), 303)


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
    try:
        token = games.create(store(), record, options)
    except Refusal as refusal:
        return _home(form, games.located(refusal)), 422
    return redirect(url_for("table.table", token=token), 303)


def _home(form=None, error=None):
    """The host's page: a page of the games (one whose log no longer replays, marked so),
    the forms, the devices granted host rights."""
    count = store().game_count()
    return render_template("home.html", listed=_listed(count), form=form, error=error,
                           families=[gettext(family) for family in DEFAULT_FAMILIES],
                           grants=store().grants(), lan_url=phone_url(),
                           first_game=not count, host_key=store().secret("host_key"))


def _listed(count: int) -> Paged:
    """The page of the `count` games asked for (`?page=`, the newest first; page 1 if the
    number is not one, the last one if there are fewer pages): what the list shows of each."""
    pages = page_count(count, GAMES_PER_PAGE)
    page = within(whole(request.args.get("page")) or 1, pages)
    return Paged(listing.listed(store(), (page - 1) * GAMES_PER_PAGE, GAMES_PER_PAGE),
                 page, pages)
