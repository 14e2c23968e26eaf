"""A stored game seen through the rules core, and the one way to change it.

Every change is checked by folding the new part of the log through the core
before it is written, so a refused action, undo or correction changes nothing.
"""
from dataclasses import dataclass
from functools import cached_property

from .events import Bid, Free, Pass, Sold
from .record import dump_event, dump_record, fold_record, load_setup, parse_event
from .refusal import Refusal
from .state import (GameState, apply_at, auction_result, check_auction_over, fold_all,
                    next_actions, result_refusal)
from .store import Conflict, StoredGame, Store


@dataclass(frozen=True)
class Options:
    """Companion settings that are not part of the game record."""

    money_open: bool = False
    live_auction: bool = False


class Game:
    """A stored game: settings, the event log, and every state along it."""

    def __init__(self, stored: StoredGame):
        self.token = stored.token
        self.version = stored.version
        self.seats = stored.seats
        self.options = Options(**stored.options)
        self.setup = load_setup({**stored.header, "events": []})
        self.events = [parse_event(event) for event in stored.events]

    @cached_property
    def states(self) -> list[GameState]:
        """The state before the first event and after each one."""
        return fold_all(self.setup, self.events)

    @property
    def state(self) -> GameState:
        return self.states[-1]

    def record(self) -> dict:
        """The game record (game-record.md) for export."""
        return dump_record(self.setup, self.events)


def load(store: Store, token: str) -> Game | None:
    stored = store.game(token)
    return None if stored is None else Game(stored)


def create(store: Store, record: dict, options: Options) -> str:
    """Check a whole record (new or imported) and store it as a new game; a record with
    live bids or drop-outs is played on in live auction mode."""
    state = fold_record(record)
    if any(event["type"] in (Bid.kind, Pass.kind) for event in record["events"]):
        options = Options(money_open=options.money_open, live_auction=True)
    result = _live_result(options, state)
    header = {key: value for key, value in record.items() if key != "events"}
    events = record["events"] + [dump_event(event) for event in result]
    return store.create_game(header, vars(options), events)


def auction_running(game: Game) -> bool:
    """Live auction mode is on and the lot's auction is still being bid (R3)."""
    auction = game.state.auction
    return (game.options.live_auction and auction is not None
            and auction.outcome()[0] == "open")


def actions(game: Game) -> frozenset[str]:
    """The kinds of action the game takes now: the round's next events, with a running
    live auction's bids and drop-outs instead of a result, and bids only in live mode."""
    if auction_running(game):
        return next_actions(game.state) - {"sold", "free"}
    return next_actions(game.state) - {"bid", "pass"}


def actions_at(game: Game, index: int) -> frozenset[str]:
    """The kinds of action that could stand in place of event `index` (a correction):
    what the round took at that point, bids and drop-outs only in live mode."""
    kinds = next_actions(game.states[index])
    return kinds if game.options.live_auction else kinds - {"bid", "pass"}


def append(store: Store, game: Game, version: int, event) -> None:
    """Record one more event (in live auction mode, with the result it brings about)."""
    _check_version(game, version)
    _check_mode(game, event)
    _write(store, game, version, len(game.events), [event])


def _check_mode(game: Game, event) -> None:
    """Bids and drop-outs only in live auction mode (the core checks whose turn it is);
    while a live auction runs, no typed result (R3)."""
    if isinstance(event, (Bid, Pass)) and not game.options.live_auction:
        raise Refusal("form", "live auction mode is off in this game: record the sale or "
                              "the free lot")
    if isinstance(event, (Sold, Free)) and game.options.live_auction and game.state.auction:
        check_auction_over(game.state)


def undo(store: Store, game: Game, version: int) -> None:
    """Take back the last action."""
    _check_version(game, version)
    if not game.events:
        raise Refusal("form", "there is nothing to undo")
    _write(store, game, version, len(game.events) - _last_action_size(game), [])


def _last_action_size(game: Game) -> int:
    """1, or 2 when live auction mode added the last event as the result of the one before."""
    if (game.options.live_auction and len(game.events) > 1
            and auction_result(game.states[-2]) == game.events[-1]):
        return 2
    return 1


def correct(store: Store, game: Game, version: int, index: int, event) -> None:
    """Replace event `index`; every later event is checked again."""
    _check_version(game, version)
    _check_index(game, index)
    _write(store, game, version, index, [event], game.events[index + 1:])


def remove(store: Store, game: Game, version: int, index: int) -> None:
    """Take event `index` out of the log; every later event is checked again."""
    _check_version(game, version)
    _check_index(game, index)
    _write(store, game, version, index, [], game.events[index + 1:])


def _check_index(game: Game, index: int) -> None:
    if not 0 <= index < len(game.events):
        raise Refusal("form", "there is no event {index} to correct", index=index)


def _write(store: Store, game: Game, version: int, keep: int, change, later=()) -> None:
    """Keep the first `keep` events, then the events of `change`, then the `later` events
    of the log, each checked again; refuse with the reason, or store them (Conflict if the
    game moved on). In live auction mode a log never ends with an auction that is over
    but not settled: its result is added."""
    new_events = [*change, *later]
    states = [game.states[keep]]
    try:
        for offset, event in enumerate(new_events):
            states.append(apply_at(states[-1], event, keep + offset))
    except Refusal as refusal:
        if refusal.event >= keep + len(change):  # a later event, numbered as the log has it
            number = refusal.event - len(change) + len(game.events) - len(later) - keep + 1
            raise Refusal("form", "this change would make action {number} illegal: {reason}",
                          number=number, reason=refusal) from None
        raise
    new_events = [*new_events, *_live_result(game.options, states[-1])]
    store.write_events(game.token, version, keep, [dump_event(event) for event in new_events])


def _live_result(options: Options, state: GameState) -> list:
    """In live auction mode, the sale or free lot the auction has come to, if it is over
    and the rules allow it (a winner who can no longer pay is left to the table, R5)."""
    if not options.live_auction or result_refusal(state):
        return []
    result = auction_result(state)
    return [] if result is None else [result]


def _check_version(game: Game, version: int) -> None:
    """A form made from an older state of the game is refused before any rule is checked."""
    if version != game.version:
        raise Conflict(game.token)
