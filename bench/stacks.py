"""Server stacks compared on what a café asks of one: screens each holding a poll open
until their game moves, and a steady stream of changes (issue 29, item 4; docs/stacks.md).

    python bench/stacks.py [--games 400] [--devices 6] [--every 10] [--seconds 60]
                           [--warm-up 10] [--wrk-seconds 5] [--rounds 3]
                           [--stacks waitress,gevent,gevent-one-db,uvicorn,uvicorn-httptools]

Run it with a Python that has the other stacks' packages as well as the app's (they are
not the app's dependencies, and never installed by the README's commands), e.g.

    python3 -m venv /tmp/stacks && /tmp/stacks/bin/pip install -c constraints.txt -e . \
        gevent uvicorn a2wsgi httptools && /tmp/stacks/bin/python bench/stacks.py

The stacks, each serving the same Flask app (companion.web.create_app) on a data
directory of its own made the same way, in a process of its own on 127.0.0.1, on a
listening socket opened as serve.bind opens it, with TCP_NODELAY set as waitress sets it
on its own (without it, gevent and uvicorn sent a table's live part 44 ms late: Nagle's
algorithm held the body back behind the headers until the client's delayed ACK):

- `waitress`: the table server as it is (companion.server.serve.create_server with
  waitress_options: waitress 3, the project's epoll loop, a poll that finds nothing new
  held in the loop by channel.Held until a news.Watch says its game moved, 8 threads;
  `waitress-threadsN`: the same with N threads).
- `gevent`: gevent.pywsgi.WSGIServer after gevent.monkey.patch_all(), a greenlet per
  connection; a poll that finds nothing new (polls.QuietPolls.unchanged, the check the
  loop makes) is held by a WSGI middleware here (GeventHeld) on a gevent Event of its
  game, set when the same news.Watch (a greenlet once patched, woken by the store's
  `committed` event) says the game moved, or answered 204 after 20 s.
- `gevent-one-db`: the same, with the store's connection kept per OS thread as the store
  means it (patched, threading.local is per greenlet: one SQLite connection per open
  HTTP connection), and the Watch on a store of its own (its own connection).
- `uvicorn`: uvicorn on asyncio with h11 (pure Python) hosting the Flask app through
  a2wsgi's WSGIMiddleware (8 threads); a poll that finds nothing new is held in the ASGI
  layer (AsgiHeld) on an asyncio Event of its game, set by the news.Watch's thread
  through the event loop, and its 204 is sent from the event loop, with no thread.
- `uvicorn-httptools`: the same with httptools (compiled) parsing HTTP.

Each stack is measured twice, with a fresh server each time:

1. Held polls. GAMES games (the opening of tests/fixtures/full-game-3.json), each with
   DEVICES devices, each on one kept-alive HTTP/1.1 connection from 127.0.0.1: the table
   screen (the host's), 3 phones that took a seat through the join form (each its own
   session cookie) and the others watching the table. Each polls its page's live part
   (id="live", hx-get, with HX-Request and Accept-Encoding: gzip) and asks again at
   once on each answer, as static/app.js does against a server that holds. The table's
   host posts a penalty (R4: to a player holding a card) through the table's form every
   EVERY seconds, the games' changes spread evenly, open loop (on a fixed schedule,
   whatever the answers), on a connection of its own, as htmx posts a form while the
   screen's poll is held. Change-to-screen latency: from the moment a change was sent to
   the moment each of its game's devices had the live part showing it (its v); the
   changes sent in the SECONDS measured after WARM-UP count. Also: the action's own
   answer, the screens that never saw a change (missed), the 204s (after a hold ran out,
   or at once), errors (an action the table did not record is one); the server's CPU
   (/proc/PID/stat) and memory (VmRSS each second, VmHWM) over the measured seconds, its
   threads and open files at the end; the client's CPU (one process, asyncio).
2. Throughput, against a bare Flask app answering an empty 204 (bench/serving.py's) on
   the same stack, in a process of its own: wrk (2 threads, 16 connections, WRK_SECONDS)
   on the bare app, then on the table's poll that finds nothing new but asks to be
   answered at once (`now=1`, what a screen sends after a failure: no stack holds it),
   then on a poll after a change (v=0: the live part, drawn by Flask), ROUNDS times
   interleaved (none with --rounds 0); medians of the rates and of each ratio to the
   bare run just before it.

Prints one block per stack, then a table of them all, e.g.

    waitress: set up in 17.0 s; 14378 poll answers, 0 of them 204 after a hold ran out,
    0 answered 204 without being held
      change to screen: min 1.2 ms, p50 7.0 ms, p99 160.2 ms, max 250.1 ms (9600 of 9600
      screens; missed 0, saw a later change first 0)
      the action's own answer: p50 6.0 ms, p99 90.6 ms (2400 actions)
      errors: 0
      server: CPU 60% of a core, RSS max 86 MB (VmHWM 86 MB), 10 threads, 2829 open files
      client: CPU 10% of a core, action lag p99 4.0 ms
      bare 204: 4243 req/s (median)
      no-news poll, now=1 (204): 12220 req/s, 2.93x bare 204
      poll after a change (200): 1321 req/s, 0.31x bare 204

Linux only (/proc, prctl, epoll for waitress's loop); traffic goes to 127.0.0.1 only; a
run takes about 3 minutes a stack. Exits with status 1 if changes were sent to a stack
and none reached a screen.
"""
import sys

if __name__ == "__main__" and sys.argv[1:2] == ["serve"] and sys.argv[2:3] \
        and sys.argv[2].startswith("gevent"):
    # Before anything else is imported, as gevent asks: sockets, threads, locks, queues
    # and sleeps become gevent's.
    from gevent import monkey

    monkey.patch_all()

import argparse  # noqa: E402 (after gevent's patching, in a gevent server)
import asyncio  # noqa: E402
import ctypes  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import resource  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections import Counter, defaultdict  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from datetime import datetime, timezone  # noqa: E402
from pathlib import Path  # noqa: E402
from urllib.parse import parse_qsl, urlsplit  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as python bench/stacks.py: bench is a package

from bench import serving  # noqa: E402
from bench.devices import (BROWSER, HTMX, Device, Failed, at_once, live, stale,  # noqa: E402
                           take_seat)
from bench.faults import expect, forms  # noqa: E402
from companion.store import games  # noqa: E402
from companion.store.news import Watch  # noqa: E402
from companion.store.sqlite import Store  # noqa: E402
from companion.web import create_app  # noqa: E402
from companion.web.pages import STAMP_READ  # noqa: E402
from companion.web.polls import NOTHING_NEW, POLLS  # noqa: E402

STACKS = ("waitress", "gevent", "gevent-one-db", "uvicorn", "uvicorn-httptools")
HOST = serving.HOST
RECORD = ROOT / "tests" / "fixtures" / "full-game-3.json"
OPENING = 3  # the record's first events: a lot sold, where a penalty may be recorded (R4)
SEATED = 3  # phones of a game that take a seat (the record's players); the others watch
# The players a penalty may be given to after the opening: those who hold a card (R4: a
# player with none can have no bid forbidden, and the table refuses it).
PENALIZED = (0, 1)
HOLD = 20.0  # seconds a held poll waits, as channel.HOLD
POLL_TIMEOUT = 45.0  # seconds a screen waits for a poll's answer (static/app.js)
GRACE = 2.0  # seconds after the end for the answers to the last changes to arrive
RETRY_AFTER = 1.0  # seconds before a screen whose poll failed asks again (with now=1)
WORKERS = 8  # threads of the stacks that serve with threads (waitress_options' count)
SETTING_UP = 32  # devices set up at once
OPEN_FILES = 20000  # what a server and the client may open (connections, databases)
MB = 2**20


# --- the servers ------------------------------------------------------------------------

def serve(stack: str, kind: str, data_dir: str | None) -> None:
    """Serve the table's app on `data_dir` (`kind` "app") or the bare 204 app ("bare")
    with `stack` on a free port of 127.0.0.1; print the port, serve until killed (or
    until the benchmark that started this process dies)."""
    _die_with_parent()
    _allow_open_files(OPEN_FILES)
    if kind == "bare":
        app = serving.bare_app()
    else:
        app = create_app(data_dir)
        app.config["POLL_HOLD"] = HOLD
    listening = serving.bind([HOST], 0)
    # As waitress sets it on its listeners (its socket_options): answers are written in
    # several sends (headers, then body), which Nagle's algorithm would hold back 40 ms.
    listening[0].setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if stack.startswith("waitress"):  # waitress-threadsN: with N threads rather than 8
        from companion.server.serve import create_server, waitress_options
        import logging
        logging.getLogger("waitress.queue").setLevel(logging.ERROR)
        options = waitress_options(app)
        if stack.startswith("waitress-threads"):
            options["threads"] = int(stack.removeprefix("waitress-threads"))
        server = create_server(app, sockets=listening, **options)
        _say_port(listening[0])
        server.run()
    elif stack.startswith("gevent"):
        _serve_gevent(app, kind, listening[0], one_db=stack == "gevent-one-db")
    elif stack.startswith("uvicorn"):
        _serve_uvicorn(app, kind, listening[0], "httptools" if "httptools" in stack else "h11")
    else:
        raise SystemExit(f"no stack {stack}")


def _say_port(sock) -> None:
    print(sock.getsockname()[1], flush=True)


def _die_with_parent() -> None:
    """SIGTERM when the benchmark that started this process dies (Linux's prctl
    PR_SET_PDEATHSIG): no server outlives its benchmark."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)


def _allow_open_files(count: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = count if hard == resource.RLIM_INFINITY else min(count, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


class GeventHeld:
    """WSGI middleware in front of polls.QuietPolls, for gevent: a poll that finds nothing
    new waits on its game's Event (a greenlet waits: no thread) until a Watch says the
    game moved or HOLD seconds pass, then goes on as any request (the 200 drawn by Flask,
    or QuietPolls' 204). A poll with now=1 (a screen that just failed) is answered at
    once. Everything runs in one thread (greenlets), so no lock."""

    def __init__(self, polls, hold: float):
        from gevent.event import Event
        self.polls, self.hold, self.Event = polls, hold, Event
        self.games: dict[str, tuple] = {}  # token: (Event, Counter of the stamps shown)
        self.fresh: set[str] = set()

    def __call__(self, environ, start_response):
        unchanged = self.polls.unchanged(environ)
        if unchanged is None:
            return self.polls.flask(environ, start_response)
        if "now=1" in environ.get("QUERY_STRING", "").split("&"):
            start_response("204 NO CONTENT", list(NOTHING_NEW))
            return []
        token, stamp = unchanged
        event, shown = self.games.get(token) or self.games.setdefault(
            token, (self.Event(), Counter()))
        shown[stamp] += 1
        self.fresh.add(token)
        try:
            event.wait(self.hold)
        finally:
            shown[stamp] -= 1
            if not shown[stamp]:
                del shown[stamp]
            if not shown and self.games.get(token, (None,))[0] is event:
                del self.games[token]
        environ.pop(STAMP_READ, None)
        return self.polls(environ, start_response)

    def waited(self, games=None):
        """For the Watch: the stamps shown of the games named (all if None) and of those
        new since it last asked."""
        fresh, self.fresh = self.fresh, set()
        return _shown(self.games, fresh, games)

    def moved(self, tokens) -> None:
        """The Watch says these games moved: their polls go on."""
        for token in tokens:
            waiting = self.games.pop(token, None)
            if waiting is not None:
                waiting[0].set()


def _shown(waiting: dict, fresh: set, games) -> dict:
    """What a Watch asks of the polls `waiting` (token: (event, stamps shown)): the stamps
    shown of the `games` named (all if None) and of the games `fresh`."""
    asked = waiting.keys() if games is None else (fresh | games) & waiting.keys()
    return {token: set(waiting[token][1]) for token in asked}


def _serve_gevent(app, kind: str, sock, one_db: bool) -> None:
    from gevent import monkey
    from gevent.pywsgi import WSGIServer
    handler = app
    if kind == "app":
        store = app.config["STORE"]
        watched = store
        if one_db:  # a connection per OS thread, as Store means it (one here), not per greenlet
            store._local = monkey.get_original("_thread", "_local")()
            watched = Store(store.path.parent)  # the Watch's own connection...
            watched.committed = store.committed  # ...poked by the app's writes,
            watched.written = store.written  # which name their games
        held = GeventHeld(app.wsgi_app, HOLD)
        Watch(watched, held.waited, held.moved).start()  # a greenlet, once patched
        handler = held
    server = WSGIServer(sock, handler, log=None)  # (listening with serve.BACKLOG)
    _say_port(sock)
    server.serve_forever()


class AsgiHeld:
    """ASGI app: a poll that finds nothing new is held here, in the event loop, on its
    game's asyncio Event (set from the Watch's thread through the loop) until the game
    moves or HOLD seconds pass; answered 204 here if still nothing new; anything else
    goes to the Flask app through a2wsgi (its threads)."""

    def __init__(self, app, hold: float):
        from a2wsgi import WSGIMiddleware
        self.app, self.polls, self.hold = app, app.wsgi_app, hold
        self.wsgi = WSGIMiddleware(app, workers=WORKERS)
        self.games: dict[str, tuple] = {}  # token: (asyncio.Event, Counter of stamps)
        self.fresh: set[str] = set()
        self.lock = threading.Lock()  # the Watch's thread reads what the loop writes
        self.loop = None

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] == "GET" \
                and POLLS.fullmatch(scope["path"]):
            environ = _environ(scope)
            unchanged = self.polls.unchanged(environ)
            if unchanged is not None:
                if "now=1" not in environ["QUERY_STRING"].split("&"):
                    await self._hold(*unchanged)
                    unchanged = self.polls.unchanged(environ)
                if unchanged is not None:
                    await send({"type": "http.response.start", "status": 204,
                                "headers": [(name.lower().encode(), value.encode())
                                            for name, value in NOTHING_NEW]})
                    await send({"type": "http.response.body", "body": b""})
                    return
        await self.wsgi(scope, receive, send)

    async def _hold(self, token: str, stamp: int) -> None:
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
            Watch(self.app.config["STORE"], self.waited, self.moved).start()
        with self.lock:
            event, shown = self.games.get(token) or self.games.setdefault(
                token, (asyncio.Event(), Counter()))
            shown[stamp] += 1
            self.fresh.add(token)
        try:
            await asyncio.wait_for(event.wait(), self.hold)
        except TimeoutError:
            pass
        finally:
            with self.lock:
                shown[stamp] -= 1
                if not shown[stamp]:
                    del shown[stamp]
                if not shown and self.games.get(token, (None,))[0] is event:
                    del self.games[token]

    def waited(self, games=None):
        with self.lock:
            fresh, self.fresh = self.fresh, set()
            return _shown(self.games, fresh, games)

    def moved(self, tokens) -> None:
        """The Watch's thread: wake the games' polls in the loop."""
        self.loop.call_soon_threadsafe(self._wake, list(tokens))

    def _wake(self, tokens) -> None:
        with self.lock:
            woken = [self.games.pop(token, None) for token in tokens]
        for waiting in woken:
            if waiting is not None:
                waiting[0].set()


def _environ(scope) -> dict:
    """What QuietPolls reads of a request, from an ASGI scope."""
    environ = {"REQUEST_METHOD": scope["method"], "PATH_INFO": scope["path"],
               "QUERY_STRING": scope["query_string"].decode("latin-1"),
               "wsgi.url_scheme": scope.get("scheme", "http")}
    for name, value in scope["headers"]:
        if name == b"host":
            environ["HTTP_HOST"] = value.decode("latin-1")
    return environ


def _serve_uvicorn(app, kind: str, sock, parser: str) -> None:
    import uvicorn
    from a2wsgi import WSGIMiddleware
    asgi = AsgiHeld(app, HOLD) if kind == "app" else WSGIMiddleware(app, workers=WORKERS)
    config = uvicorn.Config(asgi, loop="asyncio", http=parser, lifespan="off", access_log=False,
                            log_level="warning",
                            timeout_keep_alive=15)  # waitress_options' channel_timeout
    _say_port(sock)
    uvicorn.Server(config).run(sockets=[sock])


@contextmanager
def started(stack: str, kind: str, data_dir: str | None = None):
    """A server process of `stack` (see serve); (its pid, its port); stopped on leaving."""
    with serving.started("serve", stack, kind, *([data_dir] if data_dir else []),
                         script=__file__) as server:
        yield server.pid, server.port


# --- what a server process uses -----------------------------------------------------------

class Usage:
    """A server process's CPU time, memory, threads and open files, over a window."""

    def __init__(self, pid: int):
        self.pid, self.rss_max, self.cpu, self.hwm = pid, 0, 0.0, 0
        self.threads = self.files = 0

    async def watch(self, start: float, end: float) -> None:
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        began = self._cpu()
        while time.monotonic() < end:
            self.rss_max = max(self.rss_max, _status(self.pid, "VmRSS"))
            await asyncio.sleep(min(1.0, max(0.0, end - time.monotonic())))
        self.cpu = (self._cpu() - began) / (end - start)
        self.hwm = _status(self.pid, "VmHWM")
        self.threads = _status(self.pid, "Threads", 1)
        self.files = len(os.listdir(f"/proc/{self.pid}/fd"))

    def _cpu(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _status(pid: int, name: str, unit: int = 1024) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1]) * unit
    raise ValueError(f"no {name} in /proc/{pid}/status")


# --- the held polls ------------------------------------------------------------------------

def make_games(data_dir: str, count: int) -> list[str]:
    """`count` games of the record's opening in a new data directory; their tokens."""
    store = Store(data_dir)
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    opening = {**record, "events": record["events"][:OPENING]}
    tokens = [games.create(store, opening, games.Options()) for _ in range(count)]
    store.close()
    return tokens


def stamp_of(url: str) -> int:
    return int(dict(parse_qsl(urlsplit(url).query))["v"])


@dataclass
class Screen:
    """A device showing a page with a live part: what it polls, and what it was shown."""

    device: Device
    token: str
    url: str = ""
    seen: list = field(default_factory=list)  # (stamp, when it arrived)


@dataclass
class Tally:
    """What the client saw: the changes sent, the screens' answers, the failures."""

    changes: dict = field(default_factory=dict)  # (token, stamp): when it was sent
    actions: list = field(default_factory=list)  # seconds, each action's own answer
    errors: Counter = field(default_factory=Counter)
    expired: int = 0  # 204s after a hold ran out (HOLD seconds, or nearly)
    at_once: int = 0  # 204s sooner: a poll answered "nothing new" without being held
    polls: int = 0
    lags: list = field(default_factory=list)


class Table:
    """A game's devices: its table screen, its phones, and the host posting changes."""

    def __init__(self, port: int, token: str, devices: int):
        self.token = token
        self.screen = Screen(Device(port), token)
        self.phones = [Screen(Device(port), token) for _ in range(devices - 1)]
        self.actor = Device(port)  # the host's second connection (a form while polling)
        self.actor.cookies = self.screen.device.cookies  # the same browser
        self.form, self.stamp = None, 0
        self.player = 0

    @property
    def screens(self) -> list[Screen]:
        return [self.screen, *self.phones]

    async def set_up(self, gate: asyncio.Semaphore) -> None:
        async with gate:
            for seat, phone in enumerate(self.phones):
                if seat < SEATED:
                    page = await take_seat(phone.device, self.token, seat)
                else:
                    page = expect(await phone.device.request("GET", f"/g/{self.token}"), 200,
                                  "the table page").body
                phone.url = live(page).url
            page = expect(await self.screen.device.request("GET", f"/g/{self.token}"), 200,
                          "the table page").body
            self.screen.url = live(page).url
            self.form, self.stamp = penalty_form(page), stamp_of(self.screen.url)

    async def act(self, tally: Tally) -> None:
        """A penalty posted through the table's form, as htmx does; its answer (the
        table's live part) carries the next form."""
        fields = {**self.form.fields, "action": ["penalty"],
                  "player": [str(PENALIZED[self.player % len(PENALIZED)])]}
        self.player += 1
        sent = time.monotonic()
        answer = await self.actor.request("POST", self.form.action, fields, headers=HTMX)
        took = time.monotonic() - sent
        page = expect(answer, 200, "a penalty").body
        self.form = penalty_form(page)
        stamp = stamp_of(live(page).url)
        if stamp <= self.stamp:  # told as a lost race, or a change sent twice
            raise RuntimeError("not recorded")
        self.stamp = stamp
        tally.changes[(self.token, stamp)] = sent
        tally.actions.append((sent, took))


def penalty_form(page: str):
    """The table's penalty form (its URL and hidden fields: the CSRF token, the version)."""
    found = re.search(r'<form\b[^>]*\bclass="[^"]*\baction-penalty\b[^"]*"[^>]*>', page)
    if found is None:
        raise RuntimeError("the table offers no penalty")
    end = page.index("</form>", found.end())
    hidden = re.findall(r'<input type="hidden"[^>]*>', page[found.end():end])
    return forms(found.group() + "".join(hidden) + "</form>")[0]


async def keep_polling(screen: Screen, tally: Tally, end: float) -> None:
    """Poll, and on each answer poll again at once, until `end` (a poll under way then
    is left to its answer or its timeout)."""
    retry = False
    while time.monotonic() < end:
        url = at_once(screen.url) if retry else screen.url
        asked = time.monotonic()
        try:
            answer = await screen.device.request("GET", url, headers=HTMX,
                                                 timeout=POLL_TIMEOUT)
        except Failed as error:
            tally.errors[f"poll: {error}"] += 1
            retry = True
            await asyncio.sleep(RETRY_AFTER)
            continue
        arrived = time.monotonic()
        tally.polls += 1
        retry = False
        if answer.status == 200:
            screen.url = live(answer.body).url
            screen.seen.append((stamp_of(screen.url), arrived))
        elif answer.status == 204:
            if arrived >= end:
                pass
            elif arrived - asked >= HOLD * 0.9:
                tally.expired += 1
            else:
                tally.at_once += 1
        else:
            tally.errors[f"poll: answered {answer.status}"] += 1
            retry = True
            await asyncio.sleep(RETRY_AFTER)


async def keep_acting(table: Table, tally: Tally, first: float, every: float,
                      end: float) -> None:
    """The host's changes, due at `first` and every `every` s after, until `end`."""
    due = first
    while due < end:
        wait = due - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        tally.lags.append(time.monotonic() - due)
        try:
            await table.act(tally)
        except (Failed, RuntimeError, ValueError) as error:
            tally.errors[f"action: {error}"] += 1
            try:  # the table page again, for the form as it is now
                page = (await table.actor.request("GET", f"/g/{table.token}")).body
                table.form, table.stamp = penalty_form(page), stamp_of(live(page).url)
            except (Failed, RuntimeError) as again:
                tally.errors[f"action: the table page again: {again}"] += 1
        due += every


@dataclass
class Held:
    """What the held polls measured on one stack."""

    latencies: list  # seconds, change sent to a screen showing it
    expected: int  # screens that should have shown a change of the measured window
    missed: int  # of those, the screens that never showed it (nor a later one)
    late: int  # those that showed a later change first (two changes close together)
    actions: list  # seconds
    errors: Counter
    expired: int
    at_once: int
    polls: int
    lag_p99: float
    client_cpu: float
    usage: Usage
    set_up: float


async def held_polls(pid: int, port: int, tokens: list[str], args) -> Held:
    """Set up every game's devices, then poll and change for WARM-UP + SECONDS."""
    began = time.monotonic()
    tables = [Table(port, token, args.devices) for token in tokens]
    gate = asyncio.Semaphore(SETTING_UP)
    await asyncio.gather(*(table.set_up(gate) for table in tables))
    set_up = time.monotonic() - began
    tally = Tally()
    start = time.monotonic() + 1.0
    measured, end = start + args.warm_up, start + args.warm_up + args.seconds
    usage = Usage(pid)
    cpu_began = time.process_time()
    step = args.every / len(tables)  # the changes spread evenly over each EVERY seconds
    polling = [asyncio.create_task(keep_polling(screen, tally, end))
               for table in tables for screen in table.screens]
    await asyncio.gather(usage.watch(measured, end),
                         *(keep_acting(table, tally, start + n * step, args.every, end)
                           for n, table in enumerate(tables)))
    client_cpu = (time.process_time() - cpu_began) / (end - start)
    await asyncio.sleep(GRACE)  # the answers to the last changes
    for task in polling:  # the polls still held are left
        task.cancel()
    await asyncio.gather(*polling, return_exceptions=True)
    for table in tables:
        for screen in table.screens:
            screen.device.close()
        table.actor.close()
    return _held(tables, tally, measured, end, usage, client_cpu, set_up)


def _held(tables, tally: Tally, measured: float, end: float, usage: Usage,
          client_cpu: float, set_up: float) -> Held:
    """Each change sent in the measured window, matched with each of its game's screens."""
    by_game = defaultdict(list)
    for (token, stamp), sent in tally.changes.items():
        if measured <= sent < end:
            by_game[token].append((stamp, sent))
    latencies, expected, missed, late = [], 0, 0, 0
    for table in tables:
        for stamp, sent in by_game[table.token]:
            for screen in table.screens:
                expected += 1
                shown = [(seen, when) for seen, when in screen.seen if seen >= stamp]
                if not shown:
                    missed += 1
                    continue
                seen, when = min(shown, key=lambda pair: pair[1])
                late += seen != stamp
                latencies.append(when - sent)
    actions = [took for sent, took in tally.actions if measured <= sent < end]
    lags = sorted(tally.lags)
    lag_p99 = lags[int(len(lags) * 0.99)] if lags else 0.0
    return Held(latencies, expected, missed, late, actions, tally.errors, tally.expired,
                tally.at_once, tally.polls, lag_p99, client_cpu, usage, set_up)


# --- throughput against a bare 204 ----------------------------------------------------------

def wrk(port: int, path: str, headers: dict, args) -> tuple[float, str]:
    """Requests per second wrk got from `path`, and its errors, if any."""
    command = ["wrk", "-t2", "-c16", f"-d{args.wrk_seconds}s",
               *[part for name, value in {**BROWSER, **headers}.items()
                 for part in ("-H", f"{name}: {value}")],
               f"http://{HOST}:{port}{path}"]
    output = subprocess.run(command, capture_output=True, text=True, check=True,
                            timeout=args.wrk_seconds + 60).stdout
    problems = [found.group() for found in
                re.finditer(r"(Non-2xx or 3xx responses: \d+|Socket errors: .*)", output)]
    return float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)), "; ".join(problems)


@dataclass
class Throughput:
    bare: float
    rates: dict  # label: (median req/s, median ratio to the bare run before it)
    problems: list


async def _paths(port: int, token: str) -> dict[str, tuple[str, dict]]:
    screen = Device(port)
    page = expect(await screen.request("GET", f"/g/{token}"), 200, "the table page").body
    url, headers = live(page).url, {"Cookie": screen.cookie, **HTMX}
    paths = {"no-news poll, now=1 (204)": (at_once(url), headers, 204),
             "poll after a change (200)": (stale(url), headers, 200)}
    for path, head, status in paths.values():
        answer = await screen.request("GET", path, headers=head)
        if answer.status != status:
            raise SystemExit(f"GET {path} answered {answer.status}, not {status}")
    screen.close()
    return {label: (path, head) for label, (path, head, _) in paths.items()}


def throughput(stack: str, args) -> Throughput:
    with tempfile.TemporaryDirectory() as data_dir:
        token = make_games(data_dir, 1)[0]
        with started(stack, "bare") as (_, bare), started(stack, "app", data_dir) as (_, port):
            paths = asyncio.run(_paths(port, token))
            runs, floors, problems = {label: [] for label in paths}, [], []
            for _ in range(args.rounds):
                for label, (path, headers) in paths.items():
                    floor, trouble = wrk(bare, "/", {}, args)
                    rate, more = wrk(port, path, headers, args)
                    floors.append(floor)
                    runs[label].append((rate, floor))
                    problems += [f"bare: {trouble}"] * bool(trouble) \
                        + [f"{label}: {more}"] * bool(more)
    return Throughput(statistics.median(floors),
                      {label: (statistics.median(rate for rate, _ in measured),
                               statistics.median(rate / floor for rate, floor in measured))
                       for label, measured in runs.items()}, problems)


# --- a run -----------------------------------------------------------------------------------

def measure(stack: str, args) -> tuple[Held, Throughput]:
    with tempfile.TemporaryDirectory() as data_dir:
        tokens = make_games(data_dir, args.games)
        with started(stack, "app", data_dir) as (pid, port):
            held = asyncio.run(held_polls(pid, port, tokens, args))
    return held, throughput(stack, args) if args.rounds else Throughput(0.0, {}, [])


def _ms(values: list, share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] * 1000 if ordered else 0


def report(stack: str, held: Held, rates: Throughput) -> list[str]:
    usage = held.usage
    lines = [
        f"{stack}: set up in {held.set_up:.1f} s; {held.polls} poll answers, "
        f"{held.expired} of them 204 after a hold ran out, {held.at_once} answered 204 "
        "without being held",
        f"  change to screen: min {_ms(held.latencies, 0.0):.1f} ms, "
        f"p50 {_ms(held.latencies, 0.5):.1f} ms, "
        f"p99 {_ms(held.latencies, 0.99):.1f} ms, max {_ms(held.latencies, 1.0):.1f} ms "
        f"({len(held.latencies)} of {held.expected} screens; missed {held.missed}, "
        f"saw a later change first {held.late})",
        f"  the action's own answer: p50 {_ms(held.actions, 0.5):.1f} ms, "
        f"p99 {_ms(held.actions, 0.99):.1f} ms ({len(held.actions)} actions)",
        f"  errors: {sum(held.errors.values())}"
        + "".join(f"\n    {count} x {what}" for what, count in held.errors.most_common(5)),
        f"  server: CPU {usage.cpu * 100:.0f}% of a core, RSS max {usage.rss_max / MB:.0f} MB "
        f"(VmHWM {usage.hwm / MB:.0f} MB), {usage.threads} threads, {usage.files} open files",
        f"  client: CPU {held.client_cpu * 100:.0f}% of a core, action lag p99 "
        f"{held.lag_p99 * 1000:.1f} ms",
    ]
    if rates.rates:
        lines.append(f"  bare 204: {rates.bare:.0f} req/s (median)")
    lines += [f"  {label}: {rate:.0f} req/s, {ratio:.2f}x bare 204"
              for label, (rate, ratio) in rates.rates.items()]
    lines += [f"  wrk said: {problem}" for problem in rates.problems]
    return lines


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version
    found = []
    for name in ("waitress", "gevent", "greenlet", "uvicorn", "a2wsgi", "h11", "httptools",
                 "uvloop", "flask"):
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            pass
    return ", ".join(found)


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["serve"]:
        serve(argv[1], argv[2], argv[3] if len(argv) > 3 else None)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--devices", type=int, default=6, help="devices per game")
    parser.add_argument("--every", type=float, default=10.0,
                        help="seconds between two changes of a game")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warm-up", type=float, default=10.0)
    parser.add_argument("--wrk-seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--stacks", default=",".join(STACKS))
    args = parser.parse_args(argv)
    stacks = args.stacks.split(",")
    _allow_open_files(OPEN_FILES)
    print(f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} cores; "
          f"load average {serving.load_average()}; Python {sys.version.split()[0]}; "
          f"{versions()}", flush=True)
    print(f"{args.games} games x {args.devices} devices = {args.games * args.devices} held "
          f"polls, a change per game every {args.every:g} s ({args.games / args.every:.0f}/s); "
          f"{args.warm_up:g} s warm-up, {args.seconds:g} s measured; wrk -t2 -c16 "
          f"-d{args.wrk_seconds}s x {args.rounds} rounds", flush=True)
    summary = []
    for stack in stacks:
        held, rates = measure(stack, args)
        print("\n".join(report(stack, held, rates)), flush=True)
        summary.append((stack, held, rates))
    print("\n| stack | change to screen p50 / p99 / max | missed | errors | server CPU "
          "| RSS max | no-news (now=1) x bare | after a change x bare |")
    print("|---|---|---|---|---|---|---|---|")
    for stack, held, rates in summary:
        ratios = [f"{ratio:.2f}x" for _, ratio in rates.rates.values()] or ["-", "-"]
        print(f"| {stack} | {_ms(held.latencies, 0.5):.1f} / {_ms(held.latencies, 0.99):.1f}"
              f" / {_ms(held.latencies, 1.0):.1f} ms | {held.missed} of {held.expected} "
              f"| {sum(held.errors.values())} | {held.usage.cpu * 100:.0f}% "
              f"| {held.usage.rss_max / MB:.0f} MB | {ratios[0]} | {ratios[1]} |")
    print(f"load average after: {serving.load_average()}")
    failed = [stack for stack, held, _ in summary if held.expected and not held.latencies]
    if failed:
        sys.exit(f"no change reached a screen on {', '.join(failed)}")


if __name__ == "__main__":
    main()
