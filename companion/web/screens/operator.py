"""The operator of a hosted server: with the key given in the environment
(TEMPLARI_OPERATOR_KEY) a browser reads the server's use and removes a game by its code.
A server without that key, or on a table, has no such page."""
import os
import secrets
import time

from flask import (Blueprint, abort, current_app, redirect, render_template, request, session,
                   url_for)

from companion.rules.phrase import N_, Phrase
from companion.web.guards.networks import asking_network
from companion.web.guards.throttle import Throttle, hashed, minutes, throttle
from companion.web.pages import store
from .host import token_of_code, typed_code

blueprint = Blueprint("operator", __name__)
KEY_VARIABLE = "TEMPLARI_OPERATOR_KEY"
MIN_KEY_LENGTH = 22  # characters: 128 bits written as `templari-companion --new-operator-key`
# writes them (URL-safe base64), the least a key may have
MIN_KEY_SYMBOLS = 12  # different characters a key has at least (a random one of 22 has
# about 19): a word repeated or a run of keys on a keyboard is no key
KEYS_PER_HOUR = 10  # keys one network may type, right or wrong


def new_key() -> str:
    """A random operator's key of 192 bits."""
    return secrets.token_urlsafe(24)


def weak_key() -> str | None:
    """Why the environment's key is too weak to be one, in a line; None if it is none or a
    strong one (the server then refuses to start: guards a hosted server's operator)."""
    key = os.environ.get(KEY_VARIABLE, "")
    if not key:
        return None
    if len(key) < MIN_KEY_LENGTH:
        why = f"has {len(key)} characters, fewer than {MIN_KEY_LENGTH}"
    elif len(set(key)) < MIN_KEY_SYMBOLS:
        why = f"has {len(set(key))} different characters, fewer than {MIN_KEY_SYMBOLS}"
    else:
        return None
    return (f"{KEY_VARIABLE} {why}: it could be guessed; make one with "
            "templari-companion --new-operator-key")


def operator_key() -> str | None:
    """The operator's key, if the environment gives a strong one."""
    key = os.environ.get(KEY_VARIABLE, "")
    return key if key and weak_key() is None else None


@blueprint.before_request
def _only_with_a_key() -> None:
    """404 unless a key was given: the page is not there for anyone to try."""
    if operator_key() is None:
        abort(404)


@blueprint.get("/operator")
def page():
    if not _signed_in():
        return render_template("operator.html")
    return _usage()


@blueprint.post("/operator")
def sign_in():
    """The key typed once; the session then says this browser is the operator's (until
    the key changes). Each key typed is counted for its network, right or wrong (at most
    KEYS_PER_HOUR)."""
    wait = _tries().take(asking_network())
    if wait:
        return render_template("operator.html", error=Phrase(N_(
            "Too many keys were typed from this network: try again in {minutes} min."),
            minutes=minutes(wait))), 429
    if not secrets.compare_digest((request.form.get("key") or "").encode(),
                                  operator_key().encode()):
        return render_template("operator.html",
                               error=Phrase(N_("That is not the operator's key."))), 403
    session["operator"] = _mark(operator_key())
    return redirect(url_for("operator.page"), 303)


@blueprint.post("/operator/remove")
def remove():
    """A game removed by its code, as its table's screen shows it."""
    if not _signed_in():
        abort(403)
    code = typed_code(request.form.get("code") or "")
    token = token_of_code(code)
    if token is None:
        return _usage(Phrase(N_("There is no game with the code {code} on this server."),
                             code=code[:20])), 404
    store().remove_game(token)
    return _usage(note=Phrase(N_("The game {code} was removed."), code=code))


def _usage(error=None, note=None):
    """The operator's page: the server's use, the form that removes a game."""
    return render_template("operator.html", usage=store().usage(time.time()), error=error,
                           note=note)


def _signed_in() -> bool:
    mark = session.get("operator")
    return isinstance(mark, str) and secrets.compare_digest(mark, _mark(operator_key()))


def _mark(key: str) -> str:
    """What the session keeps to say it typed `key` (not the key itself)."""
    return hashed(current_app.secret_key.encode(), key)


def _tries() -> Throttle:
    """The keys each network typed within the hour (every process counting)."""
    return throttle(current_app, "operator key", KEYS_PER_HOUR, 3600)
