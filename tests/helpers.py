"""Small builders for the tests: cards and events from short text, tables set by events.

Everything goes through `companion.rules.state.fold`, so a state built here is one a real
table could reach. Cards are written "red 7"; hands "red 7 blue 5" (two cards).
"""
import copy
from pathlib import Path

import pytest

from companion.rules.cards import DEFAULT_FAMILIES, Card
from companion.rules.events import Exchange, Free, Overbid, Reveal, SideSale, Sold
from companion.rules.refusal import Refusal
from companion.rules.setup import Setup
from companion.rules.state import apply, fold

FIXTURES = Path(__file__).parent / "fixtures"
RECORDS = sorted(path for path in FIXTURES.glob("*.json") if not path.name.endswith(".expected.json"))
PLAYERS = ("Anna", "Bert", "Claus")
MINIMAL_RECORD = {"format": "templari-game/1", "edition": "en", "players": list(PLAYERS), "events": []}


def card(text: str) -> Card:
    """'red 7' -> Card('red', 7)."""
    family, number = text.split()
    return Card(family, int(number))


def cards(text: str) -> tuple[Card, ...]:
    """'red 7 blue 5' -> (Card('red', 7), Card('blue', 5))."""
    words = text.split()
    return tuple(card(f"{family} {number}") for family, number in zip(words[::2], words[1::2]))


def reveal(text: str) -> Reveal:
    """The lot of a round: reveal('red 1 blue 5')."""
    return Reveal(cards(text))


def overbid(player: str, discard: str | None) -> Overbid:
    return Overbid(player, None if discard is None else card(discard))


def side_sale(seller: str, sold_card: str, buyer: str, price: int) -> SideSale:
    return SideSale(seller, card(sold_card), buyer, price)


def exchange(player: str, gives: str, opponent: str, takes: str) -> Exchange:
    return Exchange(player, card(gives), opponent, card(takes))


def setup(players=PLAYERS, **settings) -> Setup:
    return Setup(players=tuple(players), **settings)


def deal(hands: dict[str, str]) -> list:
    """Events that give each player the cards named, no money moving (English rules).

    Each player's first 2 cards are a lot they buy for 0 (nobody gains: R8.6), the rest
    come as free lots (R9). So the last player dealt is the start player afterwards.
    """
    events = []
    for name, text in hands.items():
        held = cards(text)
        assert len(held) % 2 == 0, "deal cards in pairs"
        events += [Reveal(held[:2]), Sold(name, 0)]
        for index in range(2, len(held), 2):
            events += [Reveal(held[index:index + 2]), Free()]
    return events


def play(*events, hands=None, players=PLAYERS, **settings):
    """The state after dealing `hands` (see `deal`) and then `events`."""
    return fold(setup(players, **settings), [*deal(hands or {}), *events])


def full_deck(families=DEFAULT_FAMILIES) -> list[Card]:
    """A legal deck of 30: 5 numbers a family, each number on 3 cards (R1)."""
    return [Card(family, (5 * index + step) % 10)
            for index, family in enumerate(families) for step in range(5)]


def all_rounds_free() -> list:
    """15 rounds, each lot going free to the start player: a finished game (R2)."""
    deck = full_deck()
    return [event for index in range(0, len(deck), 2)
            for event in (Reveal(tuple(deck[index:index + 2])), Free())]


def refused(state, event) -> Refusal:
    """Apply an event the rules forbid: return the refusal, after checking the state is untouched (R11)."""
    before = copy.deepcopy(state)
    with pytest.raises(Refusal) as info:
        apply(state, event)
    assert state == before
    return info.value
