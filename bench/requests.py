"""Time what a table asks the server most, in-process with Flask's test client.

    python bench/requests.py [--runs N]

Screens of a finished 15-round game, each drawn afresh (the caches emptied before every
request) and from the caches (as every device but the first to ask after a change gets
it); a live part asked for at the stamp it shows (204: nothing new); an action with its
answer (the table's live part) on logs of 60, 500 and 1,500 events, which must cost the
same however long the log; and every event of the full records posted in turn (reveals,
sales, free lots... each redraws what it changed). Prints medians, one line each:
"action and its answer, log of 1500 events: median T ms over 200 requests".
"""
import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from companion.rules.record import load_setup, parse_event
from companion.store import games
from companion.store.cache import GameCache
from companion.web import create_app
from companion.web.forms import form_values
from companion.web.render.rendered import Parts, Rendered

RECORD = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "full-game-3.json"
PHONE = {"REMOTE_ADDR": "198.18.0.2"}
HTMX = {"HX-Request": "true"}
LOGS = (60, 500, 1500)


def median_ms(request, runs: int, before=lambda: None) -> float:
    """The median time of `request()` over `runs` calls, `before()` untimed before each."""
    times = []
    for _ in range(runs):
        before()
        began = time.perf_counter()
        request()
        times.append(time.perf_counter() - began)
    return statistics.median(times) * 1000


def expect(client, path: str, status: int, **options):
    """A request that must answer `status`."""
    def request():
        response = client.get(path, **options)
        assert response.status_code == status, (path, response.status_code)
    return request


def forget(app):
    """Empty the game, screen and part caches: the next request reads, folds and renders."""
    def emptied():
        app.config["GAMES"] = GameCache(app.config["STORE"])
        app.config.update(RENDERED=Rendered(), PARTS=Parts())
    return emptied


def screens(app, runs: int) -> None:
    store = app.config["STORE"]
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    token = games.create(store, record, games.Options())
    host, phone = app.test_client(), app.test_client()
    phone.environ_base.update(PHONE)
    taken = phone.get(f"/g/{token}/join")
    assert taken.status_code == 200
    phone.post(f"/g/{token}/join", data={"seat": "0", "csrf_token": csrf(phone)})
    stale = f"v={store.stamp(token) - 1}"
    for label, request in [
        ("table page", expect(host, f"/g/{token}", 200)),
        ("table's live part after a change", expect(host, f"/g/{token}/live?{stale}", 200,
                                                    headers=HTMX)),
        ("phone page", expect(phone, f"/g/{token}/me", 200)),
        ("phone's live part after a change", expect(phone, f"/g/{token}/me/live?{stale}", 200,
                                                    headers=HTMX)),
        ("score page with the coins chart", expect(host, f"/g/{token}/score", 200)),
    ]:
        drawn = median_ms(request, runs, forget(app))
        request()
        kept = median_ms(request, runs)
        print(f"{label}, 15-round game: drawn {drawn:.2f} ms, from the cache {kept:.2f} ms "
              f"(medians over {runs} requests)")
    unchanged = expect(phone, f"/g/{token}/me/live?v={store.stamp(token)}", 204)
    print(f"live part that finds nothing new (204): median {median_ms(unchanged, runs):.2f} ms "
          f"over {runs} requests")


def csrf(client) -> str:
    with client.session_transaction() as session:
        return session["csrf_token"]


def actions(app, runs: int) -> None:
    """A penalty (R4: unbounded, so a log can be made any length) and the table's answer."""
    store = app.config["STORE"]
    host = app.test_client()
    played = json.loads(RECORD.read_text(encoding="utf-8"))
    opening = played["events"][:3]  # a lot sold, the next one on the table
    buyer = opening[1]["winner"]
    for length in LOGS:
        record = {**played, "events": opening + [{"type": "penalty", "player": buyer}]
                  * (length - len(opening))}
        token = games.create(store, record, games.Options())
        host.get(f"/g/{token}")
        token_csrf = csrf(host)

        def penalty():
            version = app.config["GAMES"].game(token).version
            response = host.post(f"/g/{token}/act", headers={**HTMX, "X-CSRF-Token": token_csrf},
                                 data={"action": "penalty", "version": str(version),
                                       "player": str(played["players"].index(buyer))})
            assert response.status_code == 200 and b"pot" in response.data

        took = median_ms(penalty, runs)
        print(f"action and its answer, log of {length} events: median {took:.2f} ms "
              f"over {runs} requests")


def played(app, runs: int) -> None:
    """Every event of the full records posted in turn through the table's form, as htmx
    does, each with its answer: unlike a penalty, a reveal or a sale changes what the
    answer's forms, grid and cards still to come show, so those are drawn again."""
    store, host = app.config["STORE"], app.test_client()
    records = [json.loads(path.read_text(encoding="utf-8"))
               for path in sorted(RECORD.parent.glob("full-game-*[0-9].json"))]
    took: dict[str, list[float]] = {}
    for _ in range(max(1, runs // 50)):
        for record in records:
            token = games.create(store, {**record, "events": []}, games.Options())
            host.get(f"/g/{token}")
            token_csrf, setup = csrf(host), load_setup(record)
            for raw in record["events"]:
                event = parse_event(raw)
                data = {**form_values(setup, event),
                        "version": str(app.config["GAMES"].game(token).version)}
                began = time.perf_counter()
                response = host.post(f"/g/{token}/act", data=data,
                                     headers={**HTMX, "X-CSRF-Token": token_csrf})
                took.setdefault(event.kind, []).append(time.perf_counter() - began)
                assert response.status_code == 200, (event.kind, response.status_code)
    for kind, times in sorted(took.items(), key=lambda item: -len(item[1])):
        print(f"{kind} and its answer, played from the records: median "
              f"{statistics.median(times) * 1000:.2f} ms over {len(times)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    runs = parser.parse_args().runs
    app = create_app(tempfile.mkdtemp())
    screens(app, runs)
    actions(app, runs)
    played(app, runs)


if __name__ == "__main__":
    main()
