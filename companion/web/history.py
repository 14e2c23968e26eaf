"""The game's history as the screens show it: each round's actions, who recorded each one
and when, and the journal of undos, corrections and the host's settings."""
import time
from dataclasses import dataclass

from ..games import Game
from ..phrase import N_, Phrase, Series
from ..record import parse_event
from .views import describe, describe_event, payment_of, set_right


@dataclass(frozen=True)
class Line:
    """One action of the history."""

    index: int
    words: Phrase
    payment: Phrase | None
    signed: Phrase | None


def rounds(game: Game, labels: dict[int, str]) -> list[list[Line]]:
    """Each round's actions, with their payments and signatures; `labels` name the
    devices the host granted host rights, by grant."""
    history = [[]]
    for index, (by, at) in enumerate(game.signatures):
        history[-1].append(Line(index, describe(game, index), payment_of(game, index),
                                signature(game, by, at, labels)))
        if game.states[index + 1].rounds_played > game.states[index].rounds_played:
            history.append([])
    return [round_lines for round_lines in history if round_lines]


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


def journal(game: Game, labels) -> list[tuple[Phrase, Phrase | None]]:
    """Every undo, correction and setting, newest first, with the coins it moved."""
    entries = []
    for at, by, entry in reversed(game.journal):
        who, when = device_name(game, by, labels), clock(at)
        moves = entry.get("moves")
        entries.append((_journal_words(game, entry, who, when),
                        set_right(game, moves) if moves and any(moves["coins"]) else None))
    return entries


def _journal_words(game: Game, entry: dict, who: Phrase, when: str) -> Phrase:
    kind = entry["kind"]
    if kind == "settings":
        return _setting_words(entry, who, when)
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


def _setting_words(entry: dict, who: Phrase, when: str) -> Phrase:
    if "unlocked" in entry:
        template = (N_("{time}: {who} unlocked the finished game to correct it")
                    if entry["unlocked"] else N_("{time}: {who} locked the finished game"))
    elif entry.get("phones_record"):
        template = N_("{time}: {who} let the players record from their phones")
    else:
        template = N_("{time}: {who} turned off recording from phones")
    return Phrase(template, time=when, who=who)
