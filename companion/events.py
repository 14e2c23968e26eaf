"""What can happen at the table: the events of the game log (R2-R9)."""
from dataclasses import dataclass
from typing import ClassVar

from .cards import Card
from .phrase import N_


@dataclass(frozen=True)
class Reveal:
    """The 2 cards of this round's lot are turned over (R2)."""

    kind: ClassVar[str] = "reveal"
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class Sold:
    """The lot goes to `winner` for `price` (R8)."""

    kind: ClassVar[str] = "sold"
    winner: str
    price: int


@dataclass(frozen=True)
class Free:
    """Nobody bid: the start player takes the lot for nothing (R9)."""

    kind: ClassVar[str] = "free"


@dataclass(frozen=True)
class Penalty:
    """`player` made a forbidden bid and pays 1 coin to the pot (R4)."""

    kind: ClassVar[str] = "penalty"
    player: str


@dataclass(frozen=True)
class Overbid:
    """`player` bid more than they hold: they discard a card, the auction restarts (R5)."""

    kind: ClassVar[str] = "overbid"
    player: str
    discard: Card | None


@dataclass(frozen=True)
class SideSale:
    """At round start `seller` sells `card` to `buyer` for `price` (R6)."""

    kind: ClassVar[str] = "side_sale"
    seller: str
    card: Card
    buyer: str
    price: int


@dataclass(frozen=True)
class Exchange:
    """At round start `player` swaps `gives` for the `opponent`'s `takes` (R7)."""

    kind: ClassVar[str] = "exchange"
    player: str
    gives: Card
    opponent: str
    takes: Card


@dataclass(frozen=True)
class Bid:
    """Live auction: `player`, whose turn it is, raises to `amount` (R3)."""

    kind: ClassVar[str] = "bid"
    player: str
    amount: int


@dataclass(frozen=True)
class Pass:
    """Live auction: `player`, whose turn it is, drops out of this auction (R3)."""

    kind: ClassVar[str] = "pass"
    player: str


EVENT_TYPES = (Reveal, Sold, Free, Penalty, Overbid, SideSale, Exchange, Bid, Pass)
# The fields of events that name a player, with how a message calls them.
PLAYER_FIELDS = {"winner": N_("winner"), "player": N_("player"), "seller": N_("seller"),
                 "buyer": N_("buyer"), "opponent": N_("opponent")}
