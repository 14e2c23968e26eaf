"""The games this process has read or changed, kept in memory and checked against the
stamp the database holds, so that a request folds no log it has folded before: a change
folds only its new events onto the state before it (see games.Game.changed).

Several server processes may share a data directory: each keeps its own, and a game
another one changed has another stamp, so it is read again: once, however many of its
screens' streams ask for it at the same moment.
"""
import threading
from collections import OrderedDict
from concurrent.futures import Future

from . import games
from .sql import SQLStore

# The games a busy server plays at once, with room to spare (a game kept holds its states:
# some 120 KiB at the end); one that plays more reads and folds a game again as it comes
# round.
GAMES_KEPT = 512


class GameCache:
    """The latest Game of each recently used game (at most `size`), by token."""

    def __init__(self, store: SQLStore, size: int = GAMES_KEPT):
        self.store, self.size = store, size
        self._games: OrderedDict[str, games.Game] = OrderedDict()
        self._reads: dict[str, Future] = {}  # the reads under way, by token
        self._lock = threading.Lock()

    def game(self, token: str, stamp: int | None = None) -> games.Game | None:
        """The game as stored now (None if there is none; Damaged if its log no longer
        replays): the kept one if the stored stamp is its own. A `stamp` read earlier (a
        woken poll carries the one read when it was woken, and may have waited for a worker
        while the game moved on) may be older than the kept game's: a stamp only moves on,
        so the kept game, a later change's, is taken. A stamp read now that is older (a
        database restored under a running server) has the game read again."""
        read_now = stamp is None
        if read_now:
            stamp = self.store.stamp(token)
        if stamp is None:
            return None
        with self._lock:
            kept = self._games.get(token)
        if kept is not None and (kept.stamp == stamp or not read_now and kept.stamp > stamp):
            self.keep(kept)
            return kept
        found = self._shared_read(token)
        return found if found is None or found.stamp >= stamp else self._read(token)

    def _shared_read(self, token: str) -> games.Game | None:
        """The game read from the store, or the read of it already under way in another
        thread (which may have begun before the stamp moved: the caller looks)."""
        with self._lock:
            under_way = self._reads.get(token)
            if under_way is None:
                self._reads[token] = Future()
        if under_way is not None:
            return under_way.result()  # (or raises what that read raised)
        try:
            found = self._read(token)
        except BaseException as error:
            self._reads.pop(token).set_exception(error)
            raise
        self._reads.pop(token).set_result(found)
        return found

    def _read(self, token: str) -> games.Game | None:
        found = games.load(self.store, token)
        if found is not None:
            self.keep(found)
        return found

    def keep(self, game: games.Game) -> None:
        """Keep `game` as its token's latest, unless a later one is kept already."""
        with self._lock:
            kept = self._games.get(game.token)
            if kept is None or kept.stamp <= game.stamp:
                self._games[game.token] = game
            self._games.move_to_end(game.token)
            while len(self._games) > self.size:
                self._games.popitem(last=False)
