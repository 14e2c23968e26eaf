"""News of the games for the streams that follow them: which games moved, whichever
process (or machine, with PostgreSQL) moved them.

A Watch is a thread that waits on the store's news (`store.news()`), which says which
games moved and whether any other may have: with SQLite, the games this process changed,
at once, and SQLite's data version for the other processes' changes; with PostgreSQL, the
notifications, each naming its game. It reads the stamps of the games named that streams
follow, and of the games newly followed (one may have moved just before); when any game
may have moved, those of every game followed. It tells the games whose stamp moved."""
import threading
from dataclasses import dataclass, field

from .sql import SQLStore

WATCH_EVERY = 0.2  # seconds the Watch waits for news before it asks SQLite's data version
# (another process's change: a screen hears of it within about as long)


@dataclass(frozen=True)
class News:
    """What the store's news said: the games that moved, and whether others may have."""
    games: frozenset[str] = field(default_factory=frozenset)
    anywhere: bool = False


class Watch:
    """Tells `moved(stamps)` of the games that moved among those followed, with the stamp
    each was found at (None: removed); `waited(games)` gives the stamps known of each (a
    dict by token) for the `games` named (all of them if None) and the games newly
    followed since it last gave those."""

    def __init__(self, store: SQLStore, waited, moved, alive=lambda: True):
        self.store, self.waited, self.moved, self.alive = store, waited, moved, alive
        self.thread = threading.Thread(target=self._run, name="templari-news", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        news = None
        while self.alive():
            try:
                news = news or self.store.news()
                self.look(news.wait(WATCH_EVERY))
            except self.store.ERRORS:  # the database is away: the screens' requests say so
                news = None
                self.store.committed.wait(WATCH_EVERY)

    def look(self, news: News) -> None:
        """Read the stamps of the games the news names and of those newly followed, or of
        every game followed when others may have moved; tell the ones that moved."""
        asked = self.waited(None if news.anywhere else news.games)
        if asked:
            stamps = self.store.stamps(list(asked))
            moved = {token: stamps.get(token) for token, seen in asked.items()
                     if seen - {stamps.get(token)}}
            if moved:
                self.moved(moved)
