"""The JSON game record `templari-game/1`: load, check, dump.

Works on parsed JSON values, never on files. Shape errors are refusals with
rule "record"; the rules themselves are checked by the fold in `state`.
"""
from dataclasses import fields

from .cards import Card
from .events import EVENT_TYPES, PLAYER_FIELDS
from .phrase import N_, Phrase
from .refusal import Refusal
from .setup import Setup, clean_name
from .state import GameState, apply_at, new_game

FORMAT = "templari-game/1"
_HEADER_KEYS = ("format", "edition", "variants", "start_coins", "families", "players",
                "start_player", "events")
_VARIANT_KEYS = {"side_auctions": "side_sales", "exchange": "exchange"}
_EVENTS = {cls.kind: (cls, tuple(field.name for field in fields(cls))) for cls in EVENT_TYPES}
_CARD_FIELDS = ("card", "gives", "takes")


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
        settings["start_coins"] = _typed(record["start_coins"], int, "start_coins")
    if "families" in record:
        settings["families"] = tuple(_list_of(record["families"], "families", str))
    if "start_player" in record:
        settings["start_player"] = _name(record["start_player"])
    _typed(record["events"], list, "events")
    return Setup(**settings)


def fold_record(record) -> GameState:
    """Check a whole record and return the state it leads to."""
    setup = load_setup(record)
    state = new_game(setup)
    for index, raw in enumerate(record["events"]):
        try:
            event = parse_event(raw)
        except Refusal as refusal:
            refusal.event = index
            raise
        state = apply_at(state, event, index)
    return state


def parse_event(raw):
    """One event of the record as an event object, its shape checked (the messages'
    words are made only when something is wrong: a replay parses every event)."""
    if type(raw) is not dict:
        raw = _typed(raw, dict, Phrase(N_("an event")))
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in _EVENTS:
        raise Refusal("record", "unknown event type {kind!r}", kind=kind)
    cls, names = _EVENTS[kind]
    if len(raw) != len(names) + 1 or not all(name in raw for name in names):
        _check_keys(raw, ("type", *names), Phrase(N_("a {kind} event"), kind=kind))
        for name in names:
            if name not in raw:
                raise Refusal("record", "a {kind} event needs {field!r}", kind=kind, field=name)
    return cls(**{name: _field(name, raw[name]) for name in names})


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


def _field(name: str, value):
    if name in PLAYER_FIELDS:
        return _name(value)
    if name in ("price", "amount"):
        return _typed(value, int, name)
    if name in _CARD_FIELDS:
        return _card(value)
    if name == "discard":
        return None if value is None else _card(value)
    return tuple(_card(card) for card in _list_of(value, name, dict))


def _variants(variants) -> dict:
    variants = _typed(variants, dict, "variants")
    _check_keys(variants, _VARIANT_KEYS, "variants")
    return {_VARIANT_KEYS[key]: _typed(value, bool, key) for key, value in variants.items()}


def _card(value) -> Card:
    if (type(value) is dict and len(value) == 2 and type(value.get("family")) is str
            and type(value.get("number")) is int):
        return Card(value["family"], value["number"])
    value = _typed(value, dict, Phrase(N_("a card")))
    _check_keys(value, ("family", "number"), Phrase(N_("a card")))
    if "family" not in value or "number" not in value:
        raise Refusal("record", "a card needs a 'family' and a 'number'")
    return Card(_typed(value["family"], str, "family"), _typed(value["number"], int, "number"))


def _name(value) -> str:
    if type(value) is not str:
        value = _typed(value, str, Phrase(N_("a player name")))
    return value.strip()


def _check_keys(data: dict, allowed, what: str) -> None:
    for key in data:
        if key not in allowed:
            raise Refusal("record", "unknown key {key!r} in {what}", key=key, what=what)


def _list_of(value, what: str, item_type) -> list:
    if not isinstance(value, list) or not all(_is(item, item_type) for item in value):
        raise Refusal("record", "{what} must be a list, each item {type}", what=what,
                      type=_TYPE_NAMES[item_type])
    return value


def _typed(value, expected: type, what: str):
    if not _is(value, expected):
        raise Refusal("record", "{what} must be {type}, not {value!r}", what=what,
                      type=_TYPE_NAMES[expected], value=value)
    return value


def _is(value, expected: type) -> bool:
    """isinstance, except that true and false are not numbers."""
    return isinstance(value, expected) and (expected is bool or not isinstance(value, bool))


_TYPE_NAMES = {str: Phrase(N_("text")), int: Phrase(N_("a whole number")),
               bool: Phrase(N_("true or false")), dict: Phrase(N_("an object")),
               list: Phrase(N_("a list"))}
