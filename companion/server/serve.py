"""Starting the table server: waitress on the local network, never Flask's debug server.

It listens before it says where to connect; the server's own device stays the host at
http://127.0.0.1:PORT whatever --host says (it listens on the loopback too); phones are
shown the first --name, else this machine's best address (network.py), and the host's
table screen offers the others.
"""
import contextlib
import errno
import http.client
import ipaddress
import logging
import os
import select
import signal
import socket
import sys
import time
from functools import partial

import waitress

from companion.store.sql import shown
from companion.web import create_app
from companion.web.guards.limits import Limits
from companion.web.guards.proxy import PROXY
from companion.web.render.qr import print_qr
from companion.web.streams import HELD, STREAMS_HELD
from . import network
from .network import DEFAULT_PORT

PORTS_TRIED = 10  # the default port and the next ones, when another program has it
LOOPBACK = "127.0.0.1"
ALL_INTERFACES = ("0.0.0.0", "")  # waitress listens on every IPv4 interface
ALL_INTERFACES_V6 = "::"  # every IPv6 interface only (IPV6_V6ONLY, as waitress sets it)
# Connections the system holds for the server to accept while it is busy or at its limit
# (a table's phones reconnecting at once after the Wi-Fi came back): they wait instead of
# being refused.
BACKLOG = 1024
WORKERS = 8  # threads for requests, besides one per stream held
CONNECTIONS = 250  # connections open at once (below select()'s 512 sockets, Windows')
PROBE_TIMEOUT = 1.0  # seconds to wait for what holds a port taken to answer
REPLACED_AFTER = 1.0  # seconds before a server process that ended by itself is replaced
STOPS = {signal.SIGINT, signal.SIGTERM}  # what stops the server (Ctrl+C, a service manager)
SPARE_FILES = 100  # files a process keeps open besides its connections (database, logs…)
_TAKEN = {errno.EADDRINUSE, errno.EACCES, 10048, 10013}  # Windows: WSAEADDRINUSE, WSAEACCES
_FORBIDDEN = {errno.EACCES, 10013}  # not allowed to this user (a port below 1024), or, on
# Windows, taken for itself by another program or reserved by the system
_NOT_HERE = {errno.EADDRNOTAVAIL, 10049}  # Windows: WSAEADDRNOTAVAIL


class CannotListen(Exception):
    """The server cannot listen as asked: one line saying why and what to do."""


def serve(host: str, port: int | None, data_dir: str, names=(), processes: int = 1,
          database: str | None = None, proxy: str | None = None, hosted: bool = False,
          keep_days: int = 30, screens: int = HELD, chosen: Limits = Limits()) -> None:
    """Listen, print where to connect (with a QR code), then serve until stopped, in
    `processes` server processes sharing the games (in the data directory, or the
    PostgreSQL `database`) and the listening sockets, behind the reverse proxy at the
    address `proxy` if given; `hosted`: a server on the internet, with no owner (see
    guards.roles), keeping a game `keep_days` days after its last change; each process
    keeps `screens` screens told of their game's changes (web/streams.py), within the
    operator's limits `chosen` (web/guards/limits.py). `port` None: the
    default port, or the next free one."""
    sockets = bind(listen_on(host), DEFAULT_PORT if port is None else port,
                   PORTS_TRIED if port is None else 1)
    try:
        with stoppable():
            bound = sockets[0].getsockname()[1]
            offered = offers(host, bound, names)
            make = partial(create_app, data_dir,
                           addresses=partial(offers, host, bound, names), names=list(names),
                           database=database, proxy=proxy, hosted=hosted, keep_days=keep_days,
                           screens=screens, chosen=chosen)
            app = make()
            kept_in = shown(database) if database else data_dir
            if hosted:
                tell_hosted(host, bound, kept_in, names, keep_days)
            else:
                tell(host, bound, kept_in, offered, app.config["HOST_KEY"],
                     moved=port is None and bound != DEFAULT_PORT)
            if processes == 1:
                waitress_serve(app, sockets=sockets, **waitress_options(app))
                return
            app.config["STORE"].close()  # each process opens its own connections
            serve_processes(make, sockets, processes)
    finally:
        for sock in sockets:
            sock.close()


@contextlib.contextmanager
def stoppable():
    """While in it, a stop (Ctrl+C, SIGTERM) ends the start (KeyboardInterrupt) until the
    server's own handlers take over, whatever this process was started with (a script's
    background job ignores Ctrl+C): the server says Ctrl+C stops it before it serves."""
    before = {number: signal.signal(number, signal.default_int_handler) for number in STOPS}
    try:
        yield
    finally:
        for number, handler in before.items():  # (None: not set from Python)
            signal.signal(number, signal.SIG_DFL if handler is None else handler)


def listen_on(host: str) -> list[str]:
    """The addresses to listen on for `host`: itself, and the loopback too unless it
    covers it (all IPv4 interfaces, or a loopback address), so this device stays the host;
    all interfaces is every IPv6 one too where this machine has IPv6."""
    if host in ALL_INTERFACES:
        return ["0.0.0.0", *([ALL_INTERFACES_V6] if has_ipv6() else [])]
    return [host] if is_loopback(host) else [host, LOOPBACK]


def has_ipv6() -> bool:
    """Whether this machine has IPv6 (its loopback ::1 takes a socket)."""
    if not socket.has_ipv6:
        return False
    with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind(("::1", 0))
        except OSError:
            return False
    return True


def bind(addresses: list[str], port: int, tries: int = 1) -> list[socket.socket]:
    """Listening sockets on one port of every address: `port` (0: any free one), else the
    next ones, `tries` in all. CannotListen says why none would do."""
    for candidate in range(port, port + tries):
        try:
            return _bind_all(addresses, candidate)
        except OSError as error:
            if error.errno in _TAKEN and candidate < port + tries - 1:
                continue
            raise CannotListen(_why(error, addresses, port, candidate)) from None
    raise AssertionError("unreachable")  # the last try returned or raised


def _bind_all(addresses: list[str], port: int) -> list[socket.socket]:
    sockets = []
    try:
        for address in addresses:
            sockets.append(listener(address, port))
            port = sockets[0].getsockname()[1]  # port 0: the one the first was given
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def listener(host: str, port: int) -> socket.socket:
    """A listening socket on `host` and `port`, as waitress would open it."""
    try:
        family, *_, address = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as error:
        raise OSError(errno.EADDRNOTAVAIL, str(error.strerror)) from None
    return socket.create_server(address[:2], family=family, backlog=BACKLOG)


def _why(error: OSError, addresses: list[str], first: int, last: int) -> str:
    """What a person can do about `error`, in one line."""
    other = DEFAULT_PORT if first < 1024 else first + 1 if first < 65535 else first - 1
    if error.errno in _FORBIDDEN and first == last:
        return (f"port {first} may not be used here (ports below 1024 need an "
                f"administrator; a system may reserve others, or another program take "
                f"one for itself): start with another port, e.g. --port {other}")
    if error.errno in _TAKEN and first == last:
        if ours(first):
            return (f"port {first} is taken by a Templari Companion server already running "
                    f"(open {local_url('127.0.0.1', first)}): stop it, or start this one "
                    f"with another port, e.g. --port {other}")
        return (f"port {first} is taken by another program (a server started before?): "
                f"stop it, or start with another port, e.g. --port {other}")
    if error.errno in _TAKEN:
        return (f"ports {first} to {last} are all taken by other programs: start with "
                "--port and a free port number")
    if error.errno in _NOT_HERE:
        return (f"{addresses[0]} is not an address of this machine: start without --host, "
                "or with one of its addresses (templari-companion --check lists them)")
    return f"cannot listen on {addresses[0]} port {last}: {error.strerror or error}"


def ours(port: int) -> bool:
    """Whether what answers on this device's `port` is a Templari Companion server (its
    home page names it)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=PROBE_TIMEOUT)
    try:
        connection.request("GET", "/")
        return b"Templari Companion" in connection.getresponse().read(4096)
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()


def is_loopback(host: str) -> bool:
    """Whether `host` is this device only: 127.x.x.x, ::1 or localhost."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name
        return False


def offers(host: str, port: int, names=()) -> list[tuple[str, str]]:
    """The addresses phones may use, best first, with what each is: the names given
    (--name), then this machine's addresses that `host` listens on."""
    if is_loopback(host):
        return []
    if host in ALL_INTERFACES or host == ALL_INTERFACES_V6:
        versions = (6,) if host == ALL_INTERFACES_V6 else (4, 6) if has_ipv6() else (4,)
        addresses = [(address.ip, address.label) for version in versions
                     for address in network.phone_addresses(version)]
    else:
        addresses = [(host, network.label_of(host) if _is_address(host) else "")]
    named = [(name, "") for name in names]
    return list({network.url(address, port): label for address, label in named + addresses}
                .items())


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def local_url(host: str, port: int) -> str:
    """Where this device opens the server: the loopback it listens on."""
    return network.url(host if is_loopback(host) else LOOPBACK, port)


def tell(host, port, kept_in, offered, host_key, moved=False) -> None:
    """Say where to connect: this device (the host), phones (with a QR code), the other
    addresses, and how to host from another device."""
    print(f"Templari Companion: games are kept in {kept_in}")
    if moved:
        holder = "a Templari Companion server" if ours(DEFAULT_PORT) else "another program"
        print(f"Port {DEFAULT_PORT} is taken by {holder}: serving on port {port}.")
    print(f"On this device, the host, open {local_url(host, port)}")
    if offered:
        shown, others = offered[0][0], offered[1:]
        print(f"Phones on the same network open {shown} (or scan):")
        print_qr(shown, sys.stdout)
        if others:
            print("Phones cannot open it? This machine's other addresses: "
                  + ", ".join(url + (f" ({label})" if label else "") for url, label in others)
                  + ". The host's table screen shows them in one tap.")
        print(f"To host from another device, open {shown}/host/{host_key}")
    elif is_loopback(host):
        print("Phones cannot reach this server: it listens only on this device "
              "(start without --host to let them).")
    else:
        print("No network address was found: phones cannot reach this server yet (join a "
              "Wi-Fi network or share this device's hotspot, then start the server again).")
    print("Press Ctrl+C to stop the server.", flush=True)


def tell_hosted(host, port, kept_in, names, keep_days) -> None:
    """Say what a hosted server serves: where, and that any device starts games."""
    print(f"Templari Companion, hosted: games are kept in {kept_in}")
    where = f"https://{names[0]}" if names else local_url(host, port)
    print(f"Serving on {local_url(host, port)}. Any device that opens {where} may start "
          "games; each game is hosted by the device that started it (no device is the "
          f"server's own). A game no one changes for {keep_days} days is removed.")
    print("Press Ctrl+C to stop the server.", flush=True)


def serve_processes(make_app, listening: list[socket.socket], count: int) -> None:
    """`count` processes, each with its own app from `make_app()` and its own caches
    (kept right by the stamps in the database), taking turns at the `listening` sockets:
    the system gives each new connection to one of them. One that ends by itself (killed,
    failed) is replaced REPLACED_AFTER seconds later. Stopped all together (Ctrl+C,
    SIGTERM)."""
    running = set()
    stopping = []

    def start() -> None:
        """One more process, unless the server is stopping (a stop may come between two)."""
        signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)  # (the child sets its own first)
        try:
            if stopping:
                return
            child = os.fork()
            if child == 0:
                _child(make_app, listening)
            running.add(child)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)

    def stop(*_) -> None:
        stopping.append(True)
        for child in running:
            # (one may have ended and been waited for just now, its handler run before it
            # left `running`: its number is no one's yet, the system gives them in turn)
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGTERM)
    for number in STOPS:
        signal.signal(number, stop)
    for _ in range(count):
        start()
    while running:
        try:
            running.discard(os.waitpid(-1, 0)[0])
        except ChildProcessError:  # none left
            break
        if not stopping:
            time.sleep(REPLACED_AFTER)  # (one that fails at start is not a busy loop)
            start()


def _child(make_app, listening: list[socket.socket]) -> None:
    """One server process: serve until stopped, then leave without running the parent's
    clean-up. Stopped while it starts (Ctrl+C reaches every process of the server), it
    ends at once, without a word: waitress's handlers are its own only once it serves."""
    for number in STOPS:
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)
    code = 0
    try:
        app = make_app()
        waitress_serve(app, sockets=listening, **waitress_options(app))
    except KeyboardInterrupt:  # (waitress_serve's stop)
        pass
    except BaseException:  # noqa: BLE001 (said on the console, then the process ends)
        logging.exception("a server process stopped")
        code = 1
    os._exit(code)


def waitress_options(app) -> dict:
    """How waitress serves a table, in its documented options: a thread for each screen's
    stream (web/streams.py) and WORKERS more for the requests, so that open screens never
    keep a tap waiting."""
    return dict(
        threads=app.config[STREAMS_HELD] + WORKERS,
        # Each screen holds its stream and a connection or two for its requests; a
        # device's browser opens up to 6: room for tens of screens, and two more for each
        # stream held.
        connection_limit=CONNECTIONS + 2 * app.config[STREAMS_HELD],
        # A connection with no request under way and nothing received for 30 s is
        # closed (a stream is a request under way: it stays).
        channel_timeout=30,
        # A connection is read on while its request runs, so that a stream whose screen
        # went away ends at once (the app asks waitress.client_disconnected).
        channel_request_lookahead=1,
        # The largest upload the app takes (a game record); larger ones are refused by
        # waitress before they are read into memory.
        max_request_body_size=app.config["MAX_CONTENT_LENGTH"],
        backlog=BACKLOG,
        # poll() where the system has it (not Windows): select() cannot watch a socket
        # numbered above 1024.
        asyncore_use_poll=True,
        # Behind a reverse proxy (--proxy), the app believes X-Forwarded-For and -Proto
        # from the proxy alone (web/guards/proxy.py): waitress, which would take them out
        # before the app sees them, leaves them in.
        clear_untrusted_proxy_headers=not app.config.get(PROXY),
    )


def waitress_serve(app, **options) -> None:
    """Serve `app` with waitress until stopped (Ctrl+C, or SIGTERM), as `waitress.serve`
    does; the screens' streams are ended first, so that waitress's threads stop at once."""
    logging.basicConfig()  # waitress's warnings (e.g. the connection limit reached)
    server = create_server(app, **options)
    for template in app.jinja_env.list_templates():  # compiled now, not at a first change
        app.jinja_env.get_template(template)

    stopping = []

    def stop(*_) -> None:
        """End the streams, then waitress (its `run` returns at KeyboardInterrupt). A stop
        while stopping (Ctrl+C with a service manager's SIGTERM, or the parent's) adds
        nothing: Python may run it inside this one, where end_all holds its lock."""
        if stopping:
            return
        stopping.append(True)
        app.extensions["changes"].end_all()
        raise KeyboardInterrupt
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    server.run()


def create_server(app, **options):
    """A waitress server for `app` (`waitress.create_server`'s arguments, see
    `waitress_options`), not started: `run()` serves."""
    limit = options.get("connection_limit", 100)
    if not hasattr(select, "poll"):  # waitress then watches them with select(): 512 at most
        limit = min(limit, CONNECTIONS)
    allowed = _allow_open_files(limit + SPARE_FILES)
    if allowed is not None and allowed - SPARE_FILES < limit:
        limit = max(allowed - SPARE_FILES, 1)
    return waitress.create_server(app, **{**options, "connection_limit": limit})


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
