"""waitress's connections as the table server uses them (through names of waitress
beyond its documented API, see waitress_api.py: imported only where waitress has them):
what one address may hold and send is limited (guard.py), an answer without a body keeps
its connection open, and a poll that finds nothing new is answered by the event loop."""
import time

from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer
from waitress.task import WSGITask
from waitress.utilities import build_http_date

from companion.web.polls import NOTHING_NEW, QuietPolls
from .guard import PIPELINED, Guard, SlowHeaders

# What a device that sends too much is told (it may be a person reloading again and again).
TOO_MANY = ("Too many requests from this device: wait a few seconds, then try again.\n"
            "Trop de requêtes de cet appareil : attendez quelques secondes, puis "
            "réessayez.\n").encode()


def install(sockets, app) -> None:
    """Each listener of the socket map `sockets` admits connections within the limits of
    one Guard, closes those whose headers come too slowly, opens Channels, and answers in
    the loop the requests over the limits and the polls that find nothing new."""
    guard = Guard()
    polls = app.wsgi_app if isinstance(getattr(app, "wsgi_app", None), QuietPolls) else None
    for listener in list(sockets.values()):  # one per address listened on
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = Admission(guard)
            listener.add_task = Gate(listener.add_task, polls, guard)
            listener.maintenance = Sweep(listener, guard)


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


class KeepAliveTask(WSGITask):
    """waitress closes the connection after an HTTP/1.1 answer without a Content-Length,
    and drops the Content-Length of a 204 or a 304 (which never have a body, RFC 9110),
    so every one of those closed its connection: each poll that found nothing new (204)
    had to open a new one. An answer without a body ends with its headers, so the
    connection can take the next request: it stays open unless the client asked to close."""

    def set_close_on_finish(self) -> None:
        if (self.version == "1.1" and not self.has_body
                and self.request.headers.get("CONNECTION", "").lower() != "close"):
            return
        super().set_close_on_finish()


class Channel(HTTPChannel):
    """A connection: its answers keep it open (KeepAliveTask); its address's count in the
    Guard goes down when it closes."""

    task_class = KeepAliveTask
    guard = None

    def del_channel(self, map=None) -> None:
        super().del_channel(map)
        if self.guard is not None:
            self.guard, guard = None, self.guard
            guard.leave(self.addr[0])


class Gate:
    """A listener's `add_task` (what it does with a connection that has a request to
    serve; called with the connection's requests locked, while no worker serves it):
    a connection with too many requests waiting is closed; a request over its address's
    rate is answered 429 in words, and a poll that finds nothing new (web/polls.py, the
    request a café sends most) 204, at once, with no worker thread; any other goes to
    a worker."""

    def __init__(self, dispatch, polls: QuietPolls | None, guard: Guard):
        self.dispatch, self.polls, self.guard = dispatch, polls, guard

    def __call__(self, channel) -> None:
        if len(channel.requests) > PIPELINED:
            _hang_up(channel)
            return
        while channel.requests and self._answered(channel, channel.requests[0]):
            channel.requests.pop(0).close()
        if channel.requests:
            self.dispatch(channel)
        elif _waits_to_continue(channel):  # as waitress's worker does when none is left
            channel.send_continue()

    def _answered(self, channel, request) -> bool:
        """A 429 sent for `request` if its address sent too many, or a 204 if it is a poll
        that finds nothing new on a connection kept open, with nothing else waiting to be
        sent on it."""
        if not self.guard.request(channel.addr[0]):
            channel.write_soon(_too_many_answer(channel.server.adj.ident))
            return True
        if (self.polls is None or request.error or request.version != "1.1"
                or not channel.connected or channel.total_outbufs_len
                or request.expect_continue
                or request.headers.get("CONNECTION", "").lower() == "close"
                or not self.polls.nothing_new(_environ(request))):
            return False
        channel.write_soon(_nothing_new_answer(channel.server.adj.ident))
        return True


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
