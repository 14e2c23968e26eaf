"""Hypothesis strategies: random LEGAL games of Templari (R1-R9), built step by step.

Each step is chosen among the actions the rules allow at that moment (worked out here,
independently of the core's own checks), then applied with `companion.rules.state.apply`;
a legal action the core refuses fails the test that drew it.

    from tests.strategies import games
    @given(games())
    def test_something(game): ...

`game.steps()` gives (state before, event, state after) for every event.
"""
from dataclasses import dataclass, replace

from hypothesis import strategies as st

from companion.rules.cards import DEFAULT_FAMILIES, ROUNDS, Card
from companion.rules.events import Exchange, Free, Overbid, Penalty, Reveal, SideSale, Sold
from companion.rules.refusal import Refusal
from companion.rules.setup import Setup
from companion.rules.state import GameState, apply, new_game

NAMES = ("Anna", "Bert", "Claus", "Dieter", "Eva", "李", "Zoë")
FRENCH_FAMILIES = ("rouge", "jaune", "vert", "bleu", "violet", "noir")
MAX_EXTRAS = 3  # optional actions (side sales, exchanges, penalties, overbids) per phase of a round


@st.composite
def setups(draw) -> Setup:
    """3-5 players, either edition, side sales and exchanges on or off, any start player."""
    players = tuple(draw(st.lists(st.sampled_from(NAMES), min_size=3, max_size=5, unique=True)))
    return Setup(
        players=players,
        edition=draw(st.sampled_from(("en", "fr"))),
        side_sales=draw(st.booleans()),
        exchange=draw(st.booleans()),
        start_coins=draw(st.one_of(st.just(12), st.integers(0, 25))),
        families=draw(st.sampled_from((DEFAULT_FAMILIES, FRENCH_FAMILIES))),
        start_player=draw(st.sampled_from(players)),
    )


@st.composite
def decks(draw, families=DEFAULT_FAMILIES) -> tuple[Card, ...]:
    """A legal deck (R1) in the order its cards are revealed.

    Three orderings of the numbers 0-9, cut in halves, give each family 5 different
    numbers and each number 3 cards.
    """
    numbers = [number for _ in range(3) for number in draw(st.permutations(range(10)))]
    cards = [Card(family, number) for index, family in enumerate(families)
             for number in numbers[5 * index:5 * index + 5]]
    return tuple(draw(st.permutations(cards)))


@dataclass(frozen=True)
class Round:
    """What the rules remember within a round, tracked here apart from the core."""

    excluded: frozenset[str] = frozenset()
    exchangers: tuple[str, ...] = ()
    sellers: frozenset[str] = frozenset()
    extras: int = 0  # optional actions so far in this phase of the round
    revealed: bool = False

    def after(self, event) -> "Round":
        if isinstance(event, (Sold, Free)):
            return Round()
        if isinstance(event, Reveal):
            return replace(self, extras=0, revealed=True)
        changes = {"extras": self.extras + 1}
        if isinstance(event, Overbid) and self.revealed:  # not a side auction's (R5, R6)
            changes["excluded"] = self.excluded | {event.player}
        elif isinstance(event, Exchange):
            changes["exchangers"] = (*self.exchangers, event.player)
            changes["excluded"] = self.excluded | {event.player}
        elif isinstance(event, SideSale):
            changes["sellers"] = self.sellers | {event.seller}
        return replace(self, **changes)


def legal_prices(state: GameState, name: str, lowest: int = 0) -> list[int]:
    """Amounts `name` may bid: affordable, units digit not held (R3, R5)."""
    digits = {card.number for card in state.hand_of(name)}
    return [price for price in range(lowest, state.coins_of(name) + 1) if price % 10 not in digits]


def pick(draw, items):
    """One of `items`, drawn by index (cheaper than a fresh sampled_from at every step)."""
    return items[draw(st.integers(0, len(items) - 1))]


def _side_sale(state: GameState, now: Round):
    """A side sale (R6): one card per seller and round, to a buyer who can pay."""
    deals = [(seller, buyer, prices) for seller in state.players
             if seller not in now.sellers and state.hand_of(seller)
             for buyer in state.players if buyer != seller
             for prices in [legal_prices(state, buyer)] if prices]
    if not deals:
        return None

    def draw_sale(draw):
        seller, buyer, prices = pick(draw, deals)
        return SideSale(seller, pick(draw, state.hand_of(seller)), buyer, pick(draw, prices))
    return draw_sale


def _exchange(state: GameState, now: Round):
    """An exchange (R7): once each, clockwise from the start player, card for card."""
    players = state.players

    def turn(name):
        return (players.index(name) - players.index(state.start_player)) % len(players)

    after = turn(now.exchangers[-1]) if now.exchangers else -1
    pairs = [(player, opponent) for player in players
             if player not in now.exchangers and turn(player) > after and state.hand_of(player)
             for opponent in players if opponent != player and state.hand_of(opponent)]
    if not pairs:
        return None

    def draw_exchange(draw):
        player, opponent = pick(draw, pairs)
        return Exchange(player, pick(draw, state.hand_of(player)),
                        opponent, pick(draw, state.hand_of(opponent)))
    return draw_exchange


def french_opening(state: GameState, now: Round) -> int | None:
    """French rules: the lowest amount the start player must open at; None when they
    need not open: excluded (R5, R7) or with no legal bid (R9)."""
    start = state.start_player
    if state.setup.edition != "fr" or start in now.excluded:
        return None
    prices = legal_prices(state, start)
    return prices[0] if prices else None


def _sale_of_the_lot(state: GameState, now: Round):
    """A sale of the lot (R3, R8): to a bidder not excluded, at a price they may bid.

    French rules: only the start player can win at 0 (R8.6), and anyone else must outbid
    the start player's lowest opening when they are bound to open (R9).
    """
    opening = french_opening(state, now)
    others = 0 if state.setup.edition == "en" else 1 if opening is None else opening + 1
    offers = [(name, prices) for name in state.players if name not in now.excluded
              for prices in [legal_prices(state, name, 0 if name == state.start_player else others)]
              if prices]
    if not offers:
        return None

    def draw_sale(draw):
        name, prices = pick(draw, offers)
        return Sold(name, pick(draw, prices))
    return draw_sale


def _penalty(state: GameState, players):
    """A penalty (R4): for a bidder holding a card, which can forbid a bid."""
    holders = [name for name in players if state.hand_of(name)]
    return (lambda draw: Penalty(pick(draw, holders))) if holders else None


def _free_lot(state: GameState, now: Round):
    """A free lot (R9); French rules: unless the start player must open above 0."""
    return None if french_opening(state, now) else lambda draw: Free()


def _overbid(state: GameState, bidders):
    """An overbid (R5): discard a held card, or nothing when holding none."""
    def draw_overbid(draw):
        name = pick(draw, bidders)
        hand = state.hand_of(name)
        return Overbid(name, pick(draw, hand) if hand else None)
    return draw_overbid


def _options(state: GameState, deck, now: Round, settle: bool) -> list:
    """The legal actions now, as functions of `draw`; the usual ones first."""
    extras = now.extras < MAX_EXTRAS
    if not state.lot:
        lot = Reveal(tuple(deck[2 * state.rounds_played:2 * state.rounds_played + 2]))
        options = [lambda draw: lot]
        if extras and state.setup.side_sales:  # a side auction's penalty or overbid (R4-R6)
            options += [_side_sale(state, now), _penalty(state, state.players),
                        _overbid(state, state.players)]
        if extras and state.setup.exchange:
            options.append(_exchange(state, now))
    else:
        sale = _sale_of_the_lot(state, now)
        options = [sale, sale, _free_lot(state, now)] if settle else []  # sales twice as likely
        bidders = [name for name in state.players if name not in now.excluded]
        if extras and bidders:
            options += [_penalty(state, bidders), _overbid(state, bidders)]
    return [option for option in options if option is not None]


@dataclass(frozen=True)
class Game:
    """A legal game: its setup, its deck in reveal order, and its events."""

    setup: Setup
    deck: tuple[Card, ...]
    events: tuple

    def steps(self):
        """(state before, event, state after) for each event, in order."""
        state = new_game(self.setup)
        for event in self.events:
            after = apply(state, event)
            yield state, event, after
            state = after

    def states(self) -> list[GameState]:
        """The state before the first event and after each one."""
        return [new_game(self.setup), *(after for _, _, after in self.steps())]


@st.composite
def games(draw, setups=setups()) -> Game:
    """A legal game: often all 15 rounds, otherwise stopped anywhere, even mid-round."""
    setup = draw(setups)
    deck = draw(decks(setup.families))
    rounds = draw(st.one_of(st.just(ROUNDS), st.integers(0, ROUNDS)))
    trailing = 0 if rounds == ROUNDS else draw(st.integers(0, MAX_EXTRAS + 1))
    state, now, events = new_game(setup), Round(), []
    while state.rounds_played < rounds or trailing:
        settle = state.rounds_played < rounds
        trailing -= not settle
        options = _options(state, deck, now, settle)
        if not options:
            break
        event = pick(draw, options)(draw)
        try:
            state = apply(state, event)
        except Refusal as refusal:
            raise AssertionError(f"the core refused a legal {event}: {refusal.message}") from None
        now = now.after(event)
        events.append(event)
    return Game(setup, deck, tuple(events))


def any_events(setup: Setup, deck) -> st.SearchStrategy:
    """Events of every kind with any names, cards and prices: mostly illegal ones."""
    names = st.sampled_from((*setup.players, "Zed"))
    cards = st.sampled_from((*deck, Card("pink", 1), Card(setup.families[0], 10)))
    prices = st.integers(-2, 40)
    return st.one_of(
        st.builds(Reveal, st.tuples(cards, cards)),
        st.builds(Sold, names, prices),
        st.just(Free()),
        st.builds(Penalty, names),
        st.builds(Overbid, names, st.none() | cards),
        st.builds(SideSale, names, cards, names, prices),
        st.builds(Exchange, names, cards, names, cards),
    )
