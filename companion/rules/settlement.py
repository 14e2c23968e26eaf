"""Who receives the money of a sale (R8)."""
from operator import countOf
from typing import NamedTuple

from .cards import count_words, number_of
from .phrase import N_, Names, Phrase, Series


class Settlement(NamedTuple):
    """The money of one sale: the price plus the pot, shared by R8.

    A named tuple, like a card: far cheaper to make than a frozen dataclass, and every
    sale of a replay makes one.
    """

    winner: str
    price: int
    pot: int
    digit: int
    most: int
    receivers: tuple[str, ...]
    share: int

    @property
    def amount(self) -> int:
        """What is shared: the price plus everything in the pot (R8.1)."""
        return self.price + self.pot

    @property
    def remainder(self) -> int:
        """What stays in the pot for the next sale (R8.5)."""
        return self.amount - self.share * len(self.receivers)

    @property
    def payouts(self) -> dict[str, int]:
        """Coins each receiver takes."""
        return {name: self.share for name in self.receivers}

    @property
    def reason(self) -> str:
        """Why the money goes where it goes, in plain English words."""
        return str(self.reason_phrase)

    @property
    def instructions(self) -> str:
        """What to hand over: 'Anna pays 13: Bert takes 6, Claus takes 6, 1 stays in the pot'."""
        return str(self.instructions_phrase)

    @property
    def reason_phrase(self) -> Phrase:
        """`reason` as a template and its parameters, for a shell to translate."""
        return Phrase(N_("{who}: {split}"), who=self._who(), split=self._split())

    @property
    def holders_phrase(self) -> Phrase:
        """Who holds the most cards of the price's last digit: the why of `instructions`
        (which already says the split), as a sale's preview tells it."""
        return self._who()

    @property
    def instructions_phrase(self) -> Phrase:
        """`instructions` as a template and its parameters, for a shell to translate."""
        if self.pot:
            payer = Phrase(N_("{winner} pays {price} (+ {pot} from the pot)"),
                           winner=self.winner, price=self.price, pot=self.pot)
        else:
            payer = Phrase(N_("{winner} pays {price}"), winner=self.winner, price=self.price)
        if not self.share:
            return self._with_remainder(Phrase(N_("{payer}: nobody takes anything"),
                                               payer=payer))
        takes = Series(_takes(name, self.share) for name in self.receivers)
        return self._with_remainder(Phrase(N_("{payer}: {takes}"), payer=payer, takes=takes))

    def _who(self) -> Phrase:
        if not self.most:
            return Phrase(N_("nobody holds a {digit}"), digit=self.digit)
        if len(self.receivers) > 1:
            return Phrase(N_("{names} hold {count} each"), names=Names(self.receivers),
                          count=count_words(self.most, self.digit))
        if self.most == 1:
            return Phrase(N_("{name} holds the only {digit}"), name=self.receivers[0],
                          digit=self.digit)
        return Phrase(N_("{name} holds {count}, more than anyone"), name=self.receivers[0],
                      count=count_words(self.most, self.digit))

    def _split(self) -> Phrase:
        amount = self.amount
        if self.pot:
            amount = Phrase(N_("{price} + {pot} from the pot = {amount}"),
                            price=self.price, pot=self.pot, amount=self.amount)
        if len(self.receivers) == 1:
            text = _takes(self.receivers[0], amount)
        elif self.most:
            text = Phrase(N_("they share {amount}, {share} each"), amount=amount,
                          share=self.share)
        else:
            text = Phrase(N_("{names} share {amount}, {share} each"),
                          names=Names(self.receivers), amount=amount, share=self.share)
        return self._with_remainder(text)

    def _with_remainder(self, text: Phrase) -> Phrase:
        if not self.remainder:
            return text
        template = (N_("{text}, {remainder} stays in the pot") if self.remainder == 1
                    else N_("{text}, {remainder} stay in the pot"))
        return Phrase(template, text=text, remainder=self.remainder)


def _takes(name: str, amount) -> Phrase:
    return Phrase(N_("{name} takes {amount}"), name=name, amount=amount)


def settle(players, hands, winner: int, price: int, pot: int) -> Settlement:
    """Share price + pot among the players other than the winner (R8).

    `hands` are the cards held before the winner takes the lot.
    """
    digit = price % 10
    counts = [countOf(map(number_of, hand), digit) for hand in hands]
    counts[winner] = -1  # the winner never receives money (R8.3)
    most = max(counts)
    receivers = tuple([name for name, count in zip(players, counts) if count == most])
    return Settlement(players[winner], price, pot, digit, most, receivers,  # by position: sooner
                      (price + pot) // len(receivers))
