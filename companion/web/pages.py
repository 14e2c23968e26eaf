"""What every game page shares: finding the game, the viewer's seat, live refresh."""
from flask import (abort, current_app, g, make_response, redirect, render_template, request,
                   session, url_for)

from .. import games
from ..phrase import N_, Phrase
from ..refusal import Refusal
from ..store import Conflict
from .forms import form_dict, whole
from .views import describe, public_message


def store():
    return current_app.config["STORE"]


def game_or_404(token: str, fresh: bool = False) -> games.Game:
    """The game, read once per request (`fresh`: read again, after a change)."""
    games_read = g.setdefault("games", {})
    if fresh or token not in games_read:
        games_read[token] = games.load(store(), token)
    if games_read[token] is None:
        abort(404)
    return games_read[token]


def join_url(game: games.Game) -> str | None:
    """The address phones open to join, if phones can reach this server at all."""
    lan = current_app.config["LAN_URL"]
    return lan and lan + url_for("player.join", token=game.token)


def live_or_204(token: str, render, seated: bool = False):
    """The fresh live part of a page, or 204 with no body if nothing changed: neither
    the game nor, on a `seated` player's page, whether the device still holds its seat."""
    seat_token = session.get("seats", {}).get(token) if seated else None
    found = store().poll(token, seat_token)
    if found is None:
        abort(404)
    version, seat_held = found
    if str(version) == request.args.get("v") and seat_held:
        return "", 204
    return render(game_or_404(token, fresh=True))


CONFLICT = Phrase(N_("Another device changed the game first; this screen now shows it."))


def change(game: games.Game, action, partial: str, context, done: str):
    """Apply a change; on a refusal or a lost race, show why and change nothing.

    `action(version)` makes the change; `partial` and `context` draw the live part
    of the page that sent it; `done` is where a browser without htmx goes next.
    """
    try:
        action(version_sent())
    except Refusal as refusal:
        message = public_message(refusal, not game.options.money_open)
        return respond(game, partial, context, status=422,
                       error={"action": request.form.get("action"), "message": message},
                       values=form_dict(request.form))
    except Conflict:
        latest = game_or_404(game.token, fresh=True)
        what = (describe(latest, len(latest.events) - 1) if latest.events
                else Phrase(N_("a change")))
        return respond(latest, partial, context, status=409,
                       note=Phrase(N_("{conflict} The last action is now: {what}."),
                                   conflict=CONFLICT, what=what))
    if not request.headers.get("HX-Request"):
        return redirect(done, 303)
    latest = game_or_404(game.token, fresh=True)
    response = make_response(respond(latest, partial, context))
    if latest.state.lot != game.state.lot:  # a lot revealed or settled: the next step starts
        response.headers["HX-Reswap"] = "outerHTML show:window:top"  # with the page's top
    return response


def version_sent() -> int:
    """The game version the submitted form was showing (-1 if missing)."""
    version = whole(request.form.get("version"))
    return -1 if version is None else version


def respond(game: games.Game, partial: str, context, status=200, **extra):
    """After a POST: the live part of `game` for htmx, else the whole page.

    htmx swaps only 2xx answers, so it gets 200 whatever the outcome.
    """
    if request.headers.get("HX-Request"):
        return render_template(partial, **context(game, **extra))
    page = partial.removeprefix("_").replace("_live", "")
    return render_template(page, **context(game, **extra)), status
