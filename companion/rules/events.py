"""What can happen at the table: the events of the game log (R2-R9).

Each kind of event is a frozen dataclass: an immutable value, equal only to an event of
the same kind with the same fields (a penalty is never a pass of the same player), and
never false, even one without fields. `kind` names the kind, as a record's entry does
(`record.dump_event`).
"""
from dataclasses import dataclass
from typing import ClassVar

from .cards import Card
from .phrase import N_


@dataclass(frozen=True, slots=True)
class Reveal:
    """The 2 cards of this round's lot are turned over (R2)."""

    cards: tuple[Card, ...]
    kind: ClassVar[str] = "reveal"


@dataclass(frozen=True, slots=True)
class Sold:
    """The lot goes to `winner` for `price` (R8)."""

    winner: str
    price: int
    kind: ClassVar[str] = "sold"


@dataclass(frozen=True, slots=True)
class Free:
    """Nobody bid: the start player takes the lot for nothing (R9)."""

    kind: ClassVar[str] = "free"


@dataclass(frozen=True, slots=True)
class Penalty:
    """`player` made a forbidden bid and pays 1 coin to the pot (R4)."""

    player: str
    kind: ClassVar[str] = "penalty"


@dataclass(frozen=True, slots=True)
class Overbid:
    """`player` bid more than they hold: they discard a card; the lot's auction restarts
    without them, a side sale's starts again without them (R5)."""

    player: str
    discard: Card | None
    kind: ClassVar[str] = "overbid"


@dataclass(frozen=True, slots=True)
class SideSale:
    """At round start `seller` sells `card` to `buyer` for `price` (R6)."""

    seller: str
    card: Card
    buyer: str
    price: int
    kind: ClassVar[str] = "side_sale"


@dataclass(frozen=True, slots=True)
class Exchange:
    """At round start `player` swaps `gives` for the `opponent`'s `takes` (R7)."""

    player: str
    gives: Card
    opponent: str
    takes: Card
    kind: ClassVar[str] = "exchange"


@dataclass(frozen=True, slots=True)
class Bid:
    """Live auction: `player`, whose turn it is, raises to `amount` (R3)."""

    player: str
    amount: int
    kind: ClassVar[str] = "bid"


@dataclass(frozen=True, slots=True)
class Pass:
    """Live auction: `player`, whose turn it is, drops out of this auction (R3)."""

    player: str
    kind: ClassVar[str] = "pass"


EVENT_TYPES = (Reveal, Sold, Free, Penalty, Overbid, SideSale, Exchange, Bid, Pass)
# The fields of events that name a player, with how a message calls them.
PLAYER_FIELDS = {"winner": N_("winner"), "player": N_("player"), "seller": N_("seller"),
                 "buyer": N_("buyer"), "opponent": N_("opponent")}
