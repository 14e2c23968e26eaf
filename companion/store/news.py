"""News of the games for the screens that wait on them: which games moved, whichever
process of this data directory moved them.

A Watch is a thread that asks SQLite every WATCH_EVERY seconds whether another connection
committed anything (`PRAGMA data_version`, answered from memory), and at once when this
process committed (the store's `committed` event). Only then, or for games newly waited
on, it reads the stamps of the games waited on, and tells those whose stamp is not the one
a screen shows."""
import sqlite3
import threading

from .sqlite import StorageFault, Store

WATCH_EVERY = 0.05  # seconds: how late a change made by another process may be seen


class Watch:
    """Tells `moved(tokens)` of the games that moved among those `waited()` names: a dict
    of each game's token and the stamps its screens show, and the tokens newly waited on."""

    def __init__(self, store: Store, waited, moved, alive=lambda: True):
        self.store, self.waited, self.moved, self.alive = store, waited, moved, alive
        self.thread = threading.Thread(target=self._run, name="templari-news", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        version = None
        while self.alive():
            if self.store.committed.wait(WATCH_EVERY):
                self.store.committed.clear()
            try:
                version = self._turn(version)
            except (StorageFault, sqlite3.Error):
                version = None  # the screens' own polls say what is wrong

    def _turn(self, version):
        """One look: the stamps of every game waited on if anything was committed since
        the last look, else of those newly waited on; the moved ones told. Returns the
        data version seen."""
        shown, fresh = self.waited()
        now = self.store.data_version()
        asked = shown if now != version else {token: shown[token] for token in fresh
                                               if token in shown}
        if asked:
            stamps = self.store.stamps(list(asked))
            moved = [token for token, seen in asked.items() if seen - {stamps.get(token)}]
            if moved:
                self.moved(moved)
        return now
