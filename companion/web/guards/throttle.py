"""How often one device may do something limited (type a wrong game code, start a game on a
hosted server, type a wrong operator's key), in a sliding window. The times are kept in
the database, so that every process and machine serving it counts them together; an
address is kept as a keyed hash, for the window only."""
import hashlib
import hmac
import time


class Throttle:
    """At most `limit` times per `window` seconds for each key (a device's address), of
    the `kind` of thing counted, in the store `store`; keys kept hashed with `secret`."""

    def __init__(self, store, secret: bytes, kind: str, limit: int, window: float,
                 clock=time.time):
        self.store, self._secret, self.kind, self.limit, self.window, self.clock = (
            store, secret, kind, limit, window, clock)

    def blocked(self, key: str) -> int:
        """Seconds until `key` may try again (0: it may now)."""
        count, oldest = self.store.marks(self.kind, self._hashed(key),
                                         self.clock() - self.window)
        if count < self.limit:
            return 0
        return max(1, int(oldest + self.window - self.clock()) + 1)

    def count(self, key: str) -> None:
        """`key` did it once more (the times past the window are forgotten)."""
        now = self.clock()
        self.store.mark(self.kind, self._hashed(key), now, now - self.window)

    def _hashed(self, key: str) -> str:
        return hashed(self._secret, key)


def hashed(secret: bytes, address: str) -> str:
    """An address as the database keeps it: a hash keyed by `secret`, never the address."""
    return hmac.new(secret, address.encode(), hashlib.sha256).hexdigest()[:32]


def throttle(app, kind: str, limit: int, window: float) -> Throttle:
    """The app's Throttle of `kind` (made on first use)."""
    kept = app.extensions.setdefault("throttles", {})
    if kind not in kept:
        kept[kind] = Throttle(app.config["STORE"], app.secret_key.encode(), kind, limit, window)
    return kept[kind]
