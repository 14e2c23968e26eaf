"""Time the in-process replay (fold_record) of the longest example record.

    python bench/replay.py [--runs N] [--instructions] [RECORD]

Prints the median over N runs ("replay of a full 15-round record (52 events): median
... ms over N runs"), and how fast this machine runs Python at the time (the figure
scales with it).

With --instructions, counts instead the machine instructions of one replay with
valgrind's callgrind (apt-get install valgrind): the count of N replays less that of
none, over N ("...: ... million instructions"). The count stays the same whatever else a shared machine is doing, so two
versions of the code compare to a per cent or so; it takes about 15 s.
"""
import argparse
import json
import re
import statistics
import subprocess
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the checkout's companion, whatever is installed

from companion.rules.record import fold_record  # noqa: E402

DEFAULT_RECORD = ROOT / "tests" / "fixtures" / "full-game-3.json"
COUNTED_RUNS = 300  # replays counted with --instructions


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("record", nargs="?", type=Path, default=DEFAULT_RECORD)
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions with callgrind instead of timing")
    parser.add_argument("--replay-only", type=int, metavar="N", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    record = json.loads(args.record.read_text(encoding="utf-8"))
    state = fold_record(record)  # checks the record, and warms up
    if args.replay_only is not None:  # what callgrind runs: N replays, nothing printed
        for _ in range(args.replay_only):
            fold_record(record)
        return
    kind = f"full {state.rounds_played}-round" if state.finished else f"{state.rounds_played}-round"
    what = f"replay of a {kind} record ({len(record['events'])} events)"
    if args.instructions:
        count = (_instructions(args.record, COUNTED_RUNS) - _instructions(args.record, 0))
        print(f"{what}: {count / COUNTED_RUNS / 1e6:.2f} million instructions")
        return
    timer = timeit.Timer(lambda: fold_record(record))
    median = statistics.median(timer.repeat(repeat=args.runs, number=1))
    print(f"{what}: median {median * 1000:.2f} ms over {args.runs} runs")
    speed = timeit.timeit("sum(range(1000))", number=10000) / 10000 * 1e6
    print(f"this machine's speed: sum(range(1000)) in {speed:.0f} µs "
          f"(about 10 µs on a current laptop: the replay scales with it)")


def _instructions(record: Path, replays: int) -> int:
    """The instructions callgrind counts for this script making `replays` replays."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         __file__, str(record), "--replay-only", str(replays)],
        capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))


if __name__ == "__main__":
    main()
