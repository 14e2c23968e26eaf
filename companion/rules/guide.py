"""What happens now: the step a round is at, in one or two sentences for a table of
first-timers (R2-R10), on the table screen (no seat) or a player's phone (their seat).

Every rule is asked of the core (`bidding`, `state`, and `legality` for what someone may
do: the very event tried on the state); only the words are chosen here.
"""
from .bidding import (bid_floor, forbidden_digits, french_opening, lot_floor, lowest_allowed,
                      lowest_bid, outbid_floor)
from .events import Exchange, Free, SideSale, Sold
from .legality import allowed
from .phrase import N_, Either, Phrase
from .state import GameState, must_open, next_actions, settled_sale

GAME_OVER = (
    Phrase(N_("The game is over: each family held scores 1, 3, 6, 10 or 15 points for 1 to 5 "
              "cards, and the most coins 2 more (R10).")),
    Phrase(N_("Most points wins; a tie goes to the highest sum of card numbers (R10).")),
)


def what_now(state: GameState, live: bool, seat: int | None = None,
             last=None) -> tuple[Phrase, ...]:
    """The sentences for the step `state` is at, for the table (`seat` None) or a phone.
    `live`: live auction mode is on; `last`: the last event and the state before it,
    when the screens announce what it moved (None after an undo or a correction)."""
    if state.finished:
        return GAME_OVER
    if not state.lot:
        return _round_start(state, seat, last)
    if live and state.auction.outcome()[0] == "sold":  # a result the rules refused
        return (Phrase(N_("{player} won the auction at {high} but can no longer pay it: "
                          "record their overbid; they discard a card and the auction starts "
                          "again without them (R5)."),
                       player=state.players[state.auction.leader], high=state.auction.high),)
    if not state.auction.active:
        return (Phrase(N_("Everyone is out of this auction: record the free lot, which goes to "
                          "{start} (R9)."), start=state.start_player),)
    if live:  # on the table, what the player whose turn it is may bid
        bidder = state.auction.turn if seat is None else seat
        return _turn(state, seat), _endings(state, bidder, seat is not None)
    if seat is None:
        return _opening(state), Phrase(N_(
            "Nobody may bid an amount ending in the number of a card they hold; when one "
            "bidder is left, record the winner and the price (R3)."))
    return _opening(state, seat), _endings(state, seat, True)


def _round_start(state: GameState, seat: int | None, last) -> tuple[Phrase, ...]:
    """What the last round came to (or the round start's variants), then the reveal (R2)."""
    template = (N_("You are the start player: turn over the top 2 cards of the deck, the lot "
                   "of round {round} (R2).") if seat == state.start else
                N_("{start} is the start player: turn over the top 2 cards of the deck, the "
                   "lot of round {round} (R2)."))
    reveal = Phrase(template, start=state.start_player, round=state.round_number)
    first = _settled(state, last) or _variants(state, seat)
    return (first, reveal) if first else (reveal,)


def _settled(state: GameState, last) -> Phrase | None:
    """The sale (R8) or free lot (R9) that just ended the last round, if it did."""
    event, before = last or (None, None)
    if event is not None and settled_sale(event, before, state) is not None:
        return Phrase(N_("{winner} bought the lot for {price}: hand over the coins as shown "
                         "above (R8)."),
                      winner=event.winner, price=event.price)
    if isinstance(event, (Sold, Free)):  # a French win at 0 is a free lot (R8)
        return Phrase(N_("The lot went free: {start} takes it and no money moves (R9)."),
                      start=state.start_player)
    return None


def _variants(state: GameState, seat: int | None) -> Phrase | None:
    """What may happen before the reveal: side sales when someone may sell a card (R6),
    exchanges when someone, or on a phone its player, may still make one (R7)."""
    kinds, seats = next_actions(state), range(len(state.players))
    side = "side_sale" in kinds and any(_may_sell(state, seller) for seller in seats)
    exchange = "exchange" in kinds and any(
        _may_exchange(state, player) for player in (seats if seat is None else (seat,)))
    if side and exchange:
        template = N_("Before the reveal, a player may sell one of their cards to the others, "
                      "and each in turn from {start} may swap a card with an opponent and "
                      "then sit out this auction (R6, R7).")
    elif side:
        template = N_("Before the reveal, a player may put one of their cards up for auction "
                      "among the others; the buyer pays the seller (R6).")
    elif exchange:
        template = N_("Before the reveal, each player in turn from {start} may swap a card "
                      "with an opponent, and then sits out this round's auction (R7).")
    else:
        return None
    return Phrase(template, start=state.start_player)


def _may_sell(state: GameState, seller: int) -> bool:
    """Whether the player may sell a card they hold to someone, at the lowest amount that
    buyer may bid (R6)."""
    hand, names = state.hands[seller], state.players
    bids = ((buyer, lowest_bid(state.hands[buyer], state.coins[buyer]))
            for buyer in _others(state, seller))
    return bool(hand) and any(
        allowed(state, SideSale(names[seller], hand[0], names[buyer], price))
        for buyer, price in bids if price is not None)


def _may_exchange(state: GameState, player: int) -> bool:
    """Whether the player may still swap a card with an opponent this round (R7)."""
    hands, names = state.hands, state.players
    return bool(hands[player]) and any(
        allowed(state, Exchange(names[player], hands[player][0], names[opponent],
                                hands[opponent][0]))
        for opponent in _others(state, player) if hands[opponent])


def _others(state: GameState, seat: int) -> list[int]:
    """Every seat but `seat`."""
    return [other for other in range(len(state.players)) if other != seat]


def _opening(state: GameState, seat: int | None = None) -> Phrase:
    """Who opens the lot's auction, and how: the French start player must (R9), unless
    they have no amount they may bid, which their own phone tells them."""
    opening, start = french_opening(state), state.start_player
    if opening:
        return Phrase(N_("{start} holds a 0, so must open at {opening} or more, and buys the "
                         "lot if nobody raises (R9)."), start=start, opening=opening)
    if opening == 0:
        return Phrase(N_("{start} must open the bidding, at 0 or more; then, clockwise, each "
                         "player bids higher or drops out (R9)."), start=start)
    if state.start in state.excluded:
        return Phrase(N_("{start} sits out this auction, so {opener} opens it; then, "
                         "clockwise, each player bids higher or drops out (R3)."),
                      start=start, opener=state.players[state.auction.active[0]])
    if state.setup.edition == "fr" and seat == state.start:  # no amount they may bid (R9)
        return Phrase(N_("You have no amount you may bid, so you do not open; then, "
                         "clockwise, each player bids or drops out (R9)."))
    if state.setup.edition == "fr":
        return Phrase(N_("{start} has no amount they may bid, so does not open; then, "
                         "clockwise, each player bids or drops out (R9)."), start=start)
    return Phrase(N_("{start} opens the bidding or passes; then, clockwise, each player bids "
                     "higher or drops out (R3)."), start=start)


def _turn(state: GameState, seat: int | None) -> Phrase:
    """Whose turn it is in a live auction, and what they may do (R3, R9)."""
    auction, mine = state.auction, seat == state.auction.turn
    player = state.players[auction.turn]
    if mine and lowest_allowed(state, seat) is None:
        return _nothing_to_bid(state, seat)
    if auction.opened:
        template = (N_("It is your turn: bid more than {high} or drop out (R3).") if mine else
                    N_("It is {player}'s turn: bid more than {high} or drop out (R3)."))
        return Phrase(template, player=player, high=auction.high)
    if must_open(state, auction.turn) and mine:
        opening = french_opening(state)
        if opening:
            return Phrase(N_("It is your turn: you hold a 0, so you must open at {opening} or "
                             "more (R9)."), opening=opening)
        return Phrase(N_("It is your turn: you must open the bidding, at 0 or more (R9)."))
    if auction.turn == state.start and not mine:
        return _opening(state)
    template = (N_("It is your turn: open the bidding or drop out (R3).") if mine else
                N_("It is {player}'s turn: open the bidding or drop out (R3)."))
    return Phrase(template, player=player)


def _nothing_to_bid(state: GameState, seat: int) -> Phrase:
    """Their turn, with no amount they may bid and can pay: a French start player who has
    not opened does not open (R9); anyone else drops out (R3, R5)."""
    if state.setup.edition == "fr" and seat == state.start and not state.auction.opened:
        return Phrase(N_("It is your turn: you have no amount you may bid, so you do not "
                         "open: drop out (R9)."))
    return _nothing(state, seat, True)


# Why a player can bid nothing in the lot's auction (told on their phone alone, R12): every
# number held, the French opening's floor above their coins, or their coins.
_NOTHING = {
    "numbers": N_("you hold every number from 0 to 9, so every amount ends in one you hold "
                  "(R3)"),
    "floor": N_("you may bid only more than {floor} (R9), which is more than you hold (R5)"),
    "money": N_("every amount you may bid is more than you hold (R3, R5)"),
}


def _nothing(state: GameState, seat: int, turn: bool) -> Phrase:
    """Why the player can bid nothing in the lot's auction (lowest_allowed is None), said
    to them (`turn`: on their turn)."""
    floor = outbid_floor(state, seat)
    if len(forbidden_digits(state.hands[seat])) == 10:
        why = Phrase(_NOTHING["numbers"])
    elif floor and floor >= (state.auction.high or 0):
        why = Phrase(_NOTHING["floor"], floor=floor)
    else:
        why = Phrase(_NOTHING["money"])
    if turn:
        return Phrase(N_("It is your turn: {why}: drop out."), why=why)
    return Phrase(N_("You can bid nothing in this auction: {why}."), why=why)


# What a player may not bid in the lot's auction, by (said to them, digits they hold, what
# is barred besides: 0 or every amount up to the start player's opening, French rules, or
# up to a live auction's bid to beat once it is above those).
_ENDINGS = {
    (True, True, None): N_("You may not bid amounts ending in {endings} (R3)."),
    (True, True, "zero"): N_("You may not bid 0, nor amounts ending in {endings} (R3)."),
    (True, True, "opening"): N_("You may bid only more than {floor}, and no amount ending in "
                                "{endings} (R3, R9)."),
    (True, False, None): N_("You may bid any amount you can pay (R3)."),
    (True, False, "zero"): N_("You may bid any amount from 1 that you can pay (R8)."),
    (True, False, "opening"): N_("You may bid any amount above {floor} that you can pay (R9)."),
    (False, True, None): N_("{player} may not bid amounts ending in {endings} (R3)."),
    (False, True, "zero"): N_("{player} may not bid 0, nor amounts ending in {endings} (R3)."),
    (False, True, "opening"): N_("{player} may bid only more than {floor}, and no amount "
                                 "ending in {endings} (R3, R9)."),
    (False, False, None): N_("{player} may bid any amount they can pay (R3)."),
    (False, False, "zero"): N_("{player} may bid any amount from 1 that they can pay (R8)."),
    (False, False, "opening"): N_("{player} may bid any amount above {floor} that they can "
                                  "pay (R9)."),
    (True, True, "high"): N_("You may bid only more than {floor}, and no amount ending in "
                             "{endings} (R3)."),
    (True, False, "high"): N_("You may bid any amount above {floor} that you can pay (R3)."),
    (False, True, "high"): N_("{player} may bid only more than {floor}, and no amount ending "
                              "in {endings} (R3)."),
    (False, False, "high"): N_("{player} may bid any amount above {floor} that they can pay "
                               "(R3)."),
}


def _endings(state: GameState, seat: int, yours: bool) -> Phrase:
    """The amounts the player may not bid in the lot's auction (R3, R8, R9), said to them
    (`yours`) or about them; or, on their own phone, that they sit out this auction (R5,
    R7) or can bid nothing (R3, R5)."""
    if yours and seat in state.excluded:
        if seat in state.exchangers:
            return Phrase(N_("You exchanged a card this round, so you sit out its auction (R7)."))
        return Phrase(N_("You bid more than you hold, so you sit out this round's auction (R5)."))
    if yours and lowest_allowed(state, seat) is None:  # the table may not learn it (R12)
        return _nothing(state, seat, False)
    digits = sorted(forbidden_digits(state.hands[seat]))
    floor = bid_floor(state, seat)
    if floor is not None and floor != lot_floor(state, seat):
        barred = "high"
    elif floor:
        barred = "opening"
    elif floor == 0 and 0 not in digits:
        barred = "zero"
    else:
        barred = None
    return Phrase(_ENDINGS[yours, bool(digits), barred], player=state.players[seat],
                  floor=floor, endings=Either(str(digit) for digit in digits))
