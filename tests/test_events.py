"""Events are values: equal only to an event of the same kind with the same fields; the
fast ways of making events and states keep the constructors' checks."""
import dataclasses

import pytest

from companion.rules.events import Bid, Free, Pass, Penalty, Sold, made
from companion.rules.record import parse_event
from companion.rules.state import new_game, replace
from tests.helpers import setup


@pytest.mark.parametrize("one, other", [
    (Sold("Anna", 3), Bid("Anna", 3)),  # a sale at 3 is not a live bid of 3 (R3, R8)
    (Penalty("Anna"), Pass("Anna")),  # a penalty is not a drop-out (R3, R4)
])
def test_events_of_two_kinds_with_the_same_fields_differ(one, other):
    assert one != other and not one == other
    assert len({one, other}) == 2
    assert one != tuple(one)


def test_an_event_is_equal_to_the_same_event_read_from_a_record():
    read = parse_event({"type": "sold", "winner": "Anna", "price": 3})
    assert read == Sold("Anna", 3) and hash(read) == hash(Sold("Anna", 3))
    assert read != Sold("Anna", 4)


def test_an_event_without_fields_is_still_an_event():
    assert Free() and Free() == Free() and Free() != ()


# --- speed that keeps its guards (issue 28) --------------------------------------------

def test_a_misspelt_field_in_a_state_update_raises_as_dataclasses_replace_does():
    state = new_game(setup())
    with pytest.raises(TypeError, match="lott"):
        replace(state, lott=())
    with pytest.raises(TypeError):
        dataclasses.replace(state, lott=())
    assert replace(state, pot=3).pot == 3 and not hasattr(replace(state, pot=3), "lott")


def test_an_event_made_on_the_record_s_fast_path_is_checked_for_its_fields():
    assert made(Sold, ["Anna", 7]) == Sold("Anna", 7)
    with pytest.raises(TypeError, match="a sold event has 2 fields"):
        made(Sold, ["Anna"])
    with pytest.raises(TypeError, match="a pass event has 1 field"):
        made(Pass, ["Anna", 3])
    with pytest.raises(TypeError):
        Sold("Anna")  # the constructor, which `made` stands in for
