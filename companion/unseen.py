"""What is still to come: the cards not yet turned up (R1, R2).

Every card is turned face up when its lot is revealed; side sales, exchanges and discards
only move cards already seen, and no card is set aside (R2: the whole deck is auctioned).
So what is still to come is public: the deck (6 families of 5 cards, each number on 3
cards) less the cards revealed so far. Which number sits in which family is not known
(R1), so a family's cards to come are told as a count, with the numbers that may still
turn up in it.
"""
from dataclasses import dataclass
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import Mapping

from .cards import FAMILY_SIZE, NUMBER_COPIES, NUMBERS, ROUNDS, Card
from .scoring import set_gain
from .state import GameState


@dataclass(frozen=True)
class Unseen:
    """The cards not yet seen, by family and by number, and the lots still to come."""

    families: Mapping[str, int]  # each family (in the game's order): its cards to come
    numbers: Mapping[int, int]  # each number 0-9: its cards to come
    possible: tuple[Card, ...]  # each (family, number) that may still turn up (R1)
    rounds_left: int  # lots not yet revealed

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


@lru_cache(maxsize=256)
def _unseen(families: tuple[str, ...], seen: frozenset[Card], family_counts: tuple[int, ...],
            number_counts: tuple[int, ...], rounds_left: int) -> Unseen:
    """(Worked out once for the screens of every state with these families, seen cards and
    rounds left, which share it: its counts are read-only.) A card may still turn up if it
    is unseen and neither its family nor its number is used up (R1)."""
    in_families = dict(zip(families, [FAMILY_SIZE - count for count in family_counts]))
    in_numbers = dict(zip(NUMBERS, [NUMBER_COPIES - count for count in number_counts]))
    return Unseen(
        MappingProxyType(in_families), MappingProxyType(in_numbers),
        tuple(Card(family, number) for family in families for number in NUMBERS
              if in_families[family] and in_numbers[number]
              and Card(family, number) not in seen),
        rounds_left)


def worth(state: GameState, name: str, still: Unseen) -> dict[str, int]:
    """For each family with cards still to come, the set points one more of its cards
    would add to `name`'s hand now (R10)."""
    hand = state.hand_of(name)
    return {family: set_gain(hand, family) for family, count in still.families.items()
            if count}
