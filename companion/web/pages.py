"""What every game page shares: finding the game, the viewer's seat, live refresh."""
from flask import abort, current_app, redirect, render_template, request, session

from .. import games


def store():
    return current_app.config["STORE"]


def game_or_404(token: str) -> games.Game:
    game = games.load(store(), token)
    if game is None:
        abort(404)
    return game


def seat_of(game: games.Game) -> int | None:
    """The seat this device holds in the game, if the host has not freed it."""
    seat_token = session.get("seats", {}).get(game.token)
    for seat, token in game.seats.items():
        if token == seat_token:
            return seat
    return None


def live_or_204(token: str, render):
    """The fresh live part of a page, or 204 with no body if nothing changed."""
    version = store().version(token)
    if version is None:
        abort(404)
    if str(version) == request.args.get("v"):
        return "", 204
    return render(game_or_404(token))


def respond(token: str, partial: str, context, redirect_to=None, status=200, **extra):
    """After a POST: the live part for htmx, else the whole page or a redirect.

    htmx swaps only 2xx answers, so it gets 200 whatever the outcome.
    """
    game = game_or_404(token)
    if request.headers.get("HX-Request"):
        return render_template(partial, **context(game, **extra))
    if redirect_to and status == 200:
        return redirect(redirect_to, 303)
    page = partial.removeprefix("_").replace("_live", "")
    return render_template(page, **context(game, **extra)), status
