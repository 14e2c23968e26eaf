"""Time what a table asks the server most, against a bare Flask app on the same waitress.

    python bench/polls.py [--rounds 3] [--seconds 5] [--connections 16] [--threads 2]

Starts two servers, each in a process of its own on 127.0.0.1 with the table's waitress
configuration (bench/serving.py): a bare Flask app whose only route answers an empty 204,
and the table's app on a temporary data directory with the finished 15-round game of
tests/fixtures/full-game-3.json, where a phone takes a seat through the join form. Reads
the live parts' URLs from the table page and the phone's page (the hx-get of id="live",
which carries the stamp the page shows) and checks what each path answers: a live part
asked for at the stamp shown 204 (nothing new: what a screen's every-30-s poll and a
screen coming back into view mostly get), and 200 with its v set to 0 (the part after a
change, as every screen asks for it when its stream tells a change); the pages 200. Then
loads each path with wrk for SECONDS, each run right after one on the bare 204, ROUNDS
times. Every request carries what a browser's would: its device's session cookie,
Accept-Encoding: gzip, and HX-Request on the live parts. Prints the machine's speed, the
median requests/s of each path and the median of its ratios to the bare run just before
it:

    machine: sum(range(1000)) in S µs; load average before: L1 L5 L15
    bare 204: N req/s (wrk -t2 -c16 -d5s, median of 21 runs)
    live part, nothing new (204): N req/s, R x bare 204
    live part after a change (200): N req/s, R x bare 204
    table page: ...
    phone page: ...
    phone's live part, nothing new (204): ...
    phone's live part after a change (200): ...
    score page: ...
    load average after: L1 L5 L15

The ratios, not the rates, carry from one machine (or one moment of a shared one) to
another. Traffic goes to 127.0.0.1 only; a run takes about 14 x ROUNDS x SECONDS.
"""
import argparse
import asyncio
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as python bench/polls.py: bench is a package

from bench import serving  # noqa: E402
from bench.devices import BROWSER, HTMX, Device, live, stale, take_seat  # noqa: E402
from bench.faults import expect  # noqa: E402

RECORD = ROOT / "tests" / "fixtures" / "full-game-3.json"
BARE = "bare 204"


async def _paths(port: int, token: str) -> dict[str, tuple[str, dict]]:
    """Each path to time on the table's server, by label, with the headers its device
    sends (its cookie); each checked first."""
    host, phone = Device(port), Device(port)
    phone_live = live(await take_seat(phone, token, 0)).url  # first: a seat taken is news
    table = expect(await host.request("GET", f"/g/{token}"), 200, "the table page")
    table_live = live(table.body).url
    screen, mine = {"Cookie": host.cookie}, {"Cookie": phone.cookie}
    host.close()
    phone.close()
    paths = {
        "live part, nothing new (204)": (table_live, {**screen, **HTMX}, 204),
        "live part after a change (200)": (stale(table_live), {**screen, **HTMX}, 200),
        "table page": (f"/g/{token}", screen, 200),
        "phone page": (f"/g/{token}/me", mine, 200),
        "phone's live part, nothing new (204)": (phone_live, {**mine, **HTMX}, 204),
        "phone's live part after a change (200)": (stale(phone_live), {**mine, **HTMX}, 200),
        "score page": (f"/g/{token}/score", screen, 200),
    }
    checker = Device(port)
    for path, headers, status in paths.values():
        answer = await checker.request("GET", path, headers=headers)
        if answer.status != status:
            sys.exit(f"GET {path} answered {answer.status}, not {status}: nothing timed")
    checker.close()
    return {label: (path, headers) for label, (path, headers, _) in paths.items()}


def wrk(port: int, path: str, headers: dict, args) -> float:
    """Requests per second wrk got from `path`; exits if any answer was an error."""
    command = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{args.seconds}s",
               *[part for name, value in {**BROWSER, **headers}.items()
                 for part in ("-H", f"{name}: {value}")],
               f"http://{serving.HOST}:{port}{path}"]
    output = subprocess.run(command, capture_output=True, text=True, check=True,
                            timeout=args.seconds + 60).stdout
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if errors:
        sys.exit(f"wrk {path}: {errors.group(1)} answers were errors")
    if "Socket errors" in output:
        print(f"  (wrk {path}: {re.search(r'Socket errors: .*', output).group()})")
    return float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))


def rounds(bare_port: int, port: int, paths: dict, args) -> dict[str, list[tuple[float, float]]]:
    """Each path's (requests/s, that of the bare run just before it), per round."""
    runs = {label: [] for label in paths}
    for _ in range(args.rounds):
        for label, (path, headers) in paths.items():
            floor = wrk(bare_port, "/", {}, args)
            runs[label].append((wrk(port, path, headers, args), floor))
    return runs


def main(argv=None) -> None:
    """Start both servers, time every path, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    print(f"machine: sum(range(1000)) in {serving.machine_speed():.1f} µs; load average "
          f"before: {serving.load_average()}", flush=True)
    with tempfile.TemporaryDirectory() as data_dir, \
            serving.started("bare") as bare, \
            serving.started("companion", data_dir, "--game", str(RECORD)) as table:
        paths = asyncio.run(_paths(table.port, table.token))
        runs = rounds(bare.port, table.port, paths, args)
    floors = [floor for path_runs in runs.values() for _, floor in path_runs]
    print(f"{BARE}: {statistics.median(floors):.0f} req/s (wrk -t{args.threads} "
          f"-c{args.connections} -d{args.seconds}s, median of {len(floors)} runs)")
    for label, path_runs in runs.items():
        rate = statistics.median(rate for rate, _ in path_runs)
        ratio = statistics.median(rate / floor for rate, floor in path_runs)
        print(f"{label}: {rate:.0f} req/s, {ratio:.2f}x {BARE}")
    print(f"load average after: {serving.load_average()}")


if __name__ == "__main__":
    main()
