"""How often one network may do something anyone may try (type a game code, type an
operator's key), in a sliding window. The times are kept in the database, looked at and
counted in one step, so that every process and machine serving it counts them together
and no number of tries at once passes the limit; a network is kept as a keyed hash, for
the window only."""
import hashlib
import hmac
import math
import time


class Throttle:
    """At most `limit` times per `window` seconds for each key (a network), of the `kind`
    of thing counted, in the store `store`; keys kept hashed with `secret`."""

    def __init__(self, store, secret: bytes, kind: str, limit: int, window: float,
                 clock=time.time):
        self.store, self._secret, self.kind, self.limit, self.window, self.clock = (
            store, secret, kind, limit, window, clock)

    def take(self, key: str) -> int:
        """`key` does it once more, if it may: 0, counted; else the seconds until it may
        (nothing counted)."""
        return math.ceil(self.store.mark_within(self.kind, hashed(self._secret, key),
                                                self.clock(), self.window, self.limit))


def hashed(secret: bytes, key: str) -> str:
    """A network or a device as the database keeps it: a hash keyed by `secret`."""
    return hmac.new(secret, key.encode(), hashlib.sha256).hexdigest()[:32]


def throttle(app, kind: str, limit: int, window: float) -> Throttle:
    """The app's Throttle of `kind` (made on first use)."""
    kept = app.extensions.setdefault("throttles", {})
    if kind not in kept:
        kept[kind] = Throttle(app.config["STORE"], app.secret_key.encode(), kind, limit, window)
    return kept[kind]


def minutes(seconds: int) -> int:
    """A wait in whole minutes, rounded up, as the refusals say it."""
    return -(-seconds // 60)
