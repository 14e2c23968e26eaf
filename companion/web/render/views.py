"""What the screens show, computed from a game's state; no rule is decided here."""
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import NamedTuple

from companion.rules.bidding import (bid_floor, bid_problems, forbidden_digits, french_opening,
                                     lot_floor, lowest_raise)
from companion.rules.cards import NUMBERS, Card
from companion.rules.events import (EVENT_TYPES, Bid, Exchange, Free, Overbid, Pass, Penalty,
                                    Reveal, SideSale, Sold)
from companion.rules.guide import what_now
from companion.rules.legality import refusal
from companion.rules.phrase import N_, Either, Names, Phrase, Series
from companion.rules.refusal import Refusal, public_message
from companion.rules.state import (GameState, must_open, penalty_paid, replace, result_refusal,
                                   sale_preview, settled_sale)
from companion.rules.unseen import Unseen, rounds_left, unseen, worth
from companion.store.games import Game, actions, actions_at, auction_running
from companion.web.forms import card_value
from .i18n import catalog, elide, family_label

CARD_CHOICE = N_("%(owner)s: %(card)s")  # a card in a list of everyone's cards
FREE_AT_ZERO = Phrase(N_("French rules: a win at 0 is a free lot, no money moves (R8)"))
# An overbid in words, by (a card discarded, in the lot's auction: True, in a side sale's:
# False, unknown: None) (R5).
_OVERBIDS = {
    (True, True): N_("{player} bid more than they hold, discarded {card}; the auction restarts"),
    (True, False): N_("{player} bid more than they hold, discarded {card}; the side sale's "
                      "auction starts again without them"),
    (True, None): N_("{player} bid more than they hold, discarded {card}"),
    (False, True): N_("{player} bid more than they hold; the auction restarts"),
    (False, False): N_("{player} bid more than they hold; the side sale's auction starts "
                       "again without them"),
    (False, None): N_("{player} bid more than they hold"),
}

# The symbol of each family, by its place in the game's list (R1). Its colour is that
# place's class, fam-0 ... fam-5, in static/app.css.
SYMBOLS = ("♦", "★", "♣", "●", "▲", "■")


def look(index: int) -> str:
    """The CSS class that gives the family at `index` its colour."""
    return f"fam-{index}"


class CardView(NamedTuple):
    """A card as drawn: its family's colour (a class, see `look`) and symbol, its number.
    A named tuple: screens draw each from a cache, which hashes it in C."""

    family: str
    number: int
    look: str
    symbol: str
    value: str

    def __str__(self) -> str:
        return f"{self.symbol} {self.family} {self.number}"


@dataclass(frozen=True)
class PlayerView:
    """One player as the table (or the player) sees them."""

    seat: int
    name: str
    cards: tuple[CardView, ...]
    endings: Either  # the last digits a bid may not have (R3)
    forbidden: Phrase
    coins: int | None
    excluded: bool
    start: bool


def card_view(game: Game, card: Card) -> CardView:
    return deck(game)[card]


def deck(game: Game) -> dict[Card, CardView]:
    """Every card of the game's deck as drawn in the request's language."""
    return _deck_views(game.setup.families, catalog())


@lru_cache(maxsize=64)
def _deck_views(families: tuple[str, ...], words) -> dict[Card, CardView]:
    """Every card of a deck of these families as drawn with the translations `words` (the
    request's): the same for every screen of every game with these families in that
    language (a table screen draws a hundred cards)."""
    return {card: CardView(family_label(family), number, look(index), SYMBOLS[index],
                           card_value(families, card))
            for index, family in enumerate(families) for number in NUMBERS
            for card in [Card(family, number)]}


def endings(digits) -> Either:
    """The forbidden last digits of bids, said in words: '4 or 6' (R3)."""
    return Either(str(digit) for digit in sorted(digits))


def forbidden(digits, floor: int | None = None) -> Phrase:
    """'cannot bid amounts ending in 4 or 6', or that every ending is allowed (R3); with a
    `floor`, that the lot is theirs only above it (French rules: 0 is the start player's
    alone, R8.6, and above their opening, R9)."""
    if floor is None:
        if not digits:
            return Phrase(N_("may bid any amount"))
        return Phrase(N_("cannot bid amounts ending in {endings}"), endings=endings(digits))
    if not digits:
        return Phrase(N_("may bid any amount above {floor}"), floor=floor)
    return Phrase(N_("may bid only above {floor}, and no amount ending in {endings}"),
                  floor=floor, endings=endings(digits))



def players(game: Game, viewer: int | None = None) -> list[PlayerView]:
    """Everyone in seating order; coins only where the table may see them (R12)."""
    state, words, families = game.state, catalog(), game.setup.families
    return [_player_view(seat, name, families, hand, words,
                         state.coins[seat] if game.options.money_open or viewer == seat
                         or state.finished else None,
                         seat in state.excluded, seat == state.start, lot_floor(state, seat))
            for seat, (name, hand) in enumerate(zip(game.setup.players, state.hands))]


@lru_cache(maxsize=4096)  # a busy server's players, each drawn on every screen of its table
def _player_view(seat: int, name: str, families: tuple[str, ...], hand: tuple[Card, ...],
                 words, coins: int | None, excluded: bool, start: bool,
                 floor: int | None) -> PlayerView:
    digits = forbidden_digits(hand)
    return PlayerView(seat=seat, name=name, cards=_hand_view(families, hand, words),
                      endings=endings(digits), forbidden=forbidden(digits, floor), coins=coins,
                      excluded=excluded, start=start)


@lru_cache(maxsize=4096)  # a busy server's hands
def _hand_view(families: tuple[str, ...], hand: tuple[Card, ...], words) -> tuple[CardView, ...]:
    """A hand as drawn in the language of `words`: by family, then number (every screen
    draws every hand)."""
    views, order = _deck_views(families, words), {family: index for index, family
                                                   in enumerate(families)}
    return tuple(views[card] for card in sorted(hand, key=lambda c: (order[c.family], c.number)))


@dataclass(frozen=True)
class Grid:
    """Every card of the deck by family (`rows`), with whether it may still be revealed
    (R1): the same for every state with these families and cards that may still turn up,
    in one language."""

    families: tuple[str, ...]
    possible: frozenset[Card]  # the cards that may still turn up
    words: object  # the translations it is drawn with
    rows: tuple[tuple[tuple[CardView, bool], ...], ...] = field(compare=False)


def reveal_grid(game: Game, state: GameState) -> Grid:
    """The reveal grid of `state` (R1), in the request's language."""
    return _grid(game.setup.families, unseen(state).may_turn_up, catalog())


@lru_cache(maxsize=512)  # a busy server's tables before a reveal
def _grid(families: tuple[str, ...], possible: frozenset[Card], words) -> Grid:
    views = _deck_views(families, words)
    return Grid(families, possible, words, tuple(
        tuple((views[card], card in possible) for number in NUMBERS
              for card in [Card(family, number)]) for family in families))


@dataclass(frozen=True)
class FamilyToCome:
    """One family's row of what is still to come: its look, how many of its cards are to
    come, the numbers they may show, and (on a phone) the set points one more of its
    cards would add to that phone's player (R10)."""

    symbol: str
    look: str
    name: str
    left: int
    numbers: tuple[int, ...]
    worth: int | None


class ToCome:
    """What is still to come, as the screens show it: the cards not yet seen, by family,
    and given a seat what each would add to its player's sets; worked out when first
    drawn (a screen that has it as a kept part needs only `shows`)."""

    def __init__(self, game: Game, seat: int | None = None):
        state = game.state
        self._game, self._seat = game, seat
        self.mine = seat is not None  # with the set points for the phone's player
        # what all of it follows from: the deck, the cards seen, the lots left, the hand
        self.shows = (game.setup.families, state.seen, rounds_left(state),
                      state.hands[seat] if self.mine else None)

    @cached_property
    def unseen(self) -> Unseen:
        return unseen(self._game.state)

    @cached_property
    def families(self) -> tuple[FamilyToCome, ...]:
        """Each family's row; given a seat, what one more card would add to its player's
        sets."""
        state, still = self._game.state, self.unseen
        points = worth(state, state.players[self._seat], still) if self.mine else {}
        return tuple(FamilyToCome(SYMBOLS[index], look(index), family_label(family), left,
                                  still.numbers_in(family), points.get(family))
                     for index, (family, left) in enumerate(still.families.items()))


def free_lot(state) -> Phrase:
    """The free lot's button, in words true for the edition (R9): French rules, the start
    player bound to open opened at 0 and nobody raised (bound above 0, the lot cannot go
    free, and no button shows); else nobody bid."""
    if french_opening(state) == 0:
        return Phrase(N_("The start player opened at 0 and nobody raised: the lot goes free "
                         "(R9)"))
    return Phrase(N_("Nobody bid: the start player takes the lot"))


def table_actions(game: Game) -> frozenset[str]:
    """The actions the table screen offers now: what the game takes, and undo."""
    return actions(game) | ({"undo"} if game.events else set())


def seats_open(game: Game) -> bool:
    """Whether a seat is still free: the screens then show how to join, large."""
    return len(game.seats) < len(game.setup.players)


def kinds_at(game: Game, index: int) -> list[str]:
    """The kinds of action a correction may put in place of event `index`, its own first."""
    own = game.events[index].kind
    kinds = actions_at(game, index)
    return [own] + [cls.kind for cls in EVENT_TYPES if cls.kind in kinds and cls.kind != own]


@dataclass(frozen=True)
class Held:
    """Each player's cards (`owners`: name, seat, and each card with the words it is listed
    by, 'Anna: ♦ red 5'), for choosing a card to sell, give or discard: the same for every
    state where the players hold these hands, in one language."""

    players: tuple[str, ...]
    hands: tuple[tuple[Card, ...], ...]
    words: object  # the translations it is drawn with
    owners: tuple[tuple[str, int, tuple[tuple[CardView, str], ...]], ...] = field(compare=False)


def held_cards(game: Game, state: GameState) -> Held:
    """Everyone's cards in `state`, in the request's language."""
    return _held(game.setup.families, game.setup.players, state.hands, catalog())


@lru_cache(maxsize=1024)  # a busy server's tables
def _held(families: tuple[str, ...], players: tuple[str, ...], hands, words) -> Held:
    """(The words of a list translated once, not once per card: a late round lists forty
    cards in each of four lists.)"""
    template, views = words.ugettext(CARD_CHOICE), _deck_views(families, words)
    return Held(players, hands, words, tuple(
        (name, seat, tuple((views[card], owned % {"owner": name, "card": views[card]})
                           for card in hands[seat]))
        for seat, name in enumerate(players)
        for owned in [elide(template, {"owner": name})]))


@dataclass(frozen=True)
class BidCheck:
    """The answer to 'may this player win at this price, and who is paid then?'."""

    problems: list[Refusal]
    payment: Phrase
    reason: Phrase | None
    purse_unknown: bool


# How much a screen may tell of a player's money before a submission (R12): their total
# (money open, or their own phone), or nothing (every other device, the host's included,
# so that nobody can find a total by trying prices).
SHOWN, UNKNOWN = "shown", "unknown"


def visible_problems(state: GameState, name: str, amount: int, purse: str,
                     high: int | None = None) -> list[Refusal]:
    """Every reason the bid is not allowed (above `high`, if any), as the screen may
    show them, given what it may tell of `name`'s `purse`."""
    problems = bid_problems(state, name, amount, high)
    if purse == UNKNOWN:
        problems = [problem for problem in problems if problem.rule != "R5"]
    return [public_message(problem, purse != SHOWN) for problem in problems]


def check_bid(state: GameState, name: str, amount: int, purse: str,
              live: bool = False) -> BidCheck:
    """Whether the bid is allowed, as a submission of it would be told (`bid_refusals`),
    and the payment it would bring."""
    problems = bid_refusals(state, name, amount, purse, live)
    sale = sale_preview(state, name, amount)
    if sale is None:
        return BidCheck(problems, FREE_AT_ZERO, None, purse == UNKNOWN)
    return BidCheck(problems, sale.instructions_phrase, sale.holders_phrase, purse == UNKNOWN)


def bid_refusals(state: GameState, name: str, amount: int, purse: str,
                 live: bool = False) -> list[Refusal]:
    """Why `name` may not bid `amount` now: the refusal the rules core gives the event a
    submission would be, tried on the state, the live bid (`live`) or the sale of the lot;
    before the reveal, when neither can be made, the rules of the amount alone (R3, R5, R7,
    R8). Where the screen may not learn the player's money (R12), the rules are asked as
    if they could pay it, so that nothing else goes unsaid."""
    if purse == UNKNOWN:
        state = _able_to_pay(state, state.setup.seat(name), amount)
    if not state.lot and not state.finished:
        return bid_problems(state, name, amount)
    found = refusal(state, Bid(name, amount) if live else Sold(name, amount))
    return [] if found is None else [found]


def _able_to_pay(state: GameState, seat: int, amount: int) -> GameState:
    """`state` with the player in `seat` holding at least `amount` coins."""
    coins = list(state.coins)
    coins[seat] = max(coins[seat], amount)
    return replace(state, coins=tuple(coins))


@dataclass(frozen=True)
class AuctionView:
    """A live auction as the screens show it (R3)."""

    turn: str
    seat: int
    high: int | None
    leader: str | None
    still_in: tuple[str, ...]
    forbidden: Phrase
    lowest: int | None  # None: every amount ends in a digit they hold
    may_pass: bool


def auction_view(game: Game) -> AuctionView | None:
    """The running live auction, or None (result mode, no lot, or already over)."""
    if not auction_running(game):
        return None
    auction = game.state.auction
    names = game.setup.players
    return AuctionView(
        turn=names[auction.turn], seat=auction.turn, high=auction.high,
        leader=None if auction.leader is None else names[auction.leader],
        still_in=tuple(names[seat] for seat in auction.active),
        forbidden=forbidden(game.state.forbidden_digits(names[auction.turn]),
                            bid_floor(game.state, auction.turn)),
        lowest=lowest_raise(game.state, auction.turn, auction.high),
        may_pass=not must_open(game.state, auction.turn))


def stalled(game: Game) -> Refusal | None:
    """Why a live auction that is over brought no result, as the table may see it: its
    winner can no longer pay after a penalty, an overbid to record (R5)."""
    refusal = result_refusal(game.state) if game.options.live_auction else None
    return refusal and public_message(refusal, not game.options.money_open)


@dataclass(frozen=True)
class BidWarning:
    """Why a bid may not be made, and which booking fits if it was said anyway."""

    problems: list[Refusal]
    penalty: bool
    overbid: bool
    purse_unknown: bool


def bid_warning(game: Game, auction: AuctionView, amount: int, purse: str) -> BidWarning:
    """Warn before the bid of the player whose turn it is, as this screen may see it."""
    problems = visible_problems(game.state, auction.turn, amount, purse, auction.high)
    return _warning(problems, purse == UNKNOWN)


def refused_bid(error: dict | None) -> BidWarning | None:
    """After a live bid was refused: the refusal, with the booking that fits if the bid
    was said anyway (the same as a warning before it)."""
    if not error or error.get("action") != "bid" or not isinstance(error["message"], Refusal):
        return None
    return _warning([error["message"]], False)


def _warning(problems: list[Refusal], purse_unknown: bool) -> BidWarning:
    """A forbidden ending is a penalty (R4), more than they hold an overbid (R5)."""
    return BidWarning(
        problems=problems,
        penalty=any(problem.rule == "R3" and "digit" in problem.params for problem in problems),
        overbid=any(problem.rule == "R5" for problem in problems),
        purse_unknown=purse_unknown)


@dataclass(frozen=True)
class Standing:
    """Where a player finished, for their phone once the game is over (R10)."""

    place: int
    players: int
    points: int
    shared: bool  # a win shared with others


def standing(state: GameState, seat: int) -> Standing | None:
    """The player's final place and points; None while the game goes on."""
    if not state.finished:
        return None
    score, name = state.score(), state.setup.players[seat]
    mine = next(player for player in score.players if player.name == name)
    return Standing(score.place(name), len(score.players), mine.points,
                    name in score.winners and len(score.winners) > 1)


def describe(game: Game, index: int) -> Phrase:
    """Event `index` in plain words, for the history and for notes."""
    event, before, after = game.events[index], game.state_at(index), game.state_at(index + 1)
    auction = before.auction
    if isinstance(event, Free) and auction is not None and auction.high == 0:
        return Phrase(N_("{player} opened at 0 and nobody raised: the lot goes free (R9)"),
                      player=game.setup.players[auction.leader])
    paid = not isinstance(event, Penalty) or penalty_paid(before, after)
    return describe_event(game, event, paid, bool(before.lot))


def describe_event(game: Game, event, paid: bool | None = None,
                   lot: bool | None = None) -> Phrase:
    """An event in plain words; `paid`: whether a penalty's coin was paid (R4); `lot`:
    whether an overbid was in the lot's auction, which restarts, or in a side sale's,
    which starts again without the player (R5); each if known (an event undone or corrected
    is told without the game as it was then)."""
    if isinstance(event, Reveal):
        return Phrase(N_("Revealed {cards}"),
                      cards=Names(str(card_view(game, card)) for card in event.cards))
    if isinstance(event, Sold) and event.price == 0 and game.setup.edition == "fr":
        return Phrase(N_("{winner} won the lot at 0: a free lot (R8)"), winner=event.winner)
    if isinstance(event, Sold):
        return Phrase(N_("{winner} bought the lot for {price}"), winner=event.winner,
                      price=event.price)
    if isinstance(event, Free) and game.setup.edition == "fr":  # (the start player may have
        # opened at 0, R9)
        return Phrase(N_("The lot went free to the start player (R9)"))
    if isinstance(event, Free):
        return Phrase(N_("Nobody bid: the start player took the lot for free"))
    if isinstance(event, Penalty) and paid is None:
        return Phrase(N_("{player} made a forbidden bid (R4)"), player=event.player)
    if isinstance(event, Penalty) and not paid:
        return Phrase(N_("{player} made a forbidden bid, with no coin to pay"),
                      player=event.player)
    if isinstance(event, Penalty):
        return Phrase(N_("{player} made a forbidden bid: 1 coin to the pot"), player=event.player)
    if isinstance(event, Overbid) and event.discard:
        return Phrase(_OVERBIDS[True, lot], player=event.player,
                      card=str(card_view(game, event.discard)))
    if isinstance(event, Overbid):
        return Phrase(_OVERBIDS[False, lot], player=event.player)
    if isinstance(event, SideSale):
        return Phrase(N_("{seller} sold {card} to {buyer} for {price}"), seller=event.seller,
                      card=str(card_view(game, event.card)), buyer=event.buyer,
                      price=event.price)
    if isinstance(event, Exchange):
        return Phrase(N_("{player} took {takes} from {opponent} and gave {gives}"),
                      player=event.player, takes=str(card_view(game, event.takes)),
                      opponent=event.opponent, gives=str(card_view(game, event.gives)))
    if isinstance(event, Bid):
        return Phrase(N_("{player} bid {amount}"), player=event.player, amount=event.amount)
    if isinstance(event, Pass):
        return Phrase(N_("{player} dropped out"), player=event.player)
    return Phrase(event.kind)


def guide(game: Game, seat: int | None = None) -> tuple[Phrase, ...]:
    """What happens now, for the table (no seat) or a phone, when the game's help for
    new players is on; the step just settled is told while its coins are announced."""
    if not game.options.guide:
        return ()
    count = len(game.events)
    last = (game.events[-1], game.state_at(count - 1)) if count and game.moves is None else None
    return what_now(game.state, game.options.live_auction, seat, last)


def status(game: Game) -> dict:
    """What the status bar of every game screen shows."""
    payment = last_payment(game)
    return dict(game=game, state=game.state, payment=payment,
                earlier=earlier_payment(game, payment),
                lot=[card_view(game, card) for card in game.state.lot],
                families=_legend(game.setup.families, catalog()))


@lru_cache(maxsize=64)
def _legend(families: tuple[str, ...], words) -> tuple[tuple[str, str, str], ...]:
    """Each family's symbol, look and name in the language of `words` (the request's)."""
    return tuple((SYMBOLS[index], look(index), family_label(name))
                 for index, name in enumerate(families))


def payment_of(game: Game, index: int) -> Phrase | None:
    """The payment event `index` brought, if it was a sale."""
    if not isinstance(game.events[index], Sold):
        return None
    sale = settled_sale(game.events[index], game.state_at(index), game.state_at(index + 1))
    return FREE_AT_ZERO if sale is None else sale.instructions_phrase


def handover(game: Game, index: int) -> Phrase | None:
    """What the table must do after event `index`: hand over a sale's payment (R8), a side
    sale's price (R6) or a penalty coin (R4); take a free lot (R9); discard after an
    overbid (R5)."""
    event = game.events[index]
    if isinstance(event, SideSale):
        return Phrase(N_("{buyer} pays {seller} {price} for {card}"), buyer=event.buyer,
                      seller=event.seller, price=event.price,
                      card=str(card_view(game, event.card)))
    if isinstance(event, Penalty) and penalty_paid(game.state_at(index), game.state_at(index + 1)):
        return Phrase(N_("{player} puts 1 coin into the pot (forbidden bid)"),
                      player=event.player)
    if isinstance(event, Free):
        return Phrase(N_("No money moves: {start} takes the lot for free (R9)"),
                      start=game.state_at(index).start_player)
    if isinstance(event, Overbid):
        return describe(game, index)
    return payment_of(game, index)


def last_payment(game: Game) -> Phrase | None:
    """What to hand over now: after an action, the coins or cards it moves; after an undo
    or a correction, the coins to move back (what was handed over before stays so)."""
    if game.moves is not None:
        return set_right(game, game.moves) if any(game.moves["coins"]) else None
    return handover(game, len(game.events) - 1) if game.events else None


def earlier_payment(game: Game, payment: Phrase | None) -> Phrase | None:
    """The last sale's payment, kept in sight when it is not the one just announced, and
    not while coins are being set right after an undo or a correction."""
    sale = game.state.last_sale
    if sale is None or game.moves is not None or payment == sale.instructions_phrase:
        return None
    return sale.instructions_phrase


def set_right(game: Game, moves: dict) -> Phrase:
    """'Set the coins right: Anna gives 1, Bert gets 4, 3 go into the pot' (R1: coins
    are a closed system, so what one gives another gets)."""
    items = []
    for name, change in zip(game.setup.players, moves["coins"]):
        if change:
            template = N_("{name} gets {count}") if change > 0 else N_("{name} gives {count}")
            items.append(Phrase(template, name=name, count=abs(change)))
    pot = moves["pot"]
    if pot:
        templates = ((N_("{count} goes into the pot"), N_("{count} go into the pot")) if pot > 0
                     else (N_("{count} comes out of the pot"), N_("{count} come out of the pot")))
        items.append(Phrase(templates[abs(pot) != 1], count=abs(pot)))
    return Phrase(N_("Set the coins right: {moves}"), moves=Series(items))
