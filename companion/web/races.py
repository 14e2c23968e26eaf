"""A change that lost the race to another device, told on the device that sent it: what
happened instead, or, for a form sent again after its answer was lost, that it counted."""
from dataclasses import dataclass

from companion.rules.phrase import N_, Phrase
from companion.rules.record import parse_event
from companion.store.games import Game, added_result
from companion.web.render.history import clock, device_name, journal_words
from companion.web.render.views import describe
from .forms import form_values

# What the sender loses, by the kind of change its form sent.
YOURS = {
    "reveal": N_("Your lot was not recorded."),
    "sold": N_("Your sale was not recorded."),
    "free": N_("Your free lot was not recorded."),
    "penalty": N_("Your penalty was not recorded."),
    "overbid": N_("Your overbid was not recorded."),
    "side_sale": N_("Your side sale was not recorded."),
    "exchange": N_("Your exchange was not recorded."),
    "bid": N_("Your bid was not recorded."),
    "pass": N_("Your drop-out was not recorded."),
    "undo": N_("Your undo was not recorded."),
    "correct": N_("Your correction was not recorded."),
    "remove": N_("Your removal was not recorded."),
}
OTHER = N_("What you sent was not recorded.")
REWRITES = ("undo", "correct", "remove")  # the changes the journal keeps


@dataclass(frozen=True)
class Change:
    """The newest change to a game: who made it, its kind ('event' for an action, else
    the journal's kind), where in the log, the events it put there, and its words."""

    by: str | None
    kind: str
    index: int | None
    events: tuple
    words: Phrase


def lost(game: Game, kind: str | None, labels) -> Phrase:
    """'Recorded first by Bert's phone at 21:14: Revealed ★9 ▲9. Your lot was not
    recorded.' `game` is the game as it now is; `labels` name the host's granted devices."""
    return Phrase(N_("{first} {yours}"), first=newest(game, labels).words,
                  yours=Phrase(YOURS.get(kind, OTHER)))


def already_applied(game: Game, version: int, by: str, kind: str | None, form, labels,
                    index: int | None = None) -> Phrase | None:
    """If the change a `form` sent from `version` (of `kind`, at event `index` for a
    correction or a removal) is the very change the game took next, from the same device
    (its answer was lost and the form was sent again): what was recorded."""
    if game.version != version + 1 or kind not in YOURS:
        return None
    change = newest(game, labels)
    if change.by != by or not _same(game, change, kind, form, index):
        return None
    return Phrase(N_("This device had already sent it, and it counts once. {what}"),
                  what=change.words)


def _same(game: Game, change: Change, kind: str, form, index: int | None) -> bool:
    """Whether `change` is what the form asks for."""
    if kind in REWRITES:
        return (change.kind == kind and index in (None, change.index)
                and all(_fills(game, event, form) for event in change.events))
    return change.kind == "event" and any(event.kind == kind and _fills(game, event, form)
                                          for event in change.events)


def _fills(game: Game, event, form) -> bool:
    """Whether every field the form sent describes `event`."""
    return all((form.getlist(name) if isinstance(value, list) else form.get(name)) == value
               for name, value in form_values(game.setup, event).items() if name in form)


def newest(game: Game, labels) -> Change:
    """The game's newest change: the last undo, correction or setting of its journal, or
    else its last action (with the one before it, if live auction mode added the last)."""
    by, at = game.signatures[-1] if game.events else (None, None)
    if game.journal and (at is None or game.journal[-1][0] >= at):
        at, by, entry = game.journal[-1]
        return Change(by, entry["kind"], entry.get("index"),
                      tuple(parse_event(event) for event in entry.get("new", ())),
                      Phrase(N_("{what}."), what=journal_words(
                          game, entry, device_name(game, by, labels), clock(at))))
    if not game.events:
        return Change(None, "none", None, (),
                      Phrase(N_("Another device changed the game first.")))
    last = len(game.events) - 1
    events = tuple(game.events[last - 1:] if last and added_result(game, last)
                   else game.events[last:])
    what = describe(game, last)
    if by in (None, "import"):
        return Change(by, "event", last, events,
                      Phrase(N_("Another device recorded this first: {what}."), what=what))
    return Change(by, "event", last, events,
                  Phrase(N_("Recorded first by {who} at {time}: {what}."),
                         who=device_name(game, by, labels), time=clock(at), what=what))
