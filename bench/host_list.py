"""Time the host's list of games (the home page) with 1,000 stored games.

    python bench/host_list.py [--games N] [--runs N]

In-process with Flask's test client, on a temporary data directory filled through the
store with the 49 actions of tests/fixtures/full-game-1.json: every other game finished,
the others cut short in various rounds. The list is shown once (its first page's
summaries worked out and kept), then timed; prints the median:
"host's list with 1000 games: median X ms over 50 requests".
"""
import argparse
import json
import statistics
import tempfile
import timeit
from dataclasses import asdict
from pathlib import Path

from companion.store.games import Options
from companion.web import create_app

RECORD = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "full-game-1.json"


def fill(store, count: int) -> None:
    """`count` games of the record as the store keeps them: every other one finished."""
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    header = {key: value for key, value in record.items() if key != "events"}
    events = [(event, "import", 0.0) for event in record["events"]]
    for number in range(count):
        played = events if number % 2 else events[:number % len(events)]
        store.create_game(header, asdict(Options()), played)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as data_dir:
        app = create_app(data_dir)
        fill(app.config["STORE"], args.games)
        client = app.test_client()  # from this machine: the host
        timer = timeit.Timer(lambda: _listed(client))
        timer.timeit(number=1)  # the first page's summaries worked out and kept
        median = statistics.median(timer.repeat(repeat=args.runs, number=1))
        print(f"host's list with {args.games} games: median {median * 1000:.2f} ms "
              f"over {args.runs} requests")


def _listed(client) -> None:
    """The host's list, shown."""
    assert client.get("/").status_code == 200


if __name__ == "__main__":
    main()
