"""What every game page shares: finding the game, the viewer's seat, live refresh."""
import re

from flask import abort, current_app, g, request

from companion.store import games

# What the server puts in a URL as a game's token or a link's key: anything else (another
# character, or longer) names nothing here, and is never looked up (PostgreSQL holds no
# NUL byte).
URL_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")


def init(app) -> None:
    app.before_request(_known_keys)


def _known_keys() -> None:
    """404 for a URL whose token or key this server cannot have made."""
    for name in ("token", "key"):
        value = (request.view_args or {}).get(name)
        if value is not None and not URL_KEY.fullmatch(value):
            abort(404)


def store():
    return current_app.config["STORE"]


def game_or_404(token: str, fresh: bool = False, stamp: int | None = None) -> games.Game:
    """The game, read once per request (`fresh`: read again, after a change; `stamp`: the
    one just read from the database, if any)."""
    games_read = g.setdefault("games", {})
    if fresh or token not in games_read:
        games_read[token] = current_app.config["GAMES"].game(token, stamp)
    if games_read[token] is None:
        abort(404)
    return games_read[token]


def changed(game: games.Game) -> games.Game:
    """`game` as a change this request made left it: the one every page shows from now."""
    current_app.config["GAMES"].keep(game)
    g.setdefault("games", {})[game.token] = game
    return game


STAMP = re.compile(r"[0-9]{1,18}")  # a stamp a screen may show (any other: none)
STREAMED = "companion.streamed"  # in a request's environ: its parts go out on a stream


def htmx_asked() -> bool:
    """Whether the answer is a part that htmx puts in the page: htmx asked for it, or it
    goes out on a live part's stream (streams.py), which htmx's sse extension swaps in."""
    return request.headers.get("HX-Request") == "true" or STREAMED in request.environ


def live_or_204(token: str, render):
    """The fresh live part of a page, or 204 with no body if the game's stamp is the one
    the page shows (`v`): nothing about the game or its seats changed."""
    stamp = store().stamp(token)
    if stamp is None:
        abort(404)
    if str(stamp) == request.args.get("v"):
        return "", 204
    return render(game_or_404(token, fresh=True, stamp=stamp))
