"""Tables on a hosted stack of this machine: how many one engine holds with every change
on every other screen within 250 ms (p99), every action answered within 150 ms (p99), no
error, and nothing acknowledged lost when a server process is killed.

    python bench/hosted.py [--engines waitress,gevent] [--tables 100,150] [--every 5]
                           [--seconds 60] [--warm-up 10] [--processes 2] [--ports]
                           [--direct] [--kill] [--connections N]

The stack (bench/balanced.py): a PostgreSQL of its own, the table server in PROCESSES
processes on a port of 127.0.0.1 (with --ports: PROCESSES servers of one process, each on
a port of its own, as the systemd template docs/deploy/templari-companion@.service runs
them; haproxy sends each game's requests to one of them), haproxy in front on another
(with `option http-no-delay`: without it haproxy holds each small piece of a stream up to
200 ms; with --direct no haproxy: the devices speak plain HTTP to the one server). For
each number of TABLES, each engine in turn (the machine's other work as alike as it can
be), on a stack of its own:

- waitress: `templari-companion --hosted --database URL --proxy 127.0.0.1 --processes N
  --screens S`, S every stream of the run (a table's 7 screens, and 16 to spare), so that
  one process holds them all once the other is killed. `--connections N` sets waitress's
  connection_limit (companion/server/serve.py's CONNECTIONS) in those processes instead
  of the server's own.
- gevent: gunicorn with PROCESSES gevent workers (gunicorn monkey-patches each before it
  loads the app; psycopg 3 takes gevent's patched select by itself), the app made by
  `bench.hosted:app(...)`, `companion.web.create_app(None, database=URL,
  proxy="127.0.0.1", hosted=True, screens=S)`, 2 connections a screen for each worker.
  gunicorn and gevent are not the app's dependencies: `pip install gunicorn gevent` first.

Each process may hold every stream of the run, and SPARE_SCREENS more (the system hands
new connections to the processes unevenly, and those of a killed one all at once to the
others). Each lends its PostgreSQL
connections from its pool (companion/store/postgres.py's POOL_SIZE) and listens on one
more: PostgreSQL is started to take those of every process, and DB_SPARE more.

Each table is played as browsers would (asyncio, raw HTTP/1.1 on 127.0.0.1, each device
from an address of its own of 127.0.0.0/8, so that the app counts each one apart): its
host device imports a 5-player game (a record of reveals and sales, each legal, made at
start with the rules core) at a random stage through the home page's form and opens its
table page; a TV view opens the game's /tv page and 5 phones take a seat each (the join
form) and open their page. Each of the 7 screens holds its live part's stream (`GET
<live part>/events?v=STAMP`, e.g. /g/<token>/me/live/events, as htmx's sse extension:
again a second later with Last-Event-ID when it breaks), whose `change` events bring the
part, drawn for that device; and every 30 s it asks for its live part with the stamp it
shows besides (`/live`, `/tv/live`, `/me/live`, HX-Request, the live parts' `every 30s`):
a new part (200) or 204; one question out at a time, one more queued (htmx's). Every EVERY seconds, open loop (due times fixed in advance; a late answer
delays the next action of its table, whose latency counts from when it was due), the host
posts the record's next event through the table page's form (htmx's hx-post).

Change-to-screen: from the action's answer reaching the host to each of the 6 other
screens of its table showing a live part of that stamp or later (0 if one did before:
told); a change a screen never shows (within 5 s of the last action) counts as infinitely
late. Actions and questions due in the first WARM-UP seconds are not counted, those in the
next SECONDS are. With --kill, one server process (a waitress process, a gunicorn worker)
is killed (SIGKILL) in the middle of the measured seconds (with --ports, started again
RESTART_AFTER seconds later, as systemd does): its streams break and open again, haproxy
sends its requests under way again. At the end every game is read back
from PostgreSQL: each action acknowledged must be there (lost: those that are not).

Prints, for each run, the tables and screens, the set-up, change-to-screen and action
latencies (p50, p99, max), the requests (live parts by answer; streams opened, broken,
ended), the errors (the five most frequent), what was kept, the CPU (share of one core
over the measured seconds, and per table) and memory (PSS, the most over the measured
seconds) of the table servers, haproxy and PostgreSQL and how many processes PostgreSQL
ran (one a connection), the client's CPU and lag, how busy the machine was (and with other
programs than these: a busy machine tells a run disturbed), and whether each goal is met;
then, for each engine, the most tables that met every goal among the numbers run, and that
per core. Exits with status 1 if a goal is missed in any run.
"""
import argparse
import asyncio
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as python bench/hosted.py: bench is a package

from bench import balanced
from bench.devices import HTMX, Device, Failed, connection, import_game, live, take_seat
from bench.faults import Form, expect, forms
from companion.rules.record import load_setup, parse_event
from companion.rules.refusal import Refusal
from companion.rules.state import apply, new_game
from companion.store import open_store, postgres
from companion.web.forms import form_values

PLAYERS = ["Anna", "Bert", "Claus", "Dieter", "Ella"]
FAMILIES = ["red", "yellow", "green", "blue", "purple", "black"]
RECORDS = 8  # games the tables play (table n plays record n % RECORDS)
SCREENS = 7  # a table's: the host's table page, the TV view, 5 seated phones
SPARE_SCREENS = 16  # streams a process may hold beyond every screen of the run
WORKER_CONNECTIONS = 2  # connections a gevent worker takes for each screen at most
DB_SPARE = 50  # PostgreSQL connections besides the server processes' (this bench's own)
RESTART_AFTER = 5.0  # seconds before a server of its own port killed is started again (the
# RestartSec of docs/deploy/templari-companion@.service)
EVERY_30S = 30.0  # seconds: a live part asks for itself that often besides (htmx `every`)
RETRY = 1.0  # seconds: a broken stream opens again after that (its `retry`)
SILENT = 45.0  # seconds a stream may stay silent (a comment every 15 s) before it is broken
TIMEOUT = 10.0  # seconds: any one request
SETUP_TIMEOUT = 60.0  # seconds: any one request while the tables are set up
SHOWN_WITHIN = 5.0  # seconds after the last action that the screens may take to show it
LATE_AFTER = 30.0  # seconds after the window past which the actions still due are given up
SETTING_UP = 10  # tables set up at once
STARTS_AFTER = 1.0  # seconds between the end of the set-up and the first request
TICK = 0.01  # seconds: the client's timer whose lateness is its loop lag
MB = 2 ** 20
GOALS = {"change": 0.250, "action": 0.150}  # p99s, seconds
ACTION_FORM = r'<form\b[^>]*\bclass="[^"]*\baction-{kind}\b[^"]*"[^>]*>'
HIDDEN = re.compile(r'<input type="hidden"[^>]*>')  # as the forms' macro writes them


# --- the games -----------------------------------------------------------------------------

def game_records(count: int) -> list[dict]:
    """`count` records of a 5-player game, each its 15 rounds of a reveal (a shuffled real
    deck) and a sale (the first winner and price the rules core takes, each round another
    player first), or a free lot where no sale is legal."""
    return [_record(random.Random(number)) for number in range(count)]


def _record(rng: random.Random) -> dict:
    header = {"format": "templari-game/1", "edition": "en",
              "variants": {"side_auctions": False, "exchange": False},
              "families": FAMILIES, "players": PLAYERS}
    # A real deck: each family 5 different numbers, each number on 3 cards (R1).
    deck = [{"family": family, "number": number} for index, family in enumerate(FAMILIES)
            for number in range(5 * (index % 2), 5 * (index % 2) + 5)]
    rng.shuffle(deck)
    state, events = new_game(load_setup({**header, "events": []})), []
    for round_number in range(len(deck) // 2):
        reveal = {"type": "reveal", "cards": deck[2 * round_number:2 * round_number + 2]}
        state = apply(state, parse_event(reveal))
        events.append(reveal)
        state = _settle(state, events, round_number, rng)
    return {**header, "events": events}


def _settle(state, events: list, round_number: int, rng: random.Random):
    """The round's lot sold (or free), the event added to `events`: the new state."""
    winners = PLAYERS[round_number % len(PLAYERS):] + PLAYERS[:round_number % len(PLAYERS)]
    prices = rng.sample(range(1, 13), 12)
    for raw in [{"type": "sold", "winner": winner, "price": price}
                for winner in winners for price in prices] + [{"type": "free"}]:
        try:
            after = apply(state, parse_event(raw))
        except Refusal:
            continue
        events.append(raw)
        return after
    raise RuntimeError("no way to settle the lot")


def action_form(page: str, kind: str) -> Form:
    """The page's form for an action of `kind`: its URL and hidden fields (the fields a
    user fills in come from the event); only those are parsed, not the whole page."""
    found = re.search(ACTION_FORM.format(kind=re.escape(kind)), page)
    if found is None:
        raise RuntimeError(f"the table page offers no {kind} form")
    hidden = HIDDEN.findall(page, found.end(), page.index("</form>", found.end()))
    return forms(found.group() + "".join(hidden) + "</form>")[0]


# --- the stack -----------------------------------------------------------------------------

@dataclass
class Stack:
    """A running stack: haproxy, PostgreSQL's URL, and the processes whose CPU and
    memory are its own (pid of each tree: what it is)."""

    front: balanced.Balancer
    database: str
    roots: dict[int, str]
    servers: list["Started"]  # the table servers (one, or one a port)
    restarts: list[threading.Timer] = field(default_factory=list)  # (cancelled at the end)

    def kill_one(self) -> int:
        """Kill one server process outright (a waitress process, a gunicorn worker; with
        one server a port, the first, started again RESTART_AFTER seconds later as its
        systemd unit does): its pid."""
        if len(self.servers) == 1:
            victim = _children(self.servers[0].process.pid)[0]
            os.kill(victim, signal.SIGKILL)
            return victim
        victim = self.servers[0].process.pid
        os.kill(victim, signal.SIGKILL)
        self.restarts.append(threading.Timer(RESTART_AFTER, self.servers[0].start))
        self.restarts[-1].start()
        return victim

    def cancel_restarts(self) -> None:
        """No server started again once the stack is stopped."""
        for timer in self.restarts:
            timer.cancel()


@dataclass
class Started:
    """A table server's port and command, and its process once started (again)."""

    port: int
    command: list[str]
    log: object
    process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(self.command, cwd=ROOT, stdin=subprocess.DEVNULL,
                                        stdout=self.log, stderr=subprocess.STDOUT,
                                        start_new_session=True)


def engine_command(engine: str, url: str, port: int, screens: int, processes: int,
                   connections: int | None) -> list[str]:
    """The command that starts the table server with `engine` on `port`."""
    if engine == "waitress":
        options = ["--hosted", "--database", url, "--host", "127.0.0.1", "--port", str(port),
                   "--proxy", "127.0.0.1", "--processes", str(processes),
                   "--screens", str(screens)]
        if connections is None:
            return [sys.executable, "-m", "companion.cli", *options]
        launch = "import sys; from bench.hosted import waitress_main; waitress_main(sys.argv[1:])"
        return [sys.executable, "-c", launch, str(connections), *options]
    factory = (f"bench.hosted:app(database={url!r}, proxy='127.0.0.1', hosted=True, "
               f"screens={screens})")
    return [sys.executable, "-m", "gunicorn", "--worker-class", "gevent", "--workers",
            str(processes), "--worker-connections", str(WORKER_CONNECTIONS * screens),
            "--keep-alive", "30", "--graceful-timeout", "5", "--bind",
            f"127.0.0.1:{port}", factory]


def app(**options):
    """For gunicorn: the app (`companion.web.create_app`) on PostgreSQL."""
    from companion.web import create_app
    return create_app(None, **options)


def waitress_main(argv: list[str]) -> None:
    """`templari-companion` with waitress's connection_limit CONNECTIONS (argv[0]), then
    the command's arguments."""
    from companion.cli import main as cli
    from companion.server import serve
    serve.CONNECTIONS = int(argv[0])
    sys.exit(cli(argv[1:]))


@contextmanager
def stack(engine: str, screens: int, processes: int, connections: int | None = None,
          addresses: tuple[str, ...] = ("127.0.0.1",), ports: bool = False,
          direct: bool = False):
    """PostgreSQL, the table server with `engine` in `processes` processes (or workers;
    `ports`: as many servers of one process each, on a port each, as the systemd
    template docs/deploy/templari-companion@.service runs them), each holding `screens`
    streams (waitress's connection_limit `connections` if given), haproxy in front on
    `addresses` (`direct`: none, the devices speak plain HTTP to the one server): the
    Stack, stopped on leaving whatever happens."""
    with tempfile.TemporaryDirectory() as folder, ExitStack() as cleanup:
        url = cleanup.enter_context(balanced.postgresql(
            processes * (postgres.POOL_SIZE + 1) + DB_SPARE))
        log = cleanup.enter_context(open(Path(folder) / "server.log", "w+b"))
        shape = [1] * processes if ports else [processes]
        servers = []
        for each in shape:
            port = balanced.free_port()
            servers.append(Started(port, engine_command(engine, url, port, screens, each,
                                                        connections), log))
            servers[-1].start()
            cleanup.callback(_stopped, servers[-1], log)
        for server in servers:
            balanced.wait_for(server.port, server.process, f"the {engine} table server")
        if direct:  # (plain HTTP to the one server)
            front = balanced.Balancer(servers[0].port, servers[0].port, None, None, None)
        else:
            front = cleanup.enter_context(balanced.haproxy(
                [server.port for server in servers], addresses))
        running = Stack(front, url, {**{server.process.pid: "table servers"
                                        for server in servers},
                                     **({} if direct else {front.pid: "haproxy"}),
                                     balanced.postmaster(url): "PostgreSQL"}, servers)
        cleanup.callback(running.cancel_restarts)  # (before the servers are stopped)
        yield running


def _stopped(started: Started, log) -> None:
    """Stop the table server and what it started (SIGTERM, then SIGKILL 20 s later); tell
    what it said if it failed."""
    server = started.process
    with suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
    log.seek(0)
    said = log.read().decode(errors="replace")
    errors = [line for line in said.splitlines() if "Traceback" in line or "ERROR" in line]
    if errors:
        print(f"the table server logged {len(errors)} errors; the last lines:\n"
              + "\n".join(said.splitlines()[-15:]), file=sys.stderr)


def _children(pid: int) -> list[int]:
    return [int(child) for child in
            Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


# --- what is measured ----------------------------------------------------------------------

@dataclass(frozen=True)
class Window:
    """When the schedules start, and the measured seconds start and end (monotonic)."""

    start: float
    measured: float
    end: float

    def counts(self, at: float) -> bool:
        return self.measured <= at < self.end


@dataclass(frozen=True)
class Change:
    """An action's change: its stamp, when its answer reached the host, whether measured."""

    stamp: int
    answered: float
    counts: bool


@dataclass
class Results:
    """What the client measured over the window (latencies in seconds)."""

    window: Window
    actions: list = field(default_factory=list)
    changes: list = field(default_factory=list)  # change-to-screen, each (action, screen)
    ahead: int = 0  # changes a screen showed before the host had the action's answer
    unseen: int = 0  # changes a screen never showed
    asked: Counter = field(default_factory=Counter)  # live parts, by answer
    streams: Counter = field(default_factory=Counter)  # opened, broken, ended
    errors: Counter = field(default_factory=Counter)
    ticks: list = field(default_factory=list)
    cpu: float = 0.0  # the client's, seconds
    set_up: float = 0.0  # seconds
    acknowledged: dict = field(default_factory=dict)  # game: its events up to the last answer

    def error(self, at: float, what: str) -> None:
        if self.window.counts(at):
            self.errors[what] += 1

    def shown(self, change: Change, at: float) -> None:
        if change.counts:
            self.ahead += at < change.answered
            self.changes.append(max(0.0, at - change.answered))


# --- a table's screens ---------------------------------------------------------------------

class Screen:
    """A browser showing a game's page: its live part follows the game, told of each change
    by the page's stream; the changes made at its table wait until it shows them."""

    def __init__(self, front: balanced.Balancer, source: str, results: Results):
        self.device = Device(front.port, source, tls=front.tls)  # its requests, its cookies
        self.front, self.source, self.results = front, source, results
        self.page, self.url, self.token = "", "", ""
        self.stamp, self.shown_at = -1, 0.0  # the stamp it shows, since when (monotonic)
        self.waiting: list[Change] = []
        self.asking: asyncio.Task | None = None
        self.queued = False  # one more question due once the one out is answered
        self.tasks: list[asyncio.Task] = []

    def show(self, page: str) -> None:
        """Show `page` (a page, or a live part), unless older than the one shown."""
        part = live(page)
        if part.stamp < self.stamp:
            return
        self.page, self.url = page, part.url
        if part.stamp > self.stamp:
            self.stamp, self.shown_at = part.stamp, time.monotonic()
            seen = [change for change in self.waiting if change.stamp <= self.stamp]
            self.waiting = [change for change in self.waiting if change.stamp > self.stamp]
            for change in seen:
                self.results.shown(change, self.shown_at)

    def expect(self, change: Change) -> None:
        """A change made at its table: shown already, or waited for."""
        if self.stamp >= change.stamp:
            self.results.shown(change, self.shown_at)
        else:
            self.waiting.append(change)

    def start(self, rng: random.Random) -> None:
        self.tasks = [asyncio.create_task(self._stream()),
                      asyncio.create_task(self._every(rng.uniform(0, EVERY_30S)))]

    async def stop(self) -> None:
        for task in [*self.tasks, *([self.asking] if self.asking else [])]:
            task.cancel()
        await asyncio.gather(*self.tasks, *([self.asking] if self.asking else []),
                             return_exceptions=True)
        self.device.close()
        self.results.unseen += sum(change.counts for change in self.waiting)
        self.waiting = []

    def ask(self) -> None:
        """Ask for the live part (htmx: one question out, the last one more queued)."""
        if self.asking is not None and not self.asking.done():
            self.queued = True
        else:
            self.asking = asyncio.create_task(self._ask())

    async def _ask(self) -> None:
        while True:
            self.queued = False
            asked = time.monotonic()
            try:
                answer = await self.device.request("GET", self.url, headers=HTMX,
                                                   timeout=TIMEOUT)
                if answer.status == 200:
                    self.show(answer.body)
                elif answer.status != 204:
                    raise RuntimeError(f"answered {answer.status}")
                if self.results.window.counts(asked):
                    self.results.asked[answer.status] += 1
            except (Failed, RuntimeError, ValueError) as error:
                self.results.error(asked, f"live part: {error}")
            if not self.queued:
                return

    async def _every(self, first: float) -> None:
        await asyncio.sleep(first)
        while True:
            self.ask()
            await asyncio.sleep(EVERY_30S)

    async def _stream(self) -> None:
        """Hold the live part's stream, as htmx's sse extension does: at each change, show
        the part it brings; when it breaks, open it again RETRY later with the last id."""
        last_id = ""
        while True:
            opened = time.monotonic()
            try:
                async for stamp, part in self._events(last_id):
                    last_id = str(stamp)
                    self.show(part)
                if self.results.window.counts(opened):
                    self.results.streams["ended"] += 1
            except _Refused as refused:
                self.results.error(opened, f"stream refused: {refused}")
                await asyncio.sleep(EVERY_30S)
                continue
            except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError):
                self.results.streams["broken" if self.results.window.counts(time.monotonic())
                                     else "broken before or after"] += 1
            await asyncio.sleep(RETRY)

    async def _events(self, last_id: str):
        """The `change` events of the live part's stream, as they come: (stamp, part)."""
        path = f"{self.url.split('?')[0]}/events?v={self.stamp}"
        head = {"Host": f"127.0.0.1:{self.front.port}", "Accept": "text/event-stream",
                "Cache-Control": "no-cache", **({"Cookie": self.device.cookie}
                                                if self.device.cookies else {}),
                **({"Last-Event-ID": last_id} if last_id else {})}
        reader, writer = await connection("127.0.0.1", self.front.port, self.source,
                                          self.front.tls)
        try:
            writer.write((f"GET {path} HTTP/1.1\r\n" + "".join(
                f"{name}: {value}\r\n" for name, value in head.items()) + "\r\n").encode())
            async with asyncio.timeout(TIMEOUT):
                status, headers = _head(await reader.readuntil(b"\r\n\r\n"))
            if status != 200:
                raise _Refused(f"answered {status}")
            if self.results.window.counts(time.monotonic()):
                self.results.streams["opened"] += 1
            chunked = headers.get("transfer-encoding", "").lower() == "chunked"
            text = ""
            while piece := await _piece(reader, chunked):
                text += piece.decode()
                *messages, text = re.split(r"\r?\n\r?\n", text)
                for message in messages:
                    change = _change(message)
                    if change is not None:
                        yield change
        finally:
            writer.close()


class _Refused(Exception):
    """The server answered a stream's request with no stream."""


async def _piece(reader: asyncio.StreamReader, chunked: bool) -> bytes:
    """The stream's next bytes (a chunk); empty at its end. Broken (TimeoutError) if
    nothing came for SILENT seconds."""
    async with asyncio.timeout(SILENT):
        if not chunked:
            return await reader.read(65536)
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if not size:
            return b""
        return (await reader.readexactly(size + 2))[:-2]


def _change(message: str) -> tuple[int, str] | None:
    """A `change` event's stamp and part (None: a comment, or another event)."""
    fields = [line.split(": ", 1) if ": " in line else [line, ""]
              for line in message.split("\n") if not line.startswith(":")]
    named = dict(fields)
    if named.get("event") != "change":
        return None
    return int(named["id"]), "\n".join(value for name, value in fields if name == "data")


def _head(head: bytes) -> tuple[int, dict]:
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in
               (line.partition(":") for line in lines[1:] if line)}
    return int(lines[0].split()[1]), headers


class Table:
    """A host playing a record's events on its table page, a TV view and 5 seated phones;
    each device from its own address of 127.0.0.0/8 (table `number`)."""

    def __init__(self, front: balanced.Balancer, number: int, record: dict, results: Results,
                 actions: int, every: float):
        self.record, self.setup, self.results = record, load_setup(record), results
        self.every = every  # seconds between two actions
        self.events = [parse_event(raw) for raw in record["events"]]
        self.rng = random.Random(number)
        sources = [f"127.{100 + screen}.{number // 250}.{number % 250 + 1}"
                   for screen in range(SCREENS)]
        self.host = Screen(front, sources[0], results)
        # the host's browser's other connection
        self.actor = Device(front.port, sources[0], tls=front.tls)
        self.actor.cookies = self.host.device.cookies
        self.tv = Screen(front, sources[1], results)
        self.phones = [Screen(front, source, results) for source in sources[2:]]
        self.next = self.rng.randrange(max(1, len(self.events) - actions))
        self.broken = False  # an action failed: the table no longer acts

    @property
    def others(self) -> list[Screen]:
        return [self.tv, *self.phones]

    async def set_up(self) -> None:
        """The game imported at its stage, every screen on it."""
        record = json.dumps({**self.record, "events": self.record["events"][:self.next]})
        token = await import_game(self.actor, record.encode(), SETUP_TIMEOUT)
        self.results.acknowledged[token] = self.next
        page = await self.actor.request("GET", f"/g/{token}", timeout=SETUP_TIMEOUT)
        self.host.show(expect(page, 200, "the table page").body)
        tv = await self.tv.device.request("GET", f"/g/{token}/tv", timeout=SETUP_TIMEOUT)
        self.tv.show(expect(tv, 200, "the TV view").body)
        for seat, phone in enumerate(self.phones):
            phone.show(await take_seat(phone.device, token, seat, SETUP_TIMEOUT))
        for screen in [self.host, *self.others]:
            screen.token = token

    def start(self, window: Window) -> list[asyncio.Task]:
        for screen in [self.host, *self.others]:
            screen.start(self.rng)
        return [asyncio.create_task(self._play(window))]

    async def stop(self) -> None:
        for screen in [self.host, *self.others]:
            await screen.stop()
        self.actor.close()

    async def _play(self, window: Window) -> None:
        """The actions, open loop: every one due before the end of the window, each timed
        from when it was due; those still due LATE_AFTER seconds after it are given up."""
        due = window.start + self.rng.uniform(0, self.every)
        while due < window.end and not self.broken:
            if due > time.monotonic():
                await asyncio.sleep(due - time.monotonic())
            if time.monotonic() > window.end + LATE_AFTER:
                self.results.error(due, "action: not sent, the table's earlier ones too slow")
            else:
                await self._act(due)
            due += self.every

    async def _act(self, due: float) -> None:
        """Post the record's next event through its form on the table page."""
        if self.next >= len(self.events):
            raise RuntimeError("the record is played out: fewer --seconds, or more --every")
        event, made_at = self.events[self.next], self.host.stamp
        try:
            form = action_form(self.host.page, event.kind)
            fields = {**form.fields, **{name: value if isinstance(value, list) else [value]
                                        for name, value in form_values(self.setup,
                                                                       event).items()}}
            answer = await self.actor.request("POST", form.action, fields, headers=HTMX)
            answered = time.monotonic()
            body = expect(answer, 200, event.kind).body
            if live(body).stamp <= made_at:
                raise RuntimeError(f"{event.kind} not recorded")
        except (Failed, RuntimeError, ValueError) as error:
            self.results.error(due, f"action: {error}")
            self.broken = True
            return
        finally:
            if self.results.window.counts(due):
                self.results.actions.append(time.monotonic() - due)
        self.host.show(body)
        self.next += 1
        self.results.acknowledged[self.host.token] = self.next
        change = Change(live(body).stamp, answered, self.results.window.counts(due))
        for screen in self.others:
            screen.expect(change)


async def play(front: balanced.Balancer, tables: int, args, started) -> Results:
    """Set the tables up through haproxy (`front`), play them over the window
    (`started(window)` told when it is set), then stop them: what was measured."""
    actions = int((args.warm_up + args.seconds + STARTS_AFTER) / args.every) + 2
    records = game_records(RECORDS)
    results = Results(Window(0, 0, 0))
    played = [Table(front, number, records[number % RECORDS], results, actions, args.every)
              for number in range(tables)]
    if actions > len(played[0].events):
        raise SystemExit(f"a game has {len(played[0].events)} events: --seconds and "
                         f"--warm-up at most {len(played[0].events) * args.every - 20:g} s "
                         f"together at --every {args.every:g}")
    began, setting_up = time.monotonic(), asyncio.Semaphore(SETTING_UP)

    async def set_up(table: Table) -> None:
        async with setting_up:
            await table.set_up()
    await asyncio.gather(*map(set_up, played))
    set_up_in = time.monotonic() - began
    start = time.monotonic() + STARTS_AFTER
    window = results.window = Window(start, start + args.warm_up,
                                     start + args.warm_up + args.seconds)
    started(window)
    acting = [task for table in played for task in table.start(window)]
    cpu = await _client_cpu(window, results, acting)
    await asyncio.sleep(SHOWN_WITHIN)
    for table in played:
        await table.stop()
    results.cpu, results.set_up = cpu, set_up_in
    return results


async def _client_cpu(window: Window, results: Results, acting: list) -> float:
    """The client's CPU seconds over the window, and its loop's lag (a TICK timer's
    lateness) meanwhile; returns once every action was answered."""
    await asyncio.sleep(max(0.0, window.measured - time.monotonic()))
    began = time.process_time()
    while (now := time.monotonic()) < window.end:
        await asyncio.sleep(TICK)
        results.ticks.append(time.monotonic() - now - TICK)
    cpu = time.process_time() - began
    await asyncio.gather(*acting)
    return cpu


# --- the stack's CPU and memory --------------------------------------------------------------

class Sampler(threading.Thread):
    """The CPU time and memory (PSS) of the stack's processes over the measured seconds, by
    part (the trees of `roots`: pid, what it is); a process that ends meanwhile (a killed
    one) counts until it was last seen; and how busy the machine was (/proc/stat)."""

    def __init__(self, roots: dict[int, str], window: Window):
        super().__init__(daemon=True)
        self.roots, self.window = roots, window
        self.cpu, self.memory = Counter(), Counter()  # part: seconds; part: the most bytes
        self.busy = 0.0  # seconds of CPU the whole machine used (every core)
        self.backends = 0  # the most processes PostgreSQL ran at once (one a connection)
        self.first, self.last, self.part = {}, {}, {}  # pid: its CPU ticks; pid: its part

    def run(self) -> None:
        time.sleep(max(0.0, self.window.measured - time.monotonic()))
        began, self.first = _busy(), self._ticks()
        while (left := self.window.end - time.monotonic()) > 0:
            alive = self._ticks()
            self.last.update(alive)
            self.backends = max(self.backends, sum(self.part[pid] == "PostgreSQL"
                                                   for pid in alive))
            memory = Counter()
            for pid in self.last:
                with suppress(OSError, ValueError):
                    memory[self.part[pid]] += _pss(pid)
            for part, used in memory.items():
                self.memory[part] = max(self.memory[part], used)
            time.sleep(min(1.0, left))
        self.last.update(self._ticks())
        self.busy = _busy() - began
        for pid, ticks in self.last.items():
            self.cpu[self.part[pid]] += (ticks - self.first.get(pid, 0)) / os.sysconf(
                "SC_CLK_TCK")

    def _ticks(self) -> dict[int, int]:
        """Each live process of the trees: its CPU so far, in clock ticks."""
        found = processes(self.roots)
        self.part.update({pid: part for pid, (part, _) in found.items()})
        return {pid: ticks for pid, (_, ticks) in found.items()}


def processes(roots: dict[int, str]) -> dict[int, tuple[str, int]]:
    """Each live process of the trees of `roots` (pid: what it is): what it is, and its
    CPU so far (utime + stime), in clock ticks."""
    found, todo = {}, list(roots.items())
    while todo:
        pid, part = todo.pop()
        with suppress(OSError):
            todo += [(child, part) for child in _children(pid)]
            found[pid] = part, _stat_ticks(pid)
    return found


def cpu_seconds(roots: dict[int, str]) -> Counter:
    """The CPU seconds the live processes of the trees of `roots` used so far, by part."""
    used = Counter()
    for part, ticks in processes(roots).values():
        used[part] += ticks / os.sysconf("SC_CLK_TCK")
    return used


def _busy() -> float:
    """Seconds of CPU the machine used so far, every core (all but idle and iowait)."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split()[1:11]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def _stat_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def _pss(pid: int) -> int:
    """A process's proportional set size in bytes (its pages shared with others counted
    in part): summed over processes, the memory they take together."""
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) * 1024
    raise ValueError(f"no Pss for {pid}")


# --- a run ----------------------------------------------------------------------------------

@dataclass
class Report:
    """One run: the engine, the tables, what was measured."""

    engine: str
    tables: int
    results: Results
    stack: Sampler
    kept: tuple[int, int, int]  # games, events acknowledged, of those not in the database
    killed: int | None  # the pid of the server process killed, if one was

    @property
    def seconds(self) -> float:
        return self.results.window.end - self.results.window.measured

    def goals(self) -> dict[str, bool]:
        results = self.results
        return {"change-to-screen p99 ≤ 250 ms":
                _p99(results.changes + [float("inf")] * results.unseen) <= GOALS["change"],
                "action p99 ≤ 150 ms": _p99(results.actions) <= GOALS["action"],
                "0 errors": not results.errors,
                "nothing acknowledged lost": self.kept[2] == 0}


def run(engine: str, tables: int, args) -> Report:
    """One run: a stack of its own for `engine`, the tables played against it."""
    with stack(engine, tables * SCREENS + SPARE_SCREENS, args.processes,
               args.connections, ports=args.ports, direct=args.direct) as running:
        samplers, killed = [], []

        def started(window: Window) -> None:
            samplers.append(Sampler(running.roots, window))
            samplers[0].start()
            if args.kill:
                threading.Timer(window.measured + args.seconds / 2 - time.monotonic(),
                                lambda: killed.append(running.kill_one())).start()
        results = asyncio.run(play(running.front, tables, args, started))
        samplers[0].join()
        kept = _kept(open_store(None, running.database), results.acknowledged)
    return Report(engine, tables, results, samplers[0], kept, killed[0] if killed else None)


def _kept(store, acknowledged: dict[str, int]) -> tuple[int, int, int]:
    """Of the games played: how many, the events acknowledged (each game's up to its last
    answer), and how many of those the database lacks."""
    lost = 0
    for token, count in acknowledged.items():
        stored = store.game(token)
        lost += max(0, count - (0 if stored is None else len(stored.events)))
    return len(acknowledged), sum(acknowledged.values()), lost


def lines(report: Report, args):
    """The lines printed for a run."""
    results, stack, seconds = report.results, report.stack, report.seconds
    shape = ("a server a port, each game's requests to one of them" if args.ports
             else "sharing one port")
    front = "no proxy (plain HTTP)" if args.direct else "through haproxy (HTTPS)"
    yield (f"{report.engine}, {args.processes} processes ({shape}), {front}, "
           f"{report.tables} tables: "
           f"{report.tables * SCREENS} screens (a host's table page, a TV view, 5 seated "
           f"phones each), each holding its stream; an action per table every "
           f"{args.every:g} s")
    yield (f"  set up in {results.set_up:.1f} s; {args.warm_up:g} s of warm-up, then "
           f"{seconds:g} s measured")
    yield (f"  change-to-screen: {_spread(results.changes, results.unseen)} "
           f"({len(results.changes) + results.unseen} changes shown to other screens; "
           f"{results.ahead} before the host had its answer, {results.unseen} never)")
    yield f"  actions: {_spread(results.actions)} ({len(results.actions)})"
    asked, streams = results.asked, results.streams
    yield (f"  live parts asked: {sum(asked.values())} (200: {asked[200]}, 204: "
           f"{asked[204]}); streams opened in the measured seconds {streams['opened']}, broken "
           f"{streams['broken']}, ended by the server {streams['ended']}")
    yield f"  errors: {sum(results.errors.values())}"
    for error, count in results.errors.most_common(5):
        yield f"    {count} × {error}"
    games, acknowledged, lost = report.kept
    yield (f"  kept: {acknowledged} events acknowledged in {games} games, "
           + (f"{lost} of them LOST" if lost else "all of them in the database")
           + (f"; server process {report.killed} killed midway" if report.killed else ""))
    parts = ", ".join(f"{part} {used / seconds:.0%}" for part, used in stack.cpu.items())
    memory = ", ".join(f"{part} {used / MB:.0f} MB" for part, used in stack.memory.items())
    per_table = sum(stack.cpu.values()) / seconds / report.tables
    yield (f"  stack: CPU {sum(stack.cpu.values()) / seconds:.0%} of one core ({parts}), "
           f"{per_table * 1000:.1f} ms a second per table (a core for {1 / per_table:.0f}); "
           f"memory (PSS) {sum(stack.memory.values()) / MB:.0f} MB ({memory}); PostgreSQL "
           f"processes at most {stack.backends}")
    others = stack.busy - sum(stack.cpu.values()) - results.cpu
    yield (f"  client: CPU {results.cpu / seconds:.0%} of one core, loop lag p99 "
           f"{_p99(results.ticks) * 1000:.1f} ms, max {max(results.ticks, default=0) * 1000:.1f}"
           f" ms; machine: {os.cpu_count()} cores, {stack.busy / seconds:.2f} busy on average, "
           f"{others / seconds:.2f} by other programs")
    yield "  goals: " + "; ".join(f"{goal}: {'met' if met else 'MISSED'}"
                                  for goal, met in report.goals().items())


def _spread(latencies: list[float], more: int = 0) -> str:
    """p50, p99 and max, in ms (`more` infinitely late ones besides)."""
    if not latencies and not more:
        return "none"
    everything = latencies + [float("inf")] * more
    return (f"p50 {_ms(statistics.median(everything))}, p99 {_ms(_p99(everything))}, "
            f"max {_ms(max(everything))}")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < float("inf") else "never"


def _p99(latencies: list[float]) -> float:
    """The 99th percentile (infinite when nothing was measured)."""
    if len(latencies) < 2:
        return max(latencies, default=float("inf"))
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(0.99 * (len(ordered) - 1) + 0.999999))]


def _numbers(text: str) -> list[int]:
    return [int(number) for number in text.split(",")]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="waitress,gevent",
                        help="waitress, gevent, or both (comma-separated), in that order")
    parser.add_argument("--tables", type=_numbers, default=[100, 150],
                        help="numbers of tables, comma-separated: a run for each")
    parser.add_argument("--every", type=float, default=5.0,
                        help="seconds between two actions of a table")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds measured")
    parser.add_argument("--warm-up", type=float, default=10.0)
    parser.add_argument("--processes", type=int, default=2,
                        help="server processes (waitress) or workers (gunicorn)")
    parser.add_argument("--ports", action="store_true",
                        help="waitress: a server of one process on a port of its own for each "
                             "process, as docs/deploy/templari-companion@.service runs them")
    parser.add_argument("--direct", action="store_true",
                        help="no haproxy: the devices speak plain HTTP to the one server (to "
                             "measure what the proxy adds)")
    parser.add_argument("--kill", action="store_true",
                        help="kill one server process in the middle of the measured seconds")
    parser.add_argument("--connections", type=int, metavar="N",
                        help="waitress's connection_limit in each process (serve.CONNECTIONS)")
    args = parser.parse_args(argv)
    if args.direct and args.ports and args.processes > 1:
        parser.error("--direct talks to one server: not with --ports and several processes")
    engines = args.engines.split(",")
    if set(engines) - {"waitress", "gevent"}:
        parser.error("--engines: waitress, gevent")
    held, missed = {}, False
    for tables in args.tables:  # the engines one after the other at each number: the
        for engine in engines:  # machine's other work as alike as it can be
            report = run(engine, tables, args)
            print("\n".join(lines(report, args)), flush=True)
            met = all(report.goals().values())
            missed |= not met
            if met:
                held[engine] = max(held.get(engine, 0), tables)
    for engine in engines:
        most = held.get(engine)
        print(f"{engine}: " + (f"at most {most} tables held of those run ({most / os.cpu_count():g}"
                               f" a core)" if most else "no number run was held"))
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
