"""The game's story: a few facts from its log that a table enjoys reading at the end.

Each is read from the events and the states they lead to (state.fold_all), so the
payments are the settlements the game made (R8), never worked out a second time, and its
side sales (R6).
"""
from dataclasses import dataclass
from operator import attrgetter

from .events import Free, Penalty, SideSale, Sold
from .phrase import N_, Names, Phrase, Series
from .settlement import Settlement
from .state import penalty_paid, settled_sale


@dataclass(frozen=True)
class Sale:
    """A lot sold: in which round, and the settlement it made (R8)."""

    round: int
    settlement: Settlement

    @property
    def price(self) -> int:
        return self.settlement.price

    @property
    def told(self) -> Phrase:
        """The payment in words: 'Bert paid 5 for the lot of round 5'."""
        return Phrase(N_("{winner} paid {price} for the lot of round {round}"),
                      winner=self.settlement.winner, price=self.price, round=self.round)

    @property
    def buyer_and_round(self) -> Phrase:
        """Who bought the lot, and when: 'Anna in round 3'."""
        return Phrase(N_("{winner} in round {round}"), winner=self.settlement.winner,
                      round=self.round)


@dataclass(frozen=True)
class SideDeal:
    """A card sold before a reveal: in which round, and the side sale (R6)."""

    round: int
    sale: SideSale

    @property
    def price(self) -> int:
        return self.sale.price

    @property
    def told(self) -> Phrase:
        """The payment in words: 'Anna paid Bert 7 for the red 0 in a side sale of round 2'."""
        return Phrase(N_("{buyer} paid {seller} {price} for the {card} in a side sale of round "
                         "{round} (R6)"), buyer=self.sale.buyer, seller=self.sale.seller,
                      price=self.price, card=self.sale.card, round=self.round)


@dataclass(frozen=True)
class Story:
    """The facts of a game's log."""

    payments: tuple[Sale | SideDeal, ...]  # the lots sold and the side sales, in order
    free_rounds: tuple[int, ...]  # the rounds whose lot went free (R9)
    penalties: dict[str, int]  # coins each player paid for forbidden bids (R4), if any

    @property
    def sales(self) -> tuple[Sale, ...]:
        """The lots sold (R8)."""
        return tuple(payment for payment in self.payments if isinstance(payment, Sale))

    @property
    def biggest_payment(self) -> Phrase | None:
        """The biggest payment, for a lot or in a side sale (R6): the first at the highest
        price. 'The biggest payment: Bert paid 5 for the lot of round 5.'"""
        if not self.payments:
            return None
        dearest = max(self.payments, key=attrgetter("price"))
        return Phrase(N_("The biggest payment: {payment}."), payment=dearest.told)

    @property
    def least_paid(self) -> Phrase | None:
        """The lot bought for the least, or every lot tied for it: 'The lot bought for the
        least: Anna paid 1 in round 3.'"""
        sales = self.sales
        if not sales:
            return None
        lowest = min(sale.price for sale in sales)
        cheapest = [sale for sale in sales if sale.price == lowest]
        if len(cheapest) > 1:
            return Phrase(N_("The lots bought for the least, at {price} each: {lots}."),
                          price=lowest, lots=Names(sale.buyer_and_round for sale in cheapest))
        return Phrase(N_("The lot bought for the least: {winner} paid {price} in round "
                         "{round}."), winner=cheapest[0].settlement.winner, price=lowest,
                      round=cheapest[0].round)

    @property
    def best_take(self) -> Sale | None:
        """The lot's sale that gave one player the most coins (its share, R8.4), if any
        did (a side sale's seller takes its whole price, R6: told as a payment)."""
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
    payments, free_rounds, penalties = [], [], {}
    for event, before, after in zip(events, states, states[1:]):
        round_number = before.round_number
        sale = settled_sale(event, before, after)
        if sale is not None:
            payments.append(Sale(round_number, sale))
        elif isinstance(event, SideSale):
            payments.append(SideDeal(round_number, event))
        elif isinstance(event, (Sold, Free)):  # a French win at 0 is a free lot (R8.6)
            free_rounds.append(round_number)
        elif isinstance(event, Penalty) and penalty_paid(before, after):
            penalties[event.player] = penalties.get(event.player, 0) + 1
    return Story(tuple(payments), tuple(free_rounds), penalties)
