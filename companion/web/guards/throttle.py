"""How often one device may get something wrong (a typed game code), in a sliding window."""
import threading
import time
from collections import deque


class Throttle:
    """At most `limit` failures per `window` seconds for each key (a device's address)."""

    def __init__(self, limit: int, window: float, clock=time.monotonic):
        self.limit, self.window, self.clock = limit, window, clock
        self._failures: dict[str, deque] = {}
        self._lock = threading.Lock()

    def blocked(self, key: str) -> int:
        """Seconds until `key` may try again (0: it may now)."""
        with self._lock:
            failures = self._recent(key)
            if len(failures) < self.limit:
                return 0
            return max(1, int(failures[0] + self.window - self.clock()) + 1)

    def failed(self, key: str) -> None:
        with self._lock:
            self._recent(key).append(self.clock())

    def _recent(self, key: str) -> deque:
        """`key`'s failures within the window; keys with none are forgotten."""
        now = self.clock()
        for other in [other for other, times in self._failures.items()
                      if not times or times[-1] <= now - self.window]:
            del self._failures[other]
        failures = self._failures.setdefault(key, deque())
        while failures and failures[0] <= now - self.window:
            failures.popleft()
        return failures
