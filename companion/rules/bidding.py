"""Which bids a player may make (R3, R5, R7, R8, R9)."""
from .cards import Card, number_of
from .refusal import Refusal


def forbidden_digits(hand: tuple[Card, ...]) -> frozenset[int]:
    """The units digits a player may not bid: the numbers of the cards held (R3)."""
    return frozenset(map(number_of, hand))


def highest_bid(hand: tuple[Card, ...], coins: int) -> int | None:
    """The highest amount a player may bid: affordable, digit allowed (R3, R5)."""
    forbidden = forbidden_digits(hand)
    allowed = [amount for amount in range(coins, max(coins - 10, -1), -1)
               if amount % 10 not in forbidden]
    return allowed[0] if allowed else None


def lowest_bid(hand: tuple[Card, ...], coins: int) -> int | None:
    """The lowest amount a player may bid: affordable, digit allowed (R3, R5); None when
    every amount they can pay ends in a digit they hold."""
    forbidden = forbidden_digits(hand)
    for amount in range(min(coins, 9) + 1):
        if amount not in forbidden:
            return amount
    return None


def lowest_raise(state, seat: int, high: int | None) -> int | None:
    """The lowest amount the player may bid over `high` (from 0 if nobody has bid), by
    the digits they hold and the edition, money aside (R3, R8); None if every amount
    ends in a digit they hold. (Eleven amounts are enough: when 0 is the only ending
    left and they may not bid 0 itself, 10 is theirs.)"""
    start = 0 if high is None else high + 1
    forbidden = forbidden_digits(state.hands[seat])
    barred = zero_barred(state, seat)
    return next((amount for amount in range(start, start + 11)
                 if amount % 10 not in forbidden and not (amount == 0 and barred)), None)


def lowest_allowed(state, seat: int) -> int | None:
    """The lowest amount the player may bid in the lot's auction now and can pay (R3, R5):
    above the bid to beat and, French rules, above the lot's floor (R8.6, R9); None when
    there is none: they can bid nothing."""
    lowest = lowest_raise(state, seat, bid_floor(state, seat))
    return lowest if lowest is not None and lowest <= state.coins[seat] else None


def highest_allowed(state, seat: int) -> int | None:
    """The highest amount the player may bid and pay (R3, R5); None when there is none: in
    the lot's auction, when they can bid nothing there (see lowest_allowed); French rules,
    a 0 that only the start player may bid (R8)."""
    if state.auction is not None and lowest_allowed(state, seat) is None:
        return None
    best = highest_bid(state.hands[seat], state.coins[seat])
    return None if best == 0 and zero_barred(state, seat) else best


def zero_barred(state, seat: int) -> bool:
    """French rules: only the start player can win at 0, so no one else may bid it (R8)."""
    return state.setup.edition == "fr" and seat != state.start


def french_opening(state) -> int | None:
    """French rules: the lowest amount the start player must open the lot's auction at
    (R3, R9), or None when they are not bound to open: English rules, a start player
    excluded this round (R5, R7), or one with no legal bid at all.

    Above 0 only when they hold a 0: they then buy the lot at that amount if nobody
    raises, so it cannot go free, and anyone else buys it only above that amount (R9).
    """
    if state.setup.edition != "fr" or state.start in state.excluded:
        return None
    return lowest_bid(state.hands[state.start], state.coins[state.start])


def outbid_floor(state, seat: int) -> int | None:
    """French rules: the amount anyone but the start player bound to open must bid above
    to win the lot, the start player's lowest opening (R9); None when there is none."""
    if seat == state.start:
        return None
    return french_opening(state)


def lot_floor(state, seat: int) -> int | None:
    """The amount `seat` must bid above to win the lot, if any (French rules: 0 is the start
    player's alone, R8.6; above the opening a start player holding a 0 must make, R9)."""
    floor = outbid_floor(state, seat)
    return floor if floor else 0 if zero_barred(state, seat) else None


def bid_floor(state, seat: int) -> int | None:
    """The amount `seat` must bid above in the lot's auction now: the bid to beat of a live
    auction (R3), or the lot's floor where it is higher (R8.6, R9); None when any goes."""
    high = state.auction.high if state.auction is not None else None
    return max((bar for bar in (high, lot_floor(state, seat)) if bar is not None), default=None)


def floor_problem(state, seat: int, amount: int) -> Refusal | None:
    """Refusal if `amount` is not above the lot's floor for `seat` (French rules): the
    start player's opening, when they hold a 0 (R9); else 0, theirs alone (R8.6), which a
    start player who does not open this auction (excluded, R5, R7, or with no legal bid,
    R9) leaves to nobody."""
    floor = lot_floor(state, seat)
    if floor is None or amount > floor:
        return None
    names = dict(start=state.start_player, player=state.players[seat], price=amount)
    if floor:
        return Refusal("R9", "French rules: the start player {start} must open at {opening} or "
                             "more, so {player} can win only above {opening}, not at {price}",
                       opening=floor, **names)
    if french_opening(state) is None:
        return Refusal("R8", "French rules: only the start player may open at 0, and {start} "
                             "does not open this auction, so {player} can win only above 0",
                       **names)
    return Refusal("R8", "French rules: only the start player {start} can win at 0, not "
                         "{player}", **names)


def digit_problem(name: str, hand, amount: int) -> Refusal | None:
    """Refusal if the bid ends in a digit the player holds (R3)."""
    digit = amount % 10
    if digit in forbidden_digits(hand):
        return Refusal("R3", "{player} holds a {digit}: a bid of {amount} is forbidden",
                       player=name, digit=digit, amount=amount)
    return None


def money_problem(name: str, coins: int, amount: int) -> Refusal | None:
    """Refusal if the bid is more than the player holds (R5)."""
    if amount > coins:
        return Refusal("R5", "{player} holds {coins} coins: a bid of {amount} is more than that",
                       player=name, coins=coins, amount=amount)
    return None


def bid_problems(state, name: str, amount: int, high_bid: int | None = None) -> list[Refusal]:
    """Every reason `name` may not bid `amount` in this round's auction now.

    An empty list means the bid is allowed. `high_bid` is the bid to beat, if any.
    """
    seat = state.setup.seat(name)
    problems = [floor_problem(state, seat, amount)]
    if seat in state.excluded:
        problems.append(Refusal("R5/R7", "{player} is excluded from this round's auction",
                                player=name))
    if high_bid is not None and amount <= high_bid:
        problems.append(Refusal("R3", "{player} must bid more than {high}, not {amount}",
                                player=name, high=high_bid, amount=amount))
    problems.append(digit_problem(name, state.hands[seat], amount))
    problems.append(money_problem(name, state.coins[seat], amount))
    return list(filter(None, problems))
