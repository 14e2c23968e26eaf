"""A café of tables on one table server: how soon a change made at a table shows on its
other devices, how long a table waits for its action's answer, and how often a device
asks, with the event streams (or the polls held until their game moves) that bring the
devices their game's changes.

    python bench/cafe.py [--tables 200] [--quiet-tables 10] [--phones 5] [--every 5]
                         [--seconds 60] [--warm-up 10] [--transport streams|polls]
                         [--clients 1] [--processes 1] [--balanced N] [--stats FILE]

Starts the table server (bench/serving.py: the table's app, the table's waitress
configuration) in a process of its own (or PROCESSES of them sharing the socket, as
`templari-companion --processes` runs them; CPU and memory are then their sums), on
127.0.0.1 and a temporary data directory. With --balanced N: a hosted stack instead
(bench/balanced.py: N table servers, each a process of its own on one PostgreSQL, behind
haproxy on 127.0.0.1; CPU and memory are the sums of them all, PostgreSQL and haproxy
included), one table server killed (SIGKILL) in the middle of the measured seconds: its
devices carry on through the others (their requests then under way fail).
At the end, every game a table played is read back from the database: an action whose
answer reached the table must be there (nothing acknowledged lost).
Each table's screen, the host's device, imports the setup of one of the records
tests/fixtures/full-game-*.json through the home page's import form, with the record's
first few events (how many is drawn at random: the tables are at every stage of a
game). Then its PHONES phones open the game: as many as it has seats (3) take one
through the join form, each with its own session cookie, and show their phone page; the
others watch the table and show the table page, as the screen does. Each device is a
browser of its own, with its cookies and kept-alive HTTP/1.1 connections (asyncio, raw).

Every device follows its page's live part (the element with id="live") as static/app.js
does, on a connection that holds nothing else meanwhile. With --transport streams (the
default), on its event stream, as a browser's EventSource: a GET of the live part's
hx-get URL with /live/events for /live (Accept: text/event-stream, no HX-Request), which
the server answers in chunks (200) and keeps open: each move of the game's stamp is an
event (its id the stamp) whose data is the new live part; comments (heartbeats) are
ignored. When the stream fails (or stays silent 45 s) or ends, the device asks again
`retry` ms later (1000, or what the stream said) with Last-Event-ID, the id of the last
event it received. An answer that is not a stream (204 where the server holds none)
closes it, as a browser's EventSource: the device then polls. With --transport polls (or after that 204), it polls as
htmx does: one question out at a time (the hx-get URL, with HX-Request), which the server
holds until the game's stamp moves (then it answers the new live part, 200) or some 20 s
pass (204). A new live part (200) asks again at once (htmx:load); after a 204 the device
asks again at once, or data-poll ms after its last question if the answer came sooner;
after a failure (or no answer within 45 s, the live part's hx-request timeout) it asks
again data-poll ms later, with `now=1` (answered at once). Besides, every EVERY seconds
the screen of each of the TABLES tables posts the record's next event through the table
page's form, as htmx does, on a connection of its own (a browser opens another while its
stream or poll is held): the answer is the table's live part, which must have moved on.
Actions are open loop: their times are fixed in advance whatever the answers, and their
latency runs from that time (no coordinated omission); one due while the table's last is
under way waits for it, and that wait counts. When a table's record is played out, its
next action is a new game (the setup imported again): its screen shows it and its phones
leave the old one (their stream or held question dropped) to open it (take their seats
again). The QUIET-TABLES tables besides never act: their devices only follow their live
parts.

Change-to-screen: for each action, the time from its answer reaching the screen that
posted it to each other device of the table receiving an event, a poll's answer or a page
whose live part shows the action's stamp or a later one (its hx-get's v). A device whose
question was being answered, or that was between two questions, counts too: the time
until it shows the stamp; one that showed it before the screen had its answer counts 0
(how many did is told); one that never shows it counts as infinitely late (it left the
game first, or had not shown it SHOWN_WITHIN seconds after the window and the last
action).

Requests due (an action), or asked (a poll, a stream), and events received in the first
WARM-UP seconds are not counted; those in the next SECONDS are. Requests per device per
minute: every request the devices sent in those seconds (streams opened, each
reconnection too, polls, actions, games opened), by devices and minutes, for the acting
tables and the quiet ones. The tables are split over CLIENTS processes: one may not keep
up with a large café, and the client's lags tell (scheduling: how late it woke up for an
action, a delayed poll or a stream's reconnection; loop: how late a 10 ms timer of its
event loop fired). Over the measured seconds are read: the server's CPU time
(/proc/PID/stat, its main thread's, the event loop, apart) and memory (VmRSS each second,
VmHWM); with one server process, what its worker threads did (bench/serving.py --stats,
kept in FILE if given): each request's wait for a worker, its time in the app and its CPU
time; and how busy the machine was (/proc/stat): what other programs took tells a run
disturbed. Goals: change-to-screen p99 under 250 ms, action p99 under 100 ms, no error,
the server's RSS under 120 MB, a quiet table's device at most 6 requests a minute.
Prints, e.g.

SAMPLE

Exits with status 1 if a goal is missed. Traffic goes to 127.0.0.1 only: the screens
from 127.0.0.1 (the host), the phones from an address of 198.19.0.0/16 that the benchmark
puts on the loopback interface while it runs (it needs root and iproute2), so that the
server takes them for phones, as it would on a table's Wi-Fi.
"""
import argparse
import asyncio
import codecs
import json
import multiprocessing
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib
from collections import Counter
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import partial
from ipaddress import ip_network
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as python bench/cafe.py: bench is a package

from bench import balanced, serving
from bench.devices import HTMX, TIMEOUT, Device, Failed, Live, at_once, live, take_seat
from bench.faults import Form, expect, forms
from companion.rules.record import load_setup, parse_event
from companion.server.serve import waitress_options
from companion.store import open_store
from companion.web.forms import form_values

RECORDS = sorted(path for path in (ROOT / "tests" / "fixtures").glob("full-game-*.json")
                 if not path.name.endswith(".expected.json"))
POLL_EVERY = 1.0  # seconds: a live part's pace when it says none (data-poll)
POLL_TIMEOUT = 45.0  # seconds: a poll's answer, as the live parts' hx-request says
# What a browser's EventSource adds to its requests (its cookies besides, no HX-Request).
EVENT_SOURCE = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
RETRY = 1.0  # seconds: an event stream's reconnection time until it says one (retry)
# Seconds a stream may stay silent (its heartbeats come every ~10 s) before it has failed.
STREAM_SILENT = POLL_TIMEOUT
LINE_END = re.compile(r"\r\n|\r|\n")  # an event stream's lines end with any of them
SHOWN_WITHIN = 5.0  # seconds after the window and the last action that the devices keep
# following their live parts, to show the last changes (a change not shown by then counts
# as never shown)
LATE_AFTER = TIMEOUT  # seconds after the window when the actions still due are given up
TICK = 0.01  # seconds: the client's event loop timer whose lateness is its loop lag
SETUP_TIMEOUT = 120.0  # seconds: any one request while the tables are set up
SET_UP_WITHIN = 1800.0  # seconds: every table set up, or the run fails
SETTING_UP = 10  # tables set up at once by each client process
STARTS_AFTER = 1.0  # seconds between the end of the set-up and the first request
MB = 2**20
# Where the phones' addresses are taken from: RFC 2544's block for network tests, its upper
# half (the browser tests' namespaces take /30s of the whole block), a /19 by process id:
# room for 8,000 phones.
PHONE_ADDRESSES = ip_network("198.19.0.0/16")
PHONE_PREFIX = 19
# The tag that opens an action form of the table page (class "action action-KIND").
ACTION_FORM = r'<form\b[^>]*\bclass="[^"]*\baction-{kind}\b[^"]*"[^>]*>'
HIDDEN = re.compile(r'<input type="hidden"[^>]*>')  # as the forms' macro writes them


# --- a table and its devices --------------------------------------------------------------

@dataclass(frozen=True)
class Change:
    """An action's change: its game, the stamp its answer shows, when that answer reached
    the screen (monotonic clock), and whether it is measured."""

    token: str
    stamp: int
    answered: float
    counts: bool


def stamp_of(url: str) -> int:
    """The stamp a live part shows: its hx-get's v."""
    return int(dict(parse_qsl(urlsplit(url).query))["v"])


def events_url(url: str) -> str:
    """The URL of a live part's event stream, from its hx-get's."""
    return url.replace("/live?", "/live/events?", 1)


class Browser(Device):
    """A device whose connection can also hold an event stream, as a browser's
    EventSource does: a 200 of type text/event-stream, in chunks, leaves its body on the
    connection, read as it comes (`pieces`)."""

    stream: dict | None = None  # the headers of the event stream the last answer opened

    async def _body(self, status: int, headers: dict) -> bytes:
        streams = (status == 200
                   and headers.get("content-type", "").startswith("text/event-stream")
                   and headers.get("transfer-encoding", "").lower() == "chunked")
        self.stream = headers if streams else None
        if not streams:
            return await super()._body(status, headers)
        headers.pop("connection", None)  # a "close" is for when the stream ends
        return b""

    async def pieces(self, silent: float):
        """The event stream's body as it comes, chunk by chunk (gunzipped), until the
        server ends it; Failed if the connection fails or stays silent `silent` seconds."""
        gzipped = self.stream.get("content-encoding") == "gzip"
        unzip = zlib.decompressobj(wbits=31) if gzipped else None
        try:
            while chunk := await self._chunk(silent):
                yield unzip.decompress(chunk) if unzip else chunk
        except (OSError, asyncio.IncompleteReadError, ValueError) as error:  # timeouts too
            self.close()
            raise Failed(f"{type(error).__name__} {error}".strip()) from None

    async def _chunk(self, silent: float) -> bytes:
        """The stream's next chunk; empty at its end (the last chunk)."""
        async with asyncio.timeout(silent):
            size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size:
                return (await self.reader.readexactly(size + 2))[:-2]  # the chunk, then CRLF
            await self.reader.readuntil(b"\r\n")  # no trailers: the empty line
            return b""


class EventStream:
    """What an EventSource reads of its event streams, as the HTML standard parses them:
    fed a stream's body as it comes, cut anywhere, the data of each message it completes
    (the lines of its data fields joined by newlines: a live part); an event of another
    type (the server's beats) is heard of, not shown; the last event's id and the
    reconnection time (seconds), kept from one connection to the next."""

    def __init__(self):
        self.last_id, self.retry = "", RETRY
        self.connected()

    def connected(self) -> None:
        """A new connection: nothing of an event read yet (a BOM first is skipped)."""
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")("replace")
        self.rest, self.data, self.id, self.type = "", [], self.last_id, ""

    def feed(self, piece: bytes) -> list[str]:
        """The data of the events that `piece`, the stream's next bytes, completes."""
        text = self.rest + self.decoder.decode(piece)
        cut = len(text) - text.endswith("\r")  # a CR last may be half of a CRLF
        *lines, rest = LINE_END.split(text[:cut])
        self.rest = rest + text[cut:]
        return [data for line in lines if (data := self._line(line)) is not None]

    def _line(self, line: str) -> str | None:
        """Take in a line: the data of the message it ends, if it ends one (a blank line),
        else None; a comment (":" first) and unknown fields are ignored."""
        if not line:
            self.last_id, data, self.data = self.id, self.data, []
            kind, self.type = self.type, ""
            return "\n".join(data) if data and kind in ("", "message") else None
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            self.data.append(value)
        elif name == "event":
            self.type = value
        elif name == "id" and "\0" not in value:
            self.id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry = int(value) / 1000
        return None


class Viewer:
    """A browser showing a page with a live part, and following it on its connection
    (`device`): on the live part's event stream (`streams`), else by polls. Its page is
    the last one it was sent, the whole page or the live part (the table's forms are in
    both); it waits for the changes made at its table to show."""

    def __init__(self, device: Browser, opens, streams: bool):
        self.device, self.opens = device, opens  # opens(device, token, timeout): the page
        self.streams = streams
        self.page, self.live, self.token = "", Live("", None), None
        self.stamp, self.shown = -1, 0.0  # the stamp shown, since when (monotonic clock)
        self.waiting: list[Change] = []  # changes of its table not shown yet
        self.results: Results | None = None  # while it follows its live part
        self.following: asyncio.Task | None = None
        self.moving: asyncio.Task | None = None  # opening its table's new game

    async def open(self, token: str, timeout: float = TIMEOUT,
                   device: Device | None = None) -> None:
        """Open the page of the game `token` (a phone takes its seat first), on `device`
        (one sharing this browser's cookies) or its own connection."""
        page = await self.opens(device or self.device, token, timeout=timeout)
        self.token, self.stamp = token, -1
        self.show(page)

    def show(self, page: str) -> None:
        """Show `page` (or a live part), unless it is older than the one shown (an answer
        overtaken by another); the changes it shows are seen."""
        shown = live(page)
        stamp = stamp_of(shown.url)
        if stamp < self.stamp:
            return
        self.page, self.live = page, shown
        if stamp > self.stamp:
            self.stamp, self.shown = stamp, time.monotonic()
            if self.waiting:
                seen = [change for change in self.waiting if change.stamp <= stamp]
                self.waiting = [change for change in self.waiting if change.stamp > stamp]
                for change in seen:
                    self.results.shown(change, self.shown)

    def expect(self, change: Change) -> None:
        """A change made at this device's table: seen already, or waited for."""
        if self.results is None or self.token != change.token:
            if self.results is not None and change.counts:
                self.results.away += 1  # opening the table's new game
        elif self.stamp >= change.stamp:
            self.results.shown(change, self.shown)
        else:
            self.waiting.append(change)

    def every(self) -> float:
        """A live part's pace (data-poll), else POLL_EVERY."""
        return self.live.every or POLL_EVERY

    def start(self, results: "Results", after: float = 0.0) -> None:
        """Start following the live part, `after` seconds from now."""
        self.results = results
        follow = self._stream if self.streams else self._poll
        self.following = asyncio.create_task(follow(after))

    async def stop(self) -> None:
        """Stop following the live part: the stream or the question out is dropped (its
        connection closed); the changes not shown count as never shown."""
        if self.following is not None:
            self.following.cancel()
            with suppress(asyncio.CancelledError):
                await self.following
            self.following = None
        self.device.close()
        if self.results is not None:
            self.results.unseen += sum(change.counts for change in self.waiting)
        self.waiting = []

    async def _poll(self, after: float) -> None:
        """Ask for news again and again, as static/app.js does."""
        results, failed = self.results, False
        await asyncio.sleep(after)
        while True:
            asked = time.monotonic()
            url = at_once(self.live.url) if failed else self.live.url
            try:
                answer = await self.device.request("GET", url, headers=HTMX,
                                                   timeout=POLL_TIMEOUT)
                if answer.status == 200:
                    self.show(answer.body)
                elif answer.status != 204:
                    raise RuntimeError(f"answered {answer.status}")
            except (Failed, RuntimeError, ValueError) as error:
                results.polled(asked, "failed", str(error))
                failed = True
                due = time.monotonic() + self.every()
            else:
                results.polled(asked, answer.status)
                failed = False
                due = time.monotonic() if answer.status == 200 else asked + self.every()
            if due > time.monotonic():
                await asyncio.sleep(due - time.monotonic())
                results.lag(due)

    async def _stream(self, after: float) -> None:
        """Follow the live part on its event stream, as static/app.js has EventSource do:
        each event's live part shown; after a failure, or the stream's end, again `retry`
        later with the last event's id (Last-Event-ID); polls instead if the server
        refuses the stream (204 where it holds none, or any answer but a stream)."""
        results, url, source = self.results, events_url(self.live.url), EventStream()
        await asyncio.sleep(after)
        while True:
            asked, opened = time.monotonic(), False
            last = {"Last-Event-ID": source.last_id} if source.last_id else {}
            try:
                answer = await self.device.request("GET", url, headers={**EVENT_SOURCE, **last},
                                                   timeout=POLL_TIMEOUT)
                if answer.status != 200 or self.device.stream is None:
                    results.streamed(asked, answer.status)  # refused, as a browser's
                    await self._poll(0.0)  # EventSource closes: static/app.js polls
                    return
                results.streamed(asked, 200)
                opened = True
                source.connected()
                async for piece in self.device.pieces(STREAM_SILENT):
                    for data in source.feed(piece):
                        results.streamed(time.monotonic(), "events")
                        self.show(data)
                raise RuntimeError("the stream ended")
            except (Failed, RuntimeError, ValueError) as error:
                self.device.close()  # what is left of the stream with it
                results.streamed(asked, "broken" if opened else "failed", str(error))
            due = time.monotonic() + source.retry
            await asyncio.sleep(source.retry)
            results.lag(due)


async def table_page(device: Device, token: str, timeout: float) -> str:
    """The table page of the game `token`, as the screen and watching phones open it."""
    return expect(await device.request("GET", f"/g/{token}", timeout=timeout), 200,
                  "the table page").body


def action_form(page: str, kind: str) -> Form:
    """The page's form for an action of `kind`: its URL and its hidden fields, what a
    browser sends untouched (the fields a user fills in come from the event). Only those
    are parsed: the whole form, a grid of cards, would take tens of ms of the client.

    The records hold overbids between two rounds, which the game takes but the table page
    offers no form for: those go with the first action form's URL and hidden fields."""
    for pattern in (re.escape(kind), r"\w+"):
        found = re.search(ACTION_FORM.format(kind=pattern), page)
        if found:
            hidden = HIDDEN.findall(page, found.end(), page.index("</form>", found.end()))
            return forms(found.group() + "".join(hidden) + "</form>")[0]
    raise RuntimeError("the table page offers no action")


class Table:
    """A table playing the events of a record on its screen, with its phones (or, quiet,
    only showing a game); its devices follow their live parts on event streams
    (`streams`), else by polls."""

    def __init__(self, port: int, record: dict, phones: int, rng: random.Random,
                 sources: list[str], streams: bool, quiet: bool = False):
        self.record, self.setup = record, load_setup(record)
        self.events = [parse_event(raw) for raw in record["events"]]
        self.rng, self.next, self.import_form, self.quiet = rng, 0, None, quiet
        self.acknowledged = {}  # game: its events up to the last one answered
        self.screen = Viewer(Browser(port), table_page, streams)  # the host's: from the loopback
        self.actor = Device(port)  # the screen's browser's other connection: its forms
        self.actor.cookies = self.screen.device.cookies
        seats = len(self.setup.players)  # one phone on each, the others watch the table
        self.phones = [Viewer(Browser(port, sources[n]), partial(take_seat, seat=n)
                              if n < seats else table_page, streams) for n in range(phones)]

    @property
    def viewers(self) -> list[Viewer]:
        return [self.screen, *self.phones]

    @property
    def devices(self) -> list[Device]:
        """Its connections: the screen's two, each phone's."""
        return [self.actor, *(viewer.device for viewer in self.viewers)]

    async def set_up(self) -> None:
        """A game at a random stage of the record, with every phone on it."""
        await self.new_game(self.rng.randrange(len(self.events)), SETUP_TIMEOUT)
        for phone in self.phones:
            await phone.open(self.screen.token, SETUP_TIMEOUT)

    async def new_game(self, played: int = 0, timeout: float = TIMEOUT) -> None:
        """Import the record's setup with its first `played` events; open the game."""
        if self.import_form is None:
            home = expect(await self.actor.request("GET", "/", timeout=timeout), 200,
                          "home page")
            self.import_form = next(form for form in forms(home.body)
                                    if form.action.endswith("/import"))
        record = json.dumps({**self.record, "events": self.record["events"][:played]})
        answer = await self.actor.request("POST", self.import_form.action,
                                          self.import_form.fields,
                                          {"record": ("game.json", record.encode())},
                                          timeout=timeout)
        token = expect(answer, 303, "importing a game").location.rsplit("/", 1)[1]
        self.acknowledged[token] = played
        await self.screen.open(token, timeout, device=self.actor)
        self.next = played

    async def act(self, counts: bool) -> None:
        """Post the record's next event through its form on the table page, as htmx does;
        the other devices wait for it to show. After any failure the table starts a new
        game at its next action."""
        played, self.next = self.next, len(self.events)  # until the answer says recorded
        event, made_at = self.events[played], self.screen.stamp
        form = action_form(self.screen.page, event.kind)
        fields = {**form.fields, **{name: value if isinstance(value, list) else [value]
                                    for name, value in form_values(self.setup, event).items()}}
        answer = await self.actor.request("POST", form.action, fields, headers=HTMX)
        answered = time.monotonic()
        body = expect(answer, 200, event.kind).body
        stamp = stamp_of(live(body).url)
        if stamp <= made_at:
            raise RuntimeError(f"{event.kind} not recorded")
        self.screen.show(body)
        self.next = self.acknowledged[self.screen.token] = played + 1
        change = Change(self.screen.token, stamp, answered, counts)
        for phone in self.phones:
            phone.expect(change)

    def start(self, window: "Window", results: "Results") -> list:
        """Its devices start following their live parts; what it does besides (its
        actions, unless quiet), to be awaited."""
        for viewer in self.viewers:  # pages loaded at different times
            viewer.start(results, self.rng.uniform(0, viewer.every()))
        if self.quiet:
            return []
        return [keep(Job(lambda: window.every, partial(self._action, results, window),
                         window.start + self.rng.uniform(0, window.every)), window, results)]

    async def stop(self) -> None:
        """Its devices stop following their live parts, and its connections close."""
        moving = [phone.moving for phone in self.phones if phone.moving is not None]
        for task in moving:
            task.cancel()
        await asyncio.gather(*moving, return_exceptions=True)
        for viewer in self.viewers:
            await viewer.stop()
        self.actor.close()

    async def _action(self, results: "Results", window: "Window", scheduled: float) -> None:
        """The record's next event, or a new game once the record is played out."""
        if self.next < len(self.events):
            await results.timed("action", partial(self.act, window.counts(scheduled)),
                                scheduled)
            return
        await self.screen.stop()
        await results.timed("other", self.new_game, scheduled)
        self.screen.start(results)
        for phone in self.phones:
            phone.moving = asyncio.create_task(self._move(phone, self.screen.token, results,
                                                          scheduled, phone.moving))

    async def _move(self, phone: Viewer, token: str, results: "Results", scheduled: float,
                    before: asyncio.Task | None) -> None:
        """A phone leaves the table's old game for its new one, `token` (once it has
        opened the one before, if it was still opening it: `before`)."""
        if before is not None:
            await asyncio.wait([before])
        await phone.stop()
        await results.timed("other", partial(phone.open, token), scheduled)
        phone.start(results)


# --- schedules, and what they measure -----------------------------------------------------

@dataclass(frozen=True)
class Window:
    """When the schedules start, and the measured seconds start and end (the monotonic
    clock, the same in every process); the seconds between two actions of a table."""

    start: float
    measured: float
    end: float
    every: float

    def counts(self, scheduled: float) -> bool:
        """Whether a request due at `scheduled` is measured."""
        return self.measured <= scheduled < self.end


@dataclass
class Job:
    """What a table sends again and again: `run(scheduled)` sends it once."""

    every: object  # () -> the seconds until the next one
    run: object
    at: float  # when the next one is due


async def keep(job: Job, window: Window, results: "Results") -> None:
    """Send a table's actions on their schedule, one at a time on its connection: every
    one due before the end of the window. One due while the last is under way waits for it
    (its latency counts from when it was due), even past the end of the window, but not
    beyond LATE_AFTER seconds after it: those still due then fail unsent (a server so
    slow that a table's actions pile up); one whose answer does not come in time fails
    (TimeoutError)."""
    while job.at < window.end:
        wait = job.at - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
            results.lag(job.at)
        if time.monotonic() > window.end + LATE_AFTER:
            results.unsent(job.at)
        else:
            await job.run(job.at)
        job.at += job.every()


async def tick(window: Window, results: "Results") -> None:
    """How late the client's event loop fires a TICK timer, over the measured seconds."""
    await asyncio.sleep(max(0.0, window.measured - time.monotonic()))
    while (began := time.monotonic()) < window.end:
        await asyncio.sleep(TICK)
        results.ticks.append(time.monotonic() - began - TICK)


@dataclass
class Results:
    """What one client process measured over the window (latencies in seconds)."""

    window: Window
    actions: list = field(default_factory=list)
    changes: list = field(default_factory=list)  # change-to-screen, each (action, device)
    ahead: int = 0  # changes a device showed before the screen had the action's answer
    unseen: int = 0  # changes a device never showed
    away: int = 0  # changes made while a device was opening the table's new game
    polls: Counter = field(default_factory=Counter)  # by answer: 200, 204, failed
    # Event streams by answer (200, 204, failed), those broken after their 200, and the
    # events they brought.
    streams: Counter = field(default_factory=Counter)
    other: int = 0  # games opened, seats taken
    errors: Counter = field(default_factory=Counter)
    lags: list = field(default_factory=list)
    ticks: list = field(default_factory=list)
    sent: Counter = field(default_factory=Counter)  # requests sent, acting / quiet tables
    devices: Counter = field(default_factory=Counter)  # devices, acting / quiet tables
    reopened: int = 0
    cpu: float = 0.0
    acknowledged: dict = field(default_factory=dict)  # game: its events up to the last answered

    async def timed(self, kind: str, request, scheduled: float) -> None:
        """Await `request()`, due at `scheduled`: if due within the measured seconds, its
        latency (from then, whatever the outcome) counted as `kind`, and its failure."""
        try:
            await request()
        except (Failed, RuntimeError, ValueError) as error:
            self._failed(kind, scheduled, str(error))
        finally:
            self._count(kind, scheduled)

    def polled(self, asked: float, answer, why: str = "") -> None:
        """A poll asked at `asked` answered `answer` (a status, or "failed": `why`)."""
        if self.window.counts(asked):
            self.polls[answer] += 1
            if why:
                self.errors[f"poll: {why}"] += 1

    def streamed(self, at: float, what, why: str = "") -> None:
        """An event stream asked for at `at` answered `what` (a status, or "failed":
        `why`), or broke after its 200 ("broken": `why`); or an event came at `at`
        ("events")."""
        if self.window.counts(at):
            self.streams[what] += 1
            if why:
                self.errors[f"stream: {why}"] += 1

    def shown(self, change: Change, at: float) -> None:
        """A device showed `change` at `at`."""
        if change.counts:
            self.ahead += at < change.answered
            self.changes.append(max(0.0, at - change.answered))

    def unsent(self, scheduled: float) -> None:
        """An action due at `scheduled` given up, its table's earlier ones too slow: an
        error, as late as it is now."""
        self._failed("action", scheduled, f"not sent {LATE_AFTER:g} s after the window "
                     "(the table's earlier actions took too long)")
        self._count("action", scheduled)

    def _failed(self, kind: str, scheduled: float, why: str) -> None:
        """Count an error, if the request was due within the measured seconds."""
        if self.window.counts(scheduled):
            self.errors[f"{kind}: {why}"] += 1

    def _count(self, kind: str, scheduled: float) -> None:
        """Count a request, and its latency, if it was due within the measured seconds."""
        if not self.window.counts(scheduled):
            return
        if kind == "other":
            self.other += 1
        else:
            self.actions.append(time.monotonic() - scheduled)

    def lag(self, scheduled: float) -> None:
        """How late the client woke up to send a request due at `scheduled`."""
        if self.window.counts(scheduled):
            self.lags.append(time.monotonic() - scheduled)

    async def watch(self, tables: list[Table]) -> None:
        """The client's CPU time, the requests its devices sent and the connections they
        opened again, over the measured seconds."""
        await asyncio.sleep(self.window.measured - time.monotonic())
        began = time.process_time(), _counts(tables)
        await asyncio.sleep(self.window.end - time.monotonic())
        ended = time.process_time(), _counts(tables)
        self.cpu = ended[0] - began[0]
        self.sent = ended[1] - began[1]
        self.reopened = self.sent.pop("reopened", 0)
        for table in tables:
            self.devices[_kind(table)] += len(table.viewers)

    def add(self, other: "Results") -> None:
        """Add what another client process measured."""
        for name in ("actions", "changes", "ahead", "unseen", "away", "polls", "streams",
                     "other", "errors", "lags", "ticks", "sent", "devices", "reopened", "cpu"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.acknowledged.update(other.acknowledged)


def _kind(table: Table) -> str:
    return "quiet" if table.quiet else "acting"


def _counts(tables: list[Table]) -> Counter:
    """Requests the tables' devices sent so far (acting, quiet), and connections they
    opened again (reopened)."""
    counts = Counter()
    for table in tables:
        for device in table.devices:
            counts[_kind(table)] += device.sent
            counts["reopened"] += device.reopened
    return counts


# --- the client processes ----------------------------------------------------------------

def client(pipe, port: int, numbers: list[int], args) -> None:
    """A client process: set up its tables and say so, wait for the start time, play;
    send back what it measured, or why it failed."""
    try:
        pipe.send(("done", asyncio.run(_play(pipe, port, numbers, args))))
    except Exception:  # noqa: BLE001 (any failure: the parent reports it)
        pipe.send(("failed", traceback.format_exc()))


def records() -> list[dict]:
    """The records the tables play, read."""
    return [json.loads(path.read_text(encoding="utf-8")) for path in RECORDS]


def table_record(number: int, played: list[dict]) -> dict:
    """The record table `number` plays (of `played`, all of them)."""
    return played[number % len(played)]


async def _play(pipe, port: int, numbers: list[int], args) -> Results:
    played = records()
    tables = [Table(port, table_record(number, played), args.phones, random.Random(number),
                    phone_sources(args.phone_network, number, args.phones),
                    args.transport == "streams", quiet=number >= args.tables)
              for number in numbers]
    began, setting_up = time.monotonic(), asyncio.Semaphore(SETTING_UP)

    async def set_up(table: Table) -> None:
        async with setting_up:
            await table.set_up()

    await asyncio.gather(*map(set_up, tables))
    pipe.send(("ready", time.monotonic() - began))
    window = await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
    results = Results(window)
    await asyncio.sleep(max(0.0, window.start - time.monotonic()))
    await asyncio.gather(results.watch(tables), tick(window, results),
                         *[actions for table in tables
                           for actions in table.start(window, results)])
    await asyncio.sleep(SHOWN_WITHIN)  # (the window has ended, and every action)
    for table in tables:
        await table.stop()
        results.acknowledged.update(table.acknowledged)
    return results


def _receive(pipe, expected: str, within: float):
    """The message `expected` from a client process, or exit with its failure."""
    if not pipe.poll(within):
        sys.exit(f"a client process sent nothing within {within:.0f} s")
    kind, content = pipe.recv()
    if kind != expected:
        sys.exit(f"a client process failed:\n{content}")
    return content


# --- the server's CPU and memory -----------------------------------------------------------

class Sampler(threading.Thread):
    """The server's CPU time and memory over the measured seconds (every process of the
    trees of `roots`: the server and the processes it started; with --balanced, the
    table servers, haproxy and PostgreSQL); the CPU time of its processes' main threads
    (their event loops) apart. A process that ends meanwhile counts until it was last seen."""

    def __init__(self, roots: dict[int, str], window: Window):
        super().__init__(daemon=True)
        self.roots, self.window = roots, window  # pid: what it is
        self.cpu, self.loop_cpu, self.rss_max, self.hwm = 0.0, 0.0, 0, 0
        self.busy = 0.0  # seconds of CPU the whole machine used (every core)
        self.first, self.last = {}, {}  # pid: (its CPU, its main thread's), in clock ticks
        self.tree = {}  # pid: what it is part of (its root's word)
        self.parts = Counter()  # what it is: seconds of CPU its processes used

    def run(self) -> None:
        time.sleep(max(0.0, self.window.measured - time.monotonic()))
        began = _busy()
        self.first = self._cpu()
        while (left := self.window.end - time.monotonic()) > 0:
            self.rss_max = max(self.rss_max, self._memory("VmRSS"))
            self.last.update(self._cpu())
            time.sleep(min(1.0, left))
        self.last.update(self._cpu())
        self.busy = _busy() - began
        tick = os.sysconf("SC_CLK_TCK")
        used = [(end[0] - self.first.get(pid, (0, 0))[0], end[1] - self.first.get(pid, (0, 0))[1])
                for pid, end in self.last.items()]
        self.cpu, self.loop_cpu = (sum(part) / tick for part in zip(*used))
        for pid, (every, _) in zip(self.last, used):
            self.parts[self.tree[pid]] += every / tick
        self.hwm = self._memory("VmHWM")

    def _pids(self) -> list[int]:
        """The processes of the trees of `roots` that are still there."""
        found, todo = [], list(self.roots.items())
        while todo:
            pid, part = todo.pop()
            with suppress(OSError):
                children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
                todo += [(int(child), part) for child in children]
                found.append(pid)
                self.tree[pid] = part
        return found

    def _cpu(self) -> dict[int, tuple[int, int]]:
        """Each process's CPU so far (utime + stime, every thread) and its main thread's,
        in clock ticks."""
        used = {}
        for pid in self._pids():
            with suppress(OSError):
                used[pid] = (_ticks(f"/proc/{pid}/stat"), _ticks(f"/proc/{pid}/task/{pid}/stat"))
        return used

    def _memory(self, name: str) -> int:
        """A size in bytes from /proc/PID/status (VmRSS, VmHWM), summed over the server's
        processes."""
        total = 0
        for pid in self._pids():
            with suppress(OSError, ValueError):
                total += _status(pid, name)
        return total


def _busy() -> float:
    """Seconds of CPU the machine used so far, every core (/proc/stat: all but idle and
    iowait)."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split()[1:11]]  # "cpu"
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def _ticks(stat: str) -> int:
    """utime + stime of a /proc stat file, in clock ticks."""
    fields = Path(stat).read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def _status(pid: int, name: str) -> int:
    """A size in bytes from /proc/PID/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1]) * 1024
    raise ValueError(f"no {name} in /proc/{pid}/status")


# --- a run ---------------------------------------------------------------------------------

@dataclass
class Report:
    """What a run measured, and of what café."""

    tables: int
    quiet: int  # tables
    phones: int  # a table's
    connection_limit: int  # the server's (waitress_options)
    seated: int  # phones
    watching: int  # phones
    set_up: float  # seconds
    window: Window
    results: Results
    clients: int
    processes: int  # the server's
    server: Sampler
    load: tuple[str, str]  # the machine's load average before and after
    speed: tuple[float, float]  # the machine's speed before and after (serving.machine_speed)
    workers: dict | None  # kind: [(waited, wall, cpu)] (serving.Stats), one process only
    kept: tuple[int, int, int]  # games played, actions acknowledged, of those not stored
    balanced: bool  # the servers were processes of their own behind haproxy, one killed

    @property
    def seconds(self) -> float:
        """The seconds measured."""
        return self.window.end - self.window.measured

    def per_minute(self, kind: str) -> float | None:
        """Requests a device of the acting or quiet tables sent a minute (None: none)."""
        devices = self.results.devices[kind]
        return self.results.sent[kind] / devices / (self.seconds / 60) if devices else None


def run(args) -> Report:
    """Set the café up, play it, and what was measured. The server and the client
    processes are stopped at the end, whatever happens."""
    numbers = list(range(args.tables + args.quiet_tables))
    groups = [numbers[number::args.clients] for number in range(args.clients)]
    load, before = serving.load_average(), serving.machine_speed()
    with tempfile.TemporaryDirectory() as data_dir, phone_network() as args.phone_network:
        if args.balanced:
            with balanced.stack(args.balanced) as server:
                set_up, window, results, sampler = _run(args, groups, server.port,
                                                        server.roots(), server.kill_one)
                lost = _lost(open_store(None, server.database), results.acknowledged)
            workers = None
        else:
            stats = None if args.processes > 1 else \
                Path(args.stats) if args.stats else Path(data_dir) / "stats.jsonl"
            with serving.started("companion", data_dir, "--processes", str(args.processes),
                                 *(["--stats", str(stats)] if stats else [])) as server:
                set_up, window, results, sampler = _run(args, groups, server.port,
                                                        {server.pid: "server"})
            lost = _lost(open_store(data_dir, None), results.acknowledged)
            workers = _workers(stats, window) if stats else None
    played = records()
    seated = sum(min(args.phones, len(table_record(number, played)["players"]))
                 for number in numbers)
    limit = waitress_options(serving.bare_app())["connection_limit"]
    return Report(args.tables, args.quiet_tables, args.phones, limit, seated,
                  len(numbers) * args.phones - seated, set_up, window, results, args.clients,
                  args.balanced or args.processes, sampler, (load, serving.load_average()),
                  (before, serving.machine_speed()), workers, lost, bool(args.balanced))


def _run(args, groups: list[list[int]], port: int, roots: dict[int, str], midway=None):
    """The client processes, each with its group of tables, set up and playing against
    the server on `port` (its processes: the trees of `roots`, pid: what it is): the
    set-up's seconds, the window, what they measured and what the server used;
    `midway()` is called in the middle of the measured seconds, if given. They are
    stopped at the end, whatever happens."""
    pipes, processes = [], []
    try:
        for group in groups:
            ours, theirs = multiprocessing.Pipe()
            process = multiprocessing.Process(target=client, daemon=True,
                                              args=(theirs, port, group, args))
            process.start()
            pipes.append(ours)
            processes.append(process)
        set_up = max(_receive(pipe, "ready", SET_UP_WITHIN) for pipe in pipes)
        start = time.monotonic() + STARTS_AFTER
        window = Window(start, start + args.warm_up, start + args.warm_up + args.seconds,
                        args.every)
        for pipe in pipes:
            pipe.send(window)
        sampler = Sampler(roots, window)
        sampler.start()
        if midway is not None:
            threading.Timer(window.measured + args.seconds / 2 - time.monotonic(),
                            midway).start()
        results = Results(window)
        for pipe in pipes:
            results.add(_receive(pipe, "done", window.end - time.monotonic() + LATE_AFTER
                                 + max(TIMEOUT, SHOWN_WITHIN) + 60))
        sampler.join()
    finally:
        for process in processes:
            process.kill()
            process.join()
    return set_up, window, results, sampler


def _lost(store, acknowledged: dict[str, int]) -> tuple[int, int, int]:
    """Of the games the tables played, how many; the actions acknowledged (each game's
    events up to the last answered); and the acknowledged ones the database lacks."""
    lost = 0
    for token, count in acknowledged.items():
        stored = store.game(token)
        lost += max(0, count - (0 if stored is None else len(stored.events)))
    return len(acknowledged), sum(acknowledged.values()), lost


def _workers(stats: Path, window: Window) -> dict:
    """What the server's workers did over the measured seconds (serving.Stats): each
    request's kind: its (waited, wall, cpu); under None, the CPU seconds the worker
    threads used in all."""
    workers, used = {}, []
    for line in stats.read_text(encoding="utf-8").splitlines():
        second = json.loads(line)
        for kind, waited, wall, cpu, began in second["requests"]:
            if window.counts(began):
                workers.setdefault(kind, []).append((waited, wall, cpu))
        if window.measured <= second["at"] <= window.end + 1:
            used.append(second.get("workers", 0.0))
    workers[None] = used[-1] - used[0] if len(used) > 1 else 0.0
    return workers


@contextmanager
def phone_network():
    """A network of 198.18.0.0/15 (set aside for network tests, RFC 2544) put on this
    machine's loopback interface for as long as the café runs (on the loopback, every
    address of it is this machine's): each phone connects from an address of its own to
    127.0.0.1, as on a table's Wi-Fi, so the server takes them for phones, not for its own
    device (the host), and limits each as the one device it is; their traffic never leaves
    the loopback. Needs the right to change addresses."""
    blocks = PHONE_ADDRESSES.subnets(new_prefix=PHONE_PREFIX)
    network = list(blocks)[os.getpid() % 2 ** (PHONE_PREFIX - PHONE_ADDRESSES.prefixlen)]
    first = f"{network[1]}/{PHONE_PREFIX}"
    added = subprocess.run(["ip", "addr", "add", first, "dev", "lo"],
                           capture_output=True, text=True)
    if added.returncode:
        sys.exit(f"cannot give the phones addresses of their own ({added.stderr.strip()}): "
                 "run as root, with iproute2")
    try:
        yield network
    finally:
        subprocess.run(["ip", "addr", "del", first, "dev", "lo"], capture_output=True)


def phone_sources(network, table: int, phones: int) -> list[str]:
    """The addresses of table `table`'s phones: one each."""
    return [str(network[2 + table * phones + number]) for number in range(phones)]


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
    if float("inf") in latencies:  # quantiles cannot interpolate with infinity
        ordered = sorted(latencies)
        return ordered[min(len(ordered) - 1, int(0.99 * (len(ordered) - 1) + 0.999999))]
    return statistics.quantiles(latencies, n=100, method="inclusive")[98]


QUIET_LIMIT = 6  # requests a minute a device of a quiet table may send


def goals(report: Report) -> dict[str, bool | None]:
    """Whether each goal of a café is met (None: not measured)."""
    results, quiet = report.results, report.per_minute("quiet")
    return {"change-to-screen p99 < 250 ms":
            _p99(results.changes + [float("inf")] * results.unseen) < 0.250,
            "action p99 < 100 ms": _p99(results.actions) < 0.100,
            "0 errors": not results.errors,
            "nothing acknowledged lost": report.kept[2] == 0,
            "RSS < 120 MB": report.server.rss_max < 120 * MB,
            f"quiet devices ≤ {QUIET_LIMIT} requests a minute":
            None if quiet is None else quiet <= QUIET_LIMIT}


def lines(report: Report):
    """The lines of figures printed."""
    results, server, seconds = report.results, report.server, report.seconds
    tables = report.tables + report.quiet
    devices = tables + report.seated + report.watching
    yield (f"a café of {tables} tables ({report.quiet} quiet): {tables} screens, "
           f"{report.seated} seated phones, {report.watching} watching phones ({devices} "
           f"devices; the server takes {report.connection_limit} connections at once), "
           f"an action per acting table every {report.window.every:g} s")
    yield (f"set up in {report.set_up:.1f} s; {report.window.measured - report.window.start:g}"
           f" s of warm-up, then {seconds:g} s measured")
    acting, quiet = report.per_minute("acting"), report.per_minute("quiet")
    yield (f"requests sent: {sum(results.sent.values())}; a device's a minute: acting tables "
           f"{acting:.1f}" + ("" if quiet is None else f", quiet tables {quiet:.1f}"))
    yield (f"{_updates(results)}; actions due {len(results.actions)}; new games opened or "
           f"joined {results.other}")
    yield (f"change-to-screen: {_spread(results.changes, results.unseen)} "
           f"({len(results.changes) + results.unseen} changes shown to other devices; "
           f"{results.ahead} before the screen had its answer, {results.unseen} never, "
           f"{results.away} not waited for: the device was opening a new game)")
    yield f"actions: {_spread(results.actions)}"
    yield f"errors: {sum(results.errors.values())}"
    for error, count in results.errors.most_common(5):
        yield f"  {count} × {error}"
    games, acknowledged, lost = report.kept
    yield (f"kept: {acknowledged} events acknowledged in {games} games, "
           + (f"{lost} of them LOST" if lost else "all of them in the database")
           + ("; one of the table servers was killed midway" if report.balanced else ""))
    yield (f"server: CPU {server.cpu / seconds:.0%} of one core (its event loop"
           f"{'s' if report.processes > 1 else ''} {server.loop_cpu / seconds:.0%}, the "
           f"other threads {(server.cpu - server.loop_cpu) / seconds:.0%}), RSS max "
           f"{server.rss_max / MB:.0f} MB (VmHWM {server.hwm / MB:.0f} MB)"
           + (f" in {report.processes} table servers, haproxy and PostgreSQL together ("
              + ", ".join(f"{part} {used / seconds:.0%}" for part, used in server.parts.items())
              + ")" if report.balanced else f" in {report.processes} processes and the one that "
              "started them" if report.processes > 1 else ""))
    if report.workers is not None:
        yield from _worker_lines(report.workers, seconds)
    yield (f"client: CPU {results.cpu / seconds:.0%} of one core in {report.clients} "
           f"process{'es' if report.clients > 1 else ''}, lag p99 "
           f"{_p99(results.lags) * 1000:.1f} ms (loop p99 {_p99(results.ticks) * 1000:.1f}"
           f" ms, max {max(results.ticks, default=0) * 1000:.1f} ms), connections opened "
           f"again after the server closed them: {results.reopened}")
    others = server.busy - server.cpu - results.cpu
    yield (f"machine: {os.cpu_count()} cores, {server.busy / seconds:.2f} of them busy on "
           f"average, {others / seconds:.2f} with other programs than this café's; load "
           f"average before {report.load[0]}, after {report.load[1]}; sum(range(1000)) in "
           f"{report.speed[0]:.1f} µs before, {report.speed[1]:.1f} µs after")
    yield "goals: " + "; ".join(
        f"{goal}: {'not measured' if met is None else 'met' if met else 'MISSED'}"
        for goal, met in goals(report).items())


def _updates(results: Results) -> str:
    """How the devices learnt of the changes: the event streams they opened and the
    events those brought, the polls they sent (the polls alone if no stream was opened)."""
    streams, polls, told = results.streams, results.polls, []
    if streams:
        told.append(f"streams opened: {streams[200] + streams[204] + streams['failed']} "
                    f"(200: {streams[200]}, 204 then polls: {streams[204]}, failed: "
                    f"{streams['failed']}; broken after their 200: {streams['broken']}), "
                    f"events received {streams['events']}")
    if polls or not streams:
        told.append(f"polls answered: {sum(polls.values())} (200: {polls[200]}, 204: "
                    f"{polls[204]}, failed: {polls['failed']})")
    return "; ".join(told)


def _worker_lines(workers: dict, seconds: float):
    """What the server's worker threads did, by kind of request (serving.Stats)."""
    workers = dict(workers)
    used = workers.pop(None)
    busy = sum(wall for times in workers.values() for _, wall, _ in times)
    in_app = sum(cpu for times in workers.values() for _, _, cpu in times)
    yield (f"server's workers: {busy / seconds:.2f} in the app on average (of 8), CPU "
           f"{used / seconds:.0%} of one core ({in_app / seconds:.0%} in the app); by "
           "request (waited for a worker / in the app, wall p50 p99; CPU in the app, mean):")
    for kind, times in sorted(workers.items(), key=lambda item: -len(item[1])):
        waited, wall, cpu = (list(column) for column in zip(*times))
        yield (f"  {kind} ×{len(times)}: waited {_ms(statistics.median(waited))} "
               f"{_ms(_p99(waited))}, in the app {_ms(statistics.median(wall))} "
               f"{_ms(_p99(wall))}; CPU {_ms(statistics.fmean(cpu))}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="tables that act")
    parser.add_argument("--quiet-tables", type=int, default=10,
                        help="tables besides whose game never changes")
    parser.add_argument("--phones", type=int, default=5, help="phones per table")
    parser.add_argument("--every", type=float, default=5.0,
                        help="seconds between two actions of a table")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds measured")
    parser.add_argument("--warm-up", type=float, default=10.0)
    parser.add_argument("--transport", choices=["streams", "polls"], default="streams",
                        help="how the devices follow their live parts: event streams (polls "
                             "where the server offers none), or polls only")
    parser.add_argument("--clients", type=int, default=1, help="client processes")
    parser.add_argument("--processes", type=int, default=1,
                        help="server processes (templari-companion --processes)")
    parser.add_argument("--balanced", type=int, default=0, metavar="N",
                        help="N table servers of their own on one PostgreSQL behind haproxy "
                             "(bench/balanced.py), one killed midway")
    parser.add_argument("--stats", metavar="FILE", help="keep what the server's worker "
                        "threads did in FILE (bench/serving.py --stats; one process only)")
    args = parser.parse_args(argv)
    report = run(args)
    print("\n".join(lines(report)))
    if not all(met is not False for met in goals(report).values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
