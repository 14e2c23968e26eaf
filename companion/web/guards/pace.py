"""How often one device may change games: a table records a sale, a penalty or a
correction every few seconds at most, with bursts (a few corrections in a row, a live
auction's bids), so a device past that is answered 429 in words and nothing is done; a
change costs a few milliseconds, and no device can take the server's time from the others.
The server's own device is never counted (a hosted server has none); a device is its
network address (a cookie could be dropped). The count is kept in the database (a token bucket per address, the
address as a keyed hash), so every process and machine serving it counts together."""
import time

from flask import abort, current_app, request

from companion.rules.phrase import N_, Phrase
from companion.store.sql import StorageFault
from .roles import is_owner
from .throttle import hashed

CHANGES_BURST = 30  # changes at once...
CHANGES_RATE = 1.0  # ...then this many a second
PACE = "CHANGES_PACE"  # the app's config: (rate, burst), or None for no limit (the tests')


def init(app) -> None:
    app.config[PACE] = (CHANGES_RATE, CHANGES_BURST)
    app.before_request(_pace)


def _pace() -> None:
    """Every form sent (a POST) is a change, or a try at one: counted for its device."""
    pace = current_app.config[PACE]
    if request.method != "POST" or pace is None or is_owner():
        return
    rate, burst = pace
    key = "change:" + hashed(current_app.secret_key.encode(), request.remote_addr or "")
    try:
        taken = current_app.config["STORE"].take(key, rate, burst, time.time())
    except StorageFault:  # a database that takes no writes: the route says so, or reads
        return
    if not taken:
        abort(429, Phrase(N_("This device sends changes faster than a table plays: try "
                             "again in a few seconds. Nothing was changed.")))
