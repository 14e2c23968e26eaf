"""What a change costs a table server, in process, and how much of it is drawing.

    python bench/changes.py [--tables 200] [--rounds 12] [--transport streams|polls]

TABLES tables on one app (Flask's test client: no network, no compression), each with
its table screen (the host), 3 seated phones and 2 phones watching the table, each phone
from an address of its own (bench/cafe.py's, never connected to: no network here). In
turns, each table posts the next event of one of the full records
(tests/fixtures/full-game-*.json) through the table's form, as htmx does; then each of
its six devices is told of the change as the server tells it: with --transport streams
(the default), its stream drawn by the server's Redraw task (server/streams.py), the
streams written to connections in process (StreamConnection); with --transport polls,
each device asks for its live part at the stamp it showed, as its held poll woken by the
change would. The first quarter of the rounds warms the caches up; the rest are counted.
Prints the time of a change (the action and the six answers), median and mean, the time
spent drawing (render_template, timed with Flask's signals) per change, and the parts of
screens drawn per change by kind (see rendered.kept): a part kept from one change to the
next is drawn once, not once per screen. E.g.

    200 tables, 1800 changes: a change 9.9 ms median, 11.1 ms mean; drawing 3.8 ms of it
    drawn a change: 3.00 _me_live.html, 2.00 _table_live.html; kept parts 1.99 player, ...
"""
import argparse
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as python bench/changes.py: bench is a package

from flask import before_render_template, template_rendered
from werkzeug.test import EnvironBuilder

from bench.cafe import PHONE_ADDRESSES, phone_sources, records, table_record
from bench.requests import HTMX, csrf
from companion.rules.record import load_setup, parse_event
from companion.server import streams
from companion.store import games
from companion.web import create_app
from companion.web.forms import form_values
from companion.web.pages import poll_drawn

PHONES, WATCHERS = 3, 2


class Table:
    """One game, its host's client and its phones' (seated, watching), and with
    `listening` (streams.Streams) each device's stream."""

    def __init__(self, app, number: int, record: dict, listening=None):
        self.app, self.record, self.played = app, record, 0
        store = app.config["STORE"]
        self.token = token = games.create(store, {**record, "events": []}, games.Options())
        self.host = app.test_client()
        self.host.get(f"/g/{token}")
        sources = phone_sources(PHONE_ADDRESSES, number, PHONES + WATCHERS)
        self.phones = [self._phone(source, seat)
                       for seat, source in enumerate(sources[:PHONES])]
        self.watchers = [self._phone(source) for source in sources[PHONES:]]
        for watcher in self.watchers:
            watcher.get(f"/g/{token}")
        self.csrf, self.setup = csrf(self.host), load_setup(record)
        self.listening, shown = listening, store.stamp(token)
        self.streams = [opened(listening, app, client, f"/g/{token}/{path}", shown)
                        for client, path in self._screens()] if listening is not None else []

    def _phone(self, source: str, seat: int | None = None):
        """A phone from the address `source`, in `seat` if one is given."""
        phone = self.app.test_client()
        phone.environ_base["REMOTE_ADDR"] = source
        if seat is not None:
            phone.get(f"/g/{self.token}/join")
            phone.post(f"/g/{self.token}/join",
                       data={"seat": str(seat), "csrf_token": csrf(phone)})
        return phone

    def _screens(self) -> list:
        """Each device with the path of its live part."""
        return ([(phone, "me/live") for phone in self.phones]
                + [(client, "live") for client in (*self.watchers, self.host)])

    def change(self) -> float | None:
        """The next event posted and every device told of it: seconds taken (None once
        the record is played out)."""
        if self.played == len(self.record["events"]):
            return None
        event = parse_event(self.record["events"][self.played])
        self.played += 1
        store, token = self.app.config["STORE"], self.token
        shown = store.stamp(token)
        version = self.app.config["GAMES"].game(token).version
        data = {**form_values(self.setup, event), "version": str(version)}
        began = time.perf_counter()
        answer = self.host.post(f"/g/{token}/act", data=data,
                                headers={**HTMX, "X-CSRF-Token": self.csrf})
        assert answer.status_code == 200, (event.kind, answer.status_code)
        if self.listening is not None:
            self._redrawn(shown)
        else:
            for client, path in self._screens():
                answer = client.get(f"/g/{token}/{path}?v={shown}", headers=HTMX)
                assert answer.status_code == 200, (path, answer.status_code)
        return time.perf_counter() - began

    def _redrawn(self, shown: int) -> None:
        """The devices' streams drawn as the server draws them when the game moves."""
        for connection in self.streams:
            connection.written.clear()
        streams.Redraw(self.listening, self.app.config["STORE"].stamp(self.token),
                       [(connection, shown) for connection in self.streams]).service()
        assert all(connection.written for connection in self.streams)


class StreamConnection:
    """What Streams and Redraw use of a connection, in process: what is written on it."""

    def __init__(self):
        self.adj = type("Adjustments", (), {"outbuf_high_watermark": 16 * 1024 * 1024})
        self.socket, self.outbuf_lock = socket.socket(), threading.RLock()
        self.connected, self.total_outbufs_len, self.written = True, 0, []

    def write_soon(self, data: bytes) -> None:
        self.written.append(data)

    def awake(self) -> None:
        """(The loop would send what was written.)"""


def opened(listening, app, client, path: str, shown: int) -> StreamConnection:
    """The stream of `client`'s screen at `path` (its poll's, from the stamp `shown`),
    open in `listening`, in process."""
    cookie = client.get_cookie(app.config["SESSION_COOKIE_NAME"])
    headers = {"Cookie": f"{cookie.key}={cookie.value}"} if cookie else {}
    environ = EnvironBuilder(path=f"{path}/events", query_string=f"v={shown}",
                             environ_base=client.environ_base, headers=headers).get_environ()
    connection = StreamConnection()
    listening.open(connection, streams.Stream(path.split("/")[2], streams.poll_of(environ)),
                   shown)
    return connection


class Drawing:
    """What the app drew while counting: seconds in render_template, renders by
    template, kept parts drawn by kind."""

    def __init__(self, app):
        self.counting, self.seconds = False, 0.0
        self.templates, self.parts = Counter(), Counter()
        self._began: list[float] = []
        before_render_template.connect(self._before, app)
        template_rendered.connect(self._after, app)
        kept = app.jinja_env.globals["kept"]

        def counted(name, *shows, caller, **where):
            def drawn():
                if self.counting:
                    self.parts[name] += 1
                return caller()
            return kept(name, *shows, caller=drawn, **where)
        app.jinja_env.globals["kept"] = counted

    def _before(self, app, template, context):
        self._began.append(time.perf_counter())

    def _after(self, app, template, context):
        took = time.perf_counter() - self._began.pop()
        if self.counting and not self._began:  # the outermost render only
            self.seconds += took
            self.templates[template.name] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--transport", choices=("streams", "polls"), default="streams")
    args = parser.parse_args()
    played = records()
    app = create_app(tempfile.mkdtemp())
    drawing, took = Drawing(app), []  # before any drawing: imported templates keep `kept`
    listening = streams.Streams(dispatch=None, draw=partial(poll_drawn, app)) \
        if args.transport == "streams" else None
    tables = [Table(app, number, table_record(number, played), listening)
              for number in range(args.tables)]
    for turn in range(args.rounds):
        drawing.counting = turn >= args.rounds // 4
        for table in tables:
            seconds = table.change()
            if seconds is not None and drawing.counting:
                took.append(seconds)
    changes = len(took)
    median, mean = statistics.median(took) * 1000, statistics.mean(took) * 1000
    print(f"{args.tables} tables ({args.transport}), {changes} changes: "
          f"a change {median:.1f} ms median, "
          f"{mean:.1f} ms mean; drawing {drawing.seconds / changes * 1000:.1f} ms of it")
    per_change = lambda counts: ", ".join(f"{count / changes:.2f} {name}"
                                          for name, count in counts.most_common())
    print(f"drawn a change: {per_change(drawing.templates)}; kept parts "
          f"{per_change(drawing.parts)}")


if __name__ == "__main__":
    main()
