"""Token buckets per network address, for the limits of the server (requests a second)
and of the app (changes a second); the server's own device, a loopback peer, is never
counted, and is the host (see roles)."""
import ipaddress
import threading
import time
from functools import lru_cache


class Buckets:
    """A token bucket for each address: `burst` at once, then `rate` a second; the server's
    own device is never counted, nor the addresses `exempt` (a reverse proxy, whose
    devices the app counts one by one)."""

    def __init__(self, rate: float, burst: float, clock=time.monotonic, exempt=frozenset()):
        self.rate, self.burst, self.clock, self.exempt = rate, burst, clock, exempt
        self._buckets: dict[str, tuple[float, float]] = {}  # address: (tokens, when)
        self._lock = threading.Lock()

    def take(self, address: str) -> bool:
        """Whether `address` may do one more now (a token taken if so)."""
        if own_device(address) or address in self.exempt:
            return True
        now = self.clock()
        with self._lock:
            tokens, when = self._buckets.get(address, (self.burst, now))
            tokens = min(self.burst, tokens + (now - when) * self.rate)
            allowed = tokens >= 1
            self._buckets[address] = (tokens - allowed, now)
            return allowed

    def forget_idle(self) -> None:
        """Drop the buckets that have filled up again (the devices that went quiet)."""
        now = self.clock()
        with self._lock:
            for address, (tokens, when) in list(self._buckets.items()):
                if tokens + (now - when) * self.rate >= self.burst:
                    del self._buckets[address]

    def __len__(self) -> int:
        return len(self._buckets)


@lru_cache(maxsize=4096)  # asked at every request: a busy server's devices
def own_device(address: str) -> bool:
    """Whether `address` is the server's own device: a loopback address (the host, R12's
    host device; never limited)."""
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False
