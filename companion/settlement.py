"""Who receives the money of a sale (R8)."""
from dataclasses import dataclass

from .cards import count_words, join_names


@dataclass(frozen=True)
class Settlement:
    """The money of one sale: the price plus the pot, shared by R8."""

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
        """Why the money goes where it goes, in plain words."""
        return f"{self._who()}: {self._split()}"

    @property
    def instructions(self) -> str:
        """What to hand over: 'Anna pays 13: Bert takes 6, Claus takes 6, 1 stays in the pot'."""
        takes = ", ".join(f"{name} takes {self.share}" for name in self.receivers)
        parts = [f"{self.winner} pays {self.price}", takes]
        if self.pot:
            parts[0] += f" (+ {self.pot} from the pot)"
        text = ": ".join(parts)
        if self.remainder:
            text += f", {self.remainder} stays in the pot"
        return text

    def _who(self) -> str:
        if not self.most:
            return f"nobody holds a {self.digit}"
        if len(self.receivers) > 1:
            held = count_words(self.most, self.digit)
            return f"{join_names(self.receivers)} hold {held} each"
        if self.most == 1:
            return f"{self.receivers[0]} holds the only {self.digit}"
        return f"{self.receivers[0]} holds {count_words(self.most, self.digit)}, more than anyone"

    def _split(self) -> str:
        amount = str(self.amount)
        if self.pot:
            amount = f"{self.price} + {self.pot} from the pot = {self.amount}"
        if len(self.receivers) == 1:
            text = f"{self.receivers[0]} takes {amount}"
        else:
            who = "they" if self.most else join_names(self.receivers)
            text = f"{who} share {amount}, {self.share} each"
        if self.remainder:
            text += f", {self.remainder} stays in the pot"
        return text


def settle(players, hands, winner: int, price: int, pot: int) -> Settlement:
    """Share price + pot among the players other than the winner (R8).

    `hands` are the cards held before the winner takes the lot.
    """
    digit = price % 10
    others = [seat for seat in range(len(players)) if seat != winner]
    counts = {seat: sum(card.number == digit for card in hands[seat]) for seat in others}
    most = max(counts.values())
    receivers = [seat for seat in others if counts[seat] == most]
    amount = price + pot
    return Settlement(
        winner=players[winner], price=price, pot=pot, digit=digit, most=most,
        receivers=tuple(players[seat] for seat in receivers),
        share=amount // len(receivers),
    )
