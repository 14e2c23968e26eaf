"""The lot's auction followed bid by bid, for tables that let the app referee (R3).

Opened at each reveal and again after an overbid (R5); bids and passes move it
on; a sale or a free lot recorded after them must agree with how it ended.
"""
from dataclasses import dataclass, replace
from functools import lru_cache


@dataclass(frozen=True)
class Auction:
    """Who is still in, whose turn it is, and the bid to beat."""

    active: tuple[int, ...]
    turn: int | None
    high: int | None = None
    leader: int | None = None
    touched: bool = False

    @property
    def opened(self) -> bool:
        """Someone has bid (R3)."""
        return self.leader is not None

    def outcome(self) -> tuple[str, int | None, int | None]:
        """('sold', seat, price), ('free', None, None), or ('open', None, None)."""
        if self.opened and self.active == (self.leader,):
            return "sold", self.leader, self.high
        if not self.active:
            return "free", None, None
        return "open", None, None


@lru_cache(maxsize=256)
def open_auction(players: int, start: int, excluded: frozenset[int]) -> Auction:
    """A fresh auction: the start player opens, then clockwise, without the excluded (R3).

    Made once for each table (an Auction is immutable): every reveal opens one.
    """
    active = tuple(seat for seat in _clockwise(players, start) if seat not in excluded)
    return Auction(active=active, turn=active[0] if active else None)


def after_bid(auction: Auction, players: int, seat: int, amount: int) -> Auction:
    """The bid is the new high; the next player still in is to act."""
    return replace(auction, high=amount, leader=seat, touched=True,
                   turn=_next(auction.active, players, seat))


def after_pass(auction: Auction, players: int, seat: int) -> Auction:
    """Dropping out is final for this auction (R3)."""
    active = tuple(other for other in auction.active if other != seat)
    return replace(auction, active=active, touched=True, turn=_next(active, players, seat))


def _next(active, players: int, seat: int) -> int | None:
    """The first player still in after `seat`, clockwise."""
    for other in _clockwise(players, seat + 1):
        if other in active:
            return other
    return None


def _clockwise(players: int, first: int) -> list[int]:
    return [(first + step) % players for step in range(players)]
