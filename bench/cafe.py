"""A café of tables on one table server: how long a phone waits for its poll and a
table for its action, when every device keeps its own schedule whatever the answers.

    python bench/cafe.py [--tables 200] [--phones 5] [--every 5] [--seconds 60]
                         [--warm-up 10] [--clients 1] [--processes 1]

Starts the table server (bench/serving.py: the table's app, the table's waitress
configuration) in a process of its own (or PROCESSES of them sharing the socket, as
`templari-companion --processes` runs them; CPU and memory are then their sums), on
127.0.0.1 and a temporary data directory.
Each table's screen, the host's device, imports the setup of one of the records
tests/fixtures/full-game-*.json through the home page's import form, with the record's
first few events (how many is drawn at random: the tables are at every stage of a
game). Then its PHONES phones open the game: as many as it has seats (3) take one
through the join form, each with its own session cookie, and poll their phone page's
live part; the others watch the table and poll the table page's live part, as the
screen does. Each device is a browser of its own: its cookies and one kept-alive
HTTP/1.1 connection (asyncio, raw). Each polls the URL of its page's live element
(id="live", hx-get) as htmx does (HX-Request), every second or as the element's
data-poll (ms) says. Every EVERY seconds each screen posts the record's next event
through the table page's form, as htmx does: the answer is the table's live part, which
must have moved on. When a table's record is played out, its next action is a new game
(the setup imported again), which its phones open (take their seats again).

Open loop: every request's time is fixed in advance, whatever the earlier answers, and
its latency runs from that time, so a slow server cannot slow the clients down and hide
(no coordinated omission); a device sends one request at a time on its connection, so a
request due while the last is under way waits for it, and that wait counts. Requests due
in the first WARM-UP seconds are not counted; those due in the next SECONDS are. The
tables are split over CLIENTS processes: one may not send a large café's requests on
time, and the client's scheduling lag, printed, tells. The server's CPU time
(/proc/PID/stat) and memory (VmRSS each second, VmHWM) are read over the measured
seconds. Prints, e.g.

    a café of 20 tables: 20 screens, 60 seated phones, 40 watching phones (120 devices,
    one connection each; the server takes 1000 at once), an action per table every 5 s
    set up in 14.2 s; 10 s of warm-up, then 60 s measured
    requests sent: 5130; due: polls 4650, actions 240, new games opened or joined 8
    polls: p50 3.1 ms, p99 21.0 ms, max 45.2 ms
    actions: p50 18.0 ms, p99 64.1 ms, max 80.3 ms
    errors: 0
    server: CPU 31% of one core, RSS max 52 MB (VmHWM 55 MB)
    client: CPU 9% of one core in 1 process, scheduling lag p99 1.2 ms, connections
    opened again after the server closed them: 0
    load average: before 0.52 0.61 0.70, after 1.30 0.85 0.78
    goals: poll p99 < 50 ms: met; action p99 < 100 ms: met; 0 errors: met; RSS < 80 MB: met

Exits with status 1 if a goal is missed. Traffic goes to 127.0.0.1 only: the screens
from 127.0.0.1 (the host), the phones from an address of 198.19.0.0/16 that the benchmark
puts on the loopback interface while it runs (it needs root and iproute2), so that the
server takes them for phones, as it would on a table's Wi-Fi.
"""
import argparse
import asyncio
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
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from ipaddress import ip_network
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as python bench/cafe.py: bench is a package

from bench import serving
from bench.devices import HTMX, TIMEOUT, Device, Failed, Live, live, take_seat
from bench.faults import Form, expect, forms
from companion.rules.record import load_setup, parse_event
from companion.server.serve import waitress_options
from companion.web.forms import form_values

RECORDS = sorted(path for path in (ROOT / "tests" / "fixtures").glob("full-game-*.json")
                 if not path.name.endswith(".expected.json"))
POLL_EVERY = 1.0  # seconds between two polls, unless the live element says (data-poll)
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

class Viewer:
    """A browser showing a page with a live part, and polling it. Its page is the last
    one it was sent, the whole page or the live part (the table's forms are in both)."""

    def __init__(self, device: Device, opens):
        self.device, self.opens = device, opens  # opens(device, token, timeout): the page
        self.page, self.live, self.token = "", Live("", None), None

    async def open(self, token: str, timeout: float = TIMEOUT) -> None:
        """Open the page of the game `token` (a phone takes its seat first)."""
        self.show(await self.opens(self.device, token, timeout=timeout))
        self.token = token

    def show(self, page: str) -> Live:
        """Show `page` (or a live part); the live part shown before."""
        before, self.page, self.live = self.live, page, live(page)
        return before

    async def poll(self) -> None:
        """Ask for news: 204 if none, else the new live part, shown."""
        answer = await self.device.request("GET", self.live.url, headers=HTMX)
        if answer.status == 200:
            self.show(answer.body)
        elif answer.status != 204:
            raise RuntimeError(f"answered {answer.status}")

    def every(self) -> float:
        """Seconds until the next poll: as the live part says, else POLL_EVERY."""
        return self.live.every or POLL_EVERY


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
    """A table playing the events of a record on its screen, with its phones."""

    def __init__(self, port: int, record: dict, phones: int, rng: random.Random,
                 sources: list[str]):
        self.record, self.setup = record, load_setup(record)
        self.events = [parse_event(raw) for raw in record["events"]]
        self.rng, self.next, self.import_form = rng, 0, None
        self.screen = Viewer(Device(port), table_page)  # the host's: from the loopback
        seats = len(self.setup.players)  # one phone on each, the others watch the table
        self.phones = [Viewer(Device(port, sources[n]), partial(take_seat, seat=n)
                              if n < seats else table_page) for n in range(phones)]

    async def set_up(self) -> None:
        """A game at a random stage of the record, with every phone on it."""
        await self.new_game(self.rng.randrange(len(self.events)), SETUP_TIMEOUT)
        for phone in self.phones:
            await phone.open(self.screen.token, SETUP_TIMEOUT)

    async def new_game(self, played: int = 0, timeout: float = TIMEOUT) -> None:
        """Import the record's setup with its first `played` events; open the game."""
        device = self.screen.device
        if self.import_form is None:
            home = expect(await device.request("GET", "/", timeout=timeout), 200, "home page")
            self.import_form = next(form for form in forms(home.body)
                                    if form.action.endswith("/import"))
        record = json.dumps({**self.record, "events": self.record["events"][:played]})
        answer = await device.request("POST", self.import_form.action, self.import_form.fields,
                                      {"record": ("game.json", record.encode())},
                                      timeout=timeout)
        token = expect(answer, 303, "importing a game").location.rsplit("/", 1)[1]
        await self.screen.open(token, timeout)
        self.next = played

    async def act(self) -> None:
        """Post the record's next event through its form on the table page, as htmx does.
        After any failure the table starts a new game at its next action."""
        played, self.next = self.next, len(self.events)  # until the answer says recorded
        event = self.events[played]
        form = action_form(self.screen.page, event.kind)
        fields = {**form.fields, **{name: value if isinstance(value, list) else [value]
                                    for name, value in form_values(self.setup, event).items()}}
        answer = await self.screen.device.request("POST", form.action, fields, headers=HTMX)
        before = self.screen.show(expect(answer, 200, event.kind).body)
        if self.screen.live.url == before.url:
            raise RuntimeError(f"{event.kind} not recorded")
        self.next = played + 1

    def schedules(self, window: "Window", results: "Results") -> list[list["Job"]]:
        """What each device of the table sends, and when: the screen polls and acts, each
        phone polls (opening the table's new game first, when there is one)."""
        start, screen = window.start, self.screen
        jobs = [[Job("poll", screen.every, partial(results.timed, "poll", screen.poll),
                     start + self.rng.uniform(0, screen.every())),
                 Job("action", lambda: window.every, partial(self._action, results),
                     start + self.rng.uniform(0, window.every))]]
        return jobs + [[Job("poll", phone.every, partial(self._follow, phone, results),
                            start + self.rng.uniform(0, phone.every()))]
                       for phone in self.phones]

    async def _action(self, results: "Results", scheduled: float) -> None:
        """The record's next event, or a new game once the record is played out."""
        if self.next == len(self.events):
            await results.timed("other", self.new_game, scheduled)
        else:
            await results.timed("action", self.act, scheduled)

    async def _follow(self, phone: Viewer, results: "Results", scheduled: float) -> None:
        """A phone's poll, or its opening of the table's new game."""
        if phone.token == self.screen.token:
            await results.timed("poll", phone.poll, scheduled)
        else:
            await results.timed("other", partial(phone.open, self.screen.token), scheduled)


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
    """What a device sends again and again: `run(scheduled)` sends it once."""

    kind: str
    every: object  # () -> the seconds until the next one
    run: object
    at: float  # when the next one is due


async def keep(jobs: list[Job], window: Window, results: "Results") -> None:
    """Send a device's requests on their schedules, one at a time on its connection: every
    request due before the end of the window. One due while the last is under way waits
    for it (its latency counts from when it was due), even past the end of the window;
    one whose answer does not come in time fails (TimeoutError)."""
    while (job := min(jobs, key=lambda job: job.at)).at < window.end:
        wait = job.at - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
            results.lag(job.at)
        await job.run(job.at)
        job.at += job.every()


@dataclass
class Results:
    """What one client process measured over the window (latencies in seconds)."""

    window: Window
    polls: list = field(default_factory=list)
    actions: list = field(default_factory=list)
    other: int = 0  # games opened, seats taken
    errors: Counter = field(default_factory=Counter)
    lags: list = field(default_factory=list)
    sent: int = 0
    reopened: int = 0
    cpu: float = 0.0

    async def timed(self, kind: str, request, scheduled: float) -> None:
        """Await `request()`, due at `scheduled`: if due within the measured seconds, its
        latency (from then, whatever the outcome) counted as `kind`, and its failure."""
        try:
            await request()
        except (Failed, RuntimeError, ValueError) as error:
            self._failed(kind, scheduled, str(error))
        finally:
            self._count(kind, scheduled)

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
            (self.polls if kind == "poll" else self.actions).append(
                time.monotonic() - scheduled)

    def lag(self, scheduled: float) -> None:
        """How late the client woke up to send a request due at `scheduled`."""
        if self.window.counts(scheduled):
            self.lags.append(time.monotonic() - scheduled)

    async def watch(self, devices: list[Device]) -> None:
        """The client's CPU time, its requests sent and the connections it opened again,
        over the measured seconds."""
        await asyncio.sleep(self.window.measured - time.monotonic())
        began = time.process_time(), *_counts(devices)
        await asyncio.sleep(self.window.end - time.monotonic())
        ended = time.process_time(), *_counts(devices)
        self.cpu, self.sent, self.reopened = (end - start for end, start
                                              in zip(ended, began, strict=True))

    def add(self, other: "Results") -> None:
        """Add what another client process measured."""
        self.polls += other.polls
        self.actions += other.actions
        self.lags += other.lags
        self.errors += other.errors
        self.other += other.other
        self.sent += other.sent
        self.reopened += other.reopened
        self.cpu += other.cpu


def _counts(devices: list[Device]) -> tuple[int, int]:
    """Requests the devices sent, and connections they opened again, so far."""
    return (sum(device.sent for device in devices),
            sum(device.reopened for device in devices))


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
                    phone_sources(args.phone_network, number, args.phones))
              for number in numbers]
    began, setting_up = time.monotonic(), asyncio.Semaphore(SETTING_UP)

    async def set_up(table: Table) -> None:
        async with setting_up:
            await table.set_up()

    await asyncio.gather(*map(set_up, tables))
    pipe.send(("ready", time.monotonic() - began))
    window = await asyncio.get_running_loop().run_in_executor(None, pipe.recv)
    results = Results(window)
    devices = [viewer.device for table in tables for viewer in (table.screen, *table.phones)]
    await asyncio.gather(results.watch(devices),
                         *[keep(jobs, window, results) for table in tables
                           for jobs in table.schedules(window, results)])
    for device in devices:
        device.close()
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
    """The server's CPU time and memory over the measured seconds."""

    def __init__(self, pid: int, window: Window):
        super().__init__(daemon=True)
        self.pid, self.window = pid, window
        self.cpu, self.rss_max, self.hwm = 0.0, 0, 0

    def run(self) -> None:
        time.sleep(max(0.0, self.window.measured - time.monotonic()))
        began = self._cpu()
        while (left := self.window.end - time.monotonic()) > 0:
            self.rss_max = max(self.rss_max, self._memory("VmRSS"))
            time.sleep(min(1.0, left))
        self.cpu, self.hwm = self._cpu() - began, self._memory("VmHWM")

    def _pids(self) -> list[int]:
        """The server's process and the server processes it started (--processes)."""
        children = Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split()
        return [self.pid, *map(int, children)]

    def _cpu(self) -> float:
        """Seconds of CPU the server used so far (utime + stime, every thread of every
        process)."""
        ticks = 0
        for pid in self._pids():
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    def _memory(self, name: str) -> int:
        """A size in bytes from /proc/PID/status (VmRSS, VmHWM), summed over the server's
        processes."""
        return sum(_status(pid, name) for pid in self._pids())


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

    @property
    def seconds(self) -> float:
        """The seconds measured."""
        return self.window.end - self.window.measured


def run(args) -> Report:
    """Set the café up, play it, and what was measured. The server and the client
    processes are stopped at the end, whatever happens."""
    groups = [list(range(args.tables))[number::args.clients] for number in range(args.clients)]
    load = serving.load_average()
    with tempfile.TemporaryDirectory() as data_dir, phone_network() as args.phone_network, \
            serving.started("companion", data_dir, "--processes", str(args.processes)) as server:
        pipes, processes = [], []
        try:
            for numbers in groups:
                ours, theirs = multiprocessing.Pipe()
                process = multiprocessing.Process(target=client, daemon=True,
                                                  args=(theirs, server.port, numbers, args))
                process.start()
                pipes.append(ours)
                processes.append(process)
            set_up = max(_receive(pipe, "ready", SET_UP_WITHIN) for pipe in pipes)
            start = time.monotonic() + STARTS_AFTER
            window = Window(start, start + args.warm_up, start + args.warm_up + args.seconds,
                            args.every)
            for pipe in pipes:
                pipe.send(window)
            sampler = Sampler(server.pid, window)
            sampler.start()
            results = Results(window)
            for pipe in pipes:
                results.add(_receive(pipe, "done", window.end - time.monotonic() + 2 * TIMEOUT))
            sampler.join()
        finally:
            for process in processes:
                process.kill()
                process.join()
    played = records()
    seated = sum(min(args.phones, len(table_record(number, played)["players"]))
                 for number in range(args.tables))
    limit = waitress_options(serving.bare_app())["connection_limit"]
    return Report(args.tables, limit, seated, args.tables * args.phones - seated, set_up,
                  window, results, args.clients, args.processes, sampler,
                  (load, serving.load_average()))


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


def _spread(latencies: list[float]) -> str:
    """p50, p99 and max, in ms."""
    if not latencies:
        return "none"
    return (f"p50 {statistics.median(latencies) * 1000:.1f} ms, "
            f"p99 {_p99(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms")


def _p99(latencies: list[float]) -> float:
    """The 99th percentile (infinite when nothing was measured)."""
    if len(latencies) < 2:
        return max(latencies, default=float("inf"))
    return statistics.quantiles(latencies, n=100, method="inclusive")[98]


def goals(report: Report) -> dict[str, bool]:
    """Whether each goal of a café is met."""
    results = report.results
    return {"poll p99 < 50 ms": _p99(results.polls) < 0.050,
            "action p99 < 100 ms": _p99(results.actions) < 0.100,
            "0 errors": not results.errors,
            "RSS < 80 MB": report.server.rss_max < 80 * MB}


def lines(report: Report):
    """The lines of figures printed."""
    results, server, seconds = report.results, report.server, report.seconds
    devices = report.tables + report.seated + report.watching
    yield (f"a café of {report.tables} tables: {report.tables} screens, {report.seated} "
           f"seated phones, {report.watching} watching phones ({devices} devices, one "
           f"connection each; the server takes {report.connection_limit} at once), an "
           f"action per table every {report.window.every:g} s")
    yield (f"set up in {report.set_up:.1f} s; {report.window.measured - report.window.start:g}"
           f" s of warm-up, then {seconds:g} s measured")
    yield (f"requests sent: {results.sent}; due: polls {len(results.polls)}, actions "
           f"{len(results.actions)}, new games opened or joined {results.other}")
    yield f"polls: {_spread(results.polls)}"
    yield f"actions: {_spread(results.actions)}"
    yield f"errors: {sum(results.errors.values())}"
    for error, count in results.errors.most_common(5):
        yield f"  {count} × {error}"
    yield (f"server: CPU {server.cpu / seconds:.0%} of one core, RSS max "
           f"{server.rss_max / MB:.0f} MB (VmHWM {server.hwm / MB:.0f} MB)"
           + (f" in {report.processes} processes and the one that started them"
              if report.processes > 1 else ""))
    yield (f"client: CPU {results.cpu / seconds:.0%} of one core in {report.clients} "
           f"process{'es' if report.clients > 1 else ''}, scheduling lag "
           f"p99 {_p99(results.lags) * 1000:.1f} ms, connections opened again after the "
           f"server closed them: {results.reopened}")
    yield f"load average: before {report.load[0]}, after {report.load[1]}"
    yield "goals: " + "; ".join(f"{goal}: {'met' if met else 'MISSED'}"
                                for goal, met in goals(report).items())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--phones", type=int, default=5, help="phones per table")
    parser.add_argument("--every", type=float, default=5.0,
                        help="seconds between two actions of a table")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds measured")
    parser.add_argument("--warm-up", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=1, help="client processes")
    parser.add_argument("--processes", type=int, default=1,
                        help="server processes (templari-companion --processes)")
    args = parser.parse_args(argv)
    report = run(args)
    print("\n".join(lines(report)))
    if not all(goals(report).values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
