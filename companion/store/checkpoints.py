"""The states a game keeps along its log, so that the state before any of its events is
folded from a kept one at most SPACING events before it, never from the start; and the
fold that checks a change to the log, which keeps them as it goes.

A log keeps the state before its first event, the last two (before its last event and
after it), the state before each sale at 0, and one more wherever the next state would
lie more than SPACING events after the last one kept: 2 to 5 states for a real game of
50 to 150 actions, 63 for one of 2,000. States are immutable and share every field an
event leaves alone, so a kept state costs what the events changed since the one kept
before it: 0.3 to 2 KB (3.3 KB more in all than the last two alone for a finished game,
of 12.5 KB; at most some 60 KB more for 2,000 actions that each change the state).

The state before a sale at 0 is kept because state.settled_sale tells a French free lot
at 0 (R8.6) from a sale by whether the last sale is the very same object before and
after it: the state after it, folded from this one or kept, holds this one's, whereas a
state folded again from further back would hold a last sale made again.
"""
from bisect import bisect_left, bisect_right
from functools import cached_property

from companion.rules.events import Sold
from companion.rules.state import GameState, apply, apply_at

SPACING = 32  # at most this many events folded to find a state; memory: see above


class Kept:
    """The states kept along a log of `length` events: `states[k]` is the state before
    event `marks[k]` (after the last one for `length`); `before` and `state` are the
    states before the last event and after it."""

    def __init__(self, marks: list[int], states: list[GameState], before: GameState | None,
                 state: GameState, length: int):
        self.marks, self.states = marks, states
        self.before, self.state, self.length = before, state, length

    @classmethod
    def start(cls, state: GameState) -> "Kept":
        """What a log without events keeps: the state before its first event."""
        return cls([0], [state], None, state, 0)

    def state_at(self, events, index: int) -> GameState:
        """The state before event `index` of `events` (the log), folded from the last
        state kept at or before it."""
        if index == self.length:
            return self.state
        if index == self.length - 1:
            return self.before
        at = bisect_right(self.marks, index) - 1
        state = self.states[at]
        for event in events[self.marks[at]:index]:
            state = apply(state, event)
        return state

    def fold(self, events) -> list[GameState]:
        """Every state along the log (`events`): each kept one as it is, the others folded
        from the state before them."""
        known = dict(zip(self.marks, self.states))
        known[self.length] = self.state
        if self.length:
            known[self.length - 1] = self.before
        states = [known[0]]
        for index, event in enumerate(events, 1):
            state = known.get(index)
            states.append(apply(states[-1], event) if state is None else state)
        return states


class Folding:
    """A fold along a log from one of its states (the log changed from there on), which
    keeps the states a log keeps as it goes, and may meet the old log again."""

    def __init__(self, kept: Kept, events, index: int):
        """From the state before event `index` of the log `kept` keeps (`events`)."""
        upto = bisect_right(kept.marks, index)
        self.marks, self.states = kept.marks[:upto], kept.states[:upto]
        self.changed_from = upto - 1  # the first kept state whose next one may change
        self.old, self.old_events = kept, events
        self.state, self.before, self.index = kept.state_at(events, index), None, index
        self.last = None  # the last event folded in

    def step(self, event) -> None:
        """Fold in the next event; a Refusal (nothing changed) names its index."""
        after = apply_at(self.state, event, self.index)
        if _at_zero(event):
            self._keep()
        self.before, self.state, self.last = self.state, after, event
        self.index += 1
        if self.index - self.marks[-1] >= SPACING:
            self._keep()

    def _keep(self) -> None:
        """Keep the state reached."""
        if self.marks[-1] < self.index:
            self.marks.append(self.index)
            self.states.append(self.state)

    def meets(self, old: int) -> bool:
        """Whether the state reached is the one the old log kept before its event `old`
        (not its last state), so that the rest of the old log folds on from here as it
        did there. After a sale at 0 the two must hold the very same last sale, as the
        state before it does (settled_sale tells a free lot at 0 by it)."""
        kept = self._old_kept.get(old)
        return (kept is not None and old < self.old.length and kept == self.state
                and (not _at_zero(self.last) or kept.last_sale is self.state.last_sale))

    @cached_property
    def _old_kept(self) -> dict[int, GameState]:
        return dict(zip(self.old.marks, self.old.states))

    def join(self, old: int) -> None:
        """Go on as the old log from its event `old` on (where `meets`): its kept states
        from there, moved to where they now stand, and its last two."""
        shift = self.index - old
        while self.marks[-1] >= self.index:
            self.marks.pop()
            self.states.pop()
        at = bisect_left(self.old.marks, old)
        self.marks += [mark + shift for mark in self.old.marks[at:]]
        self.states += self.old.states[at:]
        self.before, self.state = self.old.before, self.old.state
        self.index = self.old.length + shift

    def kept(self, events) -> Kept:
        """What the log folded (`events`, all of them) keeps."""
        before = self.before
        if before is None and self.index:  # nothing folded in: an undo
            before = self.old.state_at(self.old_events, self.index - 1)
        marks, states = _thinned(self.marks, self.states, events, self.index,
                                 self.changed_from)
        return Kept(marks, states, before, self.state, self.index)


def _thinned(marks, states, events, length: int, first: int) -> tuple[list, list]:
    """The kept states of a log of `length` events (`events`) less those a fold would
    not keep, looked at from `first` on (before it, nothing changed), so that states do
    not pile up where a change began or met the old log: each state before a sale at 0
    stays, and any other where leaving it out would put the next one (or the end of the
    log) more than SPACING events after the last one kept. The first state stays."""
    first = max(first, 1)
    kept_marks, kept_states = marks[:first], states[:first]
    for at in range(first, len(marks)):
        mark = marks[at]
        following = marks[at + 1] if at + 1 < len(marks) else length + 1
        if (mark < length and _at_zero(events[mark])) or following - kept_marks[-1] > SPACING:
            kept_marks.append(mark)
            kept_states.append(states[at])
    return kept_marks, kept_states


def _at_zero(event) -> bool:
    """A sale at 0, which French rules make a free lot (R8.6)."""
    return isinstance(event, Sold) and event.price == 0
