"""The table app: a thin Flask shell around the rules core and the store."""
from datetime import timedelta
from pathlib import Path

from flask import Flask, Response, g, make_response, render_template, request
from flask.globals import request_ctx
from flask_babel import gettext

from companion.rules.cards import ROUNDS
from companion.rules.phrase import N_, Phrase
from companion.rules.setup import MAX_FAMILY_LENGTH, MAX_NAME_LENGTH, MAX_PLAYERS, MIN_PLAYERS
from companion.store.cache import GameCache
from companion.store.games import Damaged
from companion.store.sql import HOSTED_CODE_LENGTH, StorageFault
from companion.store import open_store
from companion.web.guards.sessions import Sessions
from companion.web.render.assets import assets
from . import pages, streams
from .guards import limits, pace, roles, security, share
from .guards import proxy as proxy_guard
from .render import compress, drawn, i18n, rendered
from .screens import (display, host, hosting, operator, phones, player, rulebook, settings,
                      standings, table)

PACKAGE = Path(__file__).resolve().parents[1]  # companion/
# The rules' numbers the templates show or enforce (R1, R2).
LIMITS = dict(rounds=ROUNDS, min_players=MIN_PLAYERS, max_players=MAX_PLAYERS,
              max_name_length=MAX_NAME_LENGTH, max_family_length=MAX_FAMILY_LENGTH)


def create_app(data_dir, addresses=(), names=(), database=None, proxy=None,
               hosted=False, keep_days=30, screens=streams.HELD,
               chosen=limits.Limits()) -> Flask:
    """An app serving the games stored in `data_dir` (or in the PostgreSQL `database`);
    behind the reverse proxy at the address `proxy`, if given; `hosted`: a server on the
    internet (no owner, any device starts games: guards.roles), which removes the games
    no one changed for `keep_days` days and gives the games longer codes, within the
    operator's limits (`chosen`: guards/limits.py); it keeps `screens` screens told of their game's
    changes at once (streams.py).

    `addresses` are the addresses phones may use to reach this server, best first, each with
    what it is: (url, label) (the first is in the QR code until the host picks another), or
    a function that reads them, read again while the server runs (screens/phones.py);
    `names` are host names phones may use besides this machine's addresses (--name).
    """
    app = Flask(__name__, template_folder=str(resources("templates")),
                  static_folder=str(resources("static")))
    store = open_store(data_dir, database)
    app.config.update(
        SECRET_KEY=store.secret("session_key"),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=timedelta(days=30),
        SESSION_REFRESH_EACH_REQUEST=False,
        MAX_CONTENT_LENGTH=1024 * 1024,
        STORE=store,
        HOSTED=hosted,
        KEEP_DAYS=keep_days,
        GAMES=GameCache(store),
        HOST_KEY=store.secret("host_key"),
    )
    limits.init(app, chosen)
    phones.init(app, addresses)
    app.config["HOST_NAMES"] = frozenset(name.lower().rstrip(".") for name in [
        *names, *phones.host_names(app.config["PHONE_URLS"].urls())] if name)
    app.session_interface = Sessions()
    app.context_processor(_page_context)
    pace.init(app)
    pages.init(app)
    roles.init(app)
    share.init(app)
    security.init(app)
    i18n.init(app)
    rulebook.init(app)
    compress.init(app)
    drawn.init(app)
    rendered.init(app)
    streams.init(app, screens)
    for blueprint in (assets, host.blueprint, table.blueprint, player.blueprint,
                      settings.blueprint, display.blueprint, phones.blueprint,
                      standings.blueprint):
        app.register_blueprint(blueprint)
    if hosted:  # a server on a table has no host link of a game (its owner's serves all),
        app.register_blueprint(hosting.blueprint)  # and no operator but its owner
        app.register_blueprint(operator.blueprint)
        host.sweep(app)
        store.lengthen_codes(HOSTED_CODE_LENGTH)  # a table's codes are too short there
    _error_pages(app)
    proxy_guard.init(app, proxy)
    return app


def resources(name: str) -> Path:
    """The folder of the templates or the static files ("templates", "static"): in the
    package when it was installed (from a wheel, or `pip install .`), else at the top of
    the source tree, where the repository keeps them (an editable install, the tests)."""
    installed = PACKAGE / name
    return installed if installed.is_dir() else PACKAGE.parent / name


def _page_context() -> dict:
    """What every template may use: the rules' limits, and whether htmx asked for a part."""
    return {**LIMITS, "htmx": pages.htmx_asked()}


def _error_pages(app: Flask) -> None:
    """Every error is a page in words, never a traceback."""
    texts = {400: N_("This request could not be understood. Reload the page and try again."),
             403: N_("Only the host's device can do this."),
             404: N_("There is no such page or game here. Check the link or scan the QR code "
                     "again."),
             405: N_("That is not something this page can do."),
             409: N_("The game is not where this page shows it: reload the page and try "
                     "again."),
             413: N_("That file is too large for a game record."),
             429: N_("This device sends too much: wait a few seconds, then try again."),
             500: N_("Something went wrong on the server; nothing was changed. Try again."),
             503: N_("The server is busy: try again in a few seconds.")}
    for code, text in texts.items():
        app.register_error_handler(code, lambda error, code=code, text=text: _retry_after(
            error, _error_page(code, _words(getattr(error, "description", None), text))))
    app.register_error_handler(StorageFault, _storage_fault)
    app.register_error_handler(Damaged, lambda damaged: _error_page(409, i18n.say_sentence(Phrase(
        N_("This game's log is damaged and no longer replays: {reason}. The host can export "
           "its record from the list of games to keep it."), reason=damaged.reason))))


def _storage_fault(fault: StorageFault):
    """503 when the disk refuses a write or the database cannot be used: the page asks the
    store nothing more (no host grant, nor who hosts the game, is looked up for it)."""
    g.setdefault("grant", None)
    g.store_down = True
    return _error_page(503, i18n.say_sentence(fault.text))


def _retry_after(error, page):
    """The error page, saying when to try again if the error does (its Retry-After)."""
    response = make_response(page)
    if getattr(error, "retry_after", None) is not None:
        response.headers["Retry-After"] = dict(error.get_headers())["Retry-After"]
    return response


def _words(description, text: str) -> str:
    """An error's own words (a Phrase the route gave), else its status's usual text."""
    return i18n.say_sentence(description) if isinstance(description, Phrase) else gettext(text)


def _error_page(code: int, text: str):
    """The error page; in plain text when the request's host is too broken to link to.
    A form sent by htmx gets the words alone, shown in the page's alert box (#flash)."""
    if request_ctx.url_adapter is None:
        return Response(text, code, mimetype="text/plain")
    if request.headers.get("HX-Request") == "true":
        return render_template("_flash.html", text=text), code, {
            "HX-Retarget": "#flash", "HX-Reswap": "innerHTML"}
    return render_template("error.html", code=code, text=text), code
