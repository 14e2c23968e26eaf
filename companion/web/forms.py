"""Reading submitted forms into core events and settings; bad input is a Refusal."""
import unicodedata
from dataclasses import asdict

from companion.rules.cards import Card
from companion.rules.events import (EVENT_TYPES, PLAYER_FIELDS, Bid, Exchange, Free, Overbid,
                                    Pass, Penalty, Reveal, SideSale, Sold)
from companion.rules.phrase import Phrase
from companion.rules.refusal import Refusal
from companion.rules.setup import Setup

ACTIONS = tuple(cls.kind for cls in EVENT_TYPES)


def card_value(families: tuple[str, ...], card: Card) -> str:
    """How a card travels in a form: '<family index>:<number>'."""
    return f"{families.index(card.family)}:{card.number}"


def parse_action(setup: Setup, form) -> object:
    """The event an action form describes."""
    kind = form.get("action", "")
    if kind not in ACTIONS:
        raise Refusal("form", "unknown action {kind!r}", kind=kind)
    reader = _Reader(setup, form)
    return {
        "reveal": lambda: Reveal(tuple(reader.card(value) for value in reader.cards("cards"))),
        "sold": lambda: Sold(reader.player("winner"), reader.price("price")),
        "free": Free,
        "penalty": lambda: Penalty(reader.player("player")),
        "overbid": lambda: Overbid(reader.player("player"), reader.optional_card("discard")),
        "side_sale": lambda: SideSale(reader.player("seller"), reader.card(form.get("card", "")),
                                      reader.player("buyer"), reader.price("price")),
        "exchange": lambda: Exchange(reader.player("player"), reader.card(form.get("gives", "")),
                                     reader.player("opponent"),
                                     reader.card(form.get("takes", ""))),
        "bid": lambda: Bid(reader.player("player"), reader.price("amount")),
        "pass": lambda: Pass(reader.player("player")),
    }[kind]()


def form_values(setup: Setup, event) -> dict[str, object]:
    """The form fields that describe `event`: the inverse of parse_action."""
    values = {"action": event.kind}
    for name, value in asdict(event).items():
        if isinstance(value, Card):
            values[name] = card_value(setup.families, value)
        elif isinstance(value, tuple):
            values[name] = [card_value(setup.families, card) for card in value]
        elif isinstance(value, str):
            values[name] = str(setup.players.index(value))
        else:
            values[name] = "" if value is None else str(value)
    return values


def whole(text, below: int | None = None) -> int | None:
    """A small whole number written with the digits 0-9 (and under `below`), else None."""
    text = (text or "").strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 6):
        return None
    number = int(text)
    return number if below is None or number < below else None


def form_dict(form) -> dict:
    """A submitted form as a plain dict, to fill the same form in again."""
    return {key: form.getlist(key) if key == "cards" else form.get(key) for key in form}


def parse_amount(text: str) -> int:
    """A price or bid typed on the number pad."""
    amount = whole(text)
    if amount is None:
        raise Refusal("form", "type the amount as a whole number of coins, like 7")
    return amount


class _Reader:
    """Field readers that refuse with a message instead of failing."""

    def __init__(self, setup: Setup, form):
        self.setup, self.form = setup, form

    def player(self, field: str) -> str:
        seat = whole(self.form.get(field), len(self.setup.players))
        if seat is None:
            raise Refusal("form", "choose a player for {field}",
                          field=Phrase(PLAYER_FIELDS[field]))
        return self.setup.players[seat]

    def price(self, field: str) -> int:
        return parse_amount(self.form.get(field, ""))

    def cards(self, field: str) -> list[str]:
        values = self.form.getlist(field)
        if len(values) != 2:
            raise Refusal("R2", "choose 2 cards for the lot, not {count}", count=len(values))
        return values

    def card(self, value: str) -> Card:
        family, _, number = value.partition(":")
        family, number = whole(family, len(self.setup.families)), whole(number, 10)
        if family is None or number is None:
            raise Refusal("form", "choose a card")
        return Card(self.setup.families[family], number)

    def optional_card(self, field: str) -> Card | None:
        value = self.form.get(field, "")
        return self.card(value) if value else None


MAX_LABEL_LENGTH = 40  # a host device's name, as the lists of host devices show it


def device_label(form) -> str:
    """The name a device gave itself on the form making it a host (control characters
    dropped, spaces tidied, cut to MAX_LABEL_LENGTH); "" if none."""
    printable = "".join(character for character in form.get("label") or ""
                        if unicodedata.category(character) != "Cc" or character.isspace())
    return " ".join(printable.split())[:MAX_LABEL_LENGTH]


def platform_label(user_agent) -> str:
    """A device's name to offer on that form: its platform, as its browser tells."""
    return (user_agent.platform or "")[:MAX_LABEL_LENGTH]
