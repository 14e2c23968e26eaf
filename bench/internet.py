"""What anyone on the internet may try against a hosted server (issue 41), measured from
other addresses, each client in a network namespace of its own, on SQLite and PostgreSQL:

    python bench/internet.py [--backends sqlite postgresql] [--starts-per-hour 50]
                             [--seconds 10]

Needs root and iproute2; the PostgreSQL backend a PostgreSQL of the bench's own
(bench/balanced.py's, the tests': apt-get install postgresql). Makes three network
namespaces, each joined to this machine by a veth pair (tests/browser_helpers.py), with
addresses of the benchmarking prefixes, the IPv6 ones usable at once (nodad): A holds
addresses in six /64s of 2001:2::/48 (RFC 5180), one /64 for each goal below; B one
address in each of 100 other /64s of that /48; C 30 IPv4 addresses of 198.18.0.0/15
(RFC 2544). The clients are bench/devices.py's browsers (cookies, forms with their CSRF
tokens), run in threads that entered a namespace (tests/netns.py), each bound to one of
its addresses, so that the server sees that address; they send only to this machine's
ends of the pairs (and 127.0.0.1, to see the server listening).

For each backend, on an empty database (PostgreSQL: emptied):
- weak keys: the server (python -m companion.cli --hosted) with TEMPLARI_OPERATOR_KEY of
  13 characters, then of 24 characters of 3 different ones, must exit 1 saying why;
- the server, as `templari-companion --hosted --host A_END` runs it (listening on A's end
  of its pair and on 127.0.0.1; the Host header of an address of this machine needs no
  --name), with a strong key, then:
  - one /64: 30 devices, each on a new address of it, start a game one after another;
  - one address: 60 devices start a game at once;
  - operator's keys: 50 devices on 50 addresses of one /64 type 10 wrong keys each, all at
    once;
  - game codes: 15 devices on 15 addresses of one /64 type 20 wrong codes each, all at
    once; then a new device of another /64 types the right code of a game started there,
    and takes a seat;
  - a device hopping its /64: it starts a game, then for SECONDS records reveals and undos
    as fast as it is answered, each request from a new address of its /64, with its
    cookie;
- the server-wide cap: two servers on one new database (the same data directory, or the
  PostgreSQL database), --starts-per-hour N, one listening on B's end, the other on C's:
  130 devices, one in each of B's /64s and one on each of C's addresses, start a game at
  once.
Prints, for each goal, its figures (the answers by status, a 429 by the limit that says
it) and met or MISSED; exits 1 if a goal is missed.
"""
import argparse
import asyncio
import html
import ipaddress
import itertools
import os
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager, nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as python bench/internet.py: bench is a package

from bench.balanced import database_server  # noqa: E402
from bench.serving import load_average  # noqa: E402
from bench.devices import Device, next_change, take_seat  # noqa: E402
from bench.faults import Server, expect, forms, new_game_fields  # noqa: E402
from companion.store import open_store  # noqa: E402
from companion.store.sql import CODE_ALPHABET, HOSTED_CODE_LENGTH, game_code  # noqa: E402
from companion.web.screens.operator import KEY_VARIABLE, new_key  # noqa: E402
from tests.browser_helpers import PHONE_NETWORKS, free_subnet, joined_namespace  # noqa: E402
from tests.netns import inside  # noqa: E402

# The goals (issue 41).
STARTS_PER_NETWORK = 20  # games one /64 starts in an hour, at most
KEYS_TRIED = 10  # operator's keys of one /64 compared in an hour, at most
# A device's changes, whatever its addresses: 30 at once, then one a second (40 in 10 s).
HOPPED_BURST, HOPPED_RATE = 30, 1.0
# What the clients do.
IN_TURN, AT_ONCE = 30, 60  # starts from a /64's addresses in turn; from one address at once
KEY_DEVICES, KEYS_EACH = 50, 10  # 500 wrong keys
CODE_DEVICES, CODES_EACH = 15, 20  # 300 wrong codes
HOPS = 1500  # addresses of the hopping device's /64 (one a request, then again)
WIDE_V6, WIDE_V4 = 100, 30  # the cap's /64s of one /48, and IPv4 addresses
# The addresses: 2001:2::/48's /64s, each 2001:2:0:N::/64.
A_LINK, B_LINK = "2001:2:0:ff00::/64", "2001:2:0:ff01::/64"  # the pairs' own /64s
A_ROUTE, B_ROUTE = "2001:2:0::/61", "2001:2:0:100::/56"  # A's /64s 1 to 6, B's from 0x100
NETWORKS = {"in turn": 1, "at once": 2, "keys": 3, "codes": 4, "hopping": 5, "other": 6}
SIZES = {"in turn": IN_TURN, "at once": 1, "keys": KEY_DEVICES, "codes": CODE_DEVICES,
         "hopping": HOPS, "other": 2}
WEAK_KEYS = ("correct-horse", "abcabcabcabcabcabcabcabc")
WEAK_SAID = f"error: {KEY_VARIABLE} has "
WEAK_WITHIN = 30  # seconds: a server given a weak key has stopped by then, saying why
# The words of each limit's refusal (429), by which it is told apart.
SAID = {"network's starts": "This network has started as many games within the hour",
        "server's starts": "This server has started as many games within the hour",
        "keys": "Too many keys were typed from this network",
        "codes": "Too many game codes were typed from this network",
        "device's pace": "This device sends changes faster than a table plays",
        "network's pace": "The devices of this network send changes faster"}


def address(network: int, number: int) -> str:
    """Address `number` of the /64 `network` of 2001:2::/48."""
    return f"2001:2:0:{network:x}::{number:x}"


# --- the namespaces ------------------------------------------------------------------

def ip(*args: str, batch: str | None = None) -> None:
    subprocess.run(["ip", *args], input=batch, text=True, check=True, capture_output=True)


def added(namespace: str, device: str, addresses: list[str], length: int) -> None:
    """`addresses` (each of a /`length`) added to `device` in `namespace`, in one batch."""
    usable = " nodad" if length > 32 else ""  # IPv6: no duplicate detection to wait for
    ip("-n", namespace, "-batch", "-", batch="".join(
        f"address add {one}/{length} dev {device}{usable}\n" for one in addresses))


def namespaces(stack: ExitStack) -> dict:
    """A, B and C made (removed when `stack` closes): each its PhoneNet (namespace, this
    machine's end) and the addresses its clients use, by goal for A."""
    tag = os.getpid() % 100000
    made = {name: stack.enter_context(joined_namespace(
        f"internet-{tag}-{name}", f"tio{tag}{name}", f"tii{tag}{name}", subnet))
        for name, subnet in (("a", ipaddress.ip_network(A_LINK)),
                             ("b", ipaddress.ip_network(B_LINK)),
                             ("c", free_subnet(PHONE_NETWORKS, stride=13, length=26)))}
    a = {goal: [address(NETWORKS[goal], number + 1) for number in range(SIZES[goal])]
         for goal in NETWORKS}
    added(made["a"].namespace, f"tii{tag}a", [one for ones in a.values() for one in ones], 64)
    b = [address(0x100 + number, 1) for number in range(WIDE_V6)]
    added(made["b"].namespace, f"tii{tag}b", b, 64)
    c_net = ipaddress.ip_network(f"{made['c'].host_side}/26", strict=False)
    c = [str(one) for one in list(c_net.hosts())[1:1 + WIDE_V4]]  # the namespace's end first
    added(made["c"].namespace, f"tii{tag}c", c[1:], 26)
    for name, route in (("a", A_ROUTE), ("b", B_ROUTE)):  # through the namespace's end:
        # one neighbour for this machine, not one for each address (1,024 at most)
        ip("-6", "route", "add", route, "via", made[name].phone_side, "dev", f"tio{tag}{name}")
    return {"a": (made["a"], a), "b": (made["b"], b), "c": (made["c"], c)}


def in_namespace(net, work, *args):
    """The coroutine `work(net.host_side, *args)` run to its end in a thread inside
    `net`'s namespace: what it returns."""
    return inside(net.namespace, lambda: asyncio.run(work(net.host_side, *args)))


# --- the clients ---------------------------------------------------------------------

def said(answer) -> str:
    """An answer as tallied: its status, and for a 429 the limit that said it."""
    if answer.status != 429:
        return str(answer.status)
    body = html.unescape(answer.body)
    return "429 " + next((limit for limit, words in SAID.items() if words in body), "other")


async def form_of(device: Device, path: str, kind: str):
    """The form of `kind` on the page at `path` (its session made then, if new)."""
    page = expect(await device.request("GET", path), 200, f"the page {path}")
    return next(form for form in forms(page.body) if form.kind == kind)


async def start(device: Device, form=None):
    """The answer to the new game `form` (else the home page's, loaded now) sent."""
    form = form or await form_of(device, "/", "new-game")
    return await device.request("POST", form.action, new_game_fields(form))


async def starts_in_turn(host: str, port: int, sources: list[str]) -> Counter:
    """A new device on each of `sources` starts a game, one after another."""
    tally = Counter()
    for source in sources:
        device = Device(port, source=source, host=host)
        tally[said(await start(device))] += 1
        device.close()
    return tally


async def starts_at_once(host: str, port: int, sources: list[str],
                         ready: threading.Barrier | None = None) -> Counter:
    """A new device on each of `sources` (one may be there many times) loads the home
    page, then (once `ready` is passed, if given) all start a game at once."""
    devices = [Device(port, source=source, host=host) for source in sources]
    started = await asyncio.gather(*(form_of(device, "/", "new-game") for device in devices))
    if ready is not None:
        await asyncio.to_thread(ready.wait)
    answers = await asyncio.gather(*(start(device, form)
                                     for device, form in zip(devices, started)))
    for device in devices:
        device.close()
    return Counter(said(answer) for answer in answers)


async def wrong_tries(host: str, port: int, sources: list[str], each: int, path: str,
                      kind: str, field: str, guess) -> Counter:
    """A new device on each of `sources` sends the form `kind` of `path` `each` times in
    turn, its `field` a wrong `guess()`; all the devices at once."""
    tally = Counter()

    async def one(source: str) -> None:
        device = Device(port, source=source, host=host)
        form = await form_of(device, path, kind)
        for _ in range(each):
            answer = await device.request("POST", form.action,
                                          {**form.fields, field: [guess()]})
            tally[said(answer)] += 1
        device.close()
    await asyncio.gather(*(one(source) for source in sources))
    return tally


def wrong_code() -> str:
    """A hosted game's code, as typed: no game has it, but one chance in 25^12."""
    return game_code("".join(secrets.choice(CODE_ALPHABET)
                             for _ in range(HOSTED_CODE_LENGTH)))


def wrong_key() -> str:
    return secrets.token_urlsafe(24)


async def code_of_a_game(host: str, port: int, source: str) -> str:
    """The code of a game a new device on `source` starts, as its table shows it."""
    device = Device(port, source=source, host=host)
    token = expect(await start(device), 303, "a new game").location.rsplit("/", 1)[1]
    table = expect(await device.request("GET", f"/g/{token}"), 200, "its table page")
    device.close()
    return re.search(r'<strong class="code">([^<]+)</strong>', table.body)[1]


async def right_code(host: str, port: int, source: str, code: str) -> float | str:
    """A new device on `source` types `code` and takes the first seat of its game: ms
    from the code sent to the phone's page shown (or what was refused)."""
    device = Device(port, source=source, host=host)
    form = await form_of(device, "/", "game-code")
    sent = time.monotonic()
    try:
        typed = expect(await device.request("POST", form.action,
                                            {**form.fields, "code": [code]}), 303, "the code")
        await take_seat(device, typed.location.rsplit("/", 2)[1], 0)
    except RuntimeError as refused:  # (expect's)
        return str(refused)
    finally:
        device.close()
    return (time.monotonic() - sent) * 1000


async def hopping(host: str, port: int, sources: list[str], seconds: float) -> dict:
    """One device (its cookie) starts a game, then records reveals and undos for `seconds`
    as fast as it is answered, each request from the next of `sources`."""
    addresses = itertools.cycle(sources)
    device = Device(port, source=next(addresses), host=host)
    made = expect(await start(device), 303, "a new game")
    token, change, tally, sent = made.location.rsplit("/", 1)[1], None, Counter(), 2
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if change is None:
            hop(device, next(addresses))
            page = expect(await device.request("GET", f"/g/{token}"), 200, "the table page")
            change, sent = next_change(page.body), sent + 1
        hop(device, next(addresses))
        answer = await device.request("POST", *change)
        tally[said(answer)], sent = tally[said(answer)] + 1, sent + 1
        if answer.status == 303:
            change = None
    device.close()
    return {"tally": tally, "requests": sent}


def hop(device: Device, source: str) -> None:
    """The device's next request from `source`, on a new connection."""
    device.close()
    device.source = source


# --- the goals -----------------------------------------------------------------------

class Goals:
    """Each goal's line as it is measured, and whether any was missed."""

    missed = False

    def tell(self, what: str, figures: str, met: bool) -> None:
        self.missed |= not met
        print(f"  {what}: {figures}: {'met' if met else 'MISSED'}", flush=True)


def tallied(tally: Counter) -> str:
    return ", ".join(f"{count} {status}" for status, count in sorted(tally.items()))


def weak_keys(goals: Goals, options: list[str]) -> None:
    """The server, given each weak key, exits 1 saying why."""
    for key in WEAK_KEYS:
        try:
            ended = subprocess.run([sys.executable, "-m", "companion.cli", "--hosted",
                                    "--host", "127.0.0.1", "--port", "0", *options], cwd=ROOT,
                                   timeout=WEAK_WITHIN, env={**os.environ, KEY_VARIABLE: key},
                                   capture_output=True, text=True)
        except subprocess.TimeoutExpired:  # (killed then)
            goals.tell(f"weak operator's key {key!r}", f"serving after {WEAK_WITHIN} s", False)
            continue
        line = (ended.stderr.strip().splitlines() or [""])[-1]
        goals.tell(f"weak operator's key {key!r}", f"exit {ended.returncode}, {line!r}",
                   ended.returncode == 1 and line.startswith(WEAK_SAID))


def one_server(goals: Goals, server: Server, net, a: dict, seconds: float) -> None:
    """The goals of the server listening on A's end, each from its own /64 of A."""
    port = server.port
    tally = in_namespace(net, starts_in_turn, port, a["in turn"])
    goals.tell(f"{IN_TURN} starts from one /64, each from a new address of it", tallied(tally),
               tally["303"] == STARTS_PER_NETWORK
               and tally["429 network's starts"] == IN_TURN - STARTS_PER_NETWORK)
    tally = in_namespace(net, starts_at_once, port, a["at once"] * AT_ONCE)
    goals.tell(f"{AT_ONCE} starts at once from one address", tallied(tally),
               tally["303"] == STARTS_PER_NETWORK)
    tally = in_namespace(net, wrong_tries, port, a["keys"], KEYS_EACH, "/operator",
                         "operator-key", "key", wrong_key)
    goals.tell(f"{KEY_DEVICES * KEYS_EACH} wrong operator's keys from one /64 "
               f"({KEY_DEVICES} devices at once; 403: compared)", tallied(tally),
               tally["403"] == KEYS_TRIED and sum(tally.values()) - tally["403"]
               == sum(count for status, count in tally.items() if status.startswith("429")))
    code = in_namespace(net, code_of_a_game, port, a["other"][0])
    tally = in_namespace(net, wrong_tries, port, a["codes"], CODES_EACH, "/", "game-code",
                         "code", wrong_code)
    joined = in_namespace(net, right_code, port, a["other"][1], code)
    seated = isinstance(joined, float)
    goals.tell(f"{CODE_DEVICES * CODES_EACH} wrong codes from one /64 ({CODE_DEVICES} "
               f"devices at once), then the right code from another /64",
               f"{tallied(tally)}; then " + (f"joined and seated in {joined:.0f} ms" if seated
                                            else joined), seated)
    hopped = in_namespace(net, hopping, port, a["hopping"], seconds)
    changes, most = hopped["tally"]["303"], HOPPED_BURST + HOPPED_RATE * seconds
    goals.tell(f"a device hopping its /64 for {seconds:g} s ({hopped['requests']} requests, "
               f"from {min(hopped['requests'], HOPS)} addresses; at most {most:g} changes)",
               f"{changes} changes acknowledged ({tallied(hopped['tally'])})",
               0 < changes <= most)


def the_cap(goals: Goals, servers: list[Server], nets: list, sources: list[list[str]],
            cap: int, counted) -> None:
    """Every device of B and C starts a game at once, B's to the first server, C's to the
    second: the games made, the cap."""
    ready = threading.Barrier(len(nets))
    with ThreadPoolExecutor(len(nets)) as pool:
        tallies = list(pool.map(lambda net, server, mine: in_namespace(
            net, starts_at_once, server.port, mine, ready), nets, servers, sources))
    total = sum(tallies, Counter())
    goals.tell(f"{WIDE_V6} /64s of one /48 and {WIDE_V4} IPv4 addresses start a game at once, "
               f"--starts-per-hour {cap}, two servers",
               f"{tallied(total)} (IPv6: {tallies[0]['303']} games, IPv4: "
               f"{tallies[1]['303']}); {counted()} games stored", total["303"] == cap
               and counted() == cap)


# --- the run -------------------------------------------------------------------------

def backend_run(backend: str, nets: dict, args, folder: Path) -> bool:
    """Every goal on `backend`: whether one was missed."""
    goals = Goals()
    print(f"{backend}:", flush=True)
    since = time.monotonic()
    with database_server() if backend == "postgresql" else nullcontext() as database:
        url = database.fresh() if database else None
        options = ["--database", url] if url else ["--data-dir", str(folder / "weak")]
        weak_keys(goals, options)
        (a_net, a), (b_net, b), (c_net, c) = nets["a"], nets["b"], nets["c"]
        server = Server(folder / "one", url, True, a_net.host_side)
        (folder / "one").mkdir()
        with running(server):
            one_server(goals, server, a_net, a, args.seconds)
        url = database.fresh() if database else None
        (folder / "cap").mkdir()
        cap = ("--starts-per-hour", str(args.starts_per_hour))
        servers = [Server(folder / "cap", url, True, net.host_side, cap)
                   for net in (b_net, c_net)]
        with running(*servers):
            the_cap(goals, servers, [b_net, c_net], [b, c], args.starts_per_hour,
                    lambda: stored_games(folder / "cap", url))
    print(f"  ({time.monotonic() - since:.0f} s)")
    return goals.missed


@contextmanager
def running(*servers: Server):
    """The servers started, stopped on leaving."""
    try:
        for server in servers:
            server.start()
        yield
    finally:
        for server in servers:
            server.stop()


def stored_games(data_dir: Path, url: str | None) -> int:
    store = open_store(data_dir, url)
    try:
        return store.game_count()
    finally:
        store.close()


def run(args) -> int:
    os.environ[KEY_VARIABLE] = new_key()  # the servers' (they inherit it)
    missed = False
    with ExitStack() as stack:
        nets = namespaces(stack)
        print(f"namespaces: A {nets['a'][0].namespace} (this machine's end "
              f"{nets['a'][0].host_side}), B {nets['b'][0].namespace} "
              f"({nets['b'][0].host_side}), C {nets['c'][0].namespace} "
              f"({nets['c'][0].host_side}); load average {load_average()}", flush=True)
        for backend in args.backends:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(
                prefix=f"internet-{backend}-")))
            missed |= backend_run(backend, nets, args, folder)
    print(f"load average after: {load_average()}")
    return 1 if missed else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", nargs="+", default=["sqlite", "postgresql"],
                        choices=["sqlite", "postgresql"])
    parser.add_argument("--starts-per-hour", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        sys.exit("the clients run from network namespaces of their own: run as root")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
