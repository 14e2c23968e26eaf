"""The address phones are shown, in the QR code and in words: the first one offered (the
first --name, else the best address of this machine), until a host device picks another
in one tap ("Phones cannot open it? Show another address"); on a hosted server, the public
address the device opened. The choice is kept in the
database, so that every server process shows the same, and every screen draws itself
again with it."""
from urllib.parse import urlsplit

from flask import Blueprint, abort, current_app, redirect, request, url_for

from companion.rules.phrase import N_, Phrase
from companion.web.guards.roles import hosted
from companion.web.pages import game_or_404, store

SETTING = "phone_url"
blueprint = Blueprint("phones", __name__)


def init(app, offered) -> None:
    """`offered`: (address, what it is) for each address phones may use, best first."""
    app.config["PHONE_URLS"] = tuple((url, label) for url, label in offered)
    app.config["STORE"].show_everywhere(SETTING, None)  # a new start offers the first again


def host_names(offered) -> set[str]:
    """The names and addresses of `offered`, as a Host header would carry them."""
    return {urlsplit(url).hostname for url, _ in offered}


def phone_url() -> str | None:
    """The address phones are shown now, None if they cannot reach this server; on a
    hosted server, the public address this device opened (through the proxy: as it
    tells)."""
    if hosted():
        return request.host_url.rstrip("/")
    offered = [url for url, _ in current_app.config["PHONE_URLS"]]
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
    return [(url, label) for url, label in current_app.config["PHONE_URLS"] if url != shown]


@blueprint.post("/g/<token>/phones")
def show(token):
    """A host device shows phones another of the server's addresses."""
    game = game_or_404(token)
    address = request.form.get("address", "")
    if address not in {url for url, _ in current_app.config["PHONE_URLS"]}:
        abort(400, Phrase(N_("This server has no address {address}: pick one of those the "
                             "table screen offers."), address=address[:100]))
    store().show_everywhere(SETTING, address)
    return redirect(url_for("table.table", token=game.token), 303)
