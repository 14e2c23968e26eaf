"""The hosts of one game on a hosted server (--hosted): the game's host link, which makes
another device a host of that game alone, and the host devices, each revocable by the
others (revoking one changes the link). A server on a table has none of this: its owner's
host link serves every game (screens/host.py)."""
import secrets

from flask import Blueprint, abort, redirect, render_template, request, url_for
from flask_babel import gettext

from companion.web.forms import device_label, platform_label, whole
from companion.web.guards.roles import device_token, hosted, hosts_game
from companion.web.pages import game_or_404, store

blueprint = Blueprint("hosting", __name__)


def hosting(game) -> dict:
    """What the settings page of `game` shows a host on a hosted server: the game's host
    link and its other host devices; nothing elsewhere."""
    if not hosted():
        return {}
    link = request.host_url.rstrip("/") + url_for(
        "hosting.link", token=game.token, key=store().host_key(game.token))
    return {"host_link": link, "hosts": store().game_hosts(game.token, device_token())}


@blueprint.get("/g/<token>/host/<key>")
def link(token, key):
    """The game's host link: asks before making this device a host of the game; a host of
    it goes to its table."""
    game = _checked(token, key)
    if hosts_game(token):
        return redirect(url_for("table.table", token=token))
    return render_template("grant.html", key=key, game=game,
                           label=platform_label(request.user_agent))


@blueprint.post("/g/<token>/host/<key>")
def grant(token, key):
    """This device hosts the game too, until another host revokes it."""
    _checked(token, key)
    store().add_host(token, device_token(), device_label(request.form) or gettext("another device"))
    return redirect(url_for("table.table", token=token), 303)


def _checked(token: str, key: str):
    """The game, if `key` is its host link's key on a hosted server; else 404."""
    game = game_or_404(token)
    if not (hosted() and secrets.compare_digest(key.encode(),
                                                store().host_key(token).encode())):
        abort(404)
    return game


@blueprint.post("/g/<token>/hosts/<host_id>/revoke")
def revoke(token, host_id):
    """Another host device of the game hosts it no more, and the game's host link changes
    (the revoked device kept the old one in its history)."""
    game_or_404(token)
    number = whole(host_id)
    if not hosted() or number is None or not store().revoke_host(token, number, device_token()):
        abort(404)  # no other host of the game by that number: the link stays
    return redirect(url_for("settings.settings", token=token), 303)
