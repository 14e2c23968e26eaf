"""The final score (R10): sets, the coin bonus, and the tie-break."""
from collections import Counter
from dataclasses import dataclass

from .cards import join_names

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
    tie_break: str


def score(names, hands, coins) -> Score:
    """Score the hands and coins of every player, in seating order (R10)."""
    richest = max(coins)
    players = tuple(_player_score(name, hand, purse, purse == richest)
                    for name, hand, purse in zip(names, hands, coins))
    winners, tie_break = _winners(players)
    return Score(players=players, winners=winners, tie_break=tie_break)


def _player_score(name, hand, coins, richest) -> PlayerScore:
    families = Counter(card.family for card in hand)
    return PlayerScore(
        name=name, coins=coins, families=dict(families),
        set_points=sum(SET_POINTS[count] for count in families.values()),
        coin_bonus=COIN_BONUS if richest else 0,
        card_sum=sum(card.number for card in hand),
    )


def _winners(players) -> tuple[tuple[str, ...], str]:
    """Most points; then the highest card sum; then a shared win (R10)."""
    best = max(player.points for player in players)
    tied = [player for player in players if player.points == best]
    if len(tied) == 1:
        return (tied[0].name,), ""
    top_sum = max(player.card_sum for player in tied)
    winners = tuple(player.name for player in tied if player.card_sum == top_sum)
    sums = ", ".join(f"{player.name} {player.card_sum}" for player in tied)
    text = f"{join_names(p.name for p in tied)} tie on {best} points; card sums: {sums}"
    if len(winners) > 1:
        return winners, f"{text}: still tied, a shared win"
    return winners, f"{text}: {winners[0]} has the highest"
