"""What every game page shares: finding the game, the viewer's seat, live refresh."""
from flask import abort, current_app, g, request, session, url_for

from .. import games


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
