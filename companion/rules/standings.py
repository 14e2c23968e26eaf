"""Standings across finished games: for each player, the games finished, the wins (a
shared win counts for each of its winners), the average points, the best score and the
average place, each game ranked by its final score (R10)."""
from collections.abc import Iterable
from dataclasses import dataclass

from .scoring import Score

TONIGHT = 12 * 3600  # seconds: "tonight" is the games finished within the last 12 hours


@dataclass(frozen=True)
class Result:
    """How one player ended one game (R10): their seat (0 = first listed), points, coins,
    place (equals share one) and whether they won (alone or sharing the win)."""

    name: str
    seat: int
    points: int
    coins: int
    place: int
    winner: bool


def results(score: Score) -> tuple[Result, ...]:
    """Each player's end of a finished game, in seating order."""
    return tuple(Result(player.name, seat, player.points, player.coins,
                        score.place(player.name), player.name in score.winners)
                 for seat, player in enumerate(score.players))


@dataclass(frozen=True)
class Played:
    """A finished game: when it finished (seconds since the epoch) and how each player
    ended it."""

    finished: float
    results: tuple[Result, ...]


@dataclass(frozen=True)
class Line:
    """One player's standing across games."""

    name: str
    games: int
    wins: int
    points: int  # all games' points together
    best: int
    places: int  # all games' places together

    @property
    def average_points(self) -> float:
        return self.points / self.games

    @property
    def average_place(self) -> float:
        return self.places / self.games


def standings(played: Iterable[Played], since: float | None = None) -> tuple[Line, ...]:
    """Each player's line over the games finished at `since` or later (all of them for
    None): the most wins first, then the best average place, the best average points, the
    most games, then by name."""
    lines: dict[str, Line] = {}
    for game in played:
        if since is not None and game.finished < since:
            continue
        for result in game.results:
            lines[result.name] = _added(lines.get(result.name), result)
    return tuple(sorted(lines.values(), key=lambda line: (
        -line.wins, line.average_place, -line.average_points, -line.games, line.name)))


def _added(line: Line | None, result: Result) -> Line:
    """`line` with one more game's `result`."""
    if line is None:
        return Line(result.name, 1, int(result.winner), result.points, result.points,
                    result.place)
    return Line(line.name, line.games + 1, line.wins + result.winner, line.points + result.points,
                max(line.best, result.points), line.places + result.place)


def line_of(lines: Iterable[Line], name: str) -> Line | None:
    """The line of the player `name`, None if they finished no game of these."""
    return next((line for line in lines if line.name == name), None)
