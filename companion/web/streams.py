"""A live part's stream: each screen shown each change of its game as it happens, drawn
for its own device (server-sent events).

A screen's page opens the stream of its live part (`GET <live part>/events`, e.g.
`/g/<token>/me/live/events`) with htmx's sse extension; at each change of the game the
stream sends a `change` event whose id is the game's new stamp and whose data is the live
part, drawn as its own route draws it for this device (`render`, the same function: money
stays secret, R12), which the extension swaps in (`sse-swap="change"`). No request goes
out for it: the part comes on the stream already open.

Each stream holds a server thread while it is open (waitress gives each request one), so
a process holds at most STREAMS_HELD (the server starts that many threads more than it
needs for requests); past that, a stream is refused and its screen polls (every 30 s,
htmx's `every` trigger) until htmx's extension tries again. A Watch of the store
(store/news.py) hears of every change, whichever process made it, and wakes the streams
of its game. A stream whose screen went away ends within LOOK seconds (waitress, reading
on while a request runs, tells: `channel_request_lookahead`); a quiet stream gets a
comment every BEAT seconds, so that no network box drops its connection as idle; a stream
ends after MAX_AGE seconds, and its browser opens it again a second later, from the last
stamp it heard.
"""
import logging
import re
import threading
import time
from collections import Counter
from contextlib import contextmanager

from flask import Response, current_app, request, stream_with_context
from werkzeug.exceptions import HTTPException

from companion.store.news import Watch
from .pages import STAMP, STREAMED, game_or_404

STREAMS_HELD = "STREAMS_HELD"  # the app's setting: streams a process holds at once
HELD = 48  # its default: a table's screens are a dozen, a club's few tables several dozen
BEAT = 15.0  # seconds between two comments on a quiet stream
LOOK = 1.0  # seconds between two looks at whether the screen went away (waitress tells)
MAX_AGE = 600.0  # seconds a stream lasts
RETRY = b"retry: 1000\n\n"  # a stream's first words: its browser opens a lost one again a
# second later
LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what ends a line of an event (the SSE standard)

log = logging.getLogger(__name__)


def stream(token: str, render):
    """The stream of a live part of the game `token`, drawn by `render(game)` for this
    device, from the stamp the screen shows (`v`, or the last event's id when its browser
    opens the stream again): the part at once if the game moved since. 204 where this
    process holds no more streams (the screen polls), and to a HEAD."""
    game = game_or_404(token)
    changes = current_app.extensions["changes"]
    generation = changes.take_room() if request.method == "GET" else None
    if generation is None:
        return "", 204
    shown = request.headers.get("Last-Event-ID") or request.args.get("v") or ""
    gone = request.environ.get("waitress.client_disconnected", lambda: False)
    request.environ[STREAMED] = True
    app = current_app._get_current_object()

    def drawn(stamp: int) -> bytes:
        """The part as the game is at `stamp` or later, as an event; each drawn in an app
        context of its own, so that nothing read for one (the game, a grant) is kept."""
        with app.app_context():
            game = game_or_404(token, fresh=True, stamp=stamp)
            return event(game.stamp, render(game))

    events = _stream(changes, generation, token, game.stamp,
                     int(shown) if STAMP.fullmatch(shown) else -1, gone, drawn)
    response = Response(stream_with_context(events), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
    response.call_on_close(changes.give_room)  # (whether its first event was sent or not)
    return response


def event(stamp: int, html: str) -> bytes:
    """A `change` event: its id the stamp, its data the part (a `data:` line for each of
    its lines, which the browser joins again)."""
    data = "\n".join("data: " + line for line in LINE_BREAK.split(html))
    return b"event: change\nid: %d\n%s\n\n" % (stamp, data.encode())


def _stream(changes: "Changes", generation: int, token: str, stamp: int, shown: int, gone,
            drawn):
    """The events of the game `token`, found at `stamp`, for a screen showing `shown`,
    until the screen is `gone()`, the streams of `generation` are ended or the part can no
    longer be drawn (the game removed, its log damaged, the store down)."""
    yield RETRY
    ends = time.monotonic() + MAX_AGE
    beat = time.monotonic() + BEAT
    with changes.following(token, stamp):
        while stamp is not None:
            if stamp != shown:
                try:
                    yield drawn(stamp)
                except HTTPException:
                    return
                except Exception:  # the screen falls back on its poll, which says why
                    log.exception("the live part of %s could not be drawn", token)
                    return
                shown = stamp
            now = time.monotonic()
            if now >= ends or gone():
                return
            if now >= beat:
                yield b": beat\n\n"
                beat = now + BEAT
            stamp = changes.after(token, shown, min(LOOK, beat - now, ends - now),
                                  generation)


class Changes:
    """The stamps of the games this process's streams follow, kept by a Watch of the store
    (started with the first stream); each stream waits for its game's to move."""

    def __init__(self, store, held: int):
        self.store, self.held, self.open = store, held, 0
        self.generation = 0  # moves when every stream open is ended (end_all)
        self._lock = threading.Lock()
        self._moved: dict[str, threading.Condition] = {}
        self._stamps: dict[str, int | None] = {}
        self._followers: Counter[str] = Counter()
        self._fresh: set[str] = set()
        self._watch = None

    def take_room(self) -> int | None:
        """One more stream open, if this process holds fewer than `held`: its generation
        (see end_all); None if not."""
        with self._lock:
            if self.open >= self.held:
                return None
            self.open += 1
            if self._watch is None:
                self._watch = Watch(self.store, self._waited, self._heard)
                self._watch.start()
            return self.generation

    def give_room(self) -> None:
        with self._lock:
            self.open -= 1

    @contextmanager
    def following(self, token: str, stamp: int):
        """While in it, the game `token` (found at `stamp`) is watched for its changes."""
        with self._lock:
            if not self._followers[token]:
                self._moved[token] = threading.Condition(self._lock)
                self._fresh.add(token)
            elif self._stamps[token] is None:  # removed meanwhile: it stays removed
                stamp = None
            else:  # (stamps only grow)
                stamp = max(stamp, self._stamps[token])
            self._stamps[token] = stamp
            self._followers[token] += 1
        try:
            yield
        finally:
            with self._lock:
                self._followers[token] -= 1
                if not self._followers[token]:
                    del self._followers[token], self._stamps[token], self._moved[token]
                    self._fresh.discard(token)

    def after(self, token: str, shown: int, timeout: float, generation: int) -> int | None:
        """The game's stamp once it is not `shown`, or after `timeout` seconds (None: the
        game is gone, or the streams of `generation` were ended)."""
        with self._lock:
            self._moved[token].wait_for(
                lambda: self._stamps[token] != shown or self.generation != generation, timeout)
            return self._stamps[token] if self.generation == generation else None

    def end_all(self) -> None:
        """End every stream open (the server stops): their threads are free at once."""
        with self._lock:
            self.generation += 1
            for moved in self._moved.values():
                moved.notify_all()

    def _waited(self, games=None) -> dict[str, set]:
        """For the Watch: the stamps known of the games followed, of `games` (every one if
        None) and those newly followed."""
        with self._lock:
            fresh, self._fresh = self._fresh, set()
            asked = self._stamps.keys() if games is None else (fresh | games) & self._stamps.keys()
            return {token: {self._stamps[token]} for token in asked}

    def _heard(self, moved: dict) -> None:
        """For the Watch: these games moved, to these stamps (None: removed)."""
        with self._lock:
            for token, stamp in moved.items():
                if token in self._stamps:
                    self._stamps[token] = stamp
                    self._moved[token].notify_all()


def init(app, held: int) -> None:
    """The app's streams, at most `held` at once (its STREAMS_HELD)."""
    app.config[STREAMS_HELD] = held
    app.extensions["changes"] = Changes(app.config["STORE"], app.config[STREAMS_HELD])
