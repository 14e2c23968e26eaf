"""How many requests the app draws at once: at most AT_ONCE of those that only read (GET,
HEAD: pages, live parts, files), and none while a change (POST: an action, a seat
taken) is in the app, unless it takes longer than CHANGES_FIRST.

A process is one Python interpreter: its worker threads take turns at Python's lock,
passing it every 5 ms, and a thread that waits for the database gives it up and must wait
for it again. With the 8 threads all drawing screens after a change, an action waited
for the lock at each of its database calls: in a café of 200 tables (bench/cafe.py,
26 November) it took the server 79-82% of a core, action p99 208-226 ms. With two
drawings at once, the others waiting their turn (without the lock), 66-75%, action p99
78-108 ms, change-to-screen p99 43-68 ms; with one at once, 71%, and 101 and 113 ms. The
answer itself is sent after the turn: a slow reader holds no turn.
"""
import threading
from contextlib import contextmanager

AT_ONCE = 2  # requests that only read, in the app at once
CHANGES_FIRST = 0.05  # seconds a drawing waits at most for the changes in the app
READS = frozenset({"GET", "HEAD"})


class Drawing:
    """WSGI middleware: requests that only read take turns, AT_ONCE at a time, after the
    changes in the app (CHANGES_FIRST seconds at most)."""

    def __init__(self, app, at_once: int = AT_ONCE):
        self.app, self.turns = app, threading.BoundedSemaphore(at_once)
        self.changing, self.quiet = 0, threading.Condition()

    def __call__(self, environ, start_response):
        if environ.get("REQUEST_METHOD") not in READS:
            with self.quiet:
                self.changing += 1
            try:
                return self.app(environ, start_response)
            finally:
                with self.quiet:
                    self.changing -= 1
                    if not self.changing:
                        self.quiet.notify_all()
        with self.reading():
            return self.app(environ, start_response)

    @contextmanager
    def reading(self):
        """A turn to draw (one of AT_ONCE), taken after the changes in the app
        (CHANGES_FIRST seconds at most): a request's, or a stream's poll drawn
        (streams.Redraw)."""
        with self.turns:
            with self.quiet:
                self.quiet.wait_for(lambda: not self.changing, CHANGES_FIRST)
            yield
