"""The JSON game record `templari-game/1`: load, check, dump.

Works on JSON text or parsed JSON values, never on files. Shape errors are refusals
with rule "record"; the rules themselves are checked by the fold in `state`. A record
may come from anywhere: its numbers are bounded here, and a refused value is shown cut
short, never whole.
"""
import json
import reprlib
from dataclasses import fields
from functools import partial

from .cards import NUMBERS, Card
from .events import EVENT_TYPES, PLAYER_FIELDS
from .phrase import N_, Phrase
from .refusal import Refusal
from .setup import Setup, clean_name
from .state import GameState, apply, new_game

FORMAT = "templari-game/1"
_HEADER_KEYS = ("format", "edition", "variants", "start_coins", "families", "players",
                "start_player", "events")
_VARIANT_KEYS = {"side_auctions": "side_sales", "exchange": "exchange"}
_CARD_FIELDS = ("card", "gives", "takes")

# Sane bounds of a record's numbers, checked when it is read (rule "record"): no game
# comes near them, and a number beyond never reaches the rules core nor any message (a
# number of 5,000 digits cannot even be written out). Small negative numbers are left to
# the rules, whose refusals say more (R1, R3).
MAX_START_COINS = 1000
MAX_AMOUNT = 100_000  # a price or a bid: 5 players starting with 1000 coins hold 5000
_BOUNDS = {"start_coins": MAX_START_COINS, "price": MAX_AMOUNT, "amount": MAX_AMOUNT}


def loads(text: str):
    """The JSON text of a record as values. An integer too long for Python to read (more
    than 4300 digits) is read as a stand-in beyond every bound, so that the record is
    refused by name rather than as JSON that cannot be read."""
    try:
        return json.loads(text)
    except ValueError:  # perhaps such an integer (json.loads stops at it): read it again
        return json.loads(text, parse_int=_integer)


def load_setup(record) -> Setup:
    """The header of a record as a Setup; refusals carry no event index."""
    if not isinstance(record, dict):
        raise Refusal("record", "a game record is a JSON object")
    _check_keys(record, _HEADER_KEYS, Phrase(N_("the record")))
    if record.get("format") != FORMAT:
        raise Refusal("record", "the format must be {format!r}", format=FORMAT)
    for key in ("edition", "players", "events"):
        if key not in record:
            raise Refusal("record", "the record needs {key!r}", key=key)
    players = _list_of(record["players"], "players", str)
    settings = dict(
        players=tuple(clean_name(name) for name in players),
        edition=_typed(record["edition"], str, "edition"),
        **_variants(record.get("variants", {})),
    )
    if "start_coins" in record:
        settings["start_coins"] = _bounded(_typed(record["start_coins"], int, "start_coins"),
                                           "start_coins")
    if "families" in record:
        settings["families"] = tuple(_list_of(record["families"], "families", str))
    if "start_player" in record:
        settings["start_player"] = _name(record["start_player"])
    _typed(record["events"], list, "events")
    return Setup(**settings)


def fold_record(record) -> GameState:
    """Check a whole record and return the state it leads to: each event read, then
    applied, in order (a refusal carries the index of its event)."""
    state = new_game(load_setup(record))
    for index, raw in enumerate(record["events"]):
        try:
            state = apply(state, parse_event(raw))
        except Refusal as refusal:
            refusal.event = index
            raise
    return state


def parse_event(raw):
    """One event of the record as an event object, its shape checked."""
    raw = _typed(raw, dict, Phrase(N_("an event")))
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in _READERS:
        raise Refusal("record", "unknown event type {kind!r}", kind=_Shown(kind))
    event_type, keys, readers = _READERS[kind]
    if raw.keys() != keys:
        _refuse_keys(raw, kind, [name for name, _ in readers])
    return event_type(**{name: read(raw[name]) for name, read in readers})


def _refuse_keys(raw: dict, kind: str, names) -> None:
    """Refuse an event whose keys are not `type` and its fields `names`: the first
    unknown key, else the first missing field."""
    _check_keys(raw, ("type", *names), Phrase(N_("a {kind} event"), kind=kind))
    for name in names:
        if name not in raw:
            raise Refusal("record", "a {kind} event needs {field!r}", kind=kind, field=name)


def dump_record(setup: Setup, events) -> dict:
    """The record of a game: its settings and its events, every key written out."""
    return {
        "format": FORMAT,
        "edition": setup.edition,
        "variants": {"side_auctions": setup.side_sales, "exchange": setup.exchange},
        "start_coins": setup.start_coins,
        "families": list(setup.families),
        "players": list(setup.players),
        "start_player": setup.start_player,
        "events": [dump_event(event) for event in events],
    }


def dump_event(event) -> dict:
    """One event as a record entry."""
    data = {"type": event.kind}
    for field in fields(event):
        data[field.name] = _dump_value(getattr(event, field.name))
    return data


def dump_card(card: Card) -> dict:
    return {"family": card.family, "number": card.number}


def _dump_value(value):
    if isinstance(value, Card):
        return dump_card(value)
    if isinstance(value, tuple):
        return [_dump_value(item) for item in value]
    return value


def _field_reader(name: str):
    """The function that reads and checks an event's field `name`."""
    if name in PLAYER_FIELDS:
        return _name
    if name in _BOUNDS:
        return partial(_number, name)
    if name in _CARD_FIELDS:
        return _card
    if name == "discard":
        return _card_or_none
    return partial(_cards, name)


def _event_reader(cls) -> tuple:
    """How to read an event of class `cls`: the class, the keys its entry has, and
    each field's name and reader, in order (chosen once, not for every event)."""
    names = [field.name for field in fields(cls)]
    return cls, frozenset(("type", *names)), tuple((name, _field_reader(name)) for name in names)


def _number(name: str, value) -> int:
    """A price or an amount: a whole number within its bound."""
    return _bounded(_typed(value, int, name), name)


def _cards(name: str, value) -> tuple[Card, ...]:
    return tuple(map(_card, _list_of(value, name, dict)))


def _card_or_none(value) -> Card | None:
    return None if value is None else _card(value)


def _variants(variants) -> dict:
    variants = _typed(variants, dict, "variants")
    _check_keys(variants, _VARIANT_KEYS, "variants")
    return {_VARIANT_KEYS[key]: _typed(value, bool, key) for key, value in variants.items()}


def _card(value) -> Card:
    value = _typed(value, dict, Phrase(N_("a card")))
    _check_keys(value, ("family", "number"), Phrase(N_("a card")))
    if "family" not in value or "number" not in value:
        raise Refusal("record", "a card needs a 'family' and a 'number'")
    number = _typed(value["number"], int, "number")
    if not -MAX_AMOUNT <= number <= MAX_AMOUNT:  # the rules refuse the others, naming them (R1)
        raise Refusal("record", "{what!r} must be from 0 to {high}", what="number", high=NUMBERS[-1])
    return Card(_typed(value["family"], str, "family"), number)


def _name(value) -> str:
    return _typed(value, str, Phrase(N_("a player name"))).strip()


def _check_keys(data: dict, allowed, what: str) -> None:
    for key in data:
        if key not in allowed:
            raise Refusal("record", "unknown key {key!r} in {what}", key=_Shown(key), what=what)


def _list_of(value, what: str, item_type) -> list:
    if not isinstance(value, list) or not all(_is(item, item_type) for item in value):
        raise Refusal("record", "{what} must be a list, each item {type}", what=what,
                      type=_TYPE_NAMES[item_type])
    return value


def _typed(value, expected: type, what: str):
    if not _is(value, expected):
        raise Refusal("record", "{what} must be {type}, not {value!r}", what=what,
                      type=_TYPE_NAMES[expected], value=_Shown(value))
    return value


def _bounded(value: int, what: str) -> int:
    """`value`, unless it is beyond the bound of `what` (which the refusal names, without
    the value: it may have thousands of digits)."""
    high = _BOUNDS[what]
    if not -high <= value <= high:
        raise Refusal("record", "{what!r} must be from 0 to {high}", what=what, high=high)
    return value


def _is(value, expected: type) -> bool:
    """isinstance, except that true and false are not numbers."""
    return isinstance(value, expected) and (expected is bool or not isinstance(value, bool))


_TYPE_NAMES = {str: Phrase(N_("text")), int: Phrase(N_("a whole number")),
               bool: Phrase(N_("true or false")), dict: Phrase(N_("an object")),
               list: Phrase(N_("a list"))}

_READERS = {cls.kind: _event_reader(cls) for cls in EVENT_TYPES}


class _Shown:
    """A refused value as a message shows it (`{value!r}`): its repr, cut short, since a
    record's value may be a text of a megabyte or a list nested a thousand levels deep."""

    __slots__ = ("text",)

    def __init__(self, value):
        self.text = _SHORT.repr(value)

    def __repr__(self) -> str:
        return self.text


class _ShortRepr(reprlib.Repr):
    """reprlib's cut-short repr, with integers of any length (whose repr Python refuses
    beyond 4300 digits) shown by their first digits."""

    def repr_int(self, x, level):
        if x.bit_length() <= 128:  # up to 39 digits: shown whole
            return repr(x)
        digits = int(x.bit_length() * 0.30103)  # of |x|, give or take one
        return f"{'-' if x < 0 else ''}{abs(x) // 10 ** (digits - 20)}…"


_SHORT = _ShortRepr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 3, 40, 40


class _Long(int):
    """An integer of a record too long for Python to read (more than 4300 digits): it
    stands for it beyond every bound, and shows its first digits."""

    def __new__(cls, text: str):
        number = super().__new__(cls, -(10 ** 100) if text.startswith("-") else 10 ** 100)
        number.text = text[:21] + "…"
        return number

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


def _integer(text: str) -> int:
    """A JSON integer as Python reads it, or as a stand-in if it is too long to read."""
    try:
        return int(text)
    except ValueError:
        return _Long(text)
