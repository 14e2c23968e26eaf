"""waitress's connections as the table server uses them (through names of waitress
beyond its documented API, see waitress_api.py: imported only where waitress has them):
an answer without a body keeps its connection open, and a poll that finds nothing new is
answered by the event loop itself."""
import time

from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer
from waitress.task import WSGITask
from waitress.utilities import build_http_date

from .web.polls import NOTHING_NEW, QuietPolls


def install(sockets, app) -> None:
    """Each listener of the socket map `sockets` opens Channels, and answers the polls
    that find nothing new in the loop."""
    for listener in list(sockets.values()):  # one per address listened on
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = Channel
            if isinstance(getattr(app, "wsgi_app", None), QuietPolls):
                listener.add_task = PollsInLoop(listener.add_task, app.wsgi_app)


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
    task_class = KeepAliveTask


class PollsInLoop:
    """A listener's `add_task` (what it does with a connection that has a request to
    serve) that answers a poll finding nothing new (web/polls.py, the request a café sends
    most) at once, with no worker thread: the event loop's, or the worker that served the
    connection's request before. Called with the connection's requests locked."""

    def __init__(self, dispatch, polls: QuietPolls):
        self.dispatch, self.polls = dispatch, polls

    def __call__(self, channel) -> None:
        while channel.requests and self._answered(channel, channel.requests[0]):
            channel.requests.pop(0).close()
        if channel.requests:
            self.dispatch(channel)
        elif _waits_to_continue(channel):  # as waitress's worker does when none is left
            channel.send_continue()

    def _answered(self, channel, request) -> bool:
        """A 204 sent for `request` if it is such a poll on a connection kept open, with
        nothing else waiting to be sent on it."""
        if (request.error or request.version != "1.1" or not channel.connected
                or channel.total_outbufs_len or request.expect_continue
                or request.headers.get("CONNECTION", "").lower() == "close"
                or not self.polls.nothing_new(_environ(request))):
            return False
        channel.write_soon(_nothing_new_answer(channel.server.adj.ident))
        return True


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
