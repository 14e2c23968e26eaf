"""How often one device may change games: a table records a sale, a penalty or a
correction every few seconds at most, with bursts (a few corrections in a row, a live
auction's bids), so a device past that is answered 429 in words and nothing is done; a
change costs a few milliseconds, and no device can take the server's time from the others.
The server's own device is never counted; a device is its network address (a cookie
could be dropped)."""
from flask import abort, current_app, request

from companion.rules.phrase import N_, Phrase
from .buckets import Buckets

CHANGES_BURST = 30  # changes at once...
CHANGES_RATE = 1.0  # ...then this many a second
FORGET_PAST = 1000  # devices counted, past which those gone quiet are forgotten
PACE = "templari.pace"  # the app's Buckets of changes (app.extensions)


def init(app) -> None:
    app.extensions[PACE] = Buckets(CHANGES_RATE, CHANGES_BURST)
    app.before_request(_pace)


def _pace() -> None:
    """Every form sent (a POST) is a change, or a try at one: counted for its device."""
    if request.method != "POST":
        return
    changes, address = current_app.extensions[PACE], request.remote_addr or ""
    if len(changes) > FORGET_PAST:
        changes.forget_idle()
    if not changes.take(address):
        abort(429, Phrase(N_("This device sends changes faster than a table plays: try "
                             "again in a few seconds. Nothing was changed.")))
