"""waitress's event loop, asking only the connections whose wishes may have changed.

waitress's own loop (wasyncore.poll2) asks every open connection, at each of its turns,
whether it wants to read or write, and it turns after every answer: with a café's 1,200
phones connected, each turn costs milliseconds of the one core a process has. This loop
keeps one epoll set and, at each turn, asks only:

- the listening sockets (where waitress closes idle connections now and then: every
  connection is asked at that turn);
- a connection that is new, or whose socket number now belongs to a new one (the socket
  map, a `Sockets`, notes each number set or deleted: nothing is compared across all the
  connections at a turn);
- a connection that had an event at the last turn, or was not idle after it (a request
  under way, an answer waiting to be sent, a close to come). A worker thread changes a
  connection only while it serves one of its requests, so while it is asked at every
  turn, and wakes the loop with waitress's trigger when it is done. A connection whose
  request waits for a worker (`queued`) is not asked until a worker takes it (the
  connection then notes its number in the map): while the workers are behind, a turn
  would otherwise ask every connection in their queue, and the loop, turning at every
  event, would take the time the workers need (a café of 150 tables fell behind that
  way, the loop at 65% of a core).

An idle connection (nothing under way: it wants to read, nothing else) stays in the epoll
set as it is until it has something to say. Used where there is epoll (Linux).
"""
import select
from collections import deque

from waitress import wasyncore
from waitress.server import BaseWSGIServer

# epoll's event bits (select.EPOLLIN, EPOLLPRI, EPOLLOUT), written out so that the module
# imports where there is no epoll (it is used only where there is).
READ, URGENT, WRITE = 0x001, 0x002, 0x004
IDLE = READ | URGENT  # what a connection with nothing under way wants


class Loop:
    """What a waitress server runs its loop with (its `asyncore`): this one."""

    @staticmethod
    def loop(timeout=30.0, use_poll=False, map=None, count=None):
        """Run until the map of sockets is empty, as wasyncore.loop does."""
        turns = Turns(map)
        try:
            while map:
                turns.turn(timeout)
        finally:
            turns.epoll.close()


class Sockets(dict):
    """A waitress socket map (socket number: its dispatcher) that notes each number set or
    deleted in `changed`, in order (a deque: the loop takes them while a worker thread may
    close a connection)."""

    def __init__(self):
        super().__init__()
        self.changed: deque[int] = deque()

    def __setitem__(self, number: int, obj) -> None:
        super().__setitem__(number, obj)
        self.changed.append(number)

    def __delitem__(self, number: int) -> None:
        super().__delitem__(number)
        self.changed.append(number)

    def clear(self) -> None:
        self.changed.extend(self)
        super().clear()


class Turns:
    """The epoll set, and what it holds for each socket."""

    def __init__(self, sockets: Sockets):
        self.sockets = sockets
        self.epoll = select.epoll()
        self.known: dict[int, object] = {}  # socket number: the object it was asked of
        self.masks: dict[int, int] = {}  # socket number: the events registered for it
        self.listeners: set[int] = set()
        self.busy: set[int] = set()  # to ask at the next turn

    def turn(self, timeout: float) -> None:
        """Ask what may have changed, wait for events (at most `timeout` seconds) and give
        them to their sockets."""
        fresh = self._changed()
        busy, self.busy = self.busy, set()
        if self._ask(self.listeners):
            self._ask(list(self.sockets))
        else:
            self._ask((fresh | busy) - self.listeners)
        for number, events in self.epoll.poll(timeout):
            obj = self.sockets.get(number)
            if obj is not None:
                wasyncore.readwrite(obj, events)
                self.busy.add(number)

    def _changed(self) -> set[int]:
        """The sockets set since the last turn; those closed since are forgotten."""
        fresh, changed = set(), self.sockets.changed
        while changed:
            number = changed.popleft()
            obj = self.sockets.get(number)
            if obj is None:
                self._forget(number)
                self.listeners.discard(number)
            else:
                fresh.add(number)
                if _listens(obj):
                    self.listeners.add(number)
        return fresh

    def _ask(self, numbers) -> bool:
        """Register what each socket of `numbers` wants now. Whether a listener closed
        idle connections meanwhile (waitress's maintenance): every one must be asked."""
        maintained = False
        for number in numbers:
            obj = self.sockets.get(number)
            if obj is None:
                continue
            cleanup = getattr(obj, "next_channel_cleanup", None)
            mask = _wants(obj)
            maintained |= cleanup is not None and obj.next_channel_cleanup != cleanup
            if mask != IDLE and not getattr(obj, "queued", False):
                self.busy.add(number)
            if self.known.get(number) is not obj or self.masks[number] != mask:
                self._register(number, obj, mask)
        return maintained

    def _register(self, number: int, obj, mask: int) -> None:
        self._forget(number)
        if mask:
            try:
                self.epoll.register(number, mask)
            except OSError:  # closed already: its close takes it out of the map
                return
        self.known[number], self.masks[number] = obj, mask

    def _forget(self, number: int) -> None:
        if self.known.pop(number, None) is not None and self.masks.pop(number):
            try:
                self.epoll.unregister(number)
            except OSError:  # closed, and so out of the epoll set already
                pass


def _listens(obj) -> bool:
    return isinstance(obj, BaseWSGIServer)


def _wants(obj) -> int:
    """The events `obj` wants now, asked as wasyncore.poll2 asks."""
    mask = IDLE if obj.readable() else 0
    if obj.writable() and not obj.accepting:
        mask |= WRITE
    return mask
