"""News of the games for the screens that wait on them: which games moved, whichever
process (or machine, with PostgreSQL) moved them.

A Watch is a thread that waits on the store's news (`store.news()`: with SQLite, this
process's writes at once and SQLite's data version every WATCH_EVERY seconds for the
other processes'; with PostgreSQL, its notifications). When something may have changed,
it reads the stamps of the games waited on; otherwise only those of the games newly
waited on (a poll held just after its game moved); and it tells those whose stamp is not
the one a screen shows."""
import threading

from .sql import SQLStore

WATCH_EVERY = 0.05  # seconds: how late a change made by another process may be seen


class Watch:
    """Tells `moved(tokens)` of the games that moved among those `waited()` names: a dict
    of each game's token and the stamps its screens show, and the tokens newly waited on."""

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
            except self.store.ERRORS:  # the database is away: the screens' polls say so
                news = None
                self.store.committed.wait(WATCH_EVERY)

    def look(self, changed: bool) -> None:
        """Read the stamps of every game waited on if something `changed`, else of those
        newly waited on; tell the ones that moved."""
        shown, fresh = self.waited()
        asked = shown if changed else {token: shown[token] for token in fresh if token in shown}
        if asked:
            stamps = self.store.stamps(list(asked))
            moved = [token for token, seen in asked.items() if seen - {stamps.get(token)}]
            if moved:
                self.moved(moved)
