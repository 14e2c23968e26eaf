"""A fair share of the server's time: the pages of a game that cost the most to draw (its
history and record, drawn each time they are asked for, and its QR code, drawn once for
each link: render/qr.py) are drawn at once for the devices that play the game (its seated
phones, its host's devices), and for any other device within a budget of the process: at
most AT_ONCE of them drawn at once, at most EACH at once for one network
(guards/networks.py), and PER_SECOND a second after a burst of BURST. Past it, such a
device is answered 503 in words, with Retry-After, and nothing is done.

That answer waits HOLD seconds first, in a thread the process keeps for a stream and that
no stream uses (streams.py; one answer waiting for a network at a time): a device that
asks again as soon as it is answered then asks once a HOLD, where answers at once would
have it ask hundreds of times a second, each answer taking the server's time from the
tables. Where no such thread is free, the answer goes at once. So however many addresses
ask for these pages as fast as they are answered, a table's own devices keep their speed
(docs/faults.md). The pages kept once drawn (the table, TV and score pages:
render/rendered.py), live parts, streams, joining and changes are not counted here: a
stream has its own bound (streams.py), a change its pace (pace.py)."""
import threading
import time

from flask import abort, current_app, g, request, session

from companion.rules.phrase import N_, Phrase
from companion.store.games import Damaged
from companion.web.pages import game_or_404
from .networks import asking_network
from .roles import is_host, seat_of

EXPENSIVE = frozenset({"table.history", "table.export", "table.qr"})
AT_ONCE, EACH = 2, 1  # drawn at once for devices not playing their game: in all, a network's
PER_SECOND, BURST = 10.0, 10  # pages drawn for them: a second, and at once after a pause
HOLD = 1.0  # seconds a device turned away waits for its answer
RETRY_AFTER = 2  # seconds, said in that answer
SHARE = "SHARE"  # the app's config: its Share, or None for no bound (the tests')
clock, pause = time.monotonic, time.sleep
BUSY = Phrase(N_("The server is busy with the tables playing on it: try again in a few "
                 "seconds. Nothing was changed."))


class Share:
    """The expensive pages drawn for devices that do not play their game: at most
    `at_once` at a time, `each` for one network, `per_second` a second after a burst of
    `burst`; and the networks whose answer waits."""

    def __init__(self, at_once: int, each: int, per_second: float, burst: int):
        self.at_once, self.each, self.per_second, self.burst = at_once, each, per_second, burst
        self._lock = threading.Lock()
        self._drawing: dict[str, int] = {}  # by network
        self._tokens, self._since = float(burst), clock()
        self._waiting: set[str] = set()

    def take(self, network: str) -> bool:
        """Whether a page may be drawn now for `network` (then counted until given back)."""
        with self._lock:
            now = clock()
            self._tokens = min(self.burst, self._tokens + (now - self._since) * self.per_second)
            self._since = now
            if (self._tokens < 1 or sum(self._drawing.values()) >= self.at_once
                    or self._drawing.get(network, 0) >= self.each):
                return False
            self._tokens -= 1
            self._drawing[network] = self._drawing.get(network, 0) + 1
            return True

    def give_back(self, network: str) -> None:
        with self._lock:
            self._drawing[network] -= 1
            if not self._drawing[network]:
                del self._drawing[network]

    def hold(self, network: str, room: int) -> None:
        """HOLD seconds, if fewer than `room` answers wait and none of `network`'s."""
        with self._lock:
            if network in self._waiting or len(self._waiting) >= room:
                return
            self._waiting.add(network)
        try:
            pause(HOLD)
        finally:
            with self._lock:
                self._waiting.discard(network)


def init(app) -> None:
    app.config[SHARE] = Share(AT_ONCE, EACH, PER_SECOND, BURST)
    app.before_request(_share)
    app.teardown_request(_give_back)


def _share() -> None:
    """An expensive page for a device that does not play its game: drawn within the
    budget, else 503 in words."""
    share = current_app.config[SHARE]
    if share is None or request.endpoint not in EXPENSIVE or _plays():
        return
    network = asking_network()
    if not share.take(network):
        streams = current_app.extensions["changes"]
        share.hold(network, streams.held - streams.open)
        abort(503, BUSY, retry_after=RETRY_AFTER)
    g.share_taken = (share, network)


def _plays() -> bool:
    """Whether this device plays the game the request names: it hosts it, or holds a seat
    (the game is read only if its session took one; a game whose log no longer replays is
    left to its route: it draws nothing)."""
    token = request.view_args["token"]
    if is_host():
        return True
    if token not in session.get("seats", {}):
        return False
    try:
        return seat_of(game_or_404(token)) is not None
    except Damaged:
        return True


def _give_back(_error) -> None:
    taken = g.pop("share_taken", None)
    if taken is not None:
        share, network = taken
        share.give_back(network)
