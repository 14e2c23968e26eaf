"""What can happen at the table: the events of the game log (R2-R9).

Each kind of event is a named tuple, since a replay makes one for every entry of a record:
a record's reader makes it in C (`made`), and its fields read in C. Unlike plain
tuples, two events are equal only if they are of the same kind (a penalty is never a pass
of the same player), and an event is never false, even one without fields. Other named
tuples (a card, a settlement) compare as tuples: never compare an event with one of them,
and store an event only as its record entry (`record.dump_event`).
"""
from typing import NamedTuple

from .cards import Card
from .phrase import N_


class Reveal(NamedTuple):
    """The 2 cards of this round's lot are turned over (R2)."""

    cards: tuple[Card, ...]
    kind = "reveal"


class Sold(NamedTuple):
    """The lot goes to `winner` for `price` (R8)."""

    winner: str
    price: int
    kind = "sold"


class Free(NamedTuple):
    """Nobody bid: the start player takes the lot for nothing (R9)."""

    kind = "free"


class Penalty(NamedTuple):
    """`player` made a forbidden bid and pays 1 coin to the pot (R4)."""

    player: str
    kind = "penalty"


class Overbid(NamedTuple):
    """`player` bid more than they hold: they discard a card; the lot's auction restarts
    without them, a side sale's goes on without them (R5)."""

    player: str
    discard: Card | None
    kind = "overbid"


class SideSale(NamedTuple):
    """At round start `seller` sells `card` to `buyer` for `price` (R6)."""

    seller: str
    card: Card
    buyer: str
    price: int
    kind = "side_sale"


class Exchange(NamedTuple):
    """At round start `player` swaps `gives` for the `opponent`'s `takes` (R7)."""

    player: str
    gives: Card
    opponent: str
    takes: Card
    kind = "exchange"


class Bid(NamedTuple):
    """Live auction: `player`, whose turn it is, raises to `amount` (R3)."""

    player: str
    amount: int
    kind = "bid"


class Pass(NamedTuple):
    """Live auction: `player`, whose turn it is, drops out of this auction (R3)."""

    player: str
    kind = "pass"


def made(cls, values: list):
    """An event of class `cls` from its fields' values in order, made in C (a record's
    reader makes one per entry, without the constructor's call in Python); a count of
    values that is not the class's count of fields raises TypeError, as the constructor
    does, and not later, where the event is read."""
    if len(values) != len(cls._fields):
        count = len(cls._fields)
        raise TypeError(f"a {cls.kind} event has {count} field{'s' * (count != 1)} "
                        f"({', '.join(cls._fields)}), not {len(values)}")
    return _tuple(cls, values)


_tuple = tuple.__new__
EVENT_TYPES = (Reveal, Sold, Free, Penalty, Overbid, SideSale, Exchange, Bid, Pass)
# The fields of events that name a player, with how a message calls them.
PLAYER_FIELDS = {"winner": N_("winner"), "player": N_("player"), "seller": N_("seller"),
                 "buyer": N_("buyer"), "opponent": N_("opponent")}


def _same_event(event, other) -> bool:
    return type(event) is type(other) and tuple.__eq__(event, other)


def _other_event(event, other) -> bool:
    return not _same_event(event, other)


def _event_hash(event) -> int:
    return hash((event.kind, *event))


def _is_an_event(event) -> bool:
    return True


def _compare_as_events(classes) -> None:
    """Make the events of these classes equal only to events of the same kind, and never
    false."""
    for cls in classes:
        cls.__eq__, cls.__ne__, cls.__hash__ = _same_event, _other_event, _event_hash
        cls.__bool__ = _is_an_event


_compare_as_events(EVENT_TYPES)
