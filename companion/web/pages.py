"""What every game page shares: finding the game, the viewer's seat, live refresh."""
import re

from flask import Response, abort, current_app, g, request

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


# Where the poll middleware (polls.QuietPolls) leaves the stamp it read, so that a poll it
# passes on to Flask asks the database once, not three times.
STAMP_READ = "templari.stamp"


def shows(stamp: int, sent: str | None) -> bool:
    """Whether a screen that sent `v=sent` shows the game at `stamp`: nothing new for it."""
    return str(stamp) == sent


def live_or_204(token: str, render):
    """The fresh live part of a page, or 204 with no body if the game's stamp is the one
    the page shows (`v`): nothing about the game or its seats changed. (Most such polls
    are answered before Flask, by polls.QuietPolls.)"""
    stamp = request.environ.get(STAMP_READ)
    if stamp is None:
        stamp = store().stamp(token)
    if stamp is None:
        abort(404)
    if shows(stamp, request.args.get("v")):
        return "", 204
    return render(game_or_404(token, fresh=True, stamp=stamp))


# Where the server says whether a stream of a game can be held on this request's connection
# (a function of the game's token; absent: none can), and where the view of a stream tells
# it which game and stamp its screen shows (server/streams.py).
STREAMS = "templari.streams"
STREAM = "templari.stream"
# Where a stream's redraw asks how its screen's next parts may be taken from the kept
# screens without asking the app (rendered.screen puts a function of the stamp there).
KEPT = "templari.kept"
STAMP = re.compile(r"[0-9]{1,18}")  # a stamp a screen may show (any other: none)
RETRY = b"retry: 1000\n\n"  # a stream's first words: its browser opens a lost one again
# a second later


def events(token: str):
    """A screen's stream of its live part (server-sent events, `.../live/events?v=`): the
    server keeps the connection and sends the part anew at each change of the game, from
    the stamp the screen shows (`v`, or the last event's id when its browser opens the
    stream again). 204 where the server cannot hold a stream, or no more for this game
    (or for a HEAD): the screen polls."""
    room = request.environ.get(STREAMS)
    if room is None or request.method != "GET" or not room(token):
        return "", 204
    game_or_404(token)
    shown = request.headers.get("Last-Event-ID") or request.args.get("v") or ""
    request.environ[STREAM] = (token, int(shown) if STAMP.fullmatch(shown) else -1)
    return Response(iter([RETRY]), mimetype="text/event-stream",  # (no length: it goes on)
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def poll_drawn(app, environ: dict) -> tuple[int, bytes]:
    """The status and body of the answer to a stream's poll (`environ`: see
    server/streams.py), drawn by the poll's view alone, in a request of its own. The app's
    guards passed the stream's request as it opened, and would pass its poll the same way
    (a live part is anyone's: roles.ROUTES); an event carries no headers."""
    with app.request_context(environ):
        try:
            if request.routing_exception is not None:
                raise request.routing_exception
            view = app.ensure_sync(app.view_functions[request.url_rule.endpoint])
            response = app.make_response(view(**request.view_args))
        except Exception as error:  # a 404 (the game is gone), a 503: as the app answers
            response = app.make_response(app.handle_user_exception(error))
        return response.status_code, response.get_data()
