"""The address phones are shown, in the QR code and in words: the first one offered (the
first --name, else the best address of this machine), until a host device picks another
in one tap ("Phones cannot open it? Show another address"); on a hosted server, the public
address the device opened. The choice is kept in the
database, so that every server process shows the same, and every screen draws itself
again with it. The addresses are read again while the server runs (at most every REREAD
seconds), so that a network that comes up later (a hotspot turned on) is offered."""
import json
import threading
import time
from urllib.parse import urlsplit

from flask import Blueprint, abort, current_app, redirect, request, url_for

from companion.rules.phrase import N_, Phrase
from companion.store.sql import StorageFault
from companion.web.guards.roles import hosted
from companion.web.pages import game_or_404, store

SETTING = "phone_url"
OFFERED = "phone_urls"  # the setting of the addresses last read (their change moves stamps)
REREAD = 30.0  # seconds between two readings of the addresses
clock = time.monotonic
blueprint = Blueprint("phones", __name__)


class Offered:
    """The addresses phones may use, (url, what it is) each, best first: `offered`, or,
    given a function, what it reads, read again at most every REREAD seconds; when they
    change, every game's stamp moves (in `store`), so that every screen shows them."""

    def __init__(self, offered, store=None):
        self._read, self._store = (offered if callable(offered) else None), store
        self._urls = tuple(offered() if self._read else offered)
        self._at = clock()
        self._lock = threading.Lock()

    def urls(self) -> tuple[tuple[str, str], ...]:
        if self._read is not None and clock() - self._at >= REREAD:
            with self._lock:
                if clock() - self._at >= REREAD:
                    self._reread()
        return self._urls

    def _reread(self) -> None:
        urls, self._at = tuple(self._read()), clock()
        if urls != self._urls and self._store is not None:
            try:
                self._store.show_everywhere(OFFERED, json.dumps(urls))
            except StorageFault:  # (the screens show them at the game's next change)
                pass
        self._urls = urls


def init(app, offered) -> None:
    """`offered`: (address, what it is) for each address phones may use, best first, or a
    function that reads them (see Offered)."""
    store = app.config["STORE"]
    app.config["PHONE_URLS"] = Offered(offered, store)
    store.show_everywhere(SETTING, None)  # a new start offers the first again
    app.before_request(_read_again)


def _read_again() -> None:
    """The addresses read again if due, before any game is read (its stamp may move)."""
    offered_urls()


def offered_urls() -> tuple[tuple[str, str], ...]:
    """The addresses phones may use now: (url, what it is), best first."""
    return current_app.config["PHONE_URLS"].urls()


def host_names(offered) -> set[str]:
    """The names and addresses of `offered`, as a Host header would carry them."""
    return {urlsplit(url).hostname for url, _ in offered}


def phone_url() -> str | None:
    """The address phones are shown now, None if they cannot reach this server; on a
    hosted server, the public address this device opened (through the proxy: as it
    tells)."""
    if hosted():
        return request.host_url.rstrip("/")
    offered = [url for url, _ in offered_urls()]
    chosen = store().setting(SETTING) if len(offered) > 1 else None
    return chosen if chosen in offered else (offered[0] if offered else None)


def join_url(game) -> str | None:
    """The address phones open to join `game`, if phones can reach this server at all."""
    return _join_url(phone_url(), game)


def joining(game) -> dict:
    """What a screen's join box shows: the join link (for the QR code), the address in
    words, and the other addresses a host device may show instead."""
    shown = phone_url()
    return {"join_url": _join_url(shown, game), "phone_url": shown,
            "other_urls": other_urls(shown)}


def _join_url(shown: str | None, game) -> str | None:
    return shown and shown + url_for("player.join", token=game.token)


def other_urls(shown: str | None) -> list[tuple[str, str]]:
    """The addresses offered besides the one shown: (address, what it is)."""
    return [(url, label) for url, label in offered_urls() if url != shown]


@blueprint.post("/g/<token>/phones")
def show(token):
    """A host device shows phones another of the server's addresses."""
    game = game_or_404(token)
    address = request.form.get("address", "")
    if address not in {url for url, _ in offered_urls()}:
        abort(400, Phrase(N_("This server has no address {address}: pick one of those the "
                             "table screen offers."), address=address[:100]))
    store().show_everywhere(SETTING, address)
    return redirect(url_for("table.table", token=game.token), 303)
