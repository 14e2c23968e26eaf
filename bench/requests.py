"""Time what a table asks the server most: the table page, a phone page, an empty poll.

In-process with Flask's test client on a game imported from a 15-round record
(the slowest page: the whole log refolded); prints the median of many requests.
"""
import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from companion import games
from companion.web import create_app

RECORD = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "full-game-3.json"


def median_ms(client, path: str, runs: int, expect: int) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        response = client.get(path)
        times.append(time.perf_counter() - began)
        assert response.status_code == expect, (path, response.status_code)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=300)
    runs = parser.parse_args().runs
    app = create_app(tempfile.mkdtemp())
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    token = games.create(app.config["STORE"], record, games.Options())
    version = app.config["STORE"].poll(token)[0]
    client = app.test_client()
    for label, path, expect in [
        ("table page of a finished 15-round game", f"/g/{token}", 200),
        ("score page with the coins chart", f"/g/{token}/score", 200),
        ("poll that finds nothing new (204, no body)", f"/g/{token}/live?v={version}", 204),
    ]:
        print(f"{label}: median {median_ms(client, path, runs, expect):.2f} ms over {runs} requests")


if __name__ == "__main__":
    main()
