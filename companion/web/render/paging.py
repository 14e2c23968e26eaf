"""Lists the screens show a page at a time, the latest first: page 1 is the latest."""
import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Paged:
    """One page of a list the screens show the latest first: page 1 is the latest."""

    items: list
    page: int
    pages: int


def page_count(count: int, size: int) -> int:
    """How many pages `count` items take, `size` a page (one, if there is none)."""
    return max(1, math.ceil(count / size))


def within(page: int, pages: int) -> int:
    """The page asked for, or the first or the last one if it is out of range."""
    return min(max(page, 1), pages)
