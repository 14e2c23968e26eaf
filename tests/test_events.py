"""Events are values: equal only to an event of the same kind with the same fields, and
never changed once made."""
import dataclasses

import pytest

from companion.rules.events import Bid, Free, Pass, Penalty, Sold
from companion.rules.record import parse_event


@pytest.mark.parametrize("one, other", [
    (Sold("Anna", 3), Bid("Anna", 3)),  # a sale at 3 is not a live bid of 3 (R3, R8)
    (Penalty("Anna"), Pass("Anna")),  # a penalty is not a drop-out (R3, R4)
])
def test_events_of_two_kinds_with_the_same_fields_differ(one, other):
    assert one != other and not one == other
    assert len({one, other}) == 2


def test_an_event_is_equal_to_the_same_event_read_from_a_record():
    read = parse_event({"type": "sold", "winner": "Anna", "price": 3})
    assert read == Sold("Anna", 3) and hash(read) == hash(Sold("Anna", 3))
    assert read != Sold("Anna", 4)


def test_an_event_without_fields_is_still_an_event():
    assert Free() and Free() == Free() and Free() != ()


def test_an_event_cannot_be_changed():
    sale = Sold("Anna", 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        sale.price = 0
    assert sale == Sold("Anna", 3)
