"""Time the in-process replay (fold_record) of the longest example record.

    python bench/replay.py [--runs N] [RECORD]

Prints the median over N runs, e.g.
"replay of a full 15-round record (58 events): median 0.31 ms over 2000 runs".
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


if __name__ == "__main__":
    main()
