"""One device on the table's Wi-Fi attacks the server while another plays: does the player's
device keep its pages, polls and actions under 200 ms (p99)? And many addresses flooding a
game's most expensive pages: does it keep them under 300 ms?

    python bench/attacks.py [--seconds 30] [--attacks quiet trickle pipeline flood]
                            [--hosted [--processes 4]]

The server listens on this machine's end of two veth pairs, each leading to a network
namespace the benchmark makes (198.18.0.0/15 addresses, RFC 2544): the attacker's (with
FLOODERS addresses of its own) and the player's. Needs root and iproute2; traffic goes
only to those addresses and the loopback. The server is:
- by default, the table's (bench/serving.py: the table's app and waitress configuration,
  SQLite), also on 127.0.0.1, where the host's device imports the games through the home
  page's form;
- with --hosted, the hosted stack (bench/hosted.py's: a PostgreSQL of its own, the hosted
  server in PROCESSES processes on 127.0.0.1, haproxy with docs/deploy/haproxy.cfg in
  front, listening on the two veth ends only), every device speaking HTTPS to haproxy;
  the games are imported through the home page's form by a device of their own (from
  this machine's end of the player's pair): on a hosted server the device that starts a
  game hosts it.

Phases, each SECONDS long, the player playing throughout (a seated phone: its page every
5 s, its live part every second, an action every 2 s through the table's forms, a reveal
then its undo, each request timed from the moment it was due):
- quiet: no attack;
- trickle: 4,200 connections from one address, each sending a request's first line then a
  header line every 3 s, never finishing; one the server closes, or refuses, is opened
  again 1 s later;
- pipeline: 300 connections from one address (another), each sending 200 requests for the
  table page in one write and never reading an answer; each opened again 10 s later (1 s
  after a refusal);
- flood: 20 addresses, each asking for the history pages, the score and the record of a
  finished full game (tests/fixtures/full-game-3.json, imported by the host) one after
  another, each as soon as the last is answered, whatever the answer (as fast as GETs are
  allowed: they have no pace).
Prints, per phase, the player's p50 / p99 / max by kind, its errors, the CPU of the server
(hosted: of its processes, haproxy's and PostgreSQL's) and the attacker's, and what the
attacker got (connections opened, refused, closed by the server; the flood: its answers
by status); exits 1 if a p99 is at its phase's goal or more (300 ms for the flood, 200 ms
for the others), or the player saw an error.
"""
import argparse
import asyncio
import ipaddress
import itertools
import json
import os
import resource
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as python bench/attacks.py: bench is a package

from bench import hosted, serving  # noqa: E402
from bench.devices import (Device, Failed, connection, import_game,  # noqa: E402
                           reveal_or_undo, take_seat)
from bench.faults import expect  # noqa: E402
from companion.web.streams import HELD  # noqa: E402

GOAL_MS = 200.0
GOALS_MS = {"flood": 300.0}  # a phase's own goal, where it has one
# The attacker's pair (its end holds every address of the subnet but this machine's: the
# flooders'), the player's.
SUBNETS = ("198.18.200.0/27", "198.18.201.0/30")
TRICKLERS, TRICKLE_EVERY, REOPEN_AFTER = 4200, 3.0, 1.0
CONNECT_WITHIN = 10.0  # seconds: a connection not made by then (TLS included) is refused
PIPELINERS, PIPELINED, PIPELINE_AGAIN = 300, 200, 10.0
FLOODERS = 20
# The attacker's addresses: its pair's end holds them all; the flooders' first, then one
# for each attack from one address (what haproxy keeps of an address, its connections
# and requests of the last 10 s for 60 s, is then not the next attack's).
ATTACKERS = [str(address) for address in ipaddress.ip_network(SUBNETS[0]).hosts()][1:]
SOURCE = {attack: ATTACKERS[FLOODERS + number]
          for number, attack in enumerate(("trickle", "pipeline"))}
FLOODED = ("history", "history?page=2", "history?page=3", "score", "record.json")
FINISHED = ROOT / "tests" / "fixtures" / "full-game-3.json"
PLAYERS = ["Anna", "Bert", "Claus", "Dieter", "Ella"]  # a seat for each phase's phone
NEW_GAME = json.dumps({"format": "templari-game/1", "edition": "en", "players": PLAYERS,
                       "events": []}).encode()
PROCESSES = 4  # the hosted server's, by default (two a core of this 2-core machine)


# --- the namespaces -------------------------------------------------------------------

def ip(*args) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


def make_namespaces(tag: str) -> list[tuple[str, str, str]]:
    """(namespace, this machine's address, the namespace's address) for each subnet."""
    made = []
    for number, subnet in enumerate(SUBNETS):
        name, outside, inside = f"att{tag}{number}", f"ta{tag}{number}", f"tb{tag}{number}"
        here, *theirs = ipaddress.ip_network(subnet).hosts()
        length = ipaddress.ip_network(subnet).prefixlen
        ip("netns", "add", name)
        ip("link", "add", outside, "type", "veth", "peer", "name", inside, "netns", name)
        ip("addr", "add", f"{here}/{length}", "dev", outside)
        ip("link", "set", outside, "up")
        for there in theirs:
            ip("-n", name, "addr", "add", f"{there}/{length}", "dev", inside)
        ip("-n", name, "link", "set", inside, "up")
        ip("-n", name, "link", "set", "lo", "up")
        made.append((name, str(here), str(theirs[0])))
    return made


def remove_namespaces(made) -> None:
    for name, _, _ in made:
        subprocess.run(["ip", "netns", "delete", name], capture_output=True)


def in_namespace(name: str, *args: str) -> subprocess.Popen:
    """This script, in `name`'s network, with `args`: its output read as JSON at the end."""
    return subprocess.Popen(["ip", "netns", "exec", name, sys.executable, __file__, *args],
                            stdout=subprocess.PIPE, text=True)


# --- the player -----------------------------------------------------------------------

async def play(host: str, port: int, token: str, seat: int, seconds: float,
               tls: ssl.SSLContext | None) -> dict:
    """A phone's requests from `seat` for `seconds`, each timed from when it was due (none
    if it could not take its seat: told as its one error)."""
    phone = Device(port, host=host, tls=tls)
    timings = {"page": [], "poll": [], "action": []}
    try:
        await take_seat(phone, token, seat)
    except (Failed, RuntimeError) as error:
        return {"timings": timings, "errors": [f"taking a seat: {error}"]}
    errors, began = [], time.monotonic()
    due = {"page": began, "poll": began, "action": began + 0.5}
    every = {"page": 5.0, "poll": 1.0, "action": 2.0}
    while min(due.values()) < began + seconds:
        kind = min(due, key=due.get)
        await asyncio.sleep(max(0.0, due[kind] - time.monotonic()))
        try:
            if kind == "action":
                await act(phone, token, timings)
            else:
                path = f"/g/{token}" if kind == "page" else f"/g/{token}/live?v=0"
                answer = await phone.request("GET", path, headers={"HX-Request": "true"}
                                             if kind == "poll" else None)
                expect(answer, 200, kind)
                timings[kind].append((time.monotonic() - due[kind]) * 1000)
        except Exception as error:  # noqa: BLE001 (counted and told)
            errors.append(f"{kind}: {error}")
        due[kind] += every[kind]
    return {"timings": timings, "errors": errors}


async def act(phone: Device, token: str, timings: dict) -> None:
    """A reveal or its undo (devices.reveal_or_undo): the post alone is timed."""
    timings["action"].append(await reveal_or_undo(phone, token))


# --- the attacker ---------------------------------------------------------------------

async def trickle(host: str, port: int, seconds: float, tls: ssl.SSLContext | None) -> dict:
    """TRICKLERS connections from one address sending a header line every TRICKLE_EVERY
    seconds."""
    counts = {"opened": 0, "refused": 0, "closed by the server": 0}
    end = time.monotonic() + seconds

    async def one(number: int) -> None:
        await asyncio.sleep(number / TRICKLERS)  # opened over a second
        while time.monotonic() < end:
            try:
                reader, writer = await asyncio.wait_for(
                    connection(host, port, SOURCE["trickle"], tls), CONNECT_WITHIN)
            except OSError:  # timeouts and TLS errors too
                counts["refused"] += 1
                await asyncio.sleep(REOPEN_AFTER)
                continue
            counts["opened"] += 1
            writer.write(b"GET / HTTP/1.1\r\n")
            try:
                while time.monotonic() < end:
                    try:
                        if await asyncio.wait_for(reader.read(1024), TRICKLE_EVERY) == b"":
                            counts["closed by the server"] += 1
                            break
                    except asyncio.TimeoutError:
                        writer.write(b"X-Trickle: %d\r\n" % number)
            except OSError:
                counts["closed by the server"] += 1
            writer.close()
            await asyncio.sleep(REOPEN_AFTER)
    await asyncio.gather(*(one(number) for number in range(TRICKLERS)))
    return counts


async def pipeline(host: str, port: int, token: str, seconds: float,
                   tls: ssl.SSLContext | None) -> dict:
    """PIPELINERS connections from one address sending PIPELINED requests each, never
    reading."""
    request = f"GET /g/{token} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
    counts = {"opened": 0, "refused": 0}
    end = time.monotonic() + seconds

    async def one() -> None:
        while time.monotonic() < end:
            try:
                _, writer = await asyncio.wait_for(
                    connection(host, port, SOURCE["pipeline"], tls), CONNECT_WITHIN)
            except OSError:  # timeouts and TLS errors too
                counts["refused"] += 1
                await asyncio.sleep(REOPEN_AFTER)
                continue
            counts["opened"] += 1
            writer.write(request * PIPELINED)
            await asyncio.sleep(PIPELINE_AGAIN)
            writer.close()
    await asyncio.gather(*(one() for _ in range(PIPELINERS)))
    return counts


async def flood(host: str, port: int, token: str, seconds: float,
                tls: ssl.SSLContext | None) -> dict:
    """FLOODERS addresses, each asking for the FLOODED pages of the game `token` in turn,
    each as soon as the last is answered: the answers by status."""
    counts = {}
    end = time.monotonic() + seconds

    async def one(source: str) -> None:
        device = Device(port, source=source, host=host, tls=tls)
        for page in itertools.cycle(FLOODED):
            if time.monotonic() >= end:
                break
            try:
                status = str((await device.request("GET", f"/g/{token}/{page}")).status)
            except Failed:
                status = "failed"
            counts[status] = counts.get(status, 0) + 1
        device.close()
    await asyncio.gather(*(one(address) for address in ATTACKERS[:FLOODERS]))
    return counts


# --- the servers ----------------------------------------------------------------------

@dataclass(frozen=True)
class Target:
    """What the phases are played against: its port (on this machine's end of each veth
    pair), the game the player sits at, the finished game the flood asks for (None without
    a flood), the certificate a client trusts (HTTPS; None: plain HTTP) and the processes
    whose CPU is told (pid: what it is)."""

    port: int
    token: str
    finished: str | None
    certificate: str | None
    roots: dict[int, str]


async def games(host: Device, flooded: bool) -> tuple[str, str | None]:
    """The player's game (NEW_GAME) and, if `flooded`, the finished one (FINISHED), imported
    by `host` through the home page's form: their tokens."""
    token = await import_game(host, NEW_GAME)
    finished = await import_game(host, FINISHED.read_bytes()) if flooded else None
    host.close()
    return token, finished


@contextmanager
def table_server(folder: Path, addresses: tuple[str, ...], flooded: bool):
    """The table's server (bench/serving.py) on SQLite in `folder`, on 127.0.0.1 and
    `addresses`, its games imported by the host (loopback): the Target."""
    listen = [option for address in addresses for option in ("--listen", address)]
    with serving.started("companion", str(folder / "db"), *listen) as server:
        token, finished = asyncio.run(games(Device(server.port), flooded))
        yield Target(server.port, token, finished, None, {server.pid: "server"})


@contextmanager
def hosted_stack(addresses: tuple[str, ...], processes: int, flooded: bool):
    """The hosted stack (bench/hosted.py's: a server a port, as the systemd template runs
    them), haproxy on `addresses`, its games imported by a device from the last of them:
    the Target."""
    with hosted.stack("waitress", HELD, processes, addresses=addresses,
                      ports=True) as running:
        front = running.front
        token, finished = asyncio.run(games(
            Device(front.port, host=addresses[-1], tls=front.tls), flooded))
        yield Target(front.port, token, finished, str(front.certificate), running.roots)


# --- the run --------------------------------------------------------------------------

def spread(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {statistics.median(ordered):.1f} / p99 {p99:.1f} / max {ordered[-1]:.1f} ms"


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0


def run(args) -> int:
    """Every phase; 0 if the player's every p99 is under the goal with no error."""
    made = make_namespaces(str(os.getpid() % 10000))
    (attacker, attacked, _), (player, served, _) = made
    flooded, missed = "flood" in args.attacks, False
    try:
        with tempfile.TemporaryDirectory() as data, (
                hosted_stack((attacked, served), args.processes, flooded) if args.hosted
                else table_server(Path(data), (attacked, served), flooded)) as target:
            print(f"machine: sum(range(1000)) in {serving.machine_speed():.1f} µs; load "
                  f"average before: {serving.load_average()}", flush=True)
            for seat, phase in enumerate(args.attacks):
                missed |= phase_run(phase, seat % len(PLAYERS), target, (attacker, attacked),
                                    (player, served), args.seconds)
            print(f"load average after: {serving.load_average()}")
    finally:
        remove_namespaces(made)
    return 1 if missed else 0


def phase_run(phase: str, seat: int, target: Target, attacker: tuple[str, str],
              player: tuple[str, str], seconds: float) -> bool:
    """One phase: the attack (if any; the flood's on the finished game) from `attacker`'s
    namespace and the player (a new phone, on `seat`) from `player`'s (each: the namespace,
    the address it reaches the server at) side by side; whether a goal was missed."""
    started, cpu = time.monotonic(), hosted.cpu_seconds(target.roots)
    common = ["--port", str(target.port)] + (["--certificate", target.certificate]
                                              if target.certificate else [])
    attack = None if phase == "quiet" else in_namespace(
        attacker[0], "--role", phase, "--target", attacker[1], *common,
        "--seconds", str(seconds + 5),
        f"--token={target.finished if phase == 'flood' else target.token}")  # may start with -
    if attack is not None:
        time.sleep(3)  # the attack under way before the player is timed
    playing = in_namespace(player[0], "--role", "player", "--target", player[1], *common,
                           "--seconds", str(seconds), f"--token={target.token}",
                           "--seat", str(seat))
    result = json.loads(playing.communicate()[0])
    held = json.loads(attack.communicate()[0]) if attack is not None else {}
    elapsed, used = time.monotonic() - started, hosted.cpu_seconds(target.roots)
    busy = ", ".join(f"{part} {(used[part] - cpu[part]) / elapsed:.0%}" for part in used)
    print(f"{phase}: CPU of one core: {busy}; attacker {held or 'none'}")
    for kind, values in result["timings"].items():
        print(f"  {kind}s: {spread(values)} ({len(values)})")
    print(f"  errors: {len(result['errors'])} {result['errors'][:3]}")
    worst, goal = (max(p99(values) for values in result["timings"].values()),
                   GOALS_MS.get(phase, GOAL_MS))
    print(f"  goal p99 < {goal:.0f} ms and no error: "
          f"{'met' if worst < goal and not result['errors'] else 'MISSED'}")
    return worst >= goal or bool(result["errors"])


def role(args) -> None:
    """A process in a namespace: the player or an attacker; its outcome as JSON."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(10000, hard), hard))
    tls = ssl.create_default_context(cafile=args.certificate) if args.certificate else None
    if args.role == "player":
        outcome = asyncio.run(play(args.target, args.port, args.token, args.seat,
                                   args.seconds, tls))
    elif args.role == "trickle":
        outcome = asyncio.run(trickle(args.target, args.port, args.seconds, tls))
    else:
        attack = flood if args.role == "flood" else pipeline
        outcome = asyncio.run(attack(args.target, args.port, args.token, args.seconds, tls))
    if args.role != "player":
        outcome["its CPU s"] = round(sum(resource.getrusage(resource.RUSAGE_SELF)[:2]), 1)
    print(json.dumps(outcome))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--attacks", nargs="+", default=["quiet", "trickle", "pipeline",
                                                          "flood"],
                        choices=["quiet", "trickle", "pipeline", "flood"])
    parser.add_argument("--hosted", action="store_true",
                        help="against the hosted stack: PostgreSQL, the hosted server, "
                             "haproxy (HTTPS) in front")
    parser.add_argument("--processes", type=int, default=PROCESSES,
                        help="with --hosted: the hosted server's processes")
    parser.add_argument("--role", choices=["player", "trickle", "pipeline", "flood"])
    parser.add_argument("--certificate", help="a role's: the certificate it trusts (HTTPS)")
    parser.add_argument("--target")
    parser.add_argument("--port", type=int)
    parser.add_argument("--token")
    parser.add_argument("--seat", type=int, default=0)
    args = parser.parse_args(argv)
    if args.role:
        role(args)
        return 0
    if os.geteuid() != 0:
        sys.exit("the attacks run from network namespaces of their own: run as root")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
