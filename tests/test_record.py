"""The game record `templari-game/1`: load and dump, defaults, trimmed names."""
import json
import subprocess
import sys

import pytest

from companion.cli import main
from companion.rules.cards import DEFAULT_FAMILIES
from companion.rules.events import EVENT_TYPES, Bid, Free, Pass, Penalty, Sold
from companion.rules.record import (dump_event, dump_record, fold_record, load_setup, loads,
                                    parse_event)
from companion.rules.refusal import Refusal
from companion.rules.state import fold

from tests.helpers import (MINIMAL_RECORD as MINIMAL, PLAYERS, RECORDS, exchange, overbid, reveal,
                           side_sale)



def load(record):
    """A record as (setup, events), the way an import reads it."""
    return load_setup(record), [parse_event(raw) for raw in record["events"]]


def with_defaults(record):
    """The record with every optional header key written out at its default."""
    return {"variants": {"side_auctions": True, "exchange": False}, "start_coins": 12,
            "families": list(DEFAULT_FAMILIES), "start_player": record["players"][0], **record}


@pytest.fixture(params=RECORDS, ids=lambda path: path.stem)
def record(request):
    return json.loads(request.param.read_text(encoding="utf-8"))


def test_dump_of_a_loaded_record_is_the_record_with_defaults_written_out(record):
    assert dump_record(*load(record)) == with_defaults(record)


def test_dump_then_load_gives_the_same_game(record):
    dumped = dump_record(*load(record))
    assert fold_record(dumped) == fold_record(record) == fold(*load(record))
    assert dump_record(*load(json.loads(json.dumps(dumped)))) == dumped


def test_loading_leaves_the_record_as_it_was(record):
    copy = json.loads(json.dumps(record))
    fold_record(record)
    assert record == copy


def test_header_defaults():
    """Variants side sales on and exchange off, 12 coins, the six default families, first player starts."""
    setup = load_setup(MINIMAL)
    assert (setup.side_sales, setup.exchange, setup.start_coins) == (True, False, 12)
    assert setup.families == ("red", "yellow", "green", "blue", "purple", "black")
    assert setup.start_player == "Anna"
    assert fold_record(MINIMAL).coins == (12, 12, 12)


@pytest.mark.parametrize(("variants", "side_sales", "exchange"), [
    ({}, True, False),
    ({"exchange": True}, True, True),
    ({"side_auctions": False}, False, False),
])
def test_each_variant_key_is_optional(variants, side_sales, exchange):
    setup = load_setup({**MINIMAL, "variants": variants})
    assert (setup.side_sales, setup.exchange) == (side_sales, exchange)


def test_names_are_trimmed_in_the_header_and_in_events():
    record = {**MINIMAL, "players": [" Anna", "Bert\t", " Claus "], "start_player": " Claus ",
              "events": [{"type": "reveal", "cards": [{"family": "red", "number": 1},
                                                      {"family": "blue", "number": 5}]},
                         {"type": "sold", "winner": "  Bert ", "price": 3}]}
    setup = load_setup(record)
    assert (setup.players, setup.start_player) == (PLAYERS, "Claus")
    assert parse_event(record["events"][1]) == Sold("Bert", 3)
    state = fold_record(record)
    assert (state.start_player, state.hand_of("Bert")) == ("Bert", reveal("red 1 blue 5").cards)


def test_a_name_of_40_characters_is_accepted():
    name = "x" * 40
    assert load_setup({**MINIMAL, "players": [name, "Bert", "Claus"]}).players[0] == name


def test_custom_families_and_start_coins_are_kept():
    families = ["rouge", "jaune", "vert", "bleu", "violet", "noir"]
    record = {**MINIMAL, "families": families, "start_coins": 8,
              "events": [{"type": "reveal", "cards": [{"family": "rouge", "number": 1},
                                                      {"family": "noir", "number": 5}]}]}
    state = fold_record(record)
    assert (state.setup.families, state.coins) == (tuple(families), (8, 8, 8))
    assert dump_record(*load(record)) == with_defaults(record)


# --- records from anywhere: huge numbers, deep nesting ------------------------------

REVEAL = {"type": "reveal",
          "cards": [{"family": "red", "number": 1}, {"family": "blue", "number": 5}]}
HUGE = 10 ** 5000  # 5001 digits: Python neither reads nor writes such an integer as text
HEADER = json.dumps(MINIMAL)[:-len(', "events": []}')]  # the record's text up to its events
DEEP = HEADER + ', "events": ' + "[" * 975 + "]" * 975 + "}"  # an event nested 975 levels


def refusal_of(record) -> Refusal:
    with pytest.raises(Refusal) as refused:
        fold_record(record)
    return refused.value


def replay(tmp_path, capsys, text: str):
    """`templari-companion replay` of a record file: (exit status, stdout, stderr)."""
    path = tmp_path / "record.json"
    path.write_text(text, encoding="utf-8")
    status = main(["replay", str(path)])
    return (status, *capsys.readouterr())


def start_coins(value):
    return {"start_coins": value}


def price(value):
    return {"events": [REVEAL, {"type": "sold", "winner": "Anna", "price": value}]}


def side_sale_price(value):
    return {"events": [REVEAL, {"type": "side_sale", "seller": "Anna", "card": REVEAL["cards"][0],
                                "buyer": "Bert", "price": value}]}


def bid(value):
    return {"events": [REVEAL, {"type": "bid", "player": "Anna", "amount": value}]}


def card_number(value):
    return {"events": [{**REVEAL, "cards": [{"family": "red", "number": value},
                                            REVEAL["cards"][1]]}]}


@pytest.mark.parametrize(("change", "values", "message"), [
    (start_coins, (1001, -1001), "header: 'start_coins' must be from 0 to 1000"),
    (price, (100_001, -100_001), "event 1: 'price' must be from 0 to 100000"),
    (side_sale_price, (100_001, -100_001), "event 1: 'price' must be from 0 to 100000"),
    (bid, (100_001, -100_001), "event 1: 'amount' must be from 0 to 100000"),
    (card_number, (100_001, -100_001), "event 0: 'number' must be from 0 to 9"),
], ids=lambda value: getattr(value, "__name__", None))
def test_a_number_beyond_its_bound_is_refused_without_its_digits(change, values, message):
    """However many digits, the refusal names the field and its bound, never the value."""
    for value in (*values, HUGE, -HUGE, HUGE * 9 // 10):
        refusal = refusal_of({**MINIMAL, **change(value)})
        assert refusal.rule == "record"
        assert f"{refusal.where}: {refusal.message}" == message


def test_the_bounds_themselves_are_accepted():
    record = {**MINIMAL, "start_coins": 1000,
              "events": [REVEAL, {"type": "sold", "winner": "Anna", "price": 1000}]}
    assert fold_record(record).coins[0] == 0
    assert parse_event(price(100_000)["events"][1]) == Sold("Anna", 100_000)


def test_small_negative_numbers_are_still_refused_by_the_rules():
    assert refusal_of({**MINIMAL, **start_coins(-1)}).message == (
        "players cannot start with -1 coins (R1)")
    assert refusal_of({**MINIMAL, **price(-1)}).message == "a price cannot be negative (-1) (R3)"
    assert refusal_of({**MINIMAL, **card_number(12)}).message == (
        "cards show numbers 0 to 9, not 12 (R1)")


def test_a_number_of_5000_digits_in_a_record_file_is_refused_by_name(tmp_path, capsys):
    """json.loads stops at an integer of more than 4300 digits: the record is read with a
    stand-in, and refused as any number beyond its bound."""
    text = HEADER + ', "start_coins": ' + "9" * 5000 + ', "events": []}'
    assert refusal_of(loads(text)).message == "'start_coins' must be from 0 to 1000"
    assert replay(tmp_path, capsys, text) == (1, "", "header: 'start_coins' must be from 0 to 1000\n")


def test_a_value_too_long_to_write_out_is_shown_by_its_first_digits(tmp_path, capsys):
    text = HEADER.replace('"en"', "-" + "9" * 5000) + ', "events": []}'
    message = "header: edition must be text, not -99999999999999999999…\n"
    assert replay(tmp_path, capsys, text) == (1, "", message)
    assert refusal_of({**MINIMAL, "edition": HUGE}).message == (
        "edition must be text, not 100000000000000000000…")


def test_a_refusal_naming_a_family_with_a_line_break_is_still_one_line(tmp_path, capsys):
    """A record may name its families as it likes (R1), line breaks and all; the replay's
    refusal stays one line (game-record.md), the break written as its escape."""
    families = ["re\nd", "yellow", "green", "blue", "purple", "black"]
    card = {"family": "re\nd", "number": 1}
    text = json.dumps({**MINIMAL, "families": families,
                       "events": [{"type": "reveal", "cards": [card, card]}]})
    assert replay(tmp_path, capsys, text) == (
        1, "", "event 0: the lot shows the re\\nd 1 twice (R1)\n")


def test_a_family_name_with_half_a_character_is_refused(tmp_path, capsys):
    """JSON may name a lone surrogate (\\ud800): no page could be written with it, so the
    game it would make could neither be shown nor exported (found by a review)."""
    families = ["r\ud800", "yellow", "green", "blue", "purple", "black"]
    assert refusal_of({**MINIMAL, "families": families}).message == (
        "the family name 'r\\ud800' holds a broken character (R1)")
    text = json.dumps({**MINIMAL, "families": families})
    assert replay(tmp_path, capsys, text) == (
        1, "", "header: the family name 'r\\ud800' holds a broken character (R1)\n")


def test_a_record_nested_975_levels_deep_is_refused_in_one_short_line(tmp_path):
    """As the command runs it (in a process of its own: pytest's stack is deeper)."""
    path = tmp_path / "deep.json"
    path.write_text(DEEP, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(path)],
                          capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (
        1, "", "event 0: an event must be an object, not [[[[...]]]]\n")


def test_a_value_nested_however_deep_is_refused_without_recursion():
    nested = []
    for _ in range(100_000):
        nested = [nested]
    assert refusal_of({**MINIMAL, "events": [REVEAL, nested]}).message == (
        "an event must be an object, not [[[[...]]]]")
    assert refusal_of({**MINIMAL, "players": nested}).message == (
        "players must be a list, each item text")


@pytest.mark.parametrize(("change", "message"), [
    ({"events": [[[[[[[]]]]]]]}, "event 0: an event must be an object, not [[[[...]]]]"),
    ({"events": [{"type": [[[[[[]]]]]]}]}, "event 0: unknown event type [[[[...]]]]"),
    ({"events": [{**REVEAL, "x" * 1000: 1}]},
     "event 0: unknown key 'xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx' in a reveal event"),
    ({"start_player": {"name": ["Anna" * 1000]}},
     "header: a player name must be text, "
     "not {'name': ['AnnaAnnaAnnaAnnaA...naAnnaAnnaAnnaAnna']}"),
])
def test_a_refused_value_is_shown_cut_short(change, message):
    refusal = refusal_of({**MINIMAL, **change})
    assert f"{refusal.where}: {refusal.message}" == message


@pytest.mark.parametrize(("events", "message"), [
    ([REVEAL, {"type": "free"}, {"type": "free"}, {"type": "sold"}],
     "event 2: 'nobody bid' needs a lot: reveal round 2's 2 cards first (R2)"),
    ([REVEAL, {"type": "free"}, {"type": "sold"}, {"type": "free"}],
     "event 2: a sold event needs 'winner'"),
])
def test_the_first_bad_event_is_named_be_it_a_broken_rule_or_a_bad_shape(events, message):
    """Every event is read before the first is applied: a rule broken earlier (a second
    'nobody bid' for one lot, R2) still comes before a shape error (a sale without a
    winner), and a shape error before a later broken rule."""
    refusal = refusal_of({**MINIMAL, "events": events})
    assert f"{refusal.where}: {refusal.message}" == message


# --- the shape of every event: each field read by its kind's reader ------------------

ONE_OF_EACH = [dump_event(event) for event in (
    reveal("red 1 blue 5"), Sold("Anna", 3), Free(), Penalty("Anna"), overbid("Anna", "red 1"),
    overbid("Anna", None), side_sale("Anna", "red 1", "Bert", 2),
    exchange("Anna", "red 1", "Bert", "blue 5"), Bid("Anna", 4), Pass("Anna"))]
assert {entry["type"] for entry in ONE_OF_EACH} == {cls.kind for cls in EVENT_TYPES}
NOT_TEXT = (None, True, 3, 1.5, [], {"name": "Anna"})
NOT_A_NUMBER = (None, True, False, 1.5, "3", [3], {"price": 3})
NOT_AN_OBJECT = (None, True, 3, "red 1", ["red", 1])
BEYOND = (100_001, -100_001)


def wrong_values(name: str):
    """(a wrong value of the field `name`, the message that refuses it): what a reader
    refuses, written out here apart from the code."""
    if name in ("winner", "player", "seller", "buyer", "opponent"):
        yield from ((value, f"a player name must be text, not {value!r}") for value in NOT_TEXT)
    elif name in ("price", "amount"):
        yield from ((value, f"{name} must be a whole number, not {value!r}")
                    for value in NOT_A_NUMBER)
        yield from ((value, f"'{name}' must be from 0 to 100000") for value in BEYOND)
    elif name == "cards":
        yield from ((value, "cards must be a list, each item an object")
                    for value in (None, {"family": "red", "number": 1}, [1, 2], ["red 1"],
                                  [{"family": "red", "number": 1}, None]))
        for value, message in wrong_cards():
            if isinstance(value, dict):  # any other item is refused as the list's
                yield [{"family": "red", "number": 1}, value], message
    else:
        yield from wrong_cards(none_allowed=name == "discard")


def wrong_cards(none_allowed=False):
    """A card's wrong values and their messages."""
    yield from ((value, f"a card must be an object, not {value!r}")
                for value in NOT_AN_OBJECT if not (none_allowed and value is None))
    yield {"family": "red"}, "a card needs a 'family' and a 'number'"
    yield {"number": 1, "colour": "red"}, "unknown key 'colour' in a card"
    yield {"family": "red", "number": 1, "x": 0}, "unknown key 'x' in a card"
    yield {"family": 1, "number": 1}, "family must be text, not 1"
    yield {"family": "red", "number": True}, "number must be a whole number, not True"
    yield {"family": "red", "number": "1"}, "number must be a whole number, not '1'"
    yield {"family": "red", "number": 100_001}, "'number' must be from 0 to 9"


@pytest.mark.parametrize("entry", ONE_OF_EACH, ids=lambda entry: entry["type"])
def test_each_field_of_each_event_refuses_its_wrong_values(entry):
    for name in [key for key in entry if key != "type"]:
        for value, message in wrong_values(name):
            with pytest.raises(Refusal) as refused:
                parse_event({**entry, name: value})
            assert (refused.value.rule, refused.value.message) == ("record", message), (name, value)


@pytest.mark.parametrize("entry", ONE_OF_EACH, ids=lambda entry: entry["type"])
def test_each_event_refuses_a_missing_or_unknown_key(entry):
    kind, names = entry["type"], [key for key in entry if key != "type"]
    for name in names:
        missing = {key: value for key, value in entry.items() if key != name}
        assert refused_message(missing) == f"a {kind} event needs '{name}'"
        assert refused_message({**missing, "extra": 1}) == f"unknown key 'extra' in a {kind} event"
    assert refused_message({**entry, "extra": 1}) == f"unknown key 'extra' in a {kind} event"
    assert parse_event(json.loads(json.dumps(entry))) == parse_event(entry)


@pytest.mark.parametrize("entry", [entry for entry in ONE_OF_EACH if len(entry) > 2],
                         ids=lambda entry: entry["type"])
def test_an_unknown_key_is_named_before_a_wrong_value(entry):
    first, *_, last = [key for key in entry if key != "type"]
    renamed = {key: value for key, value in entry.items() if key != last}
    renamed |= {first: 1.5, "extra": entry[last]}  # as many keys as it should have
    assert refused_message(renamed) == f"unknown key 'extra' in a {entry['type']} event"


def refused_message(entry) -> str:
    with pytest.raises(Refusal) as refused:
        parse_event(entry)
    assert refused.value.rule == "record"
    return refused.value.message
