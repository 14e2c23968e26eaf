"""Kill the table server again and again while tables record: nothing acknowledged is
lost, nothing is applied twice.

    python bench/faults.py [--kills 20] [--clients 4] [--postgresql]

Starts the server as `templari-companion --host 127.0.0.1 --port P --data-dir D` does
(python -m companion.cli), on a free port and a temporary data directory; with
--postgresql, as `templari-companion ... --database URL` does, on a PostgreSQL of its own
(bench/balanced.py's, the tests': apt-get install postgresql). CLIENTS
threads play games through the table's HTTP forms as the host's device would, each form
sent with its CSRF token and version: a new game from the home page, then reveals,
sales, free lots, penalties and undos, each chosen among the forms the table page
offers, read again after every answer. Each client is the only one to record in its
games, so it knows what each log must hold: every action the server acknowledged (303),
and every action whose answer never came, which it sends again unchanged (the same
version) until an answer comes. If the lost sending had been applied, that answer says
so (200) or refuses it as a conflict (409); else the action is applied then (303), or
refused by the rules again (422). A game's version counts its changes: found below what
its client was told, acknowledged changes were lost; found beyond, some were applied
twice.

Meanwhile the server is killed (SIGKILL) KILLS times, each after a random count of
writes answered since it started, within 150 ms of a write being sent, and started
again on the same data directory as soon as the last one is dead. After the last
restart the clients stop, every game is exported (record.json) and replayed, the server
is stopped, the database is checked (PRAGMA integrity_check; PostgreSQL checks its own)
and every game's stored version and log compared with what its client was told. Prints:

    20 kills (SIGKILL, each within 150 ms of a write being sent), each followed by a
    restart on the same data directory, while 4 clients recorded through the table's forms
    actions acknowledged: N, refused by the rules: N, in N games
    answers lost (outcome unknown): N; sent again unchanged: N times, then found
    applied already: N, applied then: N, refused again: N
    acknowledged actions lost: 0
    actions applied twice: 0
    stored logs that differ from what their client was told: 0 of N
    PRAGMA integrity_check: ok
    exports that replay: N of N stored games
    restart after a kill, until the port answers: median T s, max T s
    elapsed: T s

A run lasts about KILLS restarts of the server (its imports, then its first page) and a
few actions after each.

Exits with status 1 if any check fails. Traffic goes to 127.0.0.1 only.
"""
import argparse
import http.client
import json
import random
import re
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import closing, contextmanager, nullcontext
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode

from werkzeug.datastructures import MultiDict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as python bench/faults.py: bench is a package

from bench.balanced import postgresql  # noqa: E402
from companion.rules.record import dump_event, fold_record, load_setup, loads  # noqa: E402
from companion.rules.refusal import Refusal  # noqa: E402
from companion.rules.setup import Setup  # noqa: E402
from companion.web.forms import parse_action  # noqa: E402

HOST = "127.0.0.1"  # a loopback peer is the host's device: it may record everything
PLAYERS = ("Anna", "Bert", "Claus")
TIMEOUT = 10.0  # seconds: any one request
UP_WITHIN = 30.0  # seconds: the server answers again after a kill, or the run fails
# Writes answered between a start and the next kill (or the end): a random moment, however
# fast this machine is.
ANSWERS = (1, 12)
NOT_SQLITE = "not SQLite's (PostgreSQL checks its own)"  # the integrity check's finding
# Seconds into a write under way when the kill comes: before, during or after its
# transaction (a write takes 50 to 150 ms here), or after its answer.
KILL_WITHIN = 0.15
RETRY_EVERY = 0.05  # seconds between two sendings of a request that got no answer
# How often each action the table page offers is chosen.
WEIGHTS = {"reveal": 8, "sold": 5, "free": 2, "penalty": 1, "undo": 1}
CHOSEN = {"cards": 2}  # how many of a field's choices are taken (one by default)
PRICES = (1, 9)
MISSING = -1  # the "version" of a game the database lost: its creation was lost too


class Down(Exception):
    """The server took no connection: the request was not sent."""


class Lost(Exception):
    """The request was sent and its answer never came: its outcome is unknown."""


@dataclass(frozen=True)
class Answer:
    status: int
    location: str
    body: str


class Browser:
    """One device's requests, each on a connection of its own, with its session cookie
    (which holds its CSRF token)."""

    def __init__(self, port: int):
        self.port, self.cookie = port, ""

    def request(self, method: str, path: str, fields: dict | None = None) -> Answer:
        """The answer, or Down, or Lost."""
        headers = {"Cookie": self.cookie} if self.cookie else {}
        body = None
        if fields is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            body = urlencode([(name, value) for name, values in fields.items()
                              for value in values])
        connection = http.client.HTTPConnection(HOST, self.port, timeout=TIMEOUT)
        try:
            try:
                connection.connect()
            except OSError as error:
                raise Down(error) from None
            try:
                connection.request(method, path, body, headers)
                response = connection.getresponse()
                answer = Answer(response.status, response.getheader("Location", ""),
                                response.read().decode())
            except (OSError, http.client.HTTPException) as error:
                raise Lost(error) from None
        finally:
            connection.close()
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        return answer


# --- reading pages -----------------------------------------------------------------------

@dataclass
class Form:
    """A form: what a browser sends untouched, and what can be chosen in it."""

    action: str
    classes: list[str]
    fields: dict[str, list[str]] = field(default_factory=dict)
    choices: dict[str, list[str]] = field(default_factory=dict)  # enabled boxes, options

    @property
    def kind(self) -> str:
        """'reveal' for the form of class action-reveal, else its classes ('undo')."""
        return next((name.removeprefix("action-") for name in self.classes
                     if name.startswith("action-")), " ".join(self.classes))


class _Forms(HTMLParser):
    """The forms of a page, each with the enabled fields inside it."""

    def __init__(self):
        super().__init__()
        self.forms, self.form, self.select = [], None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.form = Form(attrs.get("action") or "", (attrs.get("class") or "").split())
            self.forms.append(self.form)
        elif self.form and "disabled" not in attrs:
            self._field(self.form, tag, attrs)

    def handle_endtag(self, tag):
        if tag == "select":
            self.select = None
        elif tag == "form":
            self.form = None

    def _field(self, form: Form, tag: str, attrs: dict) -> None:
        name, kind = attrs.get("name"), attrs.get("type", "text")
        if tag == "input" and name and kind in ("checkbox", "radio"):
            value = attrs.get("value", "on")
            form.choices.setdefault(name, []).append(value)
            if "checked" in attrs:
                form.fields.setdefault(name, []).append(value)
        elif tag == "input" and name and kind not in ("file", "submit"):
            form.fields.setdefault(name, []).append(attrs.get("value") or "")
        elif tag == "select" and name:
            self.select = name
        elif tag == "option" and self.select:
            value = attrs.get("value") or ""
            if self.select not in form.fields or "selected" in attrs:
                form.fields[self.select] = [value]
            if value:
                form.choices.setdefault(self.select, []).append(value)


def forms(page: str) -> list[Form]:
    parser = _Forms()
    parser.feed(page)
    return parser.forms


def fill(form: Form, rng: random.Random) -> dict[str, list[str]]:
    """The form's fields with a random pick of each choice and a random price."""
    fields = {**form.fields, **{name: rng.sample(values, CHOSEN.get(name, 1))
                                for name, values in form.choices.items()}}
    if "price" in fields:
        fields["price"] = [str(rng.randint(*PRICES))]
    return fields


def page_version(page: str) -> int | None:
    """The version of the game the table page's forms send back (None: it has no form)."""
    found = re.search(r'name="version" value="(\d+)"', page)
    return found and int(found.group(1))


def expect(answer: Answer, status: int, what: str) -> Answer:
    if answer.status != status:
        raise RuntimeError(f"{what} answered {answer.status}")
    return answer


# --- the clients -------------------------------------------------------------------------

@dataclass
class Tally:
    """What happened to one client's actions (and what the checks found)."""

    acknowledged: int = 0
    refused: int = 0
    unknown: int = 0  # sendings whose answer never came
    retries: int = 0
    applied_before: int = 0  # sent again, told it had been applied already (200 or 409)
    applied_again: int = 0  # sent again after a lost answer, applied then (303)
    refused_again: int = 0  # sent again after a lost answer, refused by the rules (422)
    lost: int = 0
    doubled: int = 0
    differing: int = 0
    errors: list = field(default_factory=list)

    def drift(self, expected: int, found: int) -> None:
        """A game's version is its count of changes: below what was acknowledged, changes
        were lost; beyond it, some were applied twice."""
        self.lost += max(0, expected - found)
        self.doubled += max(0, found - expected)


def total(tallies) -> Tally:
    whole = Tally()
    for tally in tallies:
        for name, value in vars(tally).items():
            setattr(whole, name, getattr(whole, name) + value)
    return whole


@dataclass
class Game:
    """One client's game as the server acknowledged it: its version and its event log."""

    token: str
    setup: Setup
    version: int = 0
    log: list = field(default_factory=list)
    pending: tuple | None = None  # (kind, fields) of the action whose answer is awaited

    def apply(self, kind: str, fields: dict) -> None:
        """An action the server applied: the log it must hold now."""
        self.version += 1
        if kind == "undo":
            self.log.pop()  # without live auctions, an undo takes back one event
        else:
            self.log.append(dump_event(parse_action(self.setup, MultiDict(fields))))


class Traffic:
    """What the clients share: their writes under way and answered (for the kills to
    strike during one, a random moment after a start), how many still play, and the
    signal to stop."""

    def __init__(self, clients: int):
        self.writes, self.answers, self.playing = 0, 0, clients
        self.changed, self.stopping = threading.Condition(), threading.Event()

    @contextmanager
    def writing(self):
        with self.changed:
            self.writes += 1
            self.changed.notify_all()
        try:
            yield
        finally:
            with self.changed:
                self.writes -= 1

    def answered(self) -> None:
        with self.changed:
            self.answers += 1
            self.changed.notify_all()

    def left(self) -> None:
        """A client stopped (or failed)."""
        with self.changed:
            self.playing -= 1
            self.changed.notify_all()

    def wait(self, ready, timeout: float) -> None:
        """Until `ready()` (or `timeout` seconds: the clients' errors will tell why)."""
        with self.changed:
            self.changed.wait_for(ready, timeout)

    def play(self, rng: random.Random, answers: tuple[int, int]) -> None:
        """Until a random count of writes more (between `answers`) have been answered, or
        no client plays."""
        target = self.answers + rng.randint(*answers)
        self.wait(lambda: self.answers >= target or not self.playing, UP_WITHIN + TIMEOUT)


class Client(threading.Thread):
    """A table recording its games on the host's device until told to stop; an action
    under way is always finished, whatever the kills, so its outcome is known."""

    def __init__(self, port: int, traffic: Traffic, seed: float):
        super().__init__(daemon=True)
        self.browser, self.traffic = Browser(port), traffic
        self.random = random.Random(seed)
        self.games: list[Game] = []
        self.tally = Tally()

    def run(self) -> None:
        try:
            while not self.traffic.stopping.is_set():
                self.step()
        except Exception as error:  # noqa: BLE001 (any failure: reported with the figures)
            self.tally.errors.append(f"{self.name}: {type(error).__name__}: {error}")
        finally:
            self.traffic.left()

    def step(self) -> None:
        """One action in the current game: a new game when there is none or it is over."""
        game = self.games[-1] if self.games else None
        offered = self.offered(game) if game else {}
        if not offered:
            self.games.append(self.new_game())
            return
        kind = self.random.choices(list(offered), [WEIGHTS[kind] for kind in offered])[0]
        fields = fill(offered[kind], self.random)
        game.pending = (kind, fields)
        answer, lost = self.answered("POST", offered[kind].action, fields)
        game.pending = None
        if answer.status == 303 or (lost and answer.status in (200, 409)):
            self.tally.acknowledged += answer.status == 303
            self.tally.applied_again += lost and answer.status == 303
            self.tally.applied_before += answer.status != 303
            game.apply(kind, fields)
        elif answer.status == 422:
            self.tally.refused += 1
            self.tally.refused_again += lost
        else:
            self.tally.errors.append(f"{self.name}: {kind} answered {answer.status}")

    def offered(self, game: Game) -> dict[str, Form]:
        """The actions the table page offers, by kind (none once the game is over), after
        checking the page's version against the actions acknowledged."""
        page = expect(self.answered("GET", f"/g/{game.token}")[0], 200, "the table page")
        version = page_version(page.body)
        if version is not None and version != game.version:
            self.tally.drift(game.version, version)
            game.version, game.log = version, self.record(game.token)["events"]  # go on
        return {form.kind: form for form in forms(page.body) if form.kind in WEIGHTS}

    def new_game(self) -> Game:
        """A new game from the home page's form, and its setup (from its record)."""
        home = expect(self.answered("GET", "/")[0], 200, "the home page")
        form = next(form for form in forms(home.body) if form.kind == "new-game")
        seats = len(form.fields["player"])
        fields = {**form.fields, "player": [*PLAYERS, *[""] * (seats - len(PLAYERS))]}
        created = expect(self.answered("POST", form.action, fields)[0], 303, "a new game")
        token = created.location.rsplit("/", 1)[1]
        return Game(token, load_setup(self.record(token)))

    def record(self, token: str) -> dict:
        answer = self.answered("GET", f"/g/{token}/record.json")[0]
        return json.loads(expect(answer, 200, "the export").body)

    def answered(self, method: str, path: str, fields: dict | None = None) -> tuple[Answer, bool]:
        """Send the request, the same each time, until an answer comes: the answer, and
        whether the answer to an earlier sending was lost (its outcome unknown)."""
        lost, since, write = False, time.monotonic(), method == "POST"
        while True:
            again = lost and write  # an action sent again after its answer was lost
            try:
                with self.traffic.writing() if write else nullcontext():
                    answer = self.browser.request(method, path, fields)
                self.tally.retries += again
                if write:
                    self.traffic.answered()
                return answer, lost
            except Lost:
                self.tally.retries += again
                self.tally.unknown += write
                lost, since = True, time.monotonic()  # the server was up: wait for it again
            except Down:  # not sent: the server is starting again
                pass
            if time.monotonic() - since > UP_WITHIN:
                raise RuntimeError(f"no answer to {method} {path} within {UP_WITHIN:.0f} s")
            time.sleep(RETRY_EVERY)

    def check(self, stored: dict) -> None:
        """Compare each game as stored with what the server acknowledged."""
        for game in self.games:
            version, log = stored.get(game.token, (MISSING, []))
            if game.pending and version == game.version + 1:
                game.apply(*game.pending)  # the action this client gave up on was applied
            self.tally.drift(game.version, version)
            self.tally.differing += version == game.version and log != game.log


# --- the server --------------------------------------------------------------------------

class Server:
    """`templari-companion` on 127.0.0.1, started again on the same data directory after
    each kill; what it writes to stderr goes to server.log beside its database."""

    def __init__(self, data_dir: Path, url: str | None = None):
        self.data_dir, self.process, self.url = data_dir, None, url
        self.database = data_dir / "companion.sqlite3"
        with closing(socket.socket()) as probe:
            probe.bind((HOST, 0))
            self.port = probe.getsockname()[1]

    def start(self) -> None:
        """Start it and wait until its port answers."""
        with open(self.data_dir / "server.log", "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "companion.cli", "--host", HOST, "--port",
                 str(self.port), *(["--database", self.url] if self.url else
                                   ["--data-dir", str(self.data_dir)])],
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=log)
        since = time.monotonic()
        while time.monotonic() - since < UP_WITHIN:
            if self.process.poll() is not None:
                log = (self.data_dir / "server.log").read_text(errors="replace")
                raise RuntimeError(f"the server stopped on start:\n{log[-2000:]}")
            try:
                socket.create_connection((HOST, self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"the server did not answer within {UP_WITHIN:.0f} s")

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()


# --- a run -------------------------------------------------------------------------------

@dataclass
class Result:
    kills: int
    clients: int
    restarts: list[float]
    elapsed: float
    games: int  # played by the clients
    tally: Tally
    integrity: str
    stored: int  # games in the database
    exported: int
    unreplayable: list[str]

    def failures(self) -> list[str]:
        tally = self.tally
        return [problem for problem, failed in [
            (f"{tally.lost} acknowledged actions lost", tally.lost),
            (f"{tally.doubled} actions applied twice", tally.doubled),
            (f"{tally.differing} stored logs differ from what their client was told",
             tally.differing),
            (f"PRAGMA integrity_check: {self.integrity}",
             self.integrity not in ("ok", NOT_SQLITE)),
            (f"{self.exported} games exported of {self.stored} stored",
             self.exported != self.stored),
            *[(f"an export does not replay: {why}", True) for why in self.unreplayable],
            *[(error, True) for error in tally.errors],
        ] if failed]


def run(kills: int, clients: int, data_dir, answers=ANSWERS, url=None) -> Result:
    """Play while killing the server `kills` times, each after a count of writes answered
    between `answers`; the figures and the checks' findings. The server (on the data
    directory, or the PostgreSQL `url`) is stopped at the end whatever happens."""
    began, rng = time.monotonic(), random.Random()
    server, traffic = Server(Path(data_dir), url), Traffic(clients)
    players = [Client(server.port, traffic, rng.random()) for _ in range(clients)]
    try:
        server.start()
        for player in players:
            player.start()
        restarts = [_strike(server, traffic, rng, answers) for _ in range(kills)]
        traffic.play(rng, answers)
        traffic.stopping.set()
        for player in players:
            player.join(UP_WITHIN + TIMEOUT)
            if player.is_alive():
                player.tally.errors.append(f"{player.name} did not stop")
        exports = _exports(server.port)
    finally:
        traffic.stopping.set()
        server.stop()
    integrity, stored = _stored(server)
    for player in players:
        player.check(stored)
    return Result(kills, clients, restarts, time.monotonic() - began,
                  sum(len(player.games) for player in players),
                  total(player.tally for player in players), integrity, len(stored),
                  len(exports), _unreplayable(exports))


def _strike(server: Server, traffic: Traffic, rng: random.Random, answers) -> float:
    """Let the clients play a moment, kill the server a few ms into a write, start it
    again: how long until its port answered."""
    traffic.play(rng, answers)
    traffic.wait(lambda: traffic.writes > 0 or not traffic.playing, UP_WITHIN)
    time.sleep(rng.uniform(0, KILL_WITHIN))
    killed = time.monotonic()
    server.kill()
    server.start()
    return time.monotonic() - killed


def _exports(port: int) -> dict[str, str]:
    """Every game the home page lists: its exported record, by token."""
    browser = Browser(port)
    home = expect(browser.request("GET", "/"), 200, "the home page")
    tokens = dict.fromkeys(re.findall(r'href="/g/([\w-]+)"', home.body))
    return {token: expect(browser.request("GET", f"/g/{token}/record.json"), 200,
                          "the export").body for token in tokens}


def _stored(server: Server) -> tuple[str, dict]:
    """The database's integrity check (SQLite's), and each game's (version, events) as
    stored."""
    if server.url:
        import psycopg
        with psycopg.connect(server.url) as db:
            return NOT_SQLITE, _logs(db)
    with closing(sqlite3.connect(server.database)) as db:
        return "; ".join(row[0] for row in db.execute("PRAGMA integrity_check")), _logs(db)


def _logs(db) -> dict:
    """Each game's (version, events) as `db` (a connection) holds them."""
    stored = {token: (version, []) for token, version
              in db.execute("SELECT token, version FROM games")}
    for token, data in db.execute("SELECT token, data FROM events JOIN games "
                                  "ON games.id = game_id ORDER BY game_id, seq"):
        stored[token][1].append(json.loads(data))
    return stored


def _unreplayable(exports: dict[str, str]) -> list[str]:
    """Why each export that does not replay is refused (as `templari-companion replay`)."""
    refused = []
    for token, text in exports.items():
        try:
            fold_record(loads(text))
        except (Refusal, ValueError) as error:
            refused.append(f"{token[:8]}: {error}")
    return refused


def report(result: Result):
    """The lines of figures printed."""
    tally, restarts = result.tally, result.restarts
    yield (f"{result.kills} kills (SIGKILL, each within {KILL_WITHIN * 1000:.0f} ms of a "
           f"write being sent), each followed by a restart on the same "
           f"{'PostgreSQL database' if result.integrity == NOT_SQLITE else 'data directory'}, "
           f"while {result.clients} clients recorded through the table's forms")
    yield (f"actions acknowledged: {tally.acknowledged}, refused by the rules: "
           f"{tally.refused}, in {result.games} games")
    yield (f"answers lost (outcome unknown): {tally.unknown}; sent again unchanged: "
           f"{tally.retries} times, then found applied already: {tally.applied_before}, "
           f"applied then: {tally.applied_again}, refused again: {tally.refused_again}")
    yield f"acknowledged actions lost: {tally.lost}"
    yield f"actions applied twice: {tally.doubled}"
    yield (f"stored logs that differ from what their client was told: {tally.differing} "
           f"of {result.games}")
    yield f"PRAGMA integrity_check: {result.integrity}"
    yield (f"exports that replay: {result.exported - len(result.unreplayable)} of "
           f"{result.stored} stored games")
    if restarts:
        yield (f"restart after a kill, until the port answers: median "
               f"{statistics.median(restarts):.1f} s, max {max(restarts):.1f} s")
    yield f"elapsed: {result.elapsed:.1f} s"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--postgresql", action="store_true",
                        help="the games in a PostgreSQL of the benchmark's own")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as data_dir, \
            (postgresql() if args.postgresql else nullcontext()) as url:
        result = run(args.kills, args.clients, data_dir, url=url)
    print("\n".join(report(result)))
    failures = result.failures()
    if failures:
        sys.exit("FAILED: " + "\n".join(failures))


if __name__ == "__main__":
    main()
