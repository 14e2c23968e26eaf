"""Time the in-process replay (fold_record) of the longest example record.

    python bench/replay.py [--runs N] [RECORD]

Prints the median over N runs, e.g.
"replay of a full 15-round record (52 events): median 0.31 ms over 2000 runs",
and how fast this machine runs Python at the time (the figure scales with it).
"""
import argparse
import json
import statistics
import timeit
from pathlib import Path

from companion.record import fold_record

DEFAULT_RECORD = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "full-game-3.json"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("record", nargs="?", type=Path, default=DEFAULT_RECORD)
    parser.add_argument("--runs", type=int, default=2000)
    args = parser.parse_args(argv)
    record = json.loads(args.record.read_text(encoding="utf-8"))
    state = fold_record(record)  # checks the record, and warms up
    timer = timeit.Timer(lambda: fold_record(record))
    median = statistics.median(timer.repeat(repeat=args.runs, number=1))
    kind = f"full {state.rounds_played}-round" if state.finished else f"{state.rounds_played}-round"
    print(f"replay of a {kind} record ({len(record['events'])} events): "
          f"median {median * 1000:.2f} ms over {args.runs} runs")
    reference = min(timeit.repeat("sum(range(1000))", number=1000, repeat=5))  # µs a run
    print(f"this machine's speed: sum(range(1000)) in {reference * 1000:.0f} µs "
          f"(about 10 µs on a current laptop: the replay scales with it)")


if __name__ == "__main__":
    main()
