"""The game record `templari-game/1`: load and dump, defaults, trimmed names."""
import json

import pytest

from companion.cards import DEFAULT_FAMILIES
from companion.events import Sold
from companion.record import dump_record, fold_record, load_setup, parse_event
from companion.state import fold

from tests.helpers import MINIMAL_RECORD as MINIMAL, PLAYERS, RECORDS, reveal



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
