"""The game state as a fold over the event log (R1-R11).

`apply` either returns a new state or raises a Refusal and leaves the old
state as it was: states are immutable.
"""
from dataclasses import dataclass, replace

from .auction import Auction, after_bid, after_pass, open_auction
from .bidding import (bid_problems, digit_problem, forbidden_digits, french_opening,
                      money_problem)
from .cards import FAMILY_SIZE, LOT_SIZE, NUMBER_COPIES, NUMBERS, ROUNDS, Card
from .events import Bid, Exchange, Free, Overbid, Pass, Penalty, Reveal, SideSale, Sold
from .phrase import N_, Family, Names, Phrase
from .refusal import Refusal
from .scoring import Score, score
from .settlement import Settlement, settle
from .setup import Setup
from .unseen import Shortfall, shortfall


@dataclass(frozen=True)
class GameState:
    """Where the game stands after some events: a value, changed only by making a new
    one (dataclasses.replace)."""

    setup: Setup
    coins: tuple[int, ...]
    hands: tuple[tuple[Card, ...], ...]
    start: int
    pot: int = 0
    rounds_played: int = 0
    lot: tuple[Card, ...] = ()
    seen: frozenset[Card] = frozenset()
    family_counts: tuple[int, ...] = ()  # the seen cards of each family, in `families` order
    number_counts: tuple[int, ...] = (0,) * len(NUMBERS)  # the seen cards of each number
    discarded: tuple[Card, ...] = ()
    excluded: frozenset[int] = frozenset()
    exchangers: tuple[int, ...] = ()
    sellers: frozenset[int] = frozenset()
    last_sale: Settlement | None = None
    auction: Auction | None = None

    @property
    def players(self) -> tuple[str, ...]:
        return self.setup.players

    @property
    def finished(self) -> bool:
        return self.rounds_played == ROUNDS

    @property
    def round_number(self) -> int:
        """The round being played (the last one once the game is over)."""
        return min(self.rounds_played + 1, ROUNDS)

    @property
    def start_player(self) -> str:
        return self.players[self.start]

    def coins_of(self, name: str) -> int:
        return self.coins[self.setup.seat(name)]

    def hand_of(self, name: str) -> tuple[Card, ...]:
        return self.hands[self.setup.seat(name)]

    def forbidden_digits(self, name: str) -> frozenset[int]:
        return forbidden_digits(self.hand_of(name))

    def score(self) -> Score:
        return score(self.players, self.hands, self.coins)


def new_game(setup: Setup) -> GameState:
    """The state before the first event: everyone holds start coins and no card."""
    count = len(setup.players)
    return GameState(setup=setup, coins=(setup.start_coins,) * count,
                     hands=((),) * count, start=setup.seat(setup.start_player),
                     family_counts=(0,) * len(setup.families))


def fold(setup: Setup, events) -> GameState:
    """Apply every event in order; a refusal carries the index of its event."""
    state, index = new_game(setup), 0
    try:
        for index, event in enumerate(events):
            state = apply(state, event)
    except Refusal as refusal:
        refusal.event = index
        raise
    return state


def fold_all(setup: Setup, events) -> list[GameState]:
    """The state before the first event and after each one."""
    states = [new_game(setup)]
    for index, event in enumerate(events):
        states.append(apply_at(states[-1], event, index))
    return states


def apply_at(state: GameState, event, index: int) -> GameState:
    """`apply`, with the event's index put on a refusal."""
    try:
        return apply(state, event)
    except Refusal as refusal:
        refusal.event = index
        raise


def apply(state: GameState, event) -> GameState:
    """The state after `event`, or a Refusal naming the rule that forbids it."""
    if state.finished:
        raise Refusal("R2", "the game is over: all {rounds} rounds have settled", rounds=ROUNDS)
    return _HANDLERS[type(event)](state, event)


def _reveal(state: GameState, event: Reveal) -> GameState:
    if state.lot:
        raise _too_late(state, N_("a second reveal"), "R2")
    cards = tuple(event.cards)
    if len(cards) != LOT_SIZE:
        raise Refusal("R2", "a lot is {size} cards, not {count}", size=LOT_SIZE, count=len(cards))
    _check_new_cards(state, cards)
    if cards[0] == cards[1]:
        raise Refusal("R1", "the lot shows the {card} twice", card=cards[0])
    family_counts, number_counts = _counted(state, cards)
    seen = state.seen.union(cards)
    short = shortfall(state.setup.families, seen, family_counts, number_counts)
    if short:
        raise _no_deck(cards, short)
    return replace(state, lot=cards, seen=seen, family_counts=family_counts,
                   number_counts=number_counts, auction=_open(state, state.excluded))


def _check_new_cards(state: GameState, cards) -> None:
    for card in cards:
        if card.family not in state.setup.families:
            raise Refusal("R1", "there is no family {family!r} in this game", family=card.family)
        if card.number not in NUMBERS:
            raise Refusal("R1", "cards show numbers 0 to 9, not {number}", number=card.number)
        if card in state.seen:
            raise Refusal("R1", "the {card} has already been seen: each card exists once",
                          card=card)


def _counted(state: GameState, lot) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The seen cards of each family and of each number once the lot is seen: at most 5 of
    a family and 3 of a number (R1)."""
    place = state.setup.families.index  # a card's family is checked first (R1)
    families, numbers = list(state.family_counts), list(state.number_counts)
    for card in lot:
        families[place(card.family)] += 1
        numbers[card.number] += 1
    for card in lot:
        family_count = families[place(card.family)]
        number_count = numbers[card.number]
        if family_count > FAMILY_SIZE:
            raise Refusal("R1", "this would be card {count} of the {family} family, which has {size}",
                          count=family_count, family=Family(card.family), size=FAMILY_SIZE)
        if number_count > NUMBER_COPIES:
            raise Refusal("R1", "this would be the {count}th card numbered {number}: there are {copies}",
                          count=number_count, number=card.number, copies=NUMBER_COPIES)
    return tuple(families), tuple(numbers)


def _no_deck(lot, short: Shortfall) -> Refusal:
    """The refusal of a reveal after which no real deck holds every card seen: a card was
    misread (R1). Made only when refused, for the caller to raise."""
    return Refusal("R1", "no real deck holds the {card} and the {other} with the cards seen "
                         "before: the cards to come have room for only {room} of the {need} "
                         "that {families} must still show, as a family shows each number once",
                   card=lot[0], other=lot[1], room=short.room, need=short.need,
                   families=Names(Family(name) for name in short.families))


def settled_sale(event, before: GameState, after: GameState) -> Settlement | None:
    """The payment `event`, leading from `before` to `after`, settled: a sale's (R8);
    None for any other event, and for a French win at 0, a free lot (R8.6): told by the
    edition and the price, whichever fold made the states."""
    if isinstance(event, Sold) and not _free_at_zero(before, event.price):
        return after.last_sale
    return None


def penalty_paid(before: GameState, after: GameState) -> bool:
    """Whether the penalty that led from `before` to `after` cost a coin: a player who
    holds none pays nothing (R4)."""
    return after.pot != before.pot


def next_actions(state: GameState) -> frozenset[str]:
    """The kinds of event the round is at (each is still checked when made): before the
    reveal, the reveal and the round-start variants (R6, R7); after it, the auction's
    events (R3-R5, R8), and the free lot unless a French start player must open above 0
    (R9); a penalty and an overbid wherever an auction can run, a side sale's included
    (R4, R5)."""
    if state.finished:
        return frozenset()
    if state.lot:
        live = {"bid", "pass"} if state.auction.outcome()[0] == "open" else set()
        free = set() if _free_barred(state) else {"free"}
        return frozenset({"sold", "overbid", "penalty", *free, *live})
    return frozenset({"reveal"}
                     | ({"side_sale", "penalty", "overbid"} if state.setup.side_sales else set())
                     | ({"exchange"} if state.setup.exchange else set()))


def _sold(state: GameState, event: Sold) -> GameState:
    if not state.lot:
        raise _too_soon(state, N_("a sale"))
    seat = state.setup.seat(event.winner)
    _check_price(event.price)
    problems = bid_problems(state, event.winner, event.price)
    if problems:
        raise problems[0]
    _check_auction_ended(state, ("sold", seat, event.price))
    if _free_at_zero(state, event.price):
        return _free(state, None)
    sale = settle(state.setup.players, state.hands, seat, event.price, state.pot)
    gains = dict.fromkeys(map(state.setup.seat, sale.receivers), sale.share)
    coins = _with_coins(state.coins, {**gains, seat: -sale.price})  # never a receiver (R8)
    return _end_round(state, seat, {"coins": coins, "pot": sale.remainder, "start": seat,
                                    "last_sale": sale})


def sale_preview(state: GameState, winner: str, price: int) -> Settlement | None:
    """Where the money would go if `winner` bought the lot now for `price`.

    None when no money moves: a French-rules sale at 0 is a free lot (R8.6).
    """
    if _free_at_zero(state, price):
        return None
    return settle(state.setup.players, state.hands, state.setup.seat(winner), price, state.pot)


def _free(state: GameState, event: Free | None) -> GameState:
    """The start player takes the lot (R9); `None` when a French sale at 0 leads here."""
    if not state.lot:
        raise _too_soon(state, N_("'nobody bid'"))
    if event is not None:
        _check_auction_ended(state, ("free", None, None))
        barred = _free_barred(state)
        if barred:
            raise barred
    return _end_round(state, state.start, {})


def _free_barred(state: GameState) -> Refusal | None:
    """French rules: a start player bound to open above 0 (they hold a 0) buys the lot
    at that amount if nobody raises, so it cannot go free (R9)."""
    opening = french_opening(state)
    if not opening:
        return None
    return Refusal("R9", "French rules: the start player {start} holds a 0, so must open at "
                         "{opening} or more and buys the lot if nobody raises: it cannot go "
                         "free", start=state.start_player, opening=opening)


def _end_round(state: GameState, taker: int, changes: dict) -> GameState:
    """The round settled: `taker` takes the lot, with these `changes` (R8, R9)."""
    return replace(state, **_NEW_ROUND, **changes, rounds_played=state.rounds_played + 1,
                   hands=_with_hands(state.hands, {taker: state.hands[taker] + state.lot}))


# What a round's end clears: the lot, its auction, and who exchanged, sold or is excluded.
_NEW_ROUND = {"lot": (), "excluded": frozenset(), "exchangers": (), "sellers": frozenset(),
              "auction": None}


def _penalty(state: GameState, event: Penalty) -> GameState:
    seat = state.setup.seat(event.player)
    if "penalty" not in next_actions(state):
        raise Refusal("R4", "no auction is under way for {player} to bid in: the lot is not "
                            "revealed and side sales are off", player=event.player)
    if not state.hands[seat]:
        raise Refusal("R4", "{player} holds no card, so no bid of theirs can be forbidden",
                      player=event.player)
    if state.lot and seat in state.excluded:
        raise Refusal("R4", "{player} is excluded from this round's auction, so makes no bid "
                            "that could be forbidden", player=event.player)
    if not state.coins[seat]:
        return state
    return replace(state, coins=_with_coins(state.coins, {seat: -1}), pot=state.pot + 1)


def _overbid(state: GameState, event: Overbid) -> GameState:
    """The discard (R5); in the lot's auction, also the exclusion and the restart. Before
    the reveal (side sales on) it happened in a side sale's auction, which starts again
    without the player: no exclusion from the lot's auction, which is not under way (R5,
    R6)."""
    seat = state.setup.seat(event.player)
    if "overbid" not in next_actions(state):
        raise Refusal("R5", "no auction is under way for {player} to bid in: the lot is not "
                            "revealed and side sales are off", player=event.player)
    if state.lot and seat in state.excluded:
        raise Refusal("R5/R7", "{player} is excluded from this round's auction",
                      player=event.player)
    discard = _discard(state, seat, event.discard)
    if not state.lot:
        return replace(state, **discard)
    excluded = state.excluded | {seat}
    return replace(state, **discard, excluded=excluded, auction=_open(state, excluded))


def _discard(state: GameState, seat: int, card: Card | None) -> dict:
    """The overbidder discards one card they hold, none when they hold none (R5)."""
    hand = state.hands[seat]
    if not hand:
        if card is not None:
            raise Refusal("R5", "{player} holds no card, so none can be discarded",
                          player=state.players[seat])
        return {}
    if card is None and len(hand) == 1:
        raise Refusal("R5", "{player} holds 1 card: it must be discarded",
                      player=state.players[seat])
    if card is None:
        raise Refusal("R5", "{player} holds {count} cards: one of them must be discarded",
                      player=state.players[seat], count=len(hand))
    _check_holds(state, seat, card, "R5")
    return {"hands": _with_hands(state.hands, {seat: _without(hand, card)}),
            "discarded": state.discarded + (card,)}


def _bid(state: GameState, event: Bid) -> GameState:
    """Live auction: a legal raise by the player whose turn it is (R3, R5)."""
    seat = _check_turn(state, event.player)
    _check_price(event.amount)
    problems = bid_problems(state, event.player, event.amount, state.auction.high)
    if problems:
        raise problems[0]
    return replace(state, auction=after_bid(state.auction, len(state.setup.players), seat,
                                            event.amount))


def _pass(state: GameState, event: Pass) -> GameState:
    """Live auction: the player whose turn it is drops out (R3)."""
    seat = _check_turn(state, event.player)
    if must_open(state, seat):
        opening = french_opening(state)
        if opening:
            raise Refusal("R9", "French rules: the start player {player} opens the auction "
                                "and must bid at least {opening}, as they hold a 0",
                          player=event.player, opening=opening)
        raise Refusal("R3", "French rules: the start player {player} opens the auction and "
                            "must bid (0 is allowed)", player=event.player)
    return replace(state, auction=after_pass(state.auction, len(state.setup.players), seat))


def must_open(state: GameState, seat: int) -> bool:
    """French rules: the start player opens the lot's auction, unless they are excluded or
    have no legal bid (R3, R9), so may not drop out before anyone has bid."""
    return (not state.auction.opened and seat == state.start
            and french_opening(state) is not None)


def auction_result(state: GameState):
    """The sale or free lot a live auction has come to, or None while it runs."""
    auction = state.auction
    if auction is None or (not auction.touched and auction.active):
        return None
    outcome, seat, price = auction.outcome()
    if outcome == "sold" and not _free_at_zero(state, price):
        return Sold(state.players[seat], price)
    return None if outcome == "open" else Free()


def _free_at_zero(state: GameState, price: int) -> bool:
    """A French-rules win at 0, which is a free lot (R8.6)."""
    return state.setup.edition == "fr" and price == 0


def result_refusal(state: GameState) -> Refusal | None:
    """Why the result a live auction came to cannot be recorded: the winner's high bid
    became more than they hold after a penalty (an overbid, R5), for one."""
    result = auction_result(state)
    try:
        if result is not None:
            apply(state, result)
    except Refusal as refusal:
        return refusal
    return None


def _open(state: GameState, excluded) -> Auction:
    return open_auction(len(state.setup.players), state.start, excluded)


def _check_turn(state: GameState, name: str) -> int:
    if not state.lot:
        raise _too_soon(state, N_("a bid"))
    seat = state.setup.seat(name)
    auction = state.auction
    if auction.outcome()[0] != "open":
        raise Refusal("R3", "the auction is over: record how it ended")
    if seat != auction.turn:
        raise Refusal("R3", "it is {turn}'s turn to bid or pass, not {player}'s",
                      turn=state.players[auction.turn], player=name)
    return seat


def check_auction_over(state: GameState) -> None:
    """A result needs the lot's auction to be over (R3)."""
    auction = state.auction
    if auction.outcome()[0] == "open":
        raise Refusal("R3", "the auction is still on: it is {turn}'s turn to bid or pass",
                      turn=state.players[auction.turn])


def _check_auction_ended(state: GameState, recorded) -> None:
    """A result recorded after live bids must be the one they came to (R3)."""
    if not state.auction.touched:
        return
    check_auction_over(state)
    outcome, seat, price = state.auction.outcome()
    ended = {(outcome, seat, price)}
    if outcome == "sold" and _free_at_zero(state, price):
        ended.add(("free", None, None))
    if recorded not in ended:
        if outcome == "free":
            raise Refusal("R3", "everyone passed without a bid: the lot goes free")
        raise Refusal("R3", "{player} won the auction at {price}", player=state.players[seat],
                      price=price)


def _side_sale(state: GameState, event: SideSale) -> GameState:
    if not state.setup.side_sales:
        raise Refusal("R6", "side sales are off in this game")
    if state.lot:
        raise _too_late(state, N_("a side sale"), "R6")
    seller, buyer = state.setup.seat(event.seller), state.setup.seat(event.buyer)
    if seller == buyer:
        raise Refusal("R6", "{player} cannot buy their own card", player=event.seller)
    if seller in state.sellers:
        raise Refusal("R6", "{player} has already sold a card this round: one each",
                      player=event.seller)
    _check_holds(state, seller, event.card, "R6")
    _check_price(event.price)
    problem = (digit_problem(event.buyer, state.hands[buyer], event.price)
               or money_problem(event.buyer, state.coins[buyer], event.price))
    if problem:
        raise problem
    hands = _with_hands(state.hands, {seller: _without(state.hands[seller], event.card),
                                      buyer: state.hands[buyer] + (event.card,)})
    coins = _with_coins(state.coins, {buyer: -event.price, seller: event.price})
    return replace(state, hands=hands, coins=coins, sellers=state.sellers | {seller})


def _exchange(state: GameState, event: Exchange) -> GameState:
    if not state.setup.exchange:
        raise Refusal("R7", "the exchange variant is off in this game")
    if state.lot:
        raise _too_late(state, N_("an exchange"), "R7")
    player, opponent = state.setup.seat(event.player), state.setup.seat(event.opponent)
    if player == opponent:
        raise Refusal("R7", "{player} cannot exchange with themselves", player=event.player)
    if player in state.exchangers:
        raise Refusal("R7", "{player} has already exchanged this round: once each",
                      player=event.player)
    _check_exchange_turn(state, player)
    _check_holds(state, player, event.gives, "R7")
    _check_holds(state, opponent, event.takes, "R7")
    hands = _with_hands(state.hands, {
        player: _without(state.hands[player], event.gives) + (event.takes,),
        opponent: _without(state.hands[opponent], event.takes) + (event.gives,)})
    return replace(state, hands=hands, exchangers=state.exchangers + (player,),
                   excluded=state.excluded | {player})


def _check_exchange_turn(state: GameState, seat: int) -> None:
    """Exchanges go clockwise, starting with the start player (R7)."""
    if not state.exchangers:
        return
    count = len(state.players)
    last = state.exchangers[-1]
    if (seat - state.start) % count < (last - state.start) % count:
        raise Refusal("R7", "exchanges go clockwise from the start player {start}: "
                            "{player}'s turn came before {last}'s",
                      start=state.start_player, player=state.players[seat],
                      last=state.players[last])


def _too_late(state: GameState, action: str, rule: str) -> Refusal:
    """The refusal of `action` (a marked template) after the reveal: it must come before.
    Made only when refused, for the caller to raise."""
    return Refusal(rule, "{action} cannot come after the reveal of round {round}: settle the "
                         "lot first", action=Phrase(action), round=state.round_number)


def _too_soon(state: GameState, action: str) -> Refusal:
    """The refusal of `action` (a marked template) before the reveal: it needs a lot.
    Made only when refused, for the caller to raise."""
    return Refusal("R2", "{action} needs a lot: reveal round {round}'s 2 cards first",
                   action=Phrase(action), round=state.round_number)


def _check_holds(state: GameState, seat: int, card: Card, rule: str) -> None:
    if card not in state.hands[seat]:
        raise Refusal(rule, "{player} does not hold the {card}", player=state.players[seat],
                      card=card)


def _check_price(price: int) -> None:
    if price < 0:
        raise Refusal("R3", "a price cannot be negative ({price})", price=price)


def _with_hands(hands, changes: dict[int, tuple[Card, ...]]) -> tuple[tuple[Card, ...], ...]:
    """`hands` with the hands of some seats replaced."""
    hands = list(hands)
    for seat, hand in changes.items():
        hands[seat] = hand
    return tuple(hands)


def _with_coins(coins, changes: dict[int, int]) -> tuple[int, ...]:
    coins = list(coins)
    for seat, change in changes.items():
        coins[seat] += change
    return tuple(coins)


def _without(hand, card: Card) -> tuple[Card, ...]:
    """`hand` less `card`, which it holds once (each card exists once, R1)."""
    at = hand.index(card)
    return hand[:at] + hand[at + 1:]


_HANDLERS = {
    Reveal: _reveal, Sold: _sold, Free: _free, Penalty: _penalty,
    Overbid: _overbid, SideSale: _side_sale, Exchange: _exchange, Bid: _bid, Pass: _pass,
}
