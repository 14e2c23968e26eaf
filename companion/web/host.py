"""The host's device: the list of games, a new game, importing a record."""
import json
import secrets

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask_babel import gettext

from .. import games
from ..cards import DEFAULT_FAMILIES
from ..phrase import N_, Phrase
from ..record import FORMAT
from ..refusal import Refusal
from ..setup import check_families, check_players, clean_family
from .forms import whole
from .i18n import english_families
from .pages import store
from .security import is_host, make_host, require_host

blueprint = Blueprint("host", __name__)


@blueprint.get("/")
def home():
    if not is_host():
        return render_template("welcome.html")
    return _home()


@blueprint.get("/host/<key>")
def become_host(key):
    """The host link printed in the terminal makes another device a host too."""
    if not secrets.compare_digest(key.encode(), current_app.config["HOST_KEY"].encode()):
        abort(404)
    make_host()
    return redirect(url_for("host.home"))


@blueprint.post("/new")
def new_game():
    require_host()
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
    require_host()
    upload = request.files.get("record")
    try:
        record = json.loads(upload.read().decode("utf-8-sig")) if upload else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        return _home(request.form, Phrase(N_("That file is not a game record: choose a JSON "
                                             "file exported by Templari Companion."))), 422
    return _create(record, _options(request.form),
                   request.form)


def _options(form) -> games.Options:
    """The companion's own settings chosen on the new game or import form."""
    return games.Options(money_open=form.get("money") == "open", live_auction="live" in form)


def _create(record, options, form):
    try:
        token = games.create(store(), record, options)
    except Refusal as refusal:
        error = refusal if refusal.event is None else Phrase(
            N_("action {number}: {reason}"), number=refusal.event + 1, reason=refusal)
        return _home(form, error), 422
    return redirect(url_for("table.table", token=token), 303)


def _home(form=None, error=None):
    listed = [games.Game(stored) for stored in store().games()]
    return render_template("home.html", games=listed, form=form, error=error,
                           families=[gettext(family) for family in DEFAULT_FAMILIES])
