"""Each game screen rendered once per game stamp, view and language, and given as it is
to every device that shows the same: the table's screens, the TV view, a seat's phone.

What differs from one device to the next is in the key (whether it is a host device,
which seat it holds, the language, whether htmx asked, whether it hides its money) or is put in at the last moment
(its CSRF token: rendered as a placeholder in the kept HTML, replaced in each device's
answer). A page with a
message for one device (a refusal, a lost race) is rendered for it alone. Only the
latest stamp of a game is kept, and at most BUDGET characters in all.

Parts of screens that stay the same from one change to the next (the reveal grid until
the next reveal, an action's form until what it lists changes) are kept apart, by what
they show (see `kept`); parts that change at every change of a game (its status, the
payment) are kept with its screens of the stamp. The game's version a form sends (which
moves at every change) is put in once a screen is drawn (see `form_version`).
"""
import secrets
import threading
from collections import OrderedDict
from functools import partial

from flask import Flask, current_app, g, render_template, request

from companion.web.guards.roles import device
from companion.web.guards.security import csrf_token
from companion.web.pages import htmx_asked
from .i18n import current_language

PLACEHOLDER = "csrf-" + secrets.token_hex(12)  # this process's stand-in for a CSRF token
VERSION = "version-" + secrets.token_hex(8)  # its stand-in for a kept screen's game version
BUDGET = 4 * 1024 * 1024  # bytes of HTML kept (a screen is 5-25 thousand)
# Screens kept of one game: its views (table, TV, score, a phone per seat, pages and live
# parts) in two languages, roles and htmx or not, and the parts of its stamp (see `kept`),
# with room; more (a link asked for with made-up arguments) are rendered but not kept.
SCREENS_PER_GAME = 96
PARTS_BUDGET = 4 * 1024 * 1024  # characters of kept parts (those of earlier changes are
# pushed out as new ones come)


def init(app: Flask) -> None:
    app.config.update(RENDERED=Rendered(), PARTS=Parts())
    app.jinja_env.globals.update(kept=kept, form_version=form_version)


class Rendered:
    """Rendered screens (and parts of them) of the latest stamp of each game, least
    recently used dropped."""

    def __init__(self, budget: int = BUDGET):
        self.budget, self.size = budget, 0
        self._games: OrderedDict[str, tuple[int, dict[tuple, str]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, token: str, stamp: int, key: tuple) -> str | None:
        with self._lock:
            kept = self._games.get(token)
            if kept is None or kept[0] != stamp:
                return None
            self._games.move_to_end(token)
            return kept[1].get(key)

    def put(self, token: str, stamp: int, key: tuple, html: str) -> None:
        """Keep `html` (a screen, or a part of the stamp's screens: see `kept`)."""
        with self._lock:
            kept_stamp, pages = self._games.get(token, (stamp, {}))
            if kept_stamp > stamp:
                return  # a later change is kept already
            if kept_stamp < stamp:
                self.size -= sum(map(len, pages.values()))
                pages = {}
            if key not in pages and len(pages) >= SCREENS_PER_GAME:
                return
            self.size += len(html) - (len(pages[key]) if key in pages else 0)
            pages[key] = html
            self._games[token] = (stamp, pages)
            self._games.move_to_end(token)
            while self.size > self.budget and len(self._games) > 1:
                _, (_, dropped) = self._games.popitem(last=False)
                self.size -= sum(map(len, dropped.values()))


def screen(game, template: str, context, **extra):
    """`template` drawn with `context(game, **extra)`: from the kept screens when nothing
    is meant for this device alone (no `extra`), else rendered for it."""
    if any(value is not None for value in extra.values()):
        return render_template(template, **context(game, **extra))
    kept, here = current_app.config["RENDERED"], device(game)
    key = _key(here, template)
    html, token = kept.get(game.token, game.stamp, key), csrf_token()
    if html is None:
        html = _for_every_device(template, game.version, **context(game),
                                 csrf_token=PLACEHOLDER)
        kept.put(game.token, game.stamp, key, html)
    return html.replace(PLACEHOLDER, token)


def _for_every_device(template: str, version: int, /, **context) -> str:
    """`template` rendered to be given to every device that shows it: with kept parts, the
    game's `version` its forms send put in last (see `form_version`)."""
    g.shared = True
    try:
        return render_template(template, **context).replace(VERSION, str(version))
    finally:
        g.shared = False


def form_version(game):
    """The version of `game` a form sends (the server refuses a form drawn from an older
    one): in a screen for every device, a stand-in put in once the screen is drawn, so that
    a form kept from one change to the next (see `kept`) sends the version of its screen."""
    return VERSION if g.get("shared") else game.version


def _key(here, template: str) -> tuple:
    """What, besides the game's stamp, decides how `template` looks on this device
    (`here`: its role in the game)."""
    arguments = tuple(sorted((name, value) for name, value in request.args.items(multi=True)
                             if name != "v")) if request.method == "GET" else ()
    return (template, current_language(), htmx_asked(),
            here.host, here.seat, hiding(), arguments)


# The cookie static/app.js sets while a phone hides its owner's coins and cards (R12), so
# that a reload shows them hidden from the first paint.
HIDING = "hiding"


def hiding() -> bool:
    """Whether this device hides its owner's coins and cards."""
    return request.cookies.get(HIDING) == "1"


class Parts:
    """Parts of screens by what they show (see `kept`), least recently used dropped."""

    def __init__(self, budget: int = PARTS_BUDGET):
        self.budget, self.size = budget, 0
        self._parts: OrderedDict[tuple, str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> str | None:
        with self._lock:
            html = self._parts.get(key)
            if html is not None:
                self._parts.move_to_end(key)
            return html

    def put(self, key: tuple, html: str) -> None:
        with self._lock:
            self.size += len(html) - len(self._parts.get(key, ""))
            self._parts[key] = html
            while self.size > self.budget and len(self._parts) > 1:
                self.size -= len(self._parts.popitem(last=False)[1])


def kept(name: str, *shows, caller, game=None):
    """`{% call kept("grid", grid) %}...{% endcall %}` in a template: the block drawn once
    per language and `shows` (everything it draws must follow from them) and kept for
    every screen that draws it, of any game; drawn afresh in a screen rendered for one
    device alone (a refused form keeps what was typed). With `game`, a part of that game
    as it is now (it may show anything of its state): kept with its screens of the stamp,
    dropped with them when the game moves, so that parts kept longer are not pushed out."""
    if not g.get("shared"):
        return caller()
    key = (name, current_language(), *shows)
    if game is None:
        parts = current_app.config["PARTS"]
        get, put = parts.get, parts.put
    else:
        screens, key = current_app.config["RENDERED"], ("part", *key)
        get = partial(screens.get, game.token, game.stamp)
        put = partial(screens.put, game.token, game.stamp)
    html = get(key)
    if html is None:
        html = caller()
        put(key, html)
    return html
