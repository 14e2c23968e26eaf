"""Time a correction, a removal and an undo in a game of 2,000 actions (games.MAX_EVENTS),
in-process: the change checked through the rules core and stored in SQLite.

    python bench/corrections.py [--runs N]

The game is the first two rounds of tests/fixtures/full-game-3.json (7 actions: after
them Claus, 李 and Eva all hold cards and coins), then penalties of Claus's (R4:
unbounded, so a log can be made any length) until it holds 2,000 actions. A correction
turns a penalty of Claus's into one of Eva's, or back, near the start, in the middle and
near the end of the log: every later action is checked again. Claus runs out of coins
after 23 penalties and Eva never pays another, so the corrected game never meets the old
one again: every later action is folded. A removal of a penalty of Claus's near the
start (put back, untimed, at the end before the next one) leaves him a coin, which he
pays one penalty later: from there the game meets the old one again, one action
earlier, and what follows is taken as it was. An undo of the last action is followed by
the penalty it took back. In a second game the penalties go to Claus and Eva in turn,
so both run out of coins, and a correction near the start meets the old game again
some 50 actions later.

Prints each change's median over N runs, with the medians of checking it alone (the
rules core's share, games.rewritten) and of storing its rows alone (the store rewrites
every event from the one changed on), e.g. "correction near the start (action 11 of
2000): median 26.10 ms; checking alone 4.66 ms, storing its 1990 rows alone 20.42 ms",
and how fast this machine runs Python at the time.
"""
import argparse
import json
import statistics
import tempfile
import time
import timeit
from functools import partial
from pathlib import Path

from companion.rules.events import Penalty
from companion.rules.record import dump_event
from companion.store import games
from companion.store.sqlite import Store

RECORD = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "full-game-3.json"
OPENING = 7  # the first two rounds
PAYERS = ("Claus", "Eva")  # the penalties' payers
NEAR_START = OPENING + 3


def median_ms(change, runs: int, after=lambda: None) -> float:
    """The median time of `change()` over `runs` calls, `after()` untimed after each."""
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        change()
        times.append(time.perf_counter() - began)
        after()
    return statistics.median(times) * 1000


class Table:
    """A game of MAX_EVENTS actions as a server keeps it: each change is made to the game
    the last one returned (games.Game, as the cache keeps it), read from the store only
    when it changed there. One for each change timed, as a game keeps at most
    games.MAX_JOURNAL undos and corrections."""

    def __init__(self, store: Store, payers):
        """The opening, then penalties paid by `payers` in turn."""
        played = json.loads(RECORD.read_text(encoding="utf-8"))
        penalties = [{"type": "penalty", "player": payers[index % len(payers)]}
                     for index in range(games.MAX_EVENTS - OPENING)]
        self.store = store
        self.token = games.create(store, {**played, "events": played["events"][:OPENING]
                                          + penalties}, games.Options())
        self.read()

    def read(self) -> None:
        """Read the game from the store (after it was changed there)."""
        self.game = games.load(self.store, self.token)

    def correct(self, index: int) -> None:
        self.game = games.correct(self.store, self.game, self.game.version, index,
                                  self.corrected(index), "host")

    def corrected(self, index: int) -> Penalty:
        """Penalty `index` paid by Eva if Claus paid it, else by Claus."""
        return Penalty(PAYERS[self.game.events[index].player == PAYERS[0]])

    def check(self, index: int) -> None:
        """Check the correction of penalty `index` alone, without storing it."""
        games.rewritten(self.game, index, [self.corrected(index)], 1, ("host", 0))

    def remove(self, index: int) -> None:
        self.game = games.remove(self.store, self.game, self.game.version, index, "host")

    def undo(self) -> None:
        self.game = games.undo(self.store, self.game, self.game.version, "host")

    def put_back(self) -> None:
        """Add a penalty of Claus's: after a removal or an undo, the game is as it was
        (every penalty after the opening is Claus's)."""
        self.game = games.append(self.store, self.game, self.game.version,
                                 Penalty(PAYERS[0]), "host")

    def store_again(self, keep: int) -> None:
        """Store the events from `keep` on again, as they are: the store's share of a
        change there."""
        game = self.game
        self.store.write_events(self.token, game.version, keep,
                                [(dump_event(event), *signature) for event, signature in
                                 zip(game.events[keep:], game.signatures[keep:])])

    def timed(self, label: str, keep: int, change, runs: int, after=lambda: None,
              check=None) -> None:
        """Print the medians of `change()`, a change at `keep`, of `check()`, checking it
        alone, and of storing its rows alone."""
        took = median_ms(change, runs, after)
        checked = f"checking alone {median_ms(check, runs):.2f} ms, " if check else ""
        stored = median_ms(lambda: self.store_again(keep), runs, self.read)
        rows = games.MAX_EVENTS - keep
        print(f"{label}: median {took:.2f} ms; {checked}storing its {rows} "
              f"row{'s' if rows > 1 else ''} alone {stored:.2f} ms (over {runs} runs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=41)
    runs = parser.parse_args().runs
    store = Store(tempfile.mkdtemp())
    size = games.MAX_EVENTS
    for where, index in (("near the start", NEAR_START), ("in the middle", size // 2),
                         ("near the end", size - 5)):
        table = Table(store, PAYERS[:1])
        table.timed(f"correction {where} (action {index + 1} of {size})", index,
                    partial(table.correct, index), runs, check=partial(table.check, index))
    table = Table(store, PAYERS[:1])
    table.timed(f"removal near the start (action {NEAR_START + 1})", NEAR_START,
                partial(table.remove, NEAR_START), runs, table.put_back)
    table = Table(store, PAYERS[:1])
    table.timed(f"undo (action {size})", size - 1, table.undo, runs, table.put_back)
    table = Table(store, PAYERS)
    table.timed(f"correction near the start that meets the old game again (action "
                f"{NEAR_START + 1})", NEAR_START, partial(table.correct, NEAR_START), runs,
                check=partial(table.check, NEAR_START))
    reference = min(timeit.repeat("sum(range(1000))", number=1000, repeat=5))  # µs a run
    print(f"this machine's speed: sum(range(1000)) in {reference * 1000:.0f} µs "
          f"(about 10 µs on a current laptop: the figures scale with it)")


if __name__ == "__main__":
    main()
