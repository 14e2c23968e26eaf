"""One device on the table's Wi-Fi attacks the server while another plays: does the player's
device keep its pages, polls and actions under 200 ms (p99)?

    python bench/attacks.py [--seconds 30] [--attacks quiet trickle pipeline]

The server (bench/serving.py, the table's app and waitress configuration) listens on
127.0.0.1 and on this machine's end of two veth pairs, each leading to a network namespace
the benchmark makes (198.18.0.0/15 addresses, RFC 2544): the attacker's and the player's.
Needs root and iproute2; traffic goes only to those addresses.

Phases, each SECONDS long, the player playing throughout (a seated phone: its page every
5 s, its live part every second, an action every 2 s through the table's forms, a reveal
then its undo, each request timed from the moment it was due):
- quiet: no attack;
- trickle: 4,200 connections, each sending a request's first line then a header line every
  3 s, never finishing; one the server closes is opened again 1 s later;
- pipeline: 300 connections, each sending 200 requests for the table page in one write and
  never reading an answer; each opened again 10 s later.
Prints, per phase, the player's p50 / p99 / max by kind, its errors, the server's CPU and
what the attacker held; exits 1 if a p99 is 200 ms or more, or the player saw an error.
"""
import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as python bench/attacks.py: bench is a package

from bench import serving  # noqa: E402
from bench.devices import Device, reveal_or_undo, take_seat  # noqa: E402
from bench.faults import expect  # noqa: E402

GOAL_MS = 200.0
SUBNETS = ("198.18.200.0/30", "198.18.201.0/30")  # the attacker's pair, the player's
TRICKLERS, TRICKLE_EVERY, REOPEN_AFTER = 4200, 3.0, 1.0
PIPELINERS, PIPELINED, PIPELINE_AGAIN = 300, 200, 10.0
PLAYERS = ["Anna", "Bert", "Claus"]


# --- the namespaces -------------------------------------------------------------------

def ip(*args) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


def make_namespaces(tag: str) -> list[tuple[str, str, str]]:
    """(namespace, this machine's address, the namespace's address) for each subnet."""
    made = []
    for number, subnet in enumerate(SUBNETS):
        name, outside, inside = f"att{tag}{number}", f"ta{tag}{number}", f"tb{tag}{number}"
        here, there = subnet.replace(".0/30", ".1"), subnet.replace(".0/30", ".2")
        ip("netns", "add", name)
        ip("link", "add", outside, "type", "veth", "peer", "name", inside, "netns", name)
        ip("addr", "add", f"{here}/30", "dev", outside)
        ip("link", "set", outside, "up")
        ip("-n", name, "addr", "add", f"{there}/30", "dev", inside)
        ip("-n", name, "link", "set", inside, "up")
        ip("-n", name, "link", "set", "lo", "up")
        made.append((name, here, there))
    return made


def remove_namespaces(made) -> None:
    for name, _, _ in made:
        subprocess.run(["ip", "netns", "delete", name], capture_output=True)


def in_namespace(name: str, *args: str) -> subprocess.Popen:
    """This script, in `name`'s network, with `args`: its output read as JSON at the end."""
    return subprocess.Popen(["ip", "netns", "exec", name, sys.executable, __file__, *args],
                            stdout=subprocess.PIPE, text=True)


# --- the player -----------------------------------------------------------------------

async def play(host: str, port: int, token: str, seat: int, seconds: float) -> dict:
    """A phone's requests from `seat` for `seconds`, each timed from when it was due."""
    phone = Device(port, host=host)
    await take_seat(phone, token, seat)
    timings, errors, began = {"page": [], "poll": [], "action": []}, [], time.monotonic()
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

async def trickle(host: str, port: int, seconds: float) -> dict:
    """TRICKLERS connections sending a header line every TRICKLE_EVERY seconds."""
    counts = {"opened": 0, "closed by the server": 0}
    end = time.monotonic() + seconds

    async def one(number: int) -> None:
        await asyncio.sleep(number / TRICKLERS)  # opened over a second
        while time.monotonic() < end:
            try:
                reader, writer = await asyncio.open_connection(host, port)
            except OSError:
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


async def pipeline(host: str, port: int, token: str, seconds: float) -> dict:
    """PIPELINERS connections sending PIPELINED requests each, never reading."""
    request = f"GET /g/{token} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
    counts = {"opened": 0}
    end = time.monotonic() + seconds

    async def one() -> None:
        while time.monotonic() < end:
            try:
                _, writer = await asyncio.open_connection(host, port)
                counts["opened"] += 1
                writer.write(request * PIPELINED)
                await asyncio.sleep(PIPELINE_AGAIN)
                writer.close()
            except OSError:
                await asyncio.sleep(REOPEN_AFTER)
    await asyncio.gather(*(one() for _ in range(PIPELINERS)))
    return counts


# --- the run --------------------------------------------------------------------------

def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
    missed = False
    try:
        with tempfile.TemporaryDirectory() as data:
            record = Path(data) / "game.json"
            record.write_text(json.dumps({"format": "templari-game/1", "edition": "en",
                                          "players": PLAYERS, "events": []}))
            with serving.started("companion", str(Path(data) / "db"), "--game", str(record),
                                 "--listen", attacked, "--listen", served) as server:
                for seat, phase in enumerate(args.attacks):
                    missed |= phase_run(phase, seat % len(PLAYERS), server, attacker,
                                        attacked, player, served, args.seconds)
    finally:
        remove_namespaces(made)
    return 1 if missed else 0


def phase_run(phase, seat, server, attacker, attacked, player, served, seconds) -> bool:
    """One phase: the attack (if any) and the player (a new phone, on `seat`) side by
    side; whether a goal was missed."""
    started, cpu = time.monotonic(), cpu_seconds(server.pid)
    attack = None if phase == "quiet" else in_namespace(
        attacker, "--role", phase, "--target", attacked, "--port", str(server.port),
        "--token", server.token, "--seconds", str(seconds + 5))
    if attack is not None:
        time.sleep(3)  # the attack under way before the player is timed
    playing = in_namespace(player, "--role", "player", "--target", served,
                           "--port", str(server.port), "--token", server.token,
                           "--seat", str(seat), "--seconds", str(seconds))
    result = json.loads(playing.communicate()[0])
    held = json.loads(attack.communicate()[0]) if attack is not None else {}
    busy = (cpu_seconds(server.pid) - cpu) / (time.monotonic() - started) * 100
    print(f"{phase}: server CPU {busy:.0f}% of one core; attacker {held or 'none'}")
    for kind, values in result["timings"].items():
        print(f"  {kind}s: {spread(values)} ({len(values)})")
    print(f"  errors: {len(result['errors'])} {result['errors'][:3]}")
    worst = max(p99(values) for values in result["timings"].values())
    print(f"  goal p99 < {GOAL_MS:.0f} ms and no error: "
          f"{'met' if worst < GOAL_MS and not result['errors'] else 'MISSED'}")
    return worst >= GOAL_MS or bool(result["errors"])


def role(args) -> None:
    """A process in a namespace: the player or an attacker; its outcome as JSON."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(10000, hard), hard))
    if args.role == "player":
        outcome = asyncio.run(play(args.target, args.port, args.token, args.seat,
                                   args.seconds))
    elif args.role == "trickle":
        outcome = asyncio.run(trickle(args.target, args.port, args.seconds))
    else:
        outcome = asyncio.run(pipeline(args.target, args.port, args.token, args.seconds))
    print(json.dumps(outcome))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--attacks", nargs="+", default=["quiet", "trickle", "pipeline"],
                        choices=["quiet", "trickle", "pipeline"])
    parser.add_argument("--role", choices=["player", "trickle", "pipeline"])
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
