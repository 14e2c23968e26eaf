"""The final score (R10): sets, the coin bonus, and the tie-break."""
from collections import Counter
from dataclasses import dataclass

from .phrase import N_, Names, Phrase, Series

SET_POINTS = (0, 1, 3, 6, 10, 15)
COIN_BONUS = 2


@dataclass(frozen=True)
class PlayerScore:
    """One player's score with its breakdown."""

    name: str
    coins: int
    families: dict[str, int]
    set_points: int
    coin_bonus: int
    card_sum: int

    @property
    def points(self) -> int:
        return self.set_points + self.coin_bonus

    def family_points(self, family: str) -> int:
        """Points one family earns this player."""
        return SET_POINTS[self.families.get(family, 0)]


@dataclass(frozen=True)
class Score:
    """Everyone's score, the winners, and how a tie was broken."""

    players: tuple[PlayerScore, ...]
    winners: tuple[str, ...]
    tie: Phrase | None

    @property
    def ranking(self) -> tuple[PlayerScore, ...]:
        """The players from first to last (R10)."""
        return tuple(sorted(self.players, key=_standing, reverse=True))

    def place(self, name: str) -> int:
        """The player's place: 1 + how many rank above them; equals share a place (R10)."""
        mine = next(_standing(player) for player in self.players if player.name == name)
        return 1 + sum(_standing(player) > mine for player in self.players)

    @property
    def tie_break(self) -> str:
        """How a tie on points was broken, in English ('' if there was none)."""
        return "" if self.tie is None else str(self.tie)


def score(names, hands, coins) -> Score:
    """Score the hands and coins of every player, in seating order (R10)."""
    richest = max(coins)
    players = tuple(_player_score(name, hand, purse, purse == richest)
                    for name, hand, purse in zip(names, hands, coins))
    winners, tie = _winners(players)
    return Score(players=players, winners=winners, tie=tie)


def set_gain(hand, family: str) -> int:
    """The set points one more card of `family` would add to `hand` (R10)."""
    held = sum(card.family == family for card in hand)
    return SET_POINTS[held + 1] - SET_POINTS[held]


def _player_score(name, hand, coins, richest) -> PlayerScore:
    families = Counter(card.family for card in hand)
    return PlayerScore(
        name=name, coins=coins, families=dict(families),
        set_points=sum(SET_POINTS[count] for count in families.values()),
        coin_bonus=COIN_BONUS if richest else 0,
        card_sum=sum(card.number for card in hand),
    )


def _standing(player: PlayerScore) -> tuple[int, int]:
    """What ranks players: most points, then the highest card sum (R10)."""
    return player.points, player.card_sum


def _winners(players) -> tuple[tuple[str, ...], Phrase | None]:
    """Most points; then the highest card sum; then a shared win (R10)."""
    best = max(player.points for player in players)
    tied = [player for player in players if player.points == best]
    if len(tied) == 1:
        return (tied[0].name,), None
    top = max(_standing(player) for player in tied)
    winners = tuple(player.name for player in tied if _standing(player) == top)
    tie = Phrase(N_("{names} tie on {points} points; card sums: {sums}"),
                 names=Names(player.name for player in tied), points=best,
                 sums=Series(f"{player.name} {player.card_sum}" for player in tied))
    if len(winners) > 1:
        return winners, Phrase(N_("{tie}: still tied, a shared win"), tie=tie)
    return winners, Phrase(N_("{tie}: {winner} has the highest"), tie=tie, winner=winners[0])
