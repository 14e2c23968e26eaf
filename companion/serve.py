"""Starting the table server: waitress on the local network, never Flask's debug server."""
import gc
import ipaddress
import logging
import os
import select
import signal
import socket
import time

import waitress
from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer
from waitress.task import WSGITask
from waitress.utilities import build_http_date

from .loop import Loop, Sockets
from .qr import qr_text
from .web import create_app
from .web.polls import NOTHING_NEW, QuietPolls


ROUTE_PROBE = "192.0.2.1"  # a documentation address (RFC 5737): only routed, never sent to
ALL_INTERFACES = ("0.0.0.0", "")  # waitress listens on every IPv4 interface
ALL_INTERFACES_V6 = "::"  # every IPv6 interface only (waitress sets IPV6_V6ONLY)
# Connections the system holds for the server to accept while it is busy or at its limit
# (a table's phones reconnecting at once after the Wi-Fi came back): they wait instead of
# being refused.
BACKLOG = 1024
SPARE_FILES = 100  # files a process keeps open besides its connections (database, logs…)


def lan_address() -> str | None:
    """This machine's address on the local network, as phones would reach it."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        infos = []
    addresses = [info[4][0] for info in infos if not info[4][0].startswith("127.")]
    return addresses[0] if addresses else _routed_address()


def _routed_address() -> str | None:
    """The local address the system would send from: connecting UDP sends no packet."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect((ROUTE_PROBE, 9))
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith(("127.", "0.")) else address


def is_loopback(host: str) -> bool:
    """Whether `host` is this device only: 127.x.x.x, ::1 or localhost."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name
        return False


def url(address: str, port: int) -> str:
    """http://ADDRESS:PORT, an IPv6 address in brackets (its zone, if any, escaped)."""
    if ":" in address:
        address = "[" + address.replace("%", "%25") + "]"
    return f"http://{address}:{port}"


def addresses(host: str, port: int) -> tuple[str, str | None]:
    """Where to open the app when it listens on `host`: on this device, and from a phone
    (None if phones cannot reach it, or no network address was found)."""
    if host in ALL_INTERFACES:
        address = lan_address()
        return url("127.0.0.1", port), url(address, port) if address else None
    if host == ALL_INTERFACES_V6:
        return url("::1", port), None  # lan_address() finds IPv4 addresses only
    if is_loopback(host):
        return url(host, port), None
    return url(host, port), url(host, port)  # one address: the device opens it too


def serve(host: str, port: int, data_dir: str, names=(), processes: int = 1) -> None:
    """Print where to connect, with a QR code, then serve until stopped, in `processes`
    server processes sharing the data directory and the listening socket."""
    local_url, lan_url = addresses(host, port)
    app = create_app(data_dir, lan_url=lan_url, names=list(names))
    print(f"Templari Companion: games are kept in {data_dir}")
    print(f"On this device, open {local_url}")
    if lan_url:
        print(f"Phones on the same network open {lan_url} (or scan):")
        print(qr_text(lan_url))
        for name in names:
            print(f"Phones may also open {url(name, port)}")
        print(f"To host from another device, open {lan_url}/host/{app.config['HOST_KEY']}")
    elif is_loopback(host):
        print("Phones cannot reach this server: it listens only on this device "
              "(start with --host 0.0.0.0 to let them).")
    else:
        print("No local network address was found: phones cannot reach this server yet.")
    if processes == 1:
        waitress_serve(app, host=host, port=port, **waitress_options(app))
        return
    app.config["STORE"].close()  # each process opens its own connections
    serve_processes(lambda: create_app(data_dir, lan_url=lan_url, names=list(names)),
                    listener(host, port), processes)


def listener(host: str, port: int) -> socket.socket:
    """A listening socket on `host` and `port`, as waitress would open it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host or "0.0.0.0", port), family=family,
                                backlog=BACKLOG)


def serve_processes(make_app, listening: socket.socket, count: int) -> None:
    """`count` processes, each with its own app from `make_app()` and its own caches
    (kept right by the stamps in the database), taking turns at `listening`: the system
    gives each new connection to one of them. Stopped all together (Ctrl+C, SIGTERM)."""
    running = set()
    for _ in range(count):
        child = os.fork()
        if child == 0:
            _child(make_app, listening)
        running.add(child)
    listening.close()

    def stop(*_) -> None:
        for child in running:
            os.kill(child, signal.SIGTERM)
    signal.signal(signal.SIGTERM, stop)
    while running:
        try:
            running.discard(os.waitpid(-1, 0)[0])
        except KeyboardInterrupt:
            stop()
        except ChildProcessError:  # none left
            break


def _child(make_app, listening: socket.socket) -> None:
    """One server process: serve until stopped, then leave without running the parent's
    clean-up."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    code = 0
    try:
        app = make_app()
        waitress_serve(app, sockets=[listening], **waitress_options(app))
    except KeyboardInterrupt:
        pass
    except BaseException:  # noqa: BLE001 (said on the console, then the process ends)
        logging.exception("a server process stopped")
        code = 1
    os._exit(code)


def waitress_options(app) -> dict:
    """How waitress serves the table, so that no device can stall the others: a phone
    that opens connections and sends nothing, or sends a request a line every few
    seconds, holds a connection (not a thread) until it goes quiet, and a café of them
    fits below the connection limit."""
    return dict(
        # Every phone keeps a connection or two open to poll each second, browsers open
        # up to 6 each, and idle or half-sent ones cost a socket only: room for a café
        # (200 tables of 6 devices keep 1,200 open, bench/cafe.py).
        connection_limit=4000,
        # A connection with no request under way and nothing received for 15 s is
        # closed: a phone polling each second never is, a silent or stopped one soon.
        channel_timeout=15,
        # How often the idle connections are looked for (well below channel_timeout,
        # so one is closed between 15 and 20 s after its last byte).
        cleanup_interval=5,
        # The largest upload the app takes (a game record); larger ones are refused by
        # waitress before they are read into memory.
        max_request_body_size=app.config["MAX_CONTENT_LENGTH"],
        # Requests are parsed by waitress's event loop and only whole ones reach a
        # thread: 8 serve a table (a poll takes about 2 ms, the slowest page 10 ms),
        # and more would only take turns at Python's lock and SQLite's.
        threads=8,
        backlog=BACKLOG,
        # poll() rather than select(), which cannot watch a socket numbered above 1024
        # and so could not hold the connection limit.
        asyncore_use_poll=True,
    )


def waitress_serve(app, **options) -> None:
    """Serve `app` with waitress until stopped (Ctrl+C), as `waitress.serve` does."""
    logging.basicConfig()  # waitress's warnings (e.g. the connection limit reached)
    create_server(app, **options).run()


def create_server(app, map=None, **options):
    """A waitress server for `app` (arguments as `waitress.create_server` takes them, see
    `waitress_options`), not started: `run()` serves. Its sockets are in `map`."""
    limit = options.get("connection_limit", 100)
    allowed = _allow_open_files(limit + SPARE_FILES)
    if allowed is not None and allowed - SPARE_FILES < limit:  # the system allows fewer
        options = {**options, "connection_limit": max(allowed - SPARE_FILES, 1)}
    own_loop = hasattr(select, "epoll")  # else waitress's own, which asks every socket
    sockets = map if map is not None else Sockets() if own_loop else {}
    server = waitress.create_server(app, map=sockets, **options)
    if own_loop:
        server.asyncore = Loop()  # the loop `run()` turns: see companion/loop.py
    for listener in list(sockets.values()):  # one per address listened on
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = _Channel
            if isinstance(getattr(app, "wsgi_app", None), QuietPolls):
                listener.add_task = _PollsInLoop(listener.add_task, app.wsgi_app)
    # What the server holds as it starts (the app, its templates, every module loaded: most
    # of its objects) is never collected: Python's full collections, which stop every
    # thread, then go through what the games made only (in a café of 200 tables they took
    # 50-65 ms each, several times a minute; a poll caught behind one waited as long).
    gc.collect()  # (what is garbage already is freed, not kept for good)
    gc.freeze()
    return server


class _KeepAliveTask(WSGITask):
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


class _Channel(HTTPChannel):
    task_class = _KeepAliveTask


class _PollsInLoop:
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


def _allow_open_files(count: int) -> int | None:
    """Let this process open `count` files (one per connection), as far as the system's
    hard limit allows: how many it may open now (None: no limit, or none to know)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = count if hard == resource.RLIM_INFINITY else min(count, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        soft = wanted
    return None if soft == resource.RLIM_INFINITY else soft
