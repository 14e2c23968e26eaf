"""Applying a change a form sent, and the answer the device that sent it sees: the new
state, a refusal in words, or what happened instead when another device came first."""
from flask import make_response, redirect, request

from companion.rules.phrase import Phrase
from companion.rules.refusal import Refusal, public_message
from companion.store import games
from companion.store.sql import Conflict
from companion.web.guards.roles import check_change, device
from companion.web.render.rendered import screen
from . import races
from .forms import form_dict, whole
from .pages import changed, game_or_404, store


def change(game: games.Game, write, partial: str, context, done: str, kind=None, taken=(),
           put=None):
    """Apply a change (see log_change); on a refusal or a lost race, say why on the device
    that sent it and change nothing.

    The change is of `kind` (by default the form's action); `partial` and `context` draw
    the live part of the page that sent it; `done` is where a browser without htmx goes
    next.
    """
    kind = kind or request.form.get("action")
    try:
        latest = log_change(game, write, taken, put)
    except Refusal as refusal:
        message = public_message(refusal, not game.options.money_open)
        return respond(game, partial, context, status=422,
                       error={"action": request.form.get("action"), "message": message},
                       values=form_dict(request.form))
    except Conflict:
        return _lost(game_or_404(game.token, fresh=True), kind, partial, context)
    if not request.headers.get("HX-Request"):
        return redirect(done, 303)
    response = make_response(respond(latest, partial, context))
    if latest.state.lot != game.state.lot:  # a lot revealed or settled: the next step starts
        response.headers["HX-Reswap"] = "outerHTML show:window:top"  # with the page's top
    return response


def log_change(game: games.Game, write, taken=(), put=None) -> games.Game:
    """The one way a device changes a game's log (an action, an undo, a correction, a
    removal): `taken` are the events it takes out of the log, `put()` reads the one it puts
    in (a Refusal if the form describes none); this device must be allowed both
    (roles.check_change: else 403 in words) before `write(version)` makes the change from
    the version the form was made from. Returns the game as the change left it; a Refusal
    or a Conflict goes to the caller, and nothing is changed."""
    check_change(game, taken, None if put is None else put())
    return changed(write(version_sent()))


def _lost(latest: games.Game, kind: str | None, partial: str, context):
    """The answer to a change sent from an older version of the game; what the user typed
    stays if the game still takes that kind of action."""
    note, status = race_outcome(latest, kind)
    values = form_dict(request.form) if status == 409 and kind in games.actions(latest) else None
    return respond(latest, partial, context, status=status, note=note, values=values)


def race_outcome(latest: games.Game, kind: str | None,
                 index: int | None = None) -> tuple[Phrase, int]:
    """A change of `kind` sent from an older version of the game: counted already (the same
    device sent it again after its answer was lost: 200), or another device's change came
    first (409); with the words that say so."""
    labels = device_labels()
    again = races.already_applied(latest, version_sent(), device(latest).signature, kind,
                                  request.form, labels, index)
    if again is not None:
        return again, 200
    return races.lost(latest, kind, labels), 409


def device_labels() -> dict[int, str]:
    """The names of the devices the host granted host rights, by grant."""
    return {grant.id: grant.label for grant in store().grants()}


def version_sent() -> int:
    """The game version the submitted form was showing (-1 if missing)."""
    version = whole(request.form.get("version"))
    return -1 if version is None else version


def respond(game: games.Game, partial: str, context, status=200, **extra):
    """After a POST: the live part of `game` for htmx, else the whole page.

    htmx swaps only 2xx answers, so it gets 200 whatever the outcome.
    """
    if request.headers.get("HX-Request"):
        return screen(game, partial, context, **extra)
    page = partial.removeprefix("_").replace("_live", "")
    return screen(game, page, context, **extra), status
