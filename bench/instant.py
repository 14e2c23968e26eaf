"""How soon every other screen at a table shows a change, and how often a quiet one asks,
measured in real browsers:

    python bench/instant.py [--changes 20] [--quiet 60] [--via table|http] [--gap 1.5]
                            [--cpu SHARE]

Starts the table server as `templari-companion` starts it (`python -m companion.cli`:
waitress, each screen told of a change by its game's stream, companion/web/streams.py) on
a temporary data directory, in a process of its own. With --cpu SHARE, the server process
is held to SHARE of one core (0.1: 10%, as a cheap phone hosting the table would give it)
by a CPU quota of a cgroup the benchmark makes: cgroup v2's cpu.max ("10000 100000"),
or cgroup v1's cpu.cfs_quota_us and cpu.cfs_period_us where the cpu controller is
mounted the old way; the server is moved into it once it listens (its start is not
timed), and the cgroup is removed at the end. The server listens on 127.0.0.1 (the host's
own device) and on this machine's end of a veth pair whose other end is in a network
namespace the benchmark makes (198.18.x.y/30 of 198.18.0.0/15); a second Chromium runs
inside that namespace, so the phones and the TV come from another address, as on a
table's Wi-Fi. Needs root and iproute2's `ip`. Traffic goes to those two addresses only;
the namespace, the pair, the cgroup, the server and the browsers go when the benchmark
ends, however it ends.

The host starts a 5-player game from the home page's new-game form (over HTTP, from
127.0.0.1). Then Debian's Chromium opens: the laptop table (/g/<token>, 1280 x 800, on
127.0.0.1), the TV view (/g/<token>/tv, 1920 x 1080, from the namespace) and 5 phones
(360 x 740, touch, from the namespace), each seated through the join page and left on its
own /me page. Each page holds its live part's stream (htmx's sse extension), which brings
the part (#live), drawn for its device, at each change. Each screen is a browser
context of its own (its own cookies and connections), its page given before any of its
scripts a MutationObserver (see WATCH) that notes, for each stamp of the game, when the
live part whose data-stamp is that stamp was put into the page, and the first animation
frame after that; and when the stream's event bringing that stamp reached the page
(htmx's htmx:sseBeforeMessage).

It makes CHANGES changes as the host, alternately a reveal (the lot goes on the table)
and a sale (back between rounds: winners in turn, a price the winner may bid). With
`--via table` (the default) they are tapped on the laptop table's real forms (the reveal
grid's two cards; the Sold form's winner, price, its preview awaited, and Sold), and each
change's answer arrives at the table when Chromium's network stack has its headers
(Playwright's Request timing: startTime + responseStart); the other screens are the TV
and the phones. With
`--via http`, a client of this process posts each change as the table's htmx would (from
127.0.0.1, with a host's session of its own) and its answer arrives when that client has
read it (time.time()); the other screens are then the laptop table too. 1.5 s after each
change the benchmark asks the pages whether every other screen shows it (then every
0.25 s, for up to 10 s: the pages are not asked while they show it), then waits GAP to
2 GAP seconds more before the next: a change every 3 to 5 s by default.

For each change and each other screen the time from the answer's arrival to the screen
showing it: when the new live part was put into the page (the MutationObserver's
Date.now() in the page), the figure the goals are judged by; also the first animation
frame after it, and how the time splits: the stream's event reaching the page, then htmx
putting its part in.
The pages' Date.now(), Python's time.time() and Chromium's network timing all read this
machine's one real-time clock: no offset is applied, and the output says how far each
page's Date.now() was from time.time() read around it (a bound on any offset).

Then every screen is left alone for QUIET seconds (real time) and the requests each
sends are counted (Playwright's context "request" events): its stream opened again, if
it was, and its live part's GETs.

Every screen, the server and the benchmark share this machine's cores, and Chromium's
renderers draw the new parts in software: the screens take their turns, and the last is
drawn later than a table's phones, each with a processor of its own, would draw it. The
figures are an upper bound of a real table's, the more so on a busy machine (the lines
"the machine while ..." say how busy it was).

Prints (some lines wrapped here; N, P and T stand for the figures):

    instant: 20 changes via the laptop table, then 60 s quiet; server held to 10% of one core
    machine: sum(range(1000)) in T µs; load average before: L1 L5 L15
    server: python -m companion.cli --host 198.18.x.y (and 127.0.0.1), port P; phones and
      TV from 198.18.x.z (namespace instant-PID)
    server held to 10% of one core: cgroup v1 cpu.cfs_quota_us 10000, cpu.cfs_period_us
      100000 (/sys/fs/cgroup/cpu/instant-PID)
    screens: laptop table 1280x800 (127.0.0.1), TV 1920x1080 and 5 phones 360x740 (from the
      namespace); a change's answer reaches the laptop table (Chromium has its headers);
      other screens: 6
    the machine while the changes were made: N% of its 2 cores busy, this benchmark
      (server, browsers, itself) N%; the server N% of one core (T s of CPU in T s),
      throttled in N of N quota periods
    the machine while the screens were quiet: ...
    the server's CPU a change: T ms (what it used while the changes were made, less what
      it used as long while quiet, divided by the changes)
    load average after: L1 L5 L15
    clocks: ... each page's Date.now() was within T ms of time.time() read around it ...
      the laptop table put its own answer into its page p50 T ms, p95 T ms, max T ms (n=20)
        after Chromium had its headers; Playwright told this process ... after
    the table's changes took p50 ..., p95 ..., max ... (n=20) from sending to their
      answers' headers
    from a change's answer at the table to each other screen showing it (the new live part
      in the page):
      lot on the table (a reveal): p50 T ms, p95 T ms, max T ms (n=60)
      between rounds (a sale): ...
      all: ... (n=120)
      all, from the change being sent (the table's request going out): ...
      fastest: T ms (a screen may be answered before the table that made the change)
      the first animation frame after it: ...
      of which the stream's event reaching the screen: ...; from there to the part in the
        page: ...
        TV: p50 T ms, p95 T ms, max T ms (n=20)
        Anna: ...
    requests while the changes were made, a change per screen: laptop table N; TV N; ...
    left quiet 60.0 s: requests a minute per screen
      laptop table: N (N requests: N streams opened, N live parts and others)
      ...
    goals: lot on the table: p95 <= 250 ms and max <= 1 s: met; ...; a quiet screen <= 6
      requests a minute: met

Goals (issues 29 and 40): p95 <= 250 ms and max <= 1 s for every kind of change and over
all, every other screen showing every change; a quiet screen at most 6 requests a
minute. Exits with status 1 if a goal is missed.
"""
import argparse
import http.cookiejar
import ipaddress
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as python bench/instant.py: bench is a package

from bench.serving import load_average, machine_speed, stop  # noqa: E402
from tests.browser_helpers import (ARGS, CHROMIUM, PHONE, TABLE, free_subnet,  # noqa: E402
                                   joined_namespace)
from tests.web_helpers import card, find_form, page_headers  # noqa: E402

TV = dict(viewport={"width": 1920, "height": 1080})
PLAYERS = ("Anna", "Bert", "Claus", "Dora", "Emil")
# The lots revealed, in turn: red, green and purple show 0-4, yellow, blue and black 5-9
# (R1), as in tests/web_helpers.GAME.
LOTS = [("red 0", "yellow 5"), ("red 1", "yellow 6"), ("red 2", "yellow 7"),
        ("green 0", "blue 5"), ("green 1", "blue 6"), ("green 2", "blue 7"),
        ("purple 0", "black 5"), ("purple 1", "black 6"), ("purple 2", "black 7"),
        ("red 3", "yellow 8"), ("green 3", "blue 8"), ("purple 3", "black 8"),
        ("red 4", "yellow 9"), ("green 4", "blue 9"), ("purple 4", "black 9")]
REVEAL, SALE = "lot on the table", "between rounds"
GOAL_P95, GOAL_MAX, GOAL_QUIET = 250.0, 1000.0, 6.0  # ms, ms, requests a minute
SHOWS_WITHIN = 10.0  # seconds: a screen that has not shown a change by then missed it
FIRST_LOOK = 1.5  # seconds after a change before the benchmark asks the pages (it then
# takes no CPU from the screens while they show it)
STARTS_WITHIN = 30.0  # seconds: the server says where it listens by then
NETWORKS = ipaddress.ip_network("198.18.0.0/15")  # set aside for network tests (RFC 2544)
PERIOD_US = 100_000  # a CPU quota's period: the server's share of each 0.1 s

# Given to every page before its scripts. For each stamp of the game (the data-stamp of
# the live part), the first live part that carried it: when it was put into the page
# (inserted) and the first animation frame after that (frame); and when the stream's first
# event bringing it reached the page (told), in wall-clock ms.
WATCH = r"""(() => {
  const seen = {}, told = {}, parts = new WeakMap();
  window.__instant = {seen, told};
  const note = (live) => {
    const stamp = live.dataset.stamp, part = parts.get(live);
    if (stamp === undefined || part === undefined || stamp in seen) return;
    seen[stamp] = part;
  };
  new MutationObserver((records) => {
    const now = Date.now();
    for (const record of records) {
      if (record.type === "attributes") {
        if (record.target.id === "live") note(record.target);
        continue;
      }
      for (const node of record.addedNodes) {
        if (node.nodeType !== 1) continue;
        const live = node.id === "live" ? node : node.querySelector("#live");
        if (live === null || parts.has(live)) continue;
        const part = {inserted: now, frame: null};
        parts.set(live, part);
        requestAnimationFrame(() => { part.frame = Date.now(); });
        note(live);
      }
    }
  }).observe(document, {childList: true, subtree: true, attributes: true,
                        attributeFilter: ["data-stamp"]});
  document.addEventListener("htmx:sseBeforeMessage", (event) => {
    const stamp = event.detail.lastEventId;
    if (event.detail.type === "change" && !(stamp in told)) told[stamp] = Date.now();
  });
})();"""


# --- the phones' network ---------------------------------------------------------------

@contextmanager
def phone_network():
    """A network namespace joined to this machine by a veth pair (this machine's end the
    first address of a free /30 of NETWORKS, the namespace's end the second); all of it
    deleted on leaving."""
    if os.geteuid() != 0:
        raise SystemExit("the phones' network namespace needs root")
    if shutil.which("ip") is None:
        raise SystemExit("the phones' network namespace needs `ip` (apt-get install iproute2)")
    pid = os.getpid()
    namespace, outside, inside = f"instant-{pid}", f"tih{pid}", f"tin{pid}"  # names <= 15
    with joined_namespace(namespace, outside, inside, free_subnet(NETWORKS, stride=7)) as net:
        yield net


# --- the table server ------------------------------------------------------------------

@contextmanager
def table_server(address: str, folder: Path):
    """`python -m companion.cli` listening on `address` and 127.0.0.1 (one free port),
    games in `folder`/data: its port. Stopped on leaving (SIGTERM, then SIGKILL)."""
    log_path = folder / "server.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "--host", address, "--port", "0",
             "--data-dir", str(folder / "data")],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + STARTS_WITHIN
        while True:
            found = re.search(r"open http://127\.0\.0\.1:(\d+)", log_path.read_text())
            if found:
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the table server did not start:\n" + log_path.read_text())
            time.sleep(0.05)
        yield process.pid, int(found.group(1))
    finally:
        stop(process)


# --- the server's share of a core --------------------------------------------------------

@dataclass(frozen=True)
class Quota:
    """A cgroup holding the server to a share of one core: how it was set, where, and
    where its process was before."""

    said: str
    folder: Path
    before: Path

    def throttled(self) -> tuple[int, int]:
        """(quota periods in which the cgroup was throttled, periods) so far."""
        stat = dict(line.split() for line in (self.folder / "cpu.stat").read_text().splitlines())
        return int(stat["nr_throttled"]), int(stat["nr_periods"])


@contextmanager
def cpu_quota(pid: int, share: float):
    """The process `pid` (with its threads) held to `share` of one core by a cgroup made
    for it: the Quota. On leaving, the process (if still there) goes back where it was and
    the cgroup is removed."""
    root, version = cpu_hierarchy()
    folder, quota = root / f"instant-{os.getpid()}", round(share * PERIOD_US)
    before = cgroup_of(pid, root, version)
    folder.mkdir()
    try:
        if version == 2:
            (folder / "cpu.max").write_text(f"{quota} {PERIOD_US}")
            said = f'cgroup v2 cpu.max "{quota} {PERIOD_US}"'
        else:
            (folder / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (folder / "cpu.cfs_quota_us").write_text(str(quota))
            said = f"cgroup v1 cpu.cfs_quota_us {quota}, cpu.cfs_period_us {PERIOD_US}"
        (folder / "cgroup.procs").write_text(str(pid))
        yield Quota(said, folder, before)
    finally:
        for left in (folder / "cgroup.procs").read_text().split():
            try:
                (before / "cgroup.procs").write_text(left)
            except OSError:  # ended meanwhile
                pass
        folder.rmdir()


def cpu_hierarchy() -> tuple[Path, int]:
    """Where cgroups with a CPU quota are made, and their version: cgroup v2's hierarchy
    where it offers the cpu controller (enabled for its children if it was not), else
    cgroup v1's cpu hierarchy."""
    if os.geteuid() != 0:
        raise SystemExit("--cpu needs root (it makes a cgroup)")
    mounts = [line.split() for line in Path("/proc/self/mounts").read_text().splitlines()]
    for _, where, kind, options, *_ in mounts:
        offered = Path(where, "cgroup.controllers")
        if kind == "cgroup2" and offered.exists() and "cpu" in offered.read_text().split():
            control = Path(where, "cgroup.subtree_control")
            if "cpu" not in control.read_text().split():
                control.write_text("+cpu")
            return Path(where), 2
    for _, where, kind, options, *_ in mounts:
        if kind == "cgroup" and "cpu" in options.split(","):
            return Path(where), 1
    raise SystemExit("--cpu needs cgroups' cpu controller, and none is mounted")


def cgroup_of(pid: int, root: Path, version: int) -> Path:
    """The cgroup of `root`'s hierarchy that the process `pid` is in."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        number, controllers, path = line.split(":", 2)
        if (number == "0") if version == 2 else ("cpu" in controllers.split(",")):
            return root / path.lstrip("/")
    raise SystemExit(f"process {pid} is in no cgroup of {root}")


def cpu_seconds(pid: int) -> float:
    """Seconds of CPU the process `pid` (all its threads) used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Host:
    """The host's own device over HTTP (127.0.0.1): its cookies, no redirect followed."""

    class _Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    def __init__(self, url: str):
        self.url = url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar),
                                                  self._Stay())

    def request(self, path: str, fields: dict | None = None, headers: dict | None = None):
        """(status, headers, body) of a GET, or a POST of `fields`."""
        data = None if fields is None else urllib.parse.urlencode(
            [(name, value) for name, values in fields.items()
             for value in (values if isinstance(values, list) else [values])]).encode()
        request = urllib.request.Request(self.url + path, data=data, headers=headers or {})
        try:
            with self.opener.open(request, timeout=10) as answer:
                return answer.status, answer.headers, answer.read().decode()
        except urllib.error.HTTPError as answer:
            return answer.code, answer.headers, answer.read().decode()

    def new_game(self) -> str:
        """A new game of PLAYERS from the home page's form: its token."""
        _, _, home = self.request("/")
        form = find_form(home, "new-game")
        status, headers, _ = self.request(
            form.action or "/", {**form.fields, "player": list(PLAYERS)}, page_headers(home))
        if status != 303:
            raise SystemExit(f"the new game was refused: {status}")
        return headers["Location"].rsplit("/", 1)[1]


def stamp_of(fragment: str) -> int:
    """The stamp of the live part in `fragment` (its data-stamp)."""
    tag = re.search(r'<[a-z]+\s[^>]*\bid="live"[^>]*>', fragment)
    stamp = tag and re.search(r'data-stamp="(\d+)"', tag.group())
    if not stamp:
        raise ValueError("no live part in the answer")
    return int(stamp.group(1))


# --- the screens -----------------------------------------------------------------------

@dataclass
class Screen:
    name: str
    context: object
    page: object = None
    requests: list = field(default_factory=list)  # (time.time(), resource type, url)

    def watched(self) -> dict:
        return self.page.evaluate("() => window.__instant")


def open_screen(browser, name: str, url: str, options: dict) -> Screen:
    context = browser.new_context(**options, locale="en-GB")
    context.add_init_script(WATCH)
    screen = Screen(name, context)
    context.on("request", lambda request: screen.requests.append(
        (time.time(), request.resource_type, request.url)))
    screen.page = context.new_page()
    screen.page.goto(url)
    return screen


def seated_phone(browser, name: str, join_url: str) -> Screen:
    """A phone that took `name`'s seat on the join page: it shows its /me page."""
    screen = open_screen(browser, name, join_url, PHONE)
    screen.page.get_by_role("button", name=name, exact=True).tap()
    screen.page.wait_for_url(re.compile(r"/me$"))
    return screen


def clock_offsets(screens, tries: int = 5) -> list[tuple[float, float]]:
    """For each page, how far its Date.now() was from the middle of time.time() read
    just before and after asking it, and how long that took (ms): of `tries`, the one
    that took least (the tightest bound on any offset between the two clocks)."""
    offsets = []
    for screen in screens:
        asked = []
        for _ in range(tries):
            before = time.time()
            now = screen.page.evaluate("Date.now()")
            after = time.time()
            asked.append((now - (before + after) * 500, (after - before) * 1000))
        offsets.append(min(asked, key=lambda offset: offset[1]))
    return offsets


# --- the changes -----------------------------------------------------------------------

@dataclass
class Change:
    kind: str  # REVEAL or SALE
    stamp: int  # the game's stamp after it
    sent: float  # ms since the epoch: it was sent
    answered: float  # ms since the epoch: its answer arrived at the table
    noticed: float | None = None  # ms: when this process got Playwright's response event


class Table:
    """What the game holds, to choose legal sales: each player's card numbers and coins."""

    def __init__(self):
        self.digits = {name: set() for name in PLAYERS}
        self.coins = {name: 12 for name in PLAYERS}
        self.lots = iter(LOTS)
        self.lot = None
        self.sales = 0

    def next_lot(self):
        self.lot = next(self.lots)
        return self.lot

    def next_sale(self) -> tuple[str, int]:
        winner = PLAYERS[self.sales % len(PLAYERS)]
        self.sales += 1
        price = next(price for price in range(1, 10)
                     if price not in self.digits[winner] and price <= self.coins[winner])
        self.digits[winner] |= {int(words.split()[1]) for words in self.lot}
        self.coins[winner] -= price  # at worst: some of it may come back to them
        return winner, price


def change_on_the_table(page, table: Table, kind: str) -> Change:
    """Tap the change on the laptop table's forms; the time its answer arrived."""
    from playwright.sync_api import TimeoutError as NoAnswer
    noticed, posted = {}, []

    def on_response(response):
        if response.request.method == "POST":
            noticed.setdefault("at", time.time() * 1000)

    def on_request(request):
        posted.append(request.method)
    page.on("response", on_response)
    page.on("request", on_request)
    try:
        with page.expect_response(lambda response: response.request.method == "POST"
                                  and response.url.endswith("/act")) as answer:
            if kind == REVEAL:
                grid = page.locator("form.action-reveal")
                for words in table.next_lot():
                    grid.get_by_role("checkbox", name=words, exact=True).click()
            else:
                winner, price = table.next_sale()
                form = page.locator("form.action-sold")
                form.get_by_role("group", name="Winner").get_by_role(
                    "radio", name=winner, exact=True).click()
                # The form's preview of the sale, asked for as the price is typed, moves
                # the Sold button when it comes: it is awaited before the tap.
                typed = re.compile(rf"/preview\?.*[?&]price={price}(?:&|$)")
                with page.expect_response(lambda response: typed.search(response.url)):
                    form.get_by_role("textbox", name="Price", exact=True).fill(str(price))
                form.get_by_role("button", name="Sold", exact=True).click()
        response = answer.value
        timing = response.request.timing
        if response.status != 200:
            raise SystemExit(f"the table's change was answered {response.status}")
        stamp = stamp_of(response.text())
    except NoAnswer:
        sent = "POST" in posted
        raise SystemExit(
            f"the table's change ({kind}) got no answer: "
            + ("the server did not answer its form" if sent else "its form was never sent")
            + f"; the table shows stamp {stamp_of(page.content())}") from None
    finally:
        page.remove_listener("response", on_response)
        page.remove_listener("request", on_request)
    return Change(kind, stamp, timing["startTime"] + timing["requestStart"],
                  timing["startTime"] + timing["responseStart"], noticed.get("at"))


def change_over_http(host: Host, token: str, table: Table, kind: str) -> Change:
    """Post the change as the table's htmx would, from 127.0.0.1 with the host's session;
    the time its answer was read."""
    _, _, page = host.request(f"/g/{token}")
    if kind == REVEAL:
        form = find_form(page, "action-reveal")
        values = {"cards": [card(words) for words in table.next_lot()]}
    else:
        form = find_form(page, "action-sold")
        winner, price = table.next_sale()
        values = {"winner": str(PLAYERS.index(winner)), "price": str(price)}
    headers = {**page_headers(page), "HX-Request": "true",
               "Content-Type": "application/x-www-form-urlencoded"}
    sent = time.time() * 1000
    status, _, answer = host.request(form.action, {**form.fields, **values}, headers)
    answered = time.time() * 1000
    if status != 200:
        raise SystemExit(f"the change was answered {status}")
    return Change(kind, stamp_of(answer), sent, answered)


# --- figures ---------------------------------------------------------------------------

def requests_in(screen: Screen, span: tuple[float, float]) -> list[str]:
    """The resource types of the requests `screen` sent within `span` (time.time())."""
    return [kind for at, kind, _ in screen.requests if span[0] <= at < span[1]]


def percentile(values, share: float) -> float:
    """The nearest-rank percentile of `values` (share 0.95: p95)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def figures(values) -> str:
    if not values:
        return "none"
    return (f"p50 {percentile(values, 0.5):.0f} ms, p95 {percentile(values, 0.95):.0f} ms, "
            f"max {max(values):.0f} ms (n={len(values)})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--quiet", type=float, default=60.0, help="seconds left quiet")
    parser.add_argument("--via", choices=["table", "http"], default="table",
                        help="make the changes on the laptop table's forms, or over HTTP")
    parser.add_argument("--gap", type=float, default=1.5,
                        help="seconds (GAP to 2 GAP) between a change shown everywhere "
                             "and the next")
    parser.add_argument("--cpu", type=float, metavar="SHARE",
                        help="hold the server to SHARE of one core (0.1: 10%%)")
    args = parser.parse_args(argv)
    if args.changes > 2 * len(LOTS):
        parser.error(f"at most {2 * len(LOTS)} changes")
    if args.cpu is not None and not 0.01 <= args.cpu <= 1:
        parser.error("--cpu takes a share of one core from 0.01 to 1")
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is missing: apt-get install chromium-headless-shell")
    from playwright.sync_api import sync_playwright

    # SIGTERM and SIGHUP end the benchmark as Ctrl+C does: everything made is undone.
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda *_: sys.exit(2))
    held = "" if args.cpu is None else f"; server held to {args.cpu:.0%} of one core"
    print(f"instant: {args.changes} changes via "
          f"{'the laptop table' if args.via == 'table' else 'HTTP'}, then {args.quiet:.0f} s "
          f"quiet{held}")
    print(f"machine: sum(range(1000)) in {machine_speed():.1f} µs; load average before: "
          f"{load_average()}")
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="instant-")))
        net = stack.enter_context(phone_network())
        server, port = stack.enter_context(table_server(net.host_side, folder))
        print(f"server: python -m companion.cli --host {net.host_side} (and 127.0.0.1), "
              f"port {port}; phones and TV from {net.phone_side} (namespace {net.namespace})")
        quota = None
        if args.cpu is not None:
            quota = stack.enter_context(cpu_quota(server, args.cpu))
            print(f"server held to {args.cpu:.0%} of one core: {quota.said} ({quota.folder})")
        url, phone_url = f"http://127.0.0.1:{port}", f"http://{net.host_side}:{port}"
        host = Host(url)
        token = host.new_game()
        wrapper = folder / "chromium-in-namespace"
        wrapper.write_text(f"#!/bin/sh\nexec {shutil.which('ip')} netns exec {net.namespace} "
                           f'{CHROMIUM} "$@"\n')
        wrapper.chmod(0o755)
        playwright = stack.enter_context(sync_playwright())
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        stack.callback(browser.close)
        phones_browser = playwright.chromium.launch(executable_path=str(wrapper), args=ARGS)
        stack.callback(phones_browser.close)

        laptop = open_screen(browser, "laptop table", f"{url}/g/{token}", TABLE)
        tv = open_screen(phones_browser, "TV", f"{phone_url}/g/{token}/tv", TV)
        phones = [seated_phone(phones_browser, name, f"{phone_url}/g/{token}/join")
                  for name in PLAYERS]
        screens = [laptop, tv, *phones]
        watchers = [tv, *phones] if args.via == "table" else screens
        answered = ("reaches the laptop table (Chromium has its headers)" if args.via == "table"
                    else "is read by an HTTP client of the host's (127.0.0.1)")
        print(f"screens: laptop table 1280x800 (127.0.0.1), TV 1920x1080 and {len(phones)} "
              f"phones 360x740 (from the namespace); a change's answer {answered}; other "
              f"screens: {len(watchers)}")
        laptop.page.wait_for_timeout(2000)  # every screen's stream open, the last seat shown
        stamp = stamp_of(laptop.page.content())
        if any(str(stamp) not in screen.watched()["seen"] for screen in screens):
            raise SystemExit("a screen does not show the game as it is after the set-up")

        table, changes, cpu = Table(), [], Cpu.now(server, quota)
        changing_from = time.time()
        for index in range(args.changes):
            kind = REVEAL if index % 2 == 0 else SALE
            if args.via == "table":
                change = change_on_the_table(laptop.page, table, kind)
            else:
                change = change_over_http(host, token, table, kind)
            changes.append(change)
            laptop.page.wait_for_timeout(FIRST_LOOK * 1000)
            deadline = time.monotonic() + SHOWS_WITHIN
            while True:
                behind = [screen for screen in watchers
                          if str(change.stamp) not in screen.watched()["seen"]]
                if not behind or time.monotonic() > deadline:
                    break
                laptop.page.wait_for_timeout(250)
            laptop.page.wait_for_timeout(random.uniform(args.gap, 2 * args.gap) * 1000)

        changing, changed = (changing_from, time.time()), (cpu, Cpu.now(server, quota))
        print(f"the machine while the changes were made: {changed[1].since(cpu)}")
        offsets = clock_offsets(screens)
        watched = {screen.name: screen.watched() for screen in screens}
        laptop.page.wait_for_timeout(1000)  # (Playwright's events are told while it waits)
        quiet_from, cpu = time.time(), Cpu.now(server, quota)
        laptop.page.wait_for_timeout(args.quiet * 1000)
        quiet_until, rested = time.time(), (cpu, Cpu.now(server, quota))
        print(f"the machine while the screens were quiet: {rested[1].since(cpu)}")
        print(f"the server's CPU a change: {Cpu.per_change(changed, rested, len(changes)):.0f} "
              "ms (what it used while the changes were made, less what it used as long "
              "while quiet, divided by the changes)")
        laptop.page.wait_for_timeout(200)  # the last requests' events

    print(f"load average after: {load_average()}")
    return report(changes, watchers, watched, offsets, screens, changing,
                  (quiet_from, quiet_until))


def report(changes, watchers, watched, offsets, screens, changing, quiet) -> int:
    shown = {REVEAL: [], SALE: []}
    sent, drawn, missed = [], [], []
    told, drawing = [], []
    for change in changes:
        for screen in watchers:
            seen = watched[screen.name]
            part = seen["seen"].get(str(change.stamp))
            if part is None:
                missed.append((screen.name, change.stamp))
                continue
            shown[change.kind].append(part["inserted"] - change.answered)
            sent.append(part["inserted"] - change.sent)
            if part["frame"] is not None:
                drawn.append(part["frame"] - change.answered)
            heard = seen["told"].get(str(change.stamp))
            if heard is not None:
                told.append(heard - change.answered)
                drawing.append(part["inserted"] - heard)
    every = shown[REVEAL] + shown[SALE]
    noticed = [change.noticed - change.answered for change in changes if change.noticed]
    worst = max(offsets, key=lambda offset: abs(offset[0]))
    print("clocks: the pages' Date.now(), Python's time.time() and Chromium's network timing "
          "all read this machine's real-time clock, used as is (no offset); each page's "
          f"Date.now() was within {abs(worst[0]):.1f} ms of time.time() read around it "
          f"(brackets up to {max(width for _, width in offsets):.1f} ms wide)")
    if noticed:
        own = [watched["laptop table"]["seen"][str(change.stamp)]["inserted"] - change.answered
               for change in changes if str(change.stamp) in watched["laptop table"]["seen"]]
        print(f"  the laptop table put its own answer into its page {figures(own)} after "
              f"Chromium had its headers; Playwright told this process {figures(noticed)} "
              "after")
    took = [change.answered - change.sent for change in changes]
    print(f"the table's changes took {figures(took)} from sending to their answers' headers")
    print("from a change's answer at the table to each other screen showing it (the new "
          "live part in the page):")
    print(f"  {REVEAL} (a reveal): {figures(shown[REVEAL])}")
    print(f"  {SALE} (a sale): {figures(shown[SALE])}")
    print(f"  all: {figures(every)}")
    print(f"  all, from the change being sent (the table's request going out): "
          f"{figures(sent)}")
    print(f"  fastest: {min(every, default=0):.0f} ms (a screen may be answered before the "
          "table that made the change)")
    print(f"  the first animation frame after it: {figures(drawn)}")
    print(f"  of which the stream's event reaching the screen: {figures(told)}; from there to "
          f"the part in the page: {figures(drawing)}")
    for screen in watchers:
        own = [watched[screen.name]["seen"][str(change.stamp)]["inserted"] - change.answered
               for change in changes if str(change.stamp) in watched[screen.name]["seen"]]
        print(f"    {screen.name}: {figures(own)}")
    if missed:
        print(f"  not shown within {SHOWS_WITHIN:.0f} s: {len(missed)} ({missed[:5]})")
    print("requests while the changes were made, a change per screen: " + "; ".join(
        f"{screen.name} {len(requests_in(screen, changing)) / len(changes):.1f}"
        for screen in screens))
    seconds = quiet[1] - quiet[0]
    print(f"left quiet {seconds:.1f} s: requests a minute per screen")
    rates = {}
    for screen in screens:
        kinds = requests_in(screen, quiet)
        rates[screen.name] = len(kinds) * 60 / seconds
        print(f"  {screen.name}: {rates[screen.name]:.1f} ({len(kinds)} requests: "
              f"{kinds.count('eventsource')} streams opened, "
              f"{len(kinds) - kinds.count('eventsource')} live parts and others)")

    goals = []
    for label, values in ((REVEAL, shown[REVEAL]), (SALE, shown[SALE]), ("all", every)):
        met = bool(values) and not missed and percentile(values, 0.95) <= GOAL_P95 \
            and max(values) <= GOAL_MAX
        goals.append((f"{label}: p95 <= {GOAL_P95:.0f} ms and max <= {GOAL_MAX / 1000:.0f} s",
                      met))
    goals.append((f"every other screen showed every change within {SHOWS_WITHIN:.0f} s",
                  not missed))
    goals.append((f"a quiet screen <= {GOAL_QUIET:.0f} requests a minute",
                  max(rates.values()) <= GOAL_QUIET))
    print("goals: " + "; ".join(f"{label}: {'met' if met else 'MISSED'}" for label, met in goals))
    return 0 if all(met for _, met in goals) else 1


@dataclass(frozen=True)
class Cpu:
    """CPU time so far (clock ticks): the machine's busy time on all its cores, this
    benchmark's (this process and all it started: the server, the browsers) and the
    server's; and the server's quota periods (throttled, all), if it has a quota."""

    at: float
    busy: int
    ours: int
    server: int
    periods: tuple[int, int] | None

    @classmethod
    def now(cls, server: int, quota: Quota | None) -> "Cpu":
        ticks = [int(value) for value in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        idle = ticks[3] + ticks[4]  # idle, iowait
        parents, times = {}, {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # gone meanwhile
                continue
            parents[int(entry.name)] = int(fields[1])
            times[int(entry.name)] = int(fields[11]) + int(fields[12])  # utime, stime
        ours, todo = 0, [os.getpid()]
        while todo:
            pid = todo.pop()
            ours += times.get(pid, 0)
            todo += [child for child, parent in parents.items() if parent == pid]
        return cls(time.monotonic(), sum(ticks[:8]) - idle, ours, times.get(server, 0),
                   quota and quota.throttled())

    @staticmethod
    def per_change(changed: tuple["Cpu", "Cpu"], rested: tuple["Cpu", "Cpu"],
                   count: int) -> float:
        """Milliseconds of CPU the server used for each of `count` changes made between
        `changed`, less what it uses as long while quiet (`rested`)."""
        busy = changed[1].server - changed[0].server
        idle = ((rested[1].server - rested[0].server) / (rested[1].at - rested[0].at)
                * (changed[1].at - changed[0].at))
        return (busy - idle) / os.sysconf("SC_CLK_TCK") * 1000 / count

    def since(self, start: "Cpu") -> str:
        """The machine's cores' busy share from `start` to this, this benchmark's, the
        server's (of one core) and its quota periods throttled."""
        ticks = (self.at - start.at) * os.sysconf("SC_CLK_TCK")
        said = (f"{100 * (self.busy - start.busy) / ticks / os.cpu_count():.0f}% of its "
                f"{os.cpu_count()} cores busy, this benchmark (server, browsers, itself) "
                f"{100 * (self.ours - start.ours) / ticks / os.cpu_count():.0f}%; the server "
                f"{100 * (self.server - start.server) / ticks:.1f}% of one core "
                f"({(self.server - start.server) / os.sysconf('SC_CLK_TCK'):.2f} s of CPU in "
                f"{self.at - start.at:.0f} s)")
        if self.periods is None:
            return said
        throttled, periods = (now - then for now, then in zip(self.periods, start.periods))
        return f"{said}, throttled in {throttled} of {periods} quota periods"


if __name__ == "__main__":
    sys.exit(main())
