"""waitress's connections as the table server uses them (through names of waitress
beyond its documented API, see waitress_api.py: imported only where waitress has them):
what one address may hold and send is limited (guard.py), an answer without a body keeps
its connection open, and a poll that finds nothing new is held by the event loop until
its game moves (a Watch of the store tells, whichever process moved it) or HOLD seconds
pass, without a worker thread: a screen that polls shows a change as it happens, and
asks a few times a minute while nothing happens. A stream's answer (pages.events) is not
ended: its connection goes on as the stream (streams.py), the same Watch telling it of its
game's changes, and sends its buffers holding their lock (a worker may be writing an
event meanwhile). A change (a POST) goes to the first
free worker, before the screens' polls: a player waits for its answer. The loop leaves
out of its turns a connection waiting for a worker, and does not try to send for one a
worker serves (it sends for itself)."""
import threading
import time
from collections import OrderedDict
from functools import partial

from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer
from waitress.task import WSGITask
from waitress.utilities import build_http_date

from companion.store.news import Watch
from companion.web.guards.proxy import PROXY
from companion.web.pages import STAMP_READ, STREAM, STREAMS, poll_drawn
from companion.web.polls import NOTHING_NEW, QuietPolls
from .drawing import READS
from .guard import PIPELINED, Guard, SlowHeaders
from .streams import BEAT, Stream, Streams, poll_of
from .waiting import Waiting

HELD_POLLS = "templari.held"  # the app's Held (app.extensions), for a look from outside
STREAMING = "templari.streams"  # the app's Streams, likewise
HOLD = 20.0  # seconds a poll that finds nothing new waits for news (a screen's client waits
# longer: static/app.js)

# What a device that sends too much is told (it may be a person reloading again and again).
TOO_MANY = ("Too many requests from this device: wait a few seconds, then try again.\n"
            "Trop de requêtes de cet appareil : attendez quelques secondes, puis "
            "réessayez.\n").encode()


def install(sockets, app, reading) -> None:
    """Each listener of the socket map `sockets` admits connections within the limits of
    one Guard, closes those whose headers come too slowly, opens Channels, and answers in
    the loop the requests over the limits; the polls that find nothing new are held until
    their game moves, which a Watch of the app's store tells, and so are the streams, drawn
    in a turn to draw (`reading`: drawing.Drawing's)."""
    proxy = app.config.get(PROXY)
    guard = Guard(exempt=frozenset([proxy] if proxy else ()))
    polls = app.wsgi_app if isinstance(getattr(app, "wsgi_app", None), QuietPolls) else None
    listeners = [listener for listener in sockets.values()  # one per address listened on
                 if isinstance(listener, BaseWSGIServer)]
    held = Held(app.config.get("POLL_HOLD", HOLD)) if polls is not None and listeners else None
    streams = (Streams(listeners[0].task_dispatcher.add_task, partial(poll_drawn, app),
                       reading, min(BEAT, held.hold))
               if held is not None and held.hold > 0 else None)  # (0: a server holding none)
    for listener in listeners:
        listener.channel_class = Admission(guard)
        listener.add_task = Gate(listener.add_task, partial(_first, listener.task_dispatcher),
                                 polls, guard, held)
        listener.maintenance = Sweep(listener, guard)
        listener.templari_streams = streams
    if held is not None:
        app.extensions[HELD_POLLS] = held
        app.extensions[STREAMING] = streams
        first = listeners[0]
        first.readable = Turn(first.readable, held, streams)
        Watch(app.config["STORE"], lambda games=None: _joined(held, streams, games),
              lambda tokens: first.trigger.pull_trigger(lambda: _woken(tokens, held, streams)),
              alive=lambda: first._fileno is not None).start()


def _joined(held, streams, games=None) -> dict:
    """The stamps shown by the screens that wait on each game (Held.waited), held polls
    and streams."""
    polls = held.waited(games)
    listening = {} if streams is None else streams.waited(games)
    if not polls or not listening:  # (most often: every screen streams, or none can)
        return polls or listening
    return {token: polls.get(token, set()) | listening.get(token, set())
            for token in polls.keys() | listening.keys()}


def _woken(moved: dict, held, streams) -> None:
    """The held polls and the streams of the games that `moved` go on."""
    held.wake(moved)
    if streams is not None:
        streams.wake(moved)


class Turn:
    """A listener's `readable`, which its loop asks at every turn (at least once a second):
    the held polls whose time is up are answered first, and the quiet streams told so."""

    def __init__(self, readable, held, streams):
        self.readable, self.held, self.streams = readable, held, streams

    def __call__(self) -> bool:
        self.held.expire()
        if self.streams is not None:
            self.streams.expire()
        return self.readable()


class Held:
    """The polls held, each until its game moves (`wake`, in the loop's thread) or its
    time is up (`expire`, likewise): then it goes through its listener's Gate again (drawn
    by a worker if the game moved) or is answered 204 (the screen asks again). Held by a
    Gate in the loop's thread or a worker's; read by the Watch's thread."""

    def __init__(self, hold: float = HOLD, clock=time.monotonic):
        self.hold, self.clock = hold, clock
        self._lock = threading.Lock()
        self._waiting = Waiting()
        self._until: OrderedDict = OrderedDict()  # channel: (token, when its time is up),
        # in the order of that time (every poll is held as long)

    def add(self, channel, token: str, stamp: int) -> None:
        with self._lock:
            self._waiting.add(token, channel, stamp)
            self._until[channel] = (token, self.clock() + self.hold)
            self._until.move_to_end(channel)
        channel.held = self

    def waited(self, games=None) -> dict[str, set[int]]:
        """For the Watch: Waiting.waited of the polls held."""
        with self._lock:
            return self._waiting.waited(games)

    def wake(self, moved: dict) -> None:
        """The polls of the games that `moved` (token: the stamp the Watch read) go on,
        each drawn at that stamp (the loop's thread)."""
        with self._lock:
            woken = [(channel, stamp) for token, stamp in moved.items()
                     for channel in self._waiting.take(token)]
            for channel, _ in woken:
                del self._until[channel]
        for channel, stamp in woken:
            _release(channel, None, stamp)

    def expire(self) -> None:
        """The polls whose time is up are answered 204 (the loop's thread)."""
        now, done = self.clock(), []
        with self._lock:
            while self._until:
                channel, (_, until) = next(iter(self._until.items()))
                if until > now:
                    break
                self._forget(channel)
                done.append(channel)
        for channel in done:
            _release(channel, _nothing_new_answer(channel.server.adj.ident))

    def answer(self, channel) -> None:
        """Answer the held poll of `channel` 204 now: its client sent more behind it."""
        with self._lock:
            if channel not in self._until:
                return
            self._forget(channel)
        _release(channel, _nothing_new_answer(channel.server.adj.ident))

    def drop(self, channel) -> None:
        """Forget the poll of a connection its client closed."""
        with self._lock:
            if channel in self._until:
                self._forget(channel)
        channel.held = None

    def _forget(self, channel) -> None:
        token, _ = self._until.pop(channel)
        self._waiting.discard(token, channel)

    def __len__(self) -> int:
        return len(self._until)


def _release(channel, answer: bytes | None, stamp: int | None = None) -> None:
    """A held poll goes on: answered `answer` (then the requests behind it, if any, go
    to the Gate), or, without one, to its listener's Gate, which passes it to a worker at
    once if its game's `stamp` is known (the Watch read it)."""
    channel.held = None
    _ask_again(channel)
    with channel.requests_lock:
        if not channel.requests:
            return  # the client went
        if answer is not None:
            if not channel.connected:
                channel.will_close = True
                return
            channel.write_soon(answer)
            channel.requests.pop(0).close()
            if not channel.requests:
                if _waits_to_continue(channel):
                    channel.send_continue()
                return
        elif stamp is not None:
            _stamp_read(channel.requests[0], stamp)
        channel.server.add_task(channel)  # the Gate


def _ask_again(channel) -> None:
    """Have the loop ask `channel` what it wants at its next turn: loop.Sockets notes the
    sockets to ask (waitress's own loop asks every one at every turn)."""
    changed = getattr(channel._map, "changed", None)
    if changed is not None and channel._fileno is not None:
        changed.append(channel._fileno)


class Admission:
    """A listener's `channel_class`: a Channel for a new connection, unless its address
    holds too many already (then it is closed at once)."""

    def __init__(self, guard: Guard):
        self.guard = guard

    def __call__(self, server, sock, addr, adj, map=None):
        if not self.guard.admit(addr[0]):
            sock.close()
            return None
        try:
            channel = Channel(server, sock, addr, adj, map=map)
        except BaseException:
            self.guard.leave(addr[0])
            raise
        channel.guard = self.guard
        return channel


class Sweep:
    """A listener's `maintenance` (run every few seconds by its loop): waitress's, which
    closes idle connections, then closes those whose request headers are late."""

    def __init__(self, listener, guard: Guard):
        self.maintain, self.listener, self.guard = listener.maintenance, listener, guard
        self.slow = SlowHeaders()

    def __call__(self, now) -> None:
        self.maintain(now)
        partial = [(channel, channel.request)
                   for channel in self.listener.active_channels.values()
                   if channel.request is not None and not channel.request.headers_finished]
        for channel in self.slow.late(partial):
            channel.will_close = True
        self.guard.forget_idle()


def _stamp_read(request, stamp: int | None = None) -> int | None:
    """The stamp of its game read for `request` (a poll) in the loop: kept with it if given,
    for the worker that serves it (KeepAliveTask), and returned."""
    if stamp is not None:
        request.templari_stamp = stamp
    return getattr(request, "templari_stamp", None)


class KeepAliveTask(WSGITask):
    """waitress closes the connection after an HTTP/1.1 answer without a Content-Length,
    and drops the Content-Length of a 204 or a 304 (which never have a body, RFC 9110),
    so every one of those closed its connection: each poll that found nothing new (204)
    had to open a new one. An answer without a body ends with its headers, so the
    connection can take the next request: it stays open unless the client asked to close."""

    def get_environment(self) -> dict:
        """waitress's environ, with the stamp the loop read for this poll (`STAMP_READ`),
        and whether a stream can be held on this connection (`STREAMS`: HTTP/1.1, where
        an answer may go on in chunks, on a server that holds streams), by game."""
        environ = super().get_environment()
        stamp = _stamp_read(self.request)
        if stamp is not None:
            environ[STAMP_READ] = stamp
        streams = getattr(self.channel.server, "templari_streams", None)
        if self.version == "1.1" and streams is not None:
            environ[STREAMS] = streams.room
        return environ

    def set_close_on_finish(self) -> None:
        if (self.version == "1.1" and (not self.has_body or self._stream() is not None)
                and self.request.headers.get("CONNECTION", "").lower() != "close"):
            return
        super().set_close_on_finish()

    def finish(self) -> None:
        """As waitress's; but a stream's answer is not ended: the connection goes on
        as the stream (streams.py), which shows its game at the stamp Flask named."""
        opened = self._stream()
        if opened is None or self.close_on_finish or len(self.channel.requests) > 1:
            super().finish()  # (a request sent behind a stream's: no browser does that)
            return
        if not self.wrote_header:
            self.write(b"")
        token, stamp = opened
        self.channel.server.templari_streams.open(
            self.channel, Stream(token, poll_of(self.environ)), stamp)

    def _stream(self) -> tuple[str, int] | None:
        """The game and stamp of the stream this answer opens, if it opens one."""
        if self.environ is None or not self.status.startswith("200"):
            return None
        return self.environ.get(STREAM)


class Channel(HTTPChannel):
    """A connection: its answers keep it open (KeepAliveTask); its address's count in the
    Guard goes down when it closes. While its poll is held it is idle to the loop (it may
    read: a client that closes is seen at once) and takes no worker."""

    task_class = KeepAliveTask
    guard = None
    held = None  # the Held keeping this connection's poll, while it does
    stream = None  # its stream, once it is one (streams.py)
    queued = False  # whether its request waits for a worker (loop.Turns asks it no more)
    served_by = None  # the worker thread serving its request, while one does

    def service(self) -> None:
        """A worker serves the request: the loop asks the connection at every turn again,
        and takes over what the worker could not send when it is done."""
        self.queued, self.served_by = False, threading.get_ident()
        _ask_again(self)
        try:
            super().service()
        finally:
            if self.served_by == threading.get_ident():  # (not yet another worker's)
                self.served_by = None
            if self.total_outbufs_len:
                _ask_again(self)
                self.server.pull_trigger()

    def writable(self) -> bool:
        """As waitress's, but not while a worker serves the request and sends its answer
        itself (unless it waits for room): waitress's loop would find the connection
        writable and try, at every turn, to take the lock the worker holds, spinning while
        the worker waits for Python's lock (the loop took 50% of a core that way)."""
        if (self.served_by is not None and not (self.will_close or self.close_when_flushed)
                and self.total_outbufs_len <= self.adj.outbuf_high_watermark):
            return False
        return super().writable()

    def readable(self) -> bool:
        if self.held is not None:  # a request waits, but no worker has it
            return not (self.will_close or self.close_when_flushed or self.total_outbufs_len)
        return super().readable()

    def handle_read(self) -> None:
        super().handle_read()
        if self.held is None:
            return
        if not self.connected:  # the screen went
            self.held.drop(self)
            self.will_close = True
        elif len(self.requests) > 1 or self.request is not None:  # more behind the poll
            self.held.answer(self)

    def handle_write(self) -> None:
        """As waitress's; but a stream's connection, which has no request under way, may
        be written by a worker meanwhile (streams.Redraw): its buffers are sent holding
        their lock, as while a request is served."""
        if self.stream is None:
            super().handle_write()
            return
        with self.outbuf_lock:
            super().handle_write()

    def received(self, data) -> bool:
        """As waitress's; but a stream's screen sends nothing more: if it does, the stream
        ends (a browser would not)."""
        if self.stream is not None and data:
            self.server.templari_streams.end(self)
            return False
        return super().received(data)

    def awake(self) -> None:
        """Have the loop send what a worker wrote for this connection."""
        _ask_again(self)
        self.server.pull_trigger()

    def del_channel(self, map=None) -> None:
        if self.stream is not None:
            self.server.templari_streams.drop(self)
        super().del_channel(map)
        if self.guard is not None:
            self.guard, guard = None, self.guard
            guard.leave(self.addr[0])


class Gate:
    """A listener's `add_task` (what it does with a connection that has a request to
    serve; called with the connection's requests locked, while no worker serves it):
    a connection with too many requests waiting is closed; a request over its address's
    rate is answered 429 in words, and a poll that finds nothing new (web/polls.py, the
    request a café sends most) is held until its game moves (or, where nothing holds,
    answered 204 at once), with no worker thread; any other goes to a worker, a change
    first."""

    def __init__(self, dispatch, first, polls: QuietPolls | None, guard: Guard,
                 held: Held | None):
        self.dispatch, self.first = dispatch, first  # (`first`: before the others)
        self.polls, self.guard, self.held = polls, guard, held

    def __call__(self, channel) -> None:
        if len(channel.requests) > PIPELINED:
            _hang_up(channel)
            return
        while channel.requests:
            done = self._answered(channel, channel.requests[0])
            if done is HELD:
                return
            if not done:
                break
            channel.requests.pop(0).close()
        if channel.requests:
            channel.queued = True
            if channel.requests[0].command in READS:
                self.dispatch(channel)
            else:  # a change: a player waits for its answer, before the other screens
                self.first(channel)
        elif _waits_to_continue(channel):  # as waitress's worker does when none is left
            channel.send_continue()

    def _answered(self, channel, request):
        """A 429 sent for `request` if its address sent too many (True); HELD if it is a
        poll that finds nothing new, on a connection kept open with nothing else waiting
        on it, and is held (unless its screen asks for an answer now, having just failed
        to reach the server: `now=1`); True if such a poll is answered 204 at once (no Held, or a
        request waits behind it); False if a worker must serve it."""
        if not self.guard.request(channel.addr[0]):
            channel.write_soon(_too_many_answer(channel.server.adj.ident))
            return True
        if (self.polls is None or request.error or request.version != "1.1"
                or not channel.connected or channel.total_outbufs_len
                or request.expect_continue
                or request.headers.get("CONNECTION", "").lower() == "close"):
            return False
        if _stamp_read(request) is not None:  # a held poll whose game moved
            return False
        environ = _environ(request)
        unchanged = self.polls.unchanged(environ)
        if unchanged is None:
            _stamp_read(request, environ.get(STAMP_READ))  # the worker's Flask asks no more
            return False
        if (self.held is not None and len(channel.requests) == 1
                and channel.request in (None, request)  # (waitress clears it after this)
                and "now=1" not in request.query.split("&")):  # a screen that just failed
            self.held.add(channel, *unchanged)  # nothing else on its way on this connection
            return HELD
        channel.write_soon(_nothing_new_answer(channel.server.adj.ident))
        return True


HELD = "held"  # what Gate._answered says of a poll it held


def _first(dispatcher, channel) -> None:
    """Put `channel` first in the queue of waitress's worker threads (`dispatcher`)."""
    with dispatcher.lock:
        dispatcher.queue.appendleft(channel)
        dispatcher.queue_cv.notify()


def _hang_up(channel) -> None:
    """Close a connection that sent more requests than a browser would without reading
    the answers: none of them is served."""
    for request in channel.requests:
        request.close()
    channel.requests = []
    channel.will_close = True


def _waits_to_continue(channel) -> bool:
    """Whether the request the connection is receiving waits for a 100 Continue that was
    held back while the requests before it were served (waitress's HTTPChannel.service)."""
    request = channel.request
    return (channel.connected and request is not None and request.expect_continue
            and request.headers_finished and not channel.sent_continue)


def _environ(request) -> dict:
    """What QuietPolls reads of a request, as waitress would give it to the app."""
    environ = {"REQUEST_METHOD": request.command, "PATH_INFO": request.path,
               "QUERY_STRING": request.query, "wsgi.url_scheme": request.url_scheme}
    if "HOST" in request.headers:
        environ["HTTP_HOST"] = request.headers["HOST"]
    return environ


def _nothing_new_answer(ident: str) -> bytes:
    """QuietPolls' 204 as waitress writes it: its headers, the date, the server."""
    headers = sorted([(name, value) for name, value in NOTHING_NEW if name != "Content-Length"]
                     + [("Date", build_http_date(time.time())), ("Server", ident)])
    return ("HTTP/1.1 204 NO CONTENT\r\n"
            + "".join(f"{name}: {value}\r\n" for name, value in headers) + "\r\n").encode()


def _too_many_answer(ident: str) -> bytes:
    """The 429 a request over its address's rate gets, as waitress would write it."""
    headers = [("Content-Length", str(len(TOO_MANY))),
               ("Content-Type", "text/plain; charset=utf-8"), ("Retry-After", "2"),
               ("Date", build_http_date(time.time())), ("Server", ident)]
    return ("HTTP/1.1 429 Too Many Requests\r\n"
            + "".join(f"{name}: {value}\r\n" for name, value in headers)
            + "\r\n").encode() + TOO_MANY
