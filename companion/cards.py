"""Cards and the deck's fixed counts (R1)."""
from typing import NamedTuple

ROUNDS = 15
LOT_SIZE = 2
FAMILY_SIZE = 5
NUMBER_COPIES = 3
NUMBERS = range(10)
DECK_SIZE = 30
DEFAULT_FAMILIES = ("red", "yellow", "green", "blue", "purple", "black")
DEFAULT_START_COINS = 12

_NUMBER_WORDS = ("no", "one", "two", "three", "four", "five")


class Card(NamedTuple):
    """One card, identified by its family and its number (R1).

    A named tuple: compared and hashed in C, which keeps a replay fast.
    """

    family: str
    number: int

    def __str__(self) -> str:
        return f"{self.family} {self.number}"


def count_words(count: int, number: int) -> str:
    """'one 7', 'two 8s': how many cards of a number someone holds."""
    word = _NUMBER_WORDS[count] if count < len(_NUMBER_WORDS) else str(count)
    return f"{word} {number}" + ("s" if count > 1 else "")


def join_names(names) -> str:
    """'Anna', 'Anna and Bert', 'Anna, Bert and Claus'."""
    names = list(names)
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
