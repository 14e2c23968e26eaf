"""Cards and the deck's fixed counts (R1)."""
from operator import attrgetter
from typing import NamedTuple

from .phrase import N_, Phrase

ROUNDS = 15
LOT_SIZE = 2
FAMILY_SIZE = 5
NUMBER_COPIES = 3
NUMBERS = range(10)
# The family names of a record that gives none; marked so that a shell can offer
# them in its own language when a new game is set up.
DEFAULT_FAMILIES = (N_("red"), N_("yellow"), N_("green"), N_("blue"), N_("purple"), N_("black"))
DEFAULT_START_COINS = 12

# How many cards of a number someone holds, in words ({number} is the number).
_COUNT_TEMPLATES = (N_("no {number}"), N_("one {number}"), N_("two {number}s"),
                    N_("three {number}s"), N_("four {number}s"), N_("five {number}s"))


class Card(NamedTuple):
    """One card, identified by its family and its number (R1).

    A named tuple: compared and hashed in C, which keeps a replay fast.
    """

    family: str
    number: int

    def __str__(self) -> str:
        return f"{self.family} {self.number}"


number_of = attrgetter("number")  # a card's number, read in C: countOf(map(number_of, hand), 7)


def count_words(count: int, number: int) -> Phrase:
    """'one 7', 'two 8s': how many cards of a number someone holds."""
    if count < len(_COUNT_TEMPLATES):
        return Phrase(_COUNT_TEMPLATES[count], number=number)
    return Phrase(N_("{count} {number}s"), count=count, number=number)
