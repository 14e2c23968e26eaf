"""What is still to come: the cards not yet turned up (R1, R2).

Every card is turned face up when its lot is revealed; side sales, exchanges and discards
only move cards already seen, and no card is set aside (R2: the whole deck is auctioned).
So what is still to come is public: the deck (6 families of 5 cards, each number on 3
cards) less the cards revealed so far. Which number sits in which family is not known
(R1), so a family's cards to come are told as a count, with the numbers that may still
turn up in it: a card may turn up if some real deck holds it and every card seen, which
late in a game rules out cards the counts alone allow (R1). `shortfall` tells whether such
a deck exists; the fold asks it at every reveal.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import combinations
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping, NamedTuple

from .cards import FAMILY_SIZE, NUMBER_COPIES, NUMBERS, ROUNDS, Card
from .scoring import set_gain

if TYPE_CHECKING:  # the state's fold imports this module, to check a reveal (R1)
    from .state import GameState

# Up to this many cards seen beyond the first of each number, some real deck holds the
# cards seen, whichever they are (see `shortfall`): the room two families have for their
# 10 cards (each of the 10 numbers once each) when nothing is seen, less those 10.
_REPEATS_ALWAYS_COMPLETE = 2 * (len(NUMBERS) - FAMILY_SIZE)


@dataclass(frozen=True)
class Unseen:
    """The cards not yet seen, by family and by number, and the lots still to come; which
    cards may still turn up is worked out when first asked."""

    families: Mapping[str, int]  # each family (in the game's order): its cards to come
    numbers: Mapping[int, int]  # each number 0-9: its cards to come
    rounds_left: int  # lots not yet revealed
    seen: frozenset[Card]  # the cards seen so far

    @cached_property
    def possible(self) -> tuple[Card, ...]:
        """Each (family, number) that may still turn up (R1): the counts allow it, and some
        real deck holds it as well as the cards seen."""
        families, seen = tuple(self.families), self.seen
        family_counts = tuple(FAMILY_SIZE - left for left in self.families.values())
        number_counts = tuple(NUMBER_COPIES - left for left in self.numbers.values())
        counted = [Card(family, number) for family in families if self.families[family]
                   for number in NUMBERS if self.numbers[number]]  # neither used up
        return tuple(card for card in counted if card not in seen
                     and _may_complete(families, seen, family_counts, number_counts, card))

    @cached_property
    def may_turn_up(self) -> frozenset[Card]:
        """The cards that may still turn up, as a set (its hash made once, as a key)."""
        return frozenset(self.possible)

    @property
    def count(self) -> int:
        """How many cards are still to come: 2 a lot left (R2)."""
        return sum(self.families.values())

    def numbers_in(self, family: str) -> tuple[int, ...]:
        """The numbers that may still turn up in `family`."""
        return tuple(card.number for card in self.possible if card.family == family)


def unseen(state: GameState) -> Unseen:
    """What is still to come after `state`: a revealed lot is seen already."""
    return _unseen(state.setup.families, state.seen, state.family_counts, state.number_counts,
                   rounds_left(state))


def rounds_left(state: GameState) -> int:
    """The lots not yet revealed after `state` (R2): the same after a sale as after the
    reveal before it."""
    return ROUNDS - state.rounds_played - (1 if state.lot else 0)


@lru_cache(maxsize=1024)  # a busy server's tables
def _unseen(families: tuple[str, ...], seen: frozenset[Card], family_counts: tuple[int, ...],
            number_counts: tuple[int, ...], rounds_left: int) -> Unseen:
    """(Made once for the screens of every state with these families, seen cards and rounds
    left, which share it, and so what may still turn up is worked out once for them: its
    counts are read-only.)"""
    in_families = dict(zip(families, [FAMILY_SIZE - count for count in family_counts]))
    in_numbers = dict(zip(NUMBERS, [NUMBER_COPIES - count for count in number_counts]))
    return Unseen(MappingProxyType(in_families), MappingProxyType(in_numbers), rounds_left,
                  seen)


def _may_complete(families: tuple[str, ...], seen: frozenset[Card], family_counts: tuple[int, ...],
                  number_counts: tuple[int, ...], card: Card) -> bool:
    """Whether some real deck holds `card` still to come as well as the cards `seen` (R1):
    one does if it holds them all."""
    return shortfall(families, seen | {card}, _one_more(family_counts, families.index(card.family)),
                     _one_more(number_counts, card.number)) is None


def _one_more(counts: tuple[int, ...], index: int) -> tuple[int, ...]:
    """`counts` with one more at `index`."""
    return counts[:index] + (counts[index] + 1,) + counts[index + 1:]


class Shortfall(NamedTuple):
    """Why no real deck holds the cards seen (R1): the cards to come have room for only
    `room` of the `need` cards that one or two `families` must still show."""

    families: tuple[str, ...]
    need: int
    room: int


def shortfall(families: tuple[str, ...], seen: frozenset[Card], family_counts: tuple[int, ...],
              number_counts: tuple[int, ...]) -> Shortfall | None:
    """Why no real deck (R1) holds the cards `seen` (counted by family and by number), or
    None when one does. Nearly free until late in a game, as the fold asks it at every
    reveal.

    A deck holds them when every set of families has room among the cards to come for the
    cards it must still show, each family taking a number at most once (Hall's condition).
    A number with c cards to come has been seen 3 - c times, so at least c of any three
    families lack it: three families or more always have room. Two families lack room only
    if the cards seen in the other four, less one for each number among them, are more
    than 10; one family, only if 6 numbers it lacks are used up (12 cards beyond the first
    of their numbers). So while the cards seen, less one for each number seen, are at most
    10, a deck holds them; only then are the families counted.
    """
    repeats = len(seen) - len(NUMBERS) + number_counts.count(0)
    if repeats <= _REPEATS_ALWAYS_COMPLETE:
        return None
    return _hall_shortfall(families, seen, family_counts, number_counts)


def _hall_shortfall(families: tuple[str, ...], seen: frozenset[Card],
                    family_counts: tuple[int, ...],
                    number_counts: tuple[int, ...]) -> Shortfall | None:
    """The first family, then the first pair of families (in the game's order), with no room
    for the cards it must still show; None if there is none.

    A family has room for one card of each number it lacks with a card to come; its spare
    is that room less its need. Two families have room for both needs unless the numbers
    both lack with a single card to come, which only one of them can take, outnumber their
    two spares: so only a family lacking more such numbers than its spare can be one of
    them. Sets of numbers are the bits of an int.
    """
    left, single = [], 0  # the numbers with a card to come; those with exactly one
    for number, count in enumerate(number_counts):
        if count < NUMBER_COPIES:
            left.append(number)
            if count == NUMBER_COPIES - 1:
                single |= 1 << number
    tight = []  # each family that may be short with another: its need, spare, lacked singles
    for family, count in zip(families, family_counts):
        if count < FAMILY_SIZE:
            lacked = 0
            for number in left:
                if (family, number) not in seen:  # a card is a named tuple: its pair finds it
                    lacked |= 1 << number
            need, room = FAMILY_SIZE - count, lacked.bit_count()
            if room < need:
                return Shortfall((family,), need, room)
            if (lacked & single).bit_count() > room - need:
                tight.append((family, need, room - need, lacked & single))
    for (first, need, spare, scarce), (second, more, other_spare, other_scarce) in combinations(
            tight, 2):
        contested = (scarce & other_scarce).bit_count()
        if contested > spare + other_spare:
            return Shortfall((first, second), need + more,
                             need + more + spare + other_spare - contested)
    return None


def worth(state: GameState, name: str, still: Unseen) -> dict[str, int]:
    """For each family with cards still to come, the set points one more of its cards
    would add to `name`'s hand now (R10)."""
    hand = state.hand_of(name)
    return {family: set_gain(hand, family) for family, count in still.families.items()
            if count}
