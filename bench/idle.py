"""Idle connections from one device leave the table usable (issue 40: 150 of them): the
host's page, a phone's page and a change still answer, and how soon.

    python bench/idle.py [--connections 150] [--seconds 60] [--every 1.0]

Starts the table's server (bench/serving.py: the table's app and waitress configuration)
with a new 3-player game on a temporary data directory. It listens on 127.0.0.1 (the
host's own device) and on this machine's end of two veth pairs, each leading to a network
namespace the benchmark makes (198.18.0.0/15): the idle device's and a phone's. Needs root
and iproute2's `ip`; traffic goes to those addresses only, and the namespaces, the pairs
and the server go when the benchmark ends, however it ends.

Two phases, each SECONDS long:
- quiet: the table alone;
- idle: from the idle device's namespace, CONNECTIONS connections opened (over a second,
  before the phase is timed) and left silent, not a byte sent; one the server closes
  (waitress closes a connection that has sent nothing for `channel_timeout` seconds) is
  opened again at once.
Throughout each phase, the host (this process, from 127.0.0.1) asks for the table page
every EVERY seconds and makes a change every 2 EVERY seconds (a reveal, then its undo,
through the table page's forms: the form's POST alone is timed), and a phone seated from
its namespace (a seat of its own each phase) asks for its page every EVERY seconds; each
request is timed from when it was due, on a kept-alive connection of its device's
(bench/devices.py). Prints the machine's speed and load, then per phase:

    quiet: no idle connection
      ...
    idle: 150 idle connections from 198.18.x.y held (N opened, N closed by the server)
      table page: p50 T / p95 T / max T ms (N)
      change: ...
      phone page: ...
      errors: 0 []
    goal: every request answered and each p95 within 250 ms while idle: met

Exits with status 1 if the goal is missed.
"""
import argparse
import asyncio
import ipaddress
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as python bench/idle.py: bench is a package

from bench import serving  # noqa: E402
from bench.devices import Device, reveal_or_undo, take_seat  # noqa: E402
from bench.faults import expect  # noqa: E402
from tests.browser_helpers import free_subnet, joined_namespace  # noqa: E402

NETWORKS = ipaddress.ip_network("198.18.0.0/15")  # set aside for network tests (RFC 2544)
PLAYERS = ["Anna", "Bert", "Claus"]
GOAL_MS = 250.0  # each kind's p95 while idle
READY_WITHIN = 30.0  # seconds: the idle device holds its connections by then


# --- the devices ----------------------------------------------------------------------

async def host(port: int, token: str, seconds: float, every: float) -> dict:
    """The host's table page every `every` seconds and a change every 2 `every`, each
    timed from when it was due."""
    device = Device(port)
    timings, errors = {"table page": [], "change": []}, []
    began = time.monotonic()
    due = {"table page": began, "change": began + every / 2}
    gap = {"table page": every, "change": 2 * every}
    while min(due.values()) < began + seconds:
        kind = min(due, key=due.get)
        await asyncio.sleep(max(0.0, due[kind] - time.monotonic()))
        try:
            if kind == "change":
                timings[kind].append(await reveal_or_undo(device, token))
            else:
                expect(await device.request("GET", f"/g/{token}"), 200, kind)
                timings[kind].append((time.monotonic() - due[kind]) * 1000)
        except Exception as error:  # noqa: BLE001 (counted and told)
            errors.append(f"{kind}: {error}")
        due[kind] += gap[kind]
    device.close()
    return {"timings": timings, "errors": errors}


async def phone(target: str, port: int, token: str, seat: int, seconds: float,
                every: float) -> dict:
    """A phone that takes `seat` from its namespace: its page every `every` seconds, each
    timed from when it was due."""
    device = Device(port, host=target)
    await take_seat(device, token, seat)
    timings, errors = {"phone page": []}, []
    began = due = time.monotonic()
    while due < began + seconds:
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        try:
            expect(await device.request("GET", f"/g/{token}/me"), 200, "the phone page")
            timings["phone page"].append((time.monotonic() - due) * 1000)
        except Exception as error:  # noqa: BLE001 (counted and told)
            errors.append(f"phone page: {error}")
        due += every
    device.close()
    return {"timings": timings, "errors": errors}


async def idle(target: str, port: int, connections: int, seconds: float) -> dict:
    """`connections` connections opened over a second and left silent for `seconds`,
    each opened again as soon as the server closes it; says "ready" once all are open."""
    counts = {"opened": 0, "closed by the server": 0, "refused": 0}
    end = time.monotonic() + seconds
    ready = asyncio.Event()

    async def one(number: int) -> None:
        await asyncio.sleep(number / connections)
        while time.monotonic() < end:
            try:
                reader, writer = await asyncio.open_connection(target, port)
            except OSError:
                counts["refused"] += 1
                await asyncio.sleep(0.1)
                continue
            counts["opened"] += 1
            if counts["opened"] == connections:
                ready.set()
            try:
                closed = await asyncio.wait_for(reader.read(1), end - time.monotonic())
            except (asyncio.TimeoutError, OSError):
                closed = None
            if closed == b"":
                counts["closed by the server"] += 1
            writer.close()

    async def say_ready() -> None:
        await ready.wait()
        print("ready", flush=True)
    told = asyncio.ensure_future(say_ready())
    await asyncio.gather(*(one(number) for number in range(connections)))
    told.cancel()
    return counts


# --- the run --------------------------------------------------------------------------

def in_namespace(namespace: str, *args: str) -> subprocess.Popen:
    """This script in `namespace`'s network, with `args`: its last line read as JSON."""
    return subprocess.Popen(["ip", "netns", "exec", namespace, sys.executable, __file__,
                             *args], stdout=subprocess.PIPE, text=True)


def outcome(process: subprocess.Popen, within: float) -> dict:
    """The JSON a process in a namespace printed last, once it ended."""
    try:
        output = process.communicate(timeout=within)[0]
    except subprocess.TimeoutExpired:
        process.kill()
        raise SystemExit("a device in a namespace did not finish in time") from None
    return json.loads(output.strip().splitlines()[-1])


def spread(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    return (f"p50 {statistics.median(ordered):.1f} / p95 {p95(ordered):.1f} / "
            f"max {ordered[-1]:.1f} ms ({len(ordered)})")


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)] if ordered else 0.0


def phase(name: str, seat: int, server, nets, token: str, args) -> bool:
    """One phase: the idle device (if idle), the host and the phone side by side; whether
    the table stayed usable (every request answered, each p95 within the goal)."""
    idle_net, phone_net = nets
    attack = None
    if name == "idle":
        attack = in_namespace(idle_net.namespace, "--role", "idle", "--target",
                              idle_net.host_side, "--port", str(server.port), "--connections",
                              str(args.connections), "--seconds", str(args.seconds + 5))
        if attack.stdout.readline().strip() != "ready":
            raise SystemExit("the idle device could not open its connections")
    playing = in_namespace(phone_net.namespace, "--role", "phone", "--target",
                           phone_net.host_side, "--port", str(server.port), "--token", token,
                           "--seat", str(seat), "--seconds", str(args.seconds), "--every",
                           str(args.every))
    hosted = asyncio.run(host(server.port, token, args.seconds, args.every))
    seated = outcome(playing, args.seconds + READY_WITHIN)
    held = outcome(attack, args.seconds + READY_WITHIN) if attack else None
    said = (f"{args.connections} idle connections from {idle_net.phone_side} held ("
            + ", ".join(f"{count} {what}" for what, count in held.items()) + ")"
            if held else "no idle connection")
    print(f"{name}: {said}")
    timings = {**hosted["timings"], **seated["timings"]}
    errors = hosted["errors"] + seated["errors"]
    for kind, values in timings.items():
        print(f"  {kind}: {spread(values)}")
    print(f"  errors: {len(errors)} {errors[:3]}")
    return not errors and all(values and p95(values) <= GOAL_MS for values in timings.values())


def run(args) -> int:
    with ExitStack() as stack:
        pid = os.getpid()
        nets = []
        for number, role in enumerate(("idle", "phone")):
            names = (f"idle-{pid}-{number}", f"tid{pid}{number}", f"tin{pid}{number}")
            nets.append(stack.enter_context(joined_namespace(
                *names, free_subnet(NETWORKS, stride=11))))
        data = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="idle-")))
        record = data / "game.json"
        record.write_text(json.dumps({"format": "templari-game/1", "edition": "en",
                                      "players": PLAYERS, "events": []}))
        server = stack.enter_context(serving.started(
            "companion", str(data / "db"), "--game", str(record),
            *[part for net in nets for part in ("--listen", net.host_side)]))
        print(f"machine: sum(range(1000)) in {serving.machine_speed():.1f} µs; load average "
              f"before: {serving.load_average()}")
        print(f"server: bench/serving.py companion on 127.0.0.1 (the host), "
              f"{nets[0].host_side} (the idle device's side) and {nets[1].host_side} (the "
              f"phone's), port {server.port}")
        usable = {name: phase(name, seat, server, nets, server.token, args)
                  for seat, name in enumerate(("quiet", "idle"))}
    print(f"load average after: {serving.load_average()}")
    met = usable["idle"]
    print(f"goal: every request answered and each p95 within {GOAL_MS:.0f} ms while idle: "
          f"{'met' if met else 'MISSED'}")
    return 0 if met else 1


def role(args) -> None:
    """A device in a namespace: the phone or the idle one; its outcome as JSON."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(args.connections + 100, hard), hard))
    if args.role == "phone":
        done = asyncio.run(phone(args.target, args.port, args.token, args.seat, args.seconds,
                                 args.every))
    else:
        done = asyncio.run(idle(args.target, args.port, args.connections, args.seconds))
    print(json.dumps(done), flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=150)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--every", type=float, default=1.0)
    parser.add_argument("--role", choices=["phone", "idle"], help=argparse.SUPPRESS)
    parser.add_argument("--target", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--token", help=argparse.SUPPRESS)
    parser.add_argument("--seat", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.role:
        role(args)
        return 0
    if os.geteuid() != 0:
        raise SystemExit("the devices run from network namespaces of their own: run as root")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
