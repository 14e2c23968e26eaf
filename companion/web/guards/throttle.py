"""How often one device may do something limited (type a wrong game code, start a game on a
hosted server), in a sliding window."""
import threading
import time
from collections import deque


class Throttle:
    """At most `limit` times per `window` seconds for each key (a device's address)."""

    def __init__(self, limit: int, window: float, clock=time.monotonic):
        self.limit, self.window, self.clock = limit, window, clock
        self._times: dict[str, deque] = {}
        self._lock = threading.Lock()

    def blocked(self, key: str) -> int:
        """Seconds until `key` may try again (0: it may now)."""
        with self._lock:
            times = self._recent(key)
            if len(times) < self.limit:
                return 0
            return max(1, int(times[0] + self.window - self.clock()) + 1)

    def count(self, key: str) -> None:
        """`key` did it once more."""
        with self._lock:
            self._recent(key).append(self.clock())

    def _recent(self, key: str) -> deque:
        """`key`'s times within the window; keys with none are forgotten."""
        now = self.clock()
        for other in [other for other, times in self._times.items()
                      if not times or times[-1] <= now - self.window]:
            del self._times[other]
        times = self._times.setdefault(key, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        return times
