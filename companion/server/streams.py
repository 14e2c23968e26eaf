"""The screens' streams: each screen's live part told of its game's changes as server-sent
events on one connection it keeps open, with no request per change.

A screen opens its stream (`GET .../live/events`, web/pages.py) as it would poll; Flask
answers its headers, and the connection's task hands it here instead of ending the
answer (channel.KeepAliveTask). When the game moves (the Watch tells, whichever process
moved it), one worker thread draws each stream of that game, each in a turn to draw: the
screen's poll, drawn by the poll's view with the stream's own request (its cookies, its
address) at the stamp it showed (web/pages.poll_drawn), or the screen kept for the stamp
when another screen of the same view drew it (rendered.screen), and writes the new live
part as an event (its id the stamp). A quiet stream gets a beat
(an event the page hears, with no part) every BEAT seconds: the connection is not idle
(waitress closes those), and a page whose stream went silent opens it again. A stream
ends after MAX_AGE seconds (its browser opens it again at once, from the last event), and
the system drops one whose screen went without a word (UNACKED). The loop sends what the
workers write.
"""
import io
import logging
import socket
import threading
import time
from collections import Counter, OrderedDict
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Callable

from waitress.channel import ClientDisconnected

from companion.web.pages import KEPT, STAMP_READ
from .waiting import Waiting

LOG = logging.getLogger("waitress")  # where waitress tells a request that failed
BEAT = 10.0  # seconds between two beats on a quiet stream (below channel_timeout)
HEARTBEAT = b"event: beat\ndata: %d\n\n" % BEAT  # (static/app.js: opened again after
# 2.5 beats of silence)
MAX_AGE = 600.0  # seconds a stream lasts
UNACKED = 30.0  # seconds bytes sent may wait for the screen's acknowledgement before the
# system closes the connection (where it can: Linux's TCP_USER_TIMEOUT)
PER_GAME = 64  # streams one game may have open (a table's screens are a dozen at most):
# past that, a screen is told to poll (on a hosted server behind a proxy, no address limit
# bounds them, and each is drawn at every change of its game)
BACKLOG = 256 * 1024  # bytes a stream may have waiting to be sent: past that its screen
# is not reading (a phone asleep); the stream ends, and the screen catches up when it
# opens it again
END = b"0\r\n\r\n"  # the last chunk of a chunked answer (RFC 9112 7.1)

# The stream's request headers that a poll of the same screen would not send, and what
# it sends that the stream does not: a poll by htmx, its answer not compressed (an
# event is text).
_NOT_POLLED = ("HTTP_ACCEPT", "HTTP_ACCEPT_ENCODING", "HTTP_LAST_EVENT_ID",
               "HTTP_CACHE_CONTROL")


@dataclass
class Stream:
    """An open stream: its game, the request to ask the app for the screen's poll, until
    when it lasts (the clock of Streams), and whether it ended (its last chunk written)."""
    token: str
    poll: dict  # a WSGI environ, without its stamp
    until: float = 0.0
    ended: bool = False
    kept: Callable[[int], bytes | None] | None = None  # its screen at a stamp, if kept
    # (what the app put at pages.KEPT when it last drew it)


def poll_of(environ: dict) -> dict:
    """The environ of the poll a stream's screen would send (`environ`: the stream's, whose
    path ends in /events), with no body and no stamp yet."""
    poll = {name: value for name, value in environ.items()
            if isinstance(value, str) and name not in _NOT_POLLED}
    poll.update({"PATH_INFO": environ["PATH_INFO"].removesuffix("/events"),
                 "HTTP_HX_REQUEST": "true", "wsgi.version": (1, 0), "wsgi.multithread": True,
                 "wsgi.multiprocess": environ.get("wsgi.multiprocess", False),
                 "wsgi.run_once": False, "wsgi.errors": environ.get("wsgi.errors")})
    poll.pop("CONTENT_LENGTH", None)
    poll.pop("CONTENT_TYPE", None)
    return poll


class Streams:
    """The open streams, by game, each with the stamp its screen shows. `wake` and
    `expire` run in the loop's thread; `listen` in a worker's; `waited` in the Watch's."""

    def __init__(self, dispatch, draw, reading=nullcontext, beat: float = BEAT,
                 clock=time.monotonic):
        self.dispatch, self.beat, self.clock = dispatch, beat, clock  # dispatch(task)
        self.draw, self.reading = draw, reading  # draw(poll): (status, body); a turn
        self._lock = threading.Lock()
        self._waiting = Waiting()
        self._beats: OrderedDict = OrderedDict()  # channel: when its next beat is due
        self._open: Counter[str] = Counter()  # token: its streams open

    def room(self, token: str) -> bool:
        """Whether the game `token` may have one more stream open (any thread)."""
        return self._open[token] < PER_GAME

    def open(self, channel, stream: Stream, stamp: int) -> None:
        """`channel` is a stream now, its screen showing its game at `stamp`."""
        stream.until = self.clock() + MAX_AGE
        channel.stream = stream
        _drop_unacknowledged(channel)
        with self._lock:
            self._beats[channel] = self.clock() + self.beat
            self._open[stream.token] += 1
        self.listen(channel, stamp)

    def listen(self, channel, stamp: int) -> None:
        """The stream of `channel` shows its game at `stamp` and waits for the next
        change (unless it was closed or ended meanwhile)."""
        with self._lock:
            if channel in self._beats:
                self._waiting.add(channel.stream.token, channel, stamp)

    def waited(self, games=None) -> dict[str, set[int]]:
        """For the Watch: Waiting.waited of the streams."""
        with self._lock:
            return self._waiting.waited(games)

    def wake(self, moved: dict) -> None:
        """The streams of the games that `moved` (token: the stamp the Watch read) are
        drawn at that stamp, a game's by one worker."""
        with self._lock:
            woken = [(stamp, shown) for token, stamp in moved.items()
                     if (shown := self._waiting.take(token))]
        for stamp, shown in woken:
            if stamp is None:  # the game was removed: its screens are told when they ask
                for channel in shown:
                    self.end(channel)
            else:
                self.dispatch(Redraw(self, stamp, list(shown.items())))

    def expire(self) -> None:
        """A beat on each stream quiet for BEAT seconds, or its end if it is old (the
        loop's thread)."""
        now, due = self.clock(), []
        with self._lock:
            while self._beats:
                channel, when = next(iter(self._beats.items()))
                if when > now:
                    break
                self._beats.move_to_end(channel)
                self._beats[channel] = now + self.beat
                due.append(channel)
        for channel in due:
            if now > channel.stream.until:
                self.end(channel)
            else:
                self.send(channel, HEARTBEAT)

    def send(self, channel, data: bytes) -> None:
        """Write `data` on the stream of `channel` as a chunk (any thread), unless it
        ended."""
        try:
            with channel.outbuf_lock:
                if channel.stream.ended:
                    return
                if channel.total_outbufs_len > BACKLOG:
                    self._end(channel)
                    return
                channel.write_soon(b"%X\r\n%s\r\n" % (len(data), data))
                # The next chunk in a buffer of its own, as waitress does for each answer:
                # a buffer keeps every byte written to it until it is closed, once sent.
                channel.current_outbuf_count = channel.adj.outbuf_high_watermark
        except ClientDisconnected:
            self.drop(channel)
            return
        channel.last_activity = time.time()
        channel.awake()

    def end(self, channel) -> None:
        """End a stream (its screen then opens it again, or polls)."""
        try:
            with channel.outbuf_lock:
                if not channel.stream.ended:
                    self._end(channel)
        except ClientDisconnected:
            self.drop(channel)

    def _end(self, channel) -> None:
        """The last chunk, and the connection closed once it is sent (its buffers' lock
        held)."""
        self.drop(channel)
        channel.stream.ended = True
        channel.write_soon(END)
        channel.close_when_flushed = True
        channel.awake()

    def drop(self, channel) -> None:
        """Forget the stream of `channel` (closed, or ended)."""
        with self._lock:
            if self._beats.pop(channel, None) is None:
                return
            self._open[channel.stream.token] -= 1
            if not self._open[channel.stream.token]:
                del self._open[channel.stream.token]
            self._waiting.discard(channel.stream.token, channel)

    def __len__(self) -> int:
        return len(self._beats)


def _drop_unacknowledged(channel) -> None:
    """Have the system close the connection of a screen that stopped acknowledging what
    is sent (a phone gone without a word, its stream otherwise kept until TCP gives up,
    some 15 minutes), where it can (Linux)."""
    option = getattr(socket, "TCP_USER_TIMEOUT", None)
    if option is not None:
        try:
            channel.socket.setsockopt(socket.IPPROTO_TCP, option, int(UNACKED * 1000))
        except OSError:  # not a TCP socket (a Unix one): nothing to wait for
            pass


class Redraw:
    """A worker's task (waitress's queue takes any object with `service`): the streams of
    one game drawn at `stamp`, each as its screen's poll from the stamp it showed."""

    def __init__(self, streams: Streams, stamp: int, shown: list):
        self.streams, self.stamp, self.shown = streams, stamp, shown

    def service(self) -> None:
        for channel, stamp in self.shown:
            if not channel.connected:
                self.streams.drop(channel)
                continue
            try:
                self._draw(channel, stamp)
            except Exception:  # (the app answers its own errors): the screen opens it again
                LOG.exception("a stream of a game could not be drawn")
                self.streams.end(channel)

    def cancel(self) -> None:
        """Nothing to do when the server stops before this task ran."""

    def _draw(self, channel, shown: int) -> None:
        stream = channel.stream
        kept = stream.kept and shown < self.stamp and stream.kept(self.stamp)
        if kept:  # drawn for another screen of the same view: no need to ask the app
            self.streams.send(channel, _event(self.stamp, kept))
            self.streams.listen(channel, self.stamp)
            return
        poll = {**stream.poll, "QUERY_STRING": f"v={shown}", STAMP_READ: self.stamp,
                KEPT: None, "wsgi.input": io.BytesIO()}
        with self.streams.reading():  # a turn to draw, as a poll's (drawing.Drawing)
            status, body = self.streams.draw(poll)
        if status == 200:
            stream.kept = poll[KEPT]
            self.streams.send(channel, _event(self.stamp, body))
            self.streams.listen(channel, self.stamp)
        elif status == 204:  # it showed that stamp already
            self.streams.listen(channel, shown)
        else:  # not a live part any more (the game is gone): the screen asks again
            self.streams.end(channel)


def _event(stamp: int, html: bytes) -> bytes:
    """A live part as one event: its id the stamp, each line of it a data line."""
    lines = html.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return b"id: %d\ndata: %s\n\n" % (stamp, lines.replace(b"\n", b"\ndata: "))
