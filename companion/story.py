"""The game's story: a few facts from its log that a table enjoys reading at the end.

Each is read from the events and the states they lead to (state.fold_all), so the
payments are the settlements the game made (R8), never worked out a second time.
"""
from dataclasses import dataclass

from .events import Free, Penalty, Sold
from .phrase import N_, Names, Phrase, Series
from .settlement import Settlement
from .state import penalty_paid, settled_sale


@dataclass(frozen=True)
class Sale:
    """A lot sold: in which round, and the settlement it made (R8)."""

    round: int
    settlement: Settlement


@dataclass(frozen=True)
class Story:
    """The facts of a game's log."""

    sales: tuple[Sale, ...]
    free_rounds: tuple[int, ...]  # the rounds whose lot went free (R9)
    penalties: dict[str, int]  # coins each player paid for forbidden bids (R4), if any

    @property
    def dearest(self) -> Sale | None:
        """The biggest payment: the first sale at the highest price."""
        return max(self.sales, key=lambda sale: sale.settlement.price, default=None)

    @property
    def cheapest(self) -> Sale | None:
        """The lot bought for the least: the first sale at the lowest price."""
        return min(self.sales, key=lambda sale: sale.settlement.price, default=None)

    @property
    def best_take(self) -> Sale | None:
        """The sale that gave one player the most coins (its share, R8.4), if any did."""
        best = max(self.sales, key=lambda sale: sale.settlement.share, default=None)
        return best if best and best.settlement.share else None

    @property
    def penalty_coins(self) -> int:
        """Coins paid into the pot for forbidden bids, by everyone."""
        return sum(self.penalties.values())

    @property
    def penalty_payers(self) -> Series:
        """Who paid penalties and how many, most first (who paid first among equals):
        'Anna 5, Bert 4'."""
        return Series(Phrase(N_("{player} {coins}"), player=player, coins=coins) for player, coins
                      in sorted(self.penalties.items(), key=lambda item: -item[1]))

    @property
    def takers(self) -> Names:
        """Who took the most coins in one sale (several, when they shared it equally)."""
        return Names(self.best_take.settlement.receivers)

    @property
    def free_round_numbers(self) -> Names:
        """The rounds whose lot went free, to be joined with 'and'."""
        return Names(self.free_rounds)


def story(events, states) -> Story:
    """The story of `events`; `states` are the state before each and after the last."""
    sales, free_rounds, penalties = [], [], {}
    for event, before, after in zip(events, states, states[1:]):
        round_number = before.round_number
        sale = settled_sale(event, before, after)
        if sale is not None:
            sales.append(Sale(round_number, sale))
        elif isinstance(event, (Sold, Free)):  # a French win at 0 is a free lot (R8.6)
            free_rounds.append(round_number)
        elif isinstance(event, Penalty) and penalty_paid(before, after):
            penalties[event.player] = penalties.get(event.player, 0) + 1
    return Story(tuple(sales), tuple(free_rounds), penalties)
