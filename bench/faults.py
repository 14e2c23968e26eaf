"""Kill the table server again and again while tables record: nothing acknowledged is
lost, nothing is applied twice.

    python bench/faults.py [--kills 20] [--clients 4] [--postgresql [--outages]]

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

With --outages, the server is hosted (`--hosted`: each client's device hosts the games
it starts) and PostgreSQL is stopped instead (its fast shutdown: the sessions ended,
their transactions rolled back) KILLS times, each within 150 ms of a write being sent,
and started again on its data. While it is away, a request answered 503 must say "The
game database cannot be reached" (any other answer fails the run), a change so answered
is sent again unchanged (a commit cut off may have been made: its version tells), and
every page of a game is asked for once by its host's device (each answered 503 with the
sentence); once it takes connections again, the time until the next change is
acknowledged is measured. Prints, besides the figures above:

    answered 503 with the sentence: N requests (N changes), any other answer: 0
    pages asked while the database was away: N, each 503 with the sentence
    the database back, the next change acknowledged within: median T s, max T s

A change answered 429 (the clients share one address, and so its pace) is sent again a
second later. Exits with status 1 if any check fails, or the server wrote a traceback to
its log. Traffic goes to 127.0.0.1 only.
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
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, contextmanager, nullcontext
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode

from werkzeug.datastructures import MultiDict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as python bench/faults.py: bench is a package

from bench.balanced import database_server  # noqa: E402
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
PACED = 1.0  # seconds before a change answered 429 (too many from the address) is sent again
# How often each action the table page offers is chosen.
WEIGHTS = {"reveal": 8, "sold": 5, "free": 2, "penalty": 1, "undo": 1}
CHOSEN = {"cards": 2}  # how many of a field's choices are taken (one by default)
PRICES = (1, 9)
MISSING = -1  # the "version" of a game the database lost: its creation was lost too
UNREACHABLE = "The game database cannot be reached"  # what a 503 says while it is away
BACK_WITHIN = 5.0  # seconds: a change acknowledged after the database's return, or it fails
# The pages of a game (and the home page) asked for while the database is away.
PAGES = ("/", "/g/{token}", "/g/{token}/live?v=0", "/g/{token}/history",
         "/g/{token}/history/1", "/g/{token}/score", "/g/{token}/tv",
         "/g/{token}/tv/live?v=0", "/g/{token}/join", "/g/{token}/join/seats",
         "/g/{token}/settings", "/g/{token}/record.json", "/g/{token}/qr.svg")


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


def new_game_fields(form: Form) -> dict[str, list[str]]:
    """The fields of the home page's new game form, filled in: PLAYERS seated."""
    seats = len(form.fields["player"])
    return {**form.fields, "player": [*PLAYERS, *[""] * (seats - len(PLAYERS))]}


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
    paced: int = 0  # changes answered 429 (the address's pace), sent again a second later
    unavailable: int = 0  # requests answered 503 with the sentence (the database away)
    unavailable_writes: int = 0  # of which changes
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
        self.acknowledged = 0.0  # when a change was last acknowledged (time.monotonic)
        self.written = ("", "")  # the game of the last write sent, its device's cookie
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

    def answered(self, status: int) -> None:
        with self.changed:
            self.answers += 1
            if status == 303:
                self.acknowledged = time.monotonic()
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
        game.pending, self.traffic.written = (kind, fields), (game.token, self.browser.cookie)
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
        created = expect(self.answered("POST", form.action, new_game_fields(form))[0], 303,
                         "a new game")
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
                if answer.status == 429:  # this address's changes paced: nothing done
                    self.tally.paced += 1
                    time.sleep(PACED)
                elif answer.status == 503:
                    self.unavailable(answer, write)
                    lost = lost or write  # (said not recorded; a commit cut off may have been)
                else:
                    if write:
                        self.traffic.answered(answer.status)
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

    def unavailable(self, answer: Answer, write: bool) -> None:
        """A 503 while the database is away: it must say so (else the run fails)."""
        if UNREACHABLE not in answer.body:
            raise RuntimeError(f"a 503 without the sentence: {answer.body[:200]!r}")
        self.tally.unavailable += 1
        self.tally.unavailable_writes += write

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
    """`templari-companion` on 127.0.0.1 (or on `host` and 127.0.0.1), started again on the
    same data directory after each kill; what it writes to stderr goes to server.log
    beside its database. `hosted`: with --hosted (the device that starts a game hosts it);
    `options`: more of the command's options."""

    def __init__(self, data_dir: Path, url: str | None = None, hosted: bool = False,
                 host: str = HOST, options: tuple[str, ...] = ()):
        self.data_dir, self.process, self.url, self.hosted = data_dir, None, url, hosted
        self.host, self.options = host, options
        self.database = data_dir / "companion.sqlite3"
        with closing(socket.socket()) as probe:
            probe.bind((HOST, 0))
            self.port = probe.getsockname()[1]

    def start(self) -> None:
        """Start it and wait until its port answers."""
        with open(self.data_dir / "server.log", "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "companion.cli", "--host", self.host, "--port",
                 str(self.port), *(["--database", self.url] if self.url else
                                   ["--data-dir", str(self.data_dir)]),
                 *(["--hosted"] if self.hosted else []), *self.options],
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

    def tracebacks(self) -> list[str]:
        """The tracebacks the server wrote to its log."""
        log = (self.data_dir / "server.log").read_text(errors="replace")
        return ["Traceback" + part.split("\n\n")[0] for part in log.split("Traceback")[1:]]

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
    kills: int  # of the server, or outages of the database
    clients: int
    restarts: list[float]  # after each kill, or each outage (see Outage)
    elapsed: float
    games: int  # played by the clients
    tally: Tally
    integrity: str
    stored: int  # games in the database
    exported: int
    unreplayable: list[str]
    outages: list["Outage"] = field(default_factory=list)
    tracebacks: list[str] = field(default_factory=list)  # in the server's log

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
            *[(problem, True) for outage in self.outages for problem in outage.failures()],
            *[(f"the server failed:\n{said}", True) for said in self.tracebacks],
        ] if failed]


@dataclass
class Outage:
    """The database away once: what each page asked meanwhile answered ("" for a 503
    with the sentence), and how long after its return the next change was acknowledged."""

    pages: dict[str, str]
    back_within: float

    def failures(self) -> list[str]:
        return [*(f"{page} answered {said}" for page, said in self.pages.items() if said),
                *([f"no change acknowledged within {self.back_within:.1f} s of the "
                   f"database's return"] if self.back_within > BACK_WITHIN else [])]


def run(kills: int, clients: int, data_dir, answers=ANSWERS, url=None,
        database=None) -> Result:
    """Play while killing the server `kills` times, each after a count of writes answered
    between `answers`; the figures and the checks' findings. The server (on the data
    directory, or the PostgreSQL `url`) is stopped at the end whatever happens. Given
    `database` (a PostgreSQL: tests/postgres.Server), the server plays on it and the
    database is stopped and started again `kills` times instead, the server hosted."""
    began, rng = time.monotonic(), random.Random()
    server = Server(Path(data_dir), *((database.url, True) if database else (url,)))
    traffic, restarts, outages = Traffic(clients), [], []
    players = [Client(server.port, traffic, rng.random()) for _ in range(clients)]
    try:
        server.start()
        for player in players:
            player.start()
        for _ in range(kills):
            if database is None:
                restarts.append(_strike(server, traffic, rng, answers))
            else:
                outages.append(_outage(server.port, database, traffic, rng, answers))
        traffic.play(rng, answers)
        traffic.stopping.set()
        for player in players:
            player.join(UP_WITHIN + TIMEOUT)
            if player.is_alive():
                player.tally.errors.append(f"{player.name} did not stop")
        exports = _exports(server.port, [player.browser.cookie for player in players])
    finally:
        traffic.stopping.set()
        server.stop()
    integrity, stored = _stored(server)
    for player in players:
        player.check(stored)
    return Result(kills, clients, restarts, time.monotonic() - began,
                  sum(len(player.games) for player in players),
                  total(player.tally for player in players), integrity, len(stored),
                  len(exports), _unreplayable(exports), outages, server.tracebacks())


def _strike(server: Server, traffic: Traffic, rng: random.Random, answers) -> float:
    """Let the clients play a moment, kill the server a few ms into a write, start it
    again: how long until its port answered."""
    _into_a_write(traffic, rng, answers)
    killed = time.monotonic()
    server.kill()
    server.start()
    return time.monotonic() - killed


def _outage(port: int, database, traffic: Traffic, rng: random.Random, answers) -> Outage:
    """Let the clients play a moment, stop the database a few ms into a write, ask for
    every page of a game meanwhile, start it again and wait for the next change
    acknowledged."""
    token, cookie = _into_a_write(traffic, rng, answers, changed=True)
    database.pause()
    try:
        pages = _asked(port, token, cookie)
    finally:
        database.resume()
    back = time.monotonic()
    traffic.wait(lambda: traffic.acknowledged > back or not traffic.playing, UP_WITHIN)
    return Outage(pages, traffic.acknowledged - back if traffic.acknowledged > back
                  else float("inf"))


def _into_a_write(traffic: Traffic, rng: random.Random, answers,
                  changed: bool = False) -> tuple[str, str]:
    """Let the clients play until a random count of writes more have been answered, then
    until a write is under way (and, if `changed`, a game was changed before), and a
    random moment into it: the last game changed, and the cookie of the device changing
    it."""
    traffic.play(rng, answers)
    traffic.wait(lambda: traffic.writes > 0 and (traffic.written[0] or not changed)
                 or not traffic.playing, UP_WITHIN)
    time.sleep(rng.uniform(0, KILL_WITHIN))
    return traffic.written


def _asked(port: int, token: str, cookie: str) -> dict[str, str]:
    """Every page of the game `token`, asked at once (each waits for the database a
    while) by its host's device (its `cookie`): what each answered, "" for a 503 with the
    sentence."""
    def ask(page: str) -> str:
        browser = Browser(port)
        browser.cookie = cookie
        try:
            answer = browser.request("GET", page)
        except (Down, Lost) as error:
            return f"no answer ({error})"
        return "" if answer.status == 503 and UNREACHABLE in answer.body else (
            f"{answer.status}: {answer.body[:200]!r}")
    pages = [page.format(token=token) for page in PAGES]
    with ThreadPoolExecutor(len(pages)) as asking:
        return dict(zip(pages, asking.map(ask, pages)))


def _exports(port: int, cookies: list[str]) -> dict[str, str]:
    """Every game the home page lists to the clients' devices (`cookies`: on a hosted
    server, each lists the games it hosts): its exported record, by token."""
    exports = {}
    for cookie in cookies:
        browser = Browser(port)
        browser.cookie = cookie
        home = expect(browser.request("GET", "/"), 200, "the home page")
        for token in dict.fromkeys(re.findall(r'href="/g/([\w-]+)"', home.body)):
            exports[token] = expect(browser.request("GET", f"/g/{token}/record.json"), 200,
                                    "the export").body
    return exports


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
    tally, restarts, outages = result.tally, result.restarts, result.outages
    if outages:
        yield (f"{result.kills} outages of PostgreSQL (its fast shutdown, each within "
               f"{KILL_WITHIN * 1000:.0f} ms of a write being sent), each followed by its "
               f"start on its data, while {result.clients} clients recorded through the "
               f"table's forms")
    else:
        yield (f"{result.kills} kills (SIGKILL, each within {KILL_WITHIN * 1000:.0f} ms of "
               f"a write being sent), each followed by a restart on the same "
               f"{'PostgreSQL database' if result.integrity == NOT_SQLITE else 'data directory'}"
               f", while {result.clients} clients recorded through the table's forms")
    yield (f"actions acknowledged: {tally.acknowledged}, refused by the rules: "
           f"{tally.refused}, in {result.games} games")
    yield (f"answers lost (outcome unknown): {tally.unknown}; sent again unchanged: "
           f"{tally.retries} times, then found applied already: {tally.applied_before}, "
           f"applied then: {tally.applied_again}, refused again: {tally.refused_again}")
    if tally.paced:
        yield f"changes answered 429 (the address's pace), sent again: {tally.paced}"
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
    if outages:
        yield from _outage_lines(tally, outages)
    yield f"elapsed: {result.elapsed:.1f} s"


def _outage_lines(tally: Tally, outages: list[Outage]):
    pages = [said for outage in outages for said in outage.pages.values()]
    back = [outage.back_within for outage in outages]
    yield (f"answered 503 with the sentence: {tally.unavailable} requests "
           f"({tally.unavailable_writes} changes), any other answer: {len(tally.errors)}")
    yield (f"pages asked while the database was away: {len(pages)}, "
           f"{pages.count('')} of them 503 with the sentence")
    yield (f"the database back, the next change acknowledged within: median "
           f"{statistics.median(back):.2f} s, max {max(back):.2f} s")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--postgresql", action="store_true",
                        help="the games in a PostgreSQL of the benchmark's own")
    parser.add_argument("--outages", action="store_true",
                        help="with --postgresql: stop the database, not the server")
    args = parser.parse_args(argv)
    if args.outages and not args.postgresql:
        parser.error("--outages needs --postgresql")
    with tempfile.TemporaryDirectory() as data_dir, \
            (database_server() if args.postgresql else nullcontext()) as database:
        result = run(args.kills, args.clients, data_dir, url=database and database.fresh(),
                     database=database if args.outages else None)
    print("\n".join(report(result)))
    failures = result.failures()
    if failures:
        sys.exit("FAILED: " + "\n".join(failures))


if __name__ == "__main__":
    main()
