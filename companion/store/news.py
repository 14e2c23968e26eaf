"""News of the games for the screens that wait on them: which games moved, whichever
process (or machine, with PostgreSQL) moved them.

A Watch is a thread that waits on the store's news (`store.news()`), which says which
games moved and whether any other may have: with SQLite, the games this process changed,
at once, and SQLite's data version for the other processes' changes; with PostgreSQL, the
notifications, each naming its game. It reads the stamps of the games named that screens
wait on, and of the games newly waited on (a poll held just after its game moved); when
any game may have moved, those of every game waited on, at most every FULL_EVERY seconds
(a café of 400 tables changes 80 times a second: a full look at each change would read
all their stamps 80 times). It tells the games whose stamp is not the one a screen shows."""
import threading
import time
from dataclasses import dataclass, field

from .sql import SQLStore

WATCH_EVERY = 0.05  # seconds the Watch waits for news before it asks SQLite's data version
FULL_EVERY = 0.08  # seconds at least between two looks at every game waited on (another
# process's change is seen within about as long: at most 100 ms, issue 29)


@dataclass(frozen=True)
class News:
    """What the store's news said: the games that moved, and whether others may have."""
    games: frozenset[str] = field(default_factory=frozenset)
    anywhere: bool = False


class Watch:
    """Tells `moved(stamps)` of the games that moved among those waited on, with the stamp
    each was found at (None: removed); `waited(games)` gives the stamps the screens of
    each show (a dict by token) for the `games` named (all of them if None) and the games
    newly waited on since it last gave those."""

    def __init__(self, store: SQLStore, waited, moved, alive=lambda: True,
                 clock=time.monotonic):
        self.store, self.waited, self.moved, self.alive = store, waited, moved, alive
        self.clock, self.pending, self.looked = clock, False, float("-inf")
        self.thread = threading.Thread(target=self._run, name="templari-news", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        news = None
        while self.alive():
            try:
                news = news or self.store.news()
                self.look(news.wait(self._patience()))
            except self.store.ERRORS:  # the database is away: the screens' polls say so
                news = None
                self.store.committed.wait(WATCH_EVERY)

    def _patience(self) -> float:
        """How long to wait for news: until a full look is due, if one waits."""
        if not self.pending:
            return WATCH_EVERY
        return max(0.0, min(WATCH_EVERY, self.looked + FULL_EVERY - self.clock()))

    def look(self, news: News) -> None:
        """Read the stamps of the games the news names and of those newly waited on, or
        of every game waited on when others may have moved and the last full look is
        FULL_EVERY seconds old; tell the ones that moved."""
        self.pending |= news.anywhere
        full = self.pending and self.clock() >= self.looked + FULL_EVERY
        if full:
            self.pending, self.looked = False, self.clock()
        asked = self.waited(None if full else news.games)
        if asked:
            stamps = self.store.stamps(list(asked))
            moved = {token: stamps.get(token) for token, seen in asked.items()
                     if seen - {stamps.get(token)}}
            if moved:
                self.moved(moved)
