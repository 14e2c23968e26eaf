"""The screens waiting on each game, held polls or streams: the stamp each shows, and the
games newly waited on, which the Watch (store/news.py) has not read yet."""


class Waiting:
    """Screens (connections) by game, each with the stamp it shows. Not locked itself: its
    owner's lock guards it (channel.Held, streams.Streams)."""

    def __init__(self):
        self._games: dict[str, dict] = {}  # token: {channel: stamp shown}
        self._fresh: set[str] = set()

    def add(self, token: str, channel, stamp: int) -> None:
        self._games.setdefault(token, {})[channel] = stamp
        self._fresh.add(token)

    def discard(self, token: str, channel) -> None:
        shown = self._games.get(token, {})
        shown.pop(channel, None)
        if not shown:
            self._games.pop(token, None)

    def take(self, token: str) -> dict:
        """The screens of the game `token` (channel: stamp shown), waiting no more."""
        return self._games.pop(token, {})

    def waited(self, games=None) -> dict[str, set[int]]:
        """The stamps the screens of each game show, of the `games` named (every one if
        None) and of those newly waited on since this was last asked."""
        fresh, self._fresh = self._fresh, set()
        asked = self._games.keys() if games is None else (fresh | games) & self._games.keys()
        return {token: set(self._games[token].values()) for token in asked}
