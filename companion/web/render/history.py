"""The game's history as the screens show it: each round's actions, who recorded each one
and when, and the journal of undos, corrections and the host's settings, a page at a time
(the latest first), so that a page costs the same however long the game."""
import time
from dataclasses import dataclass

from companion.rules.phrase import N_, Phrase, Series
from companion.rules.record import parse_event
from companion.store.games import Game
from companion.web.guards.roles import why_not_touch
from .paging import Paged, page_count, within
from .views import describe, describe_event, payment_of, set_right

# What one page of the history shows, the latest first.
ROUNDS_PER_PAGE = 5
ACTIONS_PER_PAGE = 100  # a round longer than this is cut across pages
ENTRIES_PER_PAGE = 20  # of the journal


@dataclass(frozen=True)
class Line:
    """One action of the history, and whether this device may correct it (roles)."""

    index: int
    words: Phrase
    payment: Phrase | None
    signed: Phrase | None
    correctable: bool


@dataclass(frozen=True)
class Round:
    """A round's actions on one page (all of them, unless the round is cut)."""

    number: int
    lines: list[Line]


def rounds(game: Game, labels: dict[int, str], page: int) -> Paged:
    """Page `page` (or the nearest there is) of the rounds: each round's actions, with
    their payments and signatures; `labels` name the devices the host granted host
    rights, by grant. Only the page's actions are put into words."""
    pages = _pages(_spans(game)) or [[]]
    page = within(page, len(pages))
    return Paged([Round(number, [_line(game, index, labels) for index in range(first, end)])
                  for number, first, end in pages[page - 1]], page, len(pages))


def _line(game: Game, index: int, labels) -> Line:
    """Action `index` as the history shows it."""
    by, at = game.signatures[index]
    return Line(index, describe(game, index), payment_of(game, index),
                signature(game, by, at, labels), why_not_touch(game, game.events[index]) is None)


def _spans(game: Game) -> list[tuple[int, int, int]]:
    """Each round with actions, in order: its number, its first action and the end."""
    spans = []
    for index, state in enumerate(game.states[:-1]):
        number = state.rounds_played + 1
        if spans and spans[-1][0] == number:
            spans[-1] = (number, spans[-1][1], index + 1)
        else:
            spans.append((number, index, index + 1))
    return spans


def _pages(spans) -> list[list[tuple[int, int, int]]]:
    """The rounds' spans put on pages, the latest first, at most ROUNDS_PER_PAGE rounds and
    ACTIONS_PER_PAGE actions a page: a round that does not fit goes whole to the next
    page, and is cut only when it is longer than a page."""
    pages, page, size = [], [], 0
    for number, first, end in reversed(spans):
        while end > first:
            if page and (len(page) == ROUNDS_PER_PAGE or size + end - first > ACTIONS_PER_PAGE):
                pages.append(page)
                page, size = [], 0
            start = max(first, end - ACTIONS_PER_PAGE + size)
            page.insert(0, (number, start, end))
            size, end = size + end - start, start
    return pages + [page] if page else pages


def signature(game: Game, by: str | None, at: float | None, labels) -> Phrase | None:
    """'recorded by Bert's phone at 21:14'; None for actions from before signatures."""
    if by is None:
        return None
    if by == "import":
        return Phrase(N_("imported"))
    return Phrase(N_("recorded by {who} at {time}"), who=device_name(game, by, labels),
                  time=clock(at))


def device_name(game: Game, by: str, labels) -> Phrase:
    """The device a signature names: the host's, a granted one, or a player's phone."""
    kind, _, number = by.partition(":")
    if kind == "seat":
        return Phrase(N_("{name}'s phone"), name=game.setup.players[int(number)])
    if kind == "grant":
        label = labels.get(int(number))
        if label is None:
            return Phrase(N_("a host device since revoked"))
        return Phrase(N_("the host device {label}"), label=label)
    return Phrase(N_("the host's device"))


def clock(at: float) -> str:
    """The time of day of a moment, as the table's clock shows it: '21:14'."""
    return time.strftime("%H:%M", time.localtime(at))


def journal(game: Game, labels, page: int) -> Paged:
    """Page `page` (or the nearest there is) of the undos, corrections and settings,
    newest first, each with the coins it moved."""
    pages = page_count(len(game.journal), ENTRIES_PER_PAGE)
    page = within(page, pages)
    end = len(game.journal) - (page - 1) * ENTRIES_PER_PAGE
    entries = []
    for at, by, entry in reversed(game.journal[max(0, end - ENTRIES_PER_PAGE):end]):
        who, when = device_name(game, by, labels), clock(at)
        moves = entry.get("moves")
        entries.append((journal_words(game, entry, who, when),
                        set_right(game, moves) if moves and any(moves["coins"]) else None))
    return Paged(entries, page, pages)


def journal_words(game: Game, entry: dict, who: Phrase, when: str) -> Phrase | Series:
    kind = entry["kind"]
    if kind == "settings":
        return Series(_setting_words(entry, name, who, when) for name in SETTINGS if name in entry)
    old = Series(describe_event(game, parse_event(event)) for event in entry["old"])
    number = entry["index"] + 1
    if kind == "undo":
        return Phrase(N_("{time}: {who} undid {what}"), time=when, who=who, what=old)
    if kind == "remove":
        return Phrase(N_("{time}: {who} removed action {number}: {what}"), time=when, who=who,
                      number=number, what=old)
    new = Series(describe_event(game, parse_event(event)) for event in entry["new"])
    return Phrase(N_("{time}: {who} corrected action {number}: {old}, now {new}"),
                  time=when, who=who, number=number, old=old, new=new)


# The host's settings a journal entry may note, each told on its own: (words when turned
# on, words when turned off).
SETTINGS = {
    "unlocked": (N_("{time}: {who} unlocked the finished game to correct it"),
                 N_("{time}: {who} locked the finished game")),
    "phones_record": (N_("{time}: {who} let the players record from their phones"),
                      N_("{time}: {who} turned off recording from phones")),
    "guide": (N_("{time}: {who} turned on the help for new players"),
              N_("{time}: {who} turned off the help for new players")),
}


def _setting_words(entry: dict, name: str, who: Phrase, when: str) -> Phrase:
    on, off = SETTINGS[name]
    return Phrase(on if entry[name] else off, time=when, who=who)
