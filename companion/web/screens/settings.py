"""The host's settings of one game: recording from phones, the help for new players, the
lock of a finished game, removing the game; on a hosted server, the game's host devices
(screens/hosting.py). Each change is noted in the game's journal."""
from flask import Blueprint, abort, redirect, render_template, request, url_for

from companion.store import games
from companion.store.sql import Conflict
from companion.web.guards.roles import device
from companion.web.pages import game_or_404, store
from .hosting import hosting

blueprint = Blueprint("settings", __name__)
# What a confirmation page may confirm: the finished game's unlock, and removal.
CONFIRMED = ("unlock", "delete")


@blueprint.get("/g/<token>/settings")
def settings(token):
    game = game_or_404(token)
    return render_template("settings.html", game=game, **hosting(game))


@blueprint.post("/g/<token>/settings")
def save_settings(token):
    game = game_or_404(token)
    chosen = {name: request.form.get(name) == "on" for name in ("phones_record", "guide")}
    changes = {name: value for name, value in chosen.items()
               if getattr(game.options, name) != value}
    games.set_options(store(), game, device(game).signature,
                      **(changes or {"phones_record": chosen["phones_record"]}))
    return redirect(url_for("settings.settings", token=token), 303)


@blueprint.get("/g/<token>/confirm/<what>")
def confirm(token, what):
    """Ask once more before what cannot be taken back lightly."""
    if what not in CONFIRMED:
        abort(404)
    return render_template("confirm.html", game=game_or_404(token), what=what)


@blueprint.post("/g/<token>/unlock")
def unlock(token):
    """A finished game may be corrected again (R2), until it is locked."""
    return _set_lock(token, unlocked=True)


@blueprint.post("/g/<token>/lock")
def lock(token):
    return _set_lock(token, unlocked=False)


def _set_lock(token, unlocked: bool):
    game = game_or_404(token)
    games.set_options(store(), game, device(game).signature, unlocked=unlocked)
    return redirect(url_for("table.table", token=token), 303)


@blueprint.post("/g/<token>/delete")
def delete(token):
    game_or_404(token)
    try:
        store().remove_game(token)
    except Conflict:  # removed meanwhile by another host device
        pass
    return redirect(url_for("host.home"), 303)
