"""Time a correction, a removal and an undo in a full game of 15 rounds and 5 players,
in-process: the change checked through the rules core (the new log folded from the state
before the change to its end) and stored in SQLite.

    python bench/corrections.py [--runs N]

The game is played here, the same at every run (a seeded shuffle and seeded choices), in
live auction mode, with side sales and exchanges on: each round, a side sale now and then
and an exchange now and then before the reveal (R6, R7), a penalty now and then after it
(R4), always in round 3, then bids and drop-outs until the auction ends, and the result
it comes to (R3, R8, R9). Nobody bids nor pays more than they hold less 2 coins, so that
one coin more or less leaves every later action legal.

The change is its first penalty that another player could have paid (who holds a card,
R4), early in the game: a correction gives it to another player, or back (every later
action is checked again); a removal takes it out (the game is stored afresh, untimed,
after each one). An undo takes back the last drop-out and the result it brought about;
the drop-out is recorded again, untimed.

Prints each change's median and 95th percentile over N runs, and those of checking a
correction alone (the rules core's share, games.rewritten), then how fast this machine
runs Python at the time.
"""
import argparse
import random
import statistics
import tempfile
import time
import timeit

from companion.rules.bidding import lowest_allowed
from companion.rules.cards import DEFAULT_FAMILIES, ROUNDS, Card
from companion.rules.events import Bid, Exchange, Pass, Penalty, Reveal, SideSale
from companion.rules.record import dump_record
from companion.rules.refusal import Refusal
from companion.rules.setup import Setup
from companion.rules.state import apply, auction_result, new_game
from companion.store import games
from companion.store.sqlite import Store

PLAYERS = ("Anna", "Bert", "Claus", "Dora", "Eva")
SEED = 40
MARGIN = 2  # coins nobody spends below, so that a correction of a penalty changes no legality
SPEED = "sum(range(1000))"


class Played:
    """A game played to its end by seeded choices, each checked by the rules core."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.setup = Setup(players=PLAYERS, side_sales=True, exchange=True)
        self.state, self.events = new_game(self.setup), []

    def play(self) -> dict:
        """The game's record."""
        deck = _deck(self.rng)
        for lot in range(ROUNDS):
            self._extras()
            self._do(Reveal(tuple(deck[2 * lot:2 * lot + 2])))
            if lot == 2 or self.rng.random() < 0.4:  # one early in the game: the change
                self._penalty()
            while (result := auction_result(self.state)) is None:
                self._do(self._bid_or_pass())
            self._do(result)
        return dump_record(self.setup, self.events)

    def _do(self, event) -> bool:
        """Record `event` if the rules take it; whether they did."""
        try:
            self.state = apply(self.state, event)
        except Refusal:
            return False
        self.events.append(event)
        return True

    def _extras(self) -> None:
        """Now and then a side sale and an exchange, before the reveal (R6, R7)."""
        holders = [name for name in PLAYERS if self.state.hand_of(name)]
        if len(holders) < 2:
            return
        if self.rng.random() < 0.3:
            seller, buyer = self.rng.sample(PLAYERS, 2)
            prices = list(range(1, self.state.coins_of(buyer) - MARGIN + 1))
            self.rng.shuffle(prices)
            for card in self.state.hand_of(seller)[:1]:
                any(self._do(SideSale(seller, card, buyer, price)) for price in prices)
        if self.rng.random() < 0.3:
            player, opponent = self.rng.sample(holders, 2)
            self._do(Exchange(player, self.rng.choice(self.state.hand_of(player)), opponent,
                              self.rng.choice(self.state.hand_of(opponent))))

    def _penalty(self) -> None:
        """A forbidden bid of a player holding a card and more than MARGIN coins (R4)."""
        payers = [name for name in PLAYERS if self.state.hand_of(name)
                  and self.state.coins_of(name) > MARGIN]
        if payers:
            self._do(Penalty(self.rng.choice(payers)))

    def _bid_or_pass(self):
        """The next bid or drop-out of the live auction (R3): a raise, often, when the
        player can make one within MARGIN."""
        seat = self.state.auction.turn
        name = PLAYERS[seat]
        lowest = lowest_allowed(self.state, seat)
        if lowest is not None and lowest <= self.state.coins[seat] - MARGIN and (
                self.state.auction.high is None or self.rng.random() < 0.4):
            return Bid(name, lowest)
        return Pass(name)


def _deck(rng: random.Random) -> list[Card]:
    """A legal deck (R1) in a seeded order: three orderings of the numbers, cut in
    fives, give each family 5 different numbers and each number 3 cards."""
    numbers = [number for _ in range(3) for number in rng.sample(range(10), 10)]
    cards = [Card(family, number) for index, family in enumerate(DEFAULT_FAMILIES)
             for number in numbers[5 * index:5 * index + 5]]
    rng.shuffle(cards)
    return cards


class Table:
    """The game as a server keeps it: each change is made to the game the last one
    returned (games.Game, as the cache keeps it)."""

    def __init__(self, store: Store, record: dict):
        self.store, self.record = store, record
        self.new_game()
        self.index = next(index for index, event in enumerate(self.game.events)
                          if isinstance(event, Penalty) and self.other_payer(index))

    def new_game(self) -> None:
        """The game stored afresh, unlocked (it is over) so that it can be changed."""
        token = games.create(self.store, self.record, games.Options(unlocked=True))
        self.game = games.load(self.store, token)

    def other_payer(self, index: int) -> str | None:
        """The next player after the payer of penalty `index` who could have paid it: who
        holds a card then (R4)."""
        payer, state = self.game.events[index].player, self.game.state_at(index)
        after = PLAYERS[PLAYERS.index(payer) + 1:] + PLAYERS
        return next((name for name in after if name != payer and state.hand_of(name)), None)

    def corrected(self) -> Penalty:
        """The penalty changed given to another player, or back."""
        return Penalty(self.other_payer(self.index))

    def correct(self) -> None:
        self.game = games.correct(self.store, self.game, self.game.version, self.index,
                                  self.corrected(), "host")

    def check(self) -> None:
        """The correction checked alone, not stored."""
        games.rewritten(self.game, self.index, [self.corrected()], 1, ("host", 0))

    def remove(self) -> None:
        self.game = games.remove(self.store, self.game, self.game.version, self.index, "host")

    def undo(self) -> None:
        self.last = self.game.events[-2]
        self.game = games.undo(self.store, self.game, self.game.version, "host")

    def put_back(self) -> None:
        """The drop-out undone recorded again (live mode adds the result again)."""
        self.game = games.append(self.store, self.game, self.game.version, self.last, "host")


def timed(change, runs: int, after=lambda: None) -> str:
    """The median and 95th percentile of `change()` over `runs` calls, `after()` untimed
    after each."""
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        change()
        times.append((time.perf_counter() - began) * 1000)
        after()
    return (f"median {statistics.median(times):.2f} ms, "
            f"p95 {statistics.quantiles(times, n=20)[-1]:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    runs = parser.parse_args().runs
    record = Played(SEED).play()
    store = Store(tempfile.mkdtemp())
    table = Table(store, record)  # a game keeps at most games.MAX_JOURNAL changes: one each
    size, index = len(table.game.events), table.index
    print(f"a full game of {len(PLAYERS)} players and {ROUNDS} rounds, {size} actions; "
          f"the change is action {index + 1}, the first penalty another player could have paid "
          f"(over {runs} runs):")
    print(f"  correction: {timed(table.correct, runs)}; "
          f"checking it alone: {timed(table.check, runs)}")
    table = Table(store, record)
    print(f"  removal: {timed(table.remove, runs, table.new_game)}")
    table = Table(store, record)
    print(f"  undo of the last 2 actions: {timed(table.undo, runs, table.put_back)}")
    speed = timeit.timeit(SPEED, number=10000) / 10000 * 1e6
    print(f"this machine's speed: {SPEED} in {speed:.1f} µs")


if __name__ == "__main__":
    main()
