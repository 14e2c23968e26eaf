"""How often one device may change games: a table records a sale, a penalty or a
correction every few seconds at most, with bursts (a few corrections in a row, a live
auction's bids), so a device past that is answered 429 in words and nothing is done; a
change costs a few milliseconds, and no device can take the server's time from the others.

A device is its session where it has one (guards/networks.py: it keeps its pace whatever
address it comes from), else its network; and all the devices of one network together
have a ceiling of ten devices at their full pace, which the tables of a café behind one
address never reach (docs/faults.md), and which bounds a device that drops its cookie to
be another. The server's own device is never counted (a hosted server has none). The
counts are kept in the database (a token bucket per device and per network, as keyed
hashes), so every process and machine serving it counts together."""
import time

from flask import abort, current_app, request

from companion.rules.phrase import N_, Phrase
from companion.store.sql import StorageFault
from .networks import asking_device, asking_network
from .roles import is_owner
from .throttle import hashed

DEVICE_PACE = (1.0, 30)  # a device: 30 changes at once, then one a second
NETWORK_PACE = (10.0, 300)  # the devices of one network together: ten devices' worth
PACE = "CHANGES_PACE"  # the app's config: (a device's, a network's) pace, each (a second,
# at once), or None for no limit (the tests')
clock = time.time
TOO_FAST = Phrase(N_("This device sends changes faster than a table plays: try again in a "
                     "few seconds. Nothing was changed."))
NETWORK_TOO_FAST = Phrase(N_("The devices of this network send changes faster than ten "
                             "tables play: try again in a few seconds. Nothing was "
                             "changed."))


def init(app) -> None:
    app.config[PACE] = (DEVICE_PACE, NETWORK_PACE)
    app.before_request(_pace)


def _pace() -> None:
    """Every form sent (a POST) is a change, or a try at one: counted for its device and
    its network in one write, for neither if either has had its share."""
    pace = current_app.config[PACE]
    if request.method != "POST" or pace is None or is_owner():
        return
    secret = current_app.secret_key.encode()
    buckets = (("device:" + hashed(secret, asking_device()), *pace[0]),
               ("network:" + hashed(secret, asking_network()), *pace[1]))
    try:
        empty = current_app.config["STORE"].take(buckets, clock())
    except StorageFault:  # a database that takes no writes: the route says so, or reads
        return
    if empty is not None:
        abort(429, (TOO_FAST, NETWORK_TOO_FAST)[empty])
