"""A stored game seen through the rules core, and the one way to change it.

Every change is checked by folding the new part of the log through the core
before it is written, so a refused action, undo or correction changes nothing.
Every change is signed: `by` names the device that made it ("host", "grant:<id>"
for a device the host granted, "seat:<n>" for a seated phone, "import").
"""
import time
from dataclasses import asdict, dataclass, replace
from functools import cached_property

from .events import Bid, Free, Pass, Sold
from .record import dump_event, dump_record, fold_record, load_setup, parse_event
from .refusal import Refusal
from .state import (GameState, apply, apply_at, auction_result, check_auction_over, fold_all,
                    next_actions)
from .store import Conflict, StoredGame, Store


@dataclass(frozen=True)
class Options:
    """Companion settings that are not part of the game record."""

    money_open: bool = False
    live_auction: bool = False
    phones_record: bool = True  # seated phones may record the table's actions
    unlocked: bool = False  # a finished game may be corrected (the host unlocked it)


class Game:
    """A stored game: settings, the event log, and every state along it."""

    def __init__(self, stored: StoredGame):
        self.token = stored.token
        self.version = stored.version
        self.seats = stored.seats
        self.moves = stored.moves
        self.code = stored.code
        self.created = stored.created
        self.signatures = list(stored.signatures) or [(None, None)] * len(stored.events)
        self.journal = stored.journal
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

    @property
    def locked(self) -> bool:
        """A finished game takes no change until the host unlocks it."""
        return self.state.finished and not self.options.unlocked

    def record(self) -> dict:
        """The game record (game-record.md) for export."""
        return dump_record(self.setup, self.events)


def load(store: Store, token: str) -> Game | None:
    stored = store.game(token)
    return None if stored is None else Game(stored)


def create(store: Store, record: dict, options: Options) -> str:
    """Check a whole record (new or imported) and store it as a new game; a record with
    live bids or drop-outs is played on in live auction mode. Its events are signed as
    imported."""
    state = fold_record(record)
    if any(event["type"] in (Bid.kind, Pass.kind) for event in record["events"]):
        options = replace(options, live_auction=True)
    result = _with_live_result(options, state)[0]
    header = {key: value for key, value in record.items() if key != "events"}
    now = time.time()
    events = record["events"] + [dump_event(event) for event in result]
    return store.create_game(header, asdict(options), [(event, "import", now) for event in events])


def auction_running(game: Game) -> bool:
    """Live auction mode is on and the lot's auction is still being bid (R3)."""
    return _running(game.options, game.state)


def _running(options: Options, state: GameState) -> bool:
    auction = state.auction
    return options.live_auction and auction is not None and auction.outcome()[0] == "open"


def actions(game: Game) -> frozenset[str]:
    """The kinds of action the game takes now."""
    return _kinds(game.options, game.state)


def actions_at(game: Game, index: int) -> frozenset[str]:
    """The kinds of action that could stand in place of event `index` (a correction)."""
    return _kinds(game.options, game.states[index])


def _kinds(options: Options, state: GameState) -> frozenset[str]:
    """The round's next events, with a running live auction's bids and drop-outs instead
    of a result, and bids only in live mode."""
    if _running(options, state):
        return next_actions(state) - {"sold", "free"}
    return next_actions(state) - {"bid", "pass"}


def added_result(game: Game, index: int) -> bool:
    """Whether event `index` is the result live auction mode added: a sale or free lot
    recorded where its auction had ended (the core holds it to how it ended, R3)."""
    return (game.options.live_auction and isinstance(game.events[index], (Sold, Free))
            and auction_result(game.states[index]) is not None)


def append(store: Store, game: Game, version: int, event, by: str) -> None:
    """Record one more event (in live auction mode, with the result it brings about)."""
    _check_version(game, version)
    _check_mode(game.options, game.state, event)
    _write(store, game, version, by, len(game.events), [event])


def _check_mode(options: Options, state: GameState, event) -> None:
    """Bids and drop-outs only in live auction mode (the core checks whose turn it is);
    while a live auction runs, no typed result (R3)."""
    if isinstance(event, (Bid, Pass)) and not options.live_auction:
        raise Refusal("form", "live auction mode is off in this game: record the sale or "
                              "the free lot")
    if isinstance(event, (Sold, Free)) and options.live_auction and state.auction:
        check_auction_over(state)


def undo(store: Store, game: Game, version: int, by: str) -> None:
    """Take back the last action (with the result live auction mode added after it)."""
    _check_version(game, version)
    _check_unlocked(game)
    if not game.events:
        raise Refusal("form", "there is nothing to undo")
    size = 2 if len(game.events) > 1 and added_result(game, len(game.events) - 1) else 1
    _write(store, game, version, by, len(game.events) - size, [], skip=size, kind="undo")


def correct(store: Store, game: Game, version: int, index: int, event, by: str) -> None:
    """Replace event `index`; every later event is checked again."""
    _check_version(game, version)
    _check_unlocked(game)
    _check_index(game, index)
    _check_mode(game.options, game.states[index], event)
    _write(store, game, version, by, index, [event], skip=1, kind="correct")


def remove(store: Store, game: Game, version: int, index: int, by: str) -> None:
    """Take event `index` out of the log; every later event is checked again."""
    _check_version(game, version)
    _check_unlocked(game)
    _check_index(game, index)
    if added_result(game, index):
        raise Refusal("form", "this result follows from the bids: correct or remove a bid "
                              "or a drop-out instead")
    _write(store, game, version, by, index, [], skip=1, kind="remove")


def set_options(store: Store, game: Game, by: str, **changes) -> None:
    """Change the game's companion settings (the host's), noted in its journal."""
    store.set_options(game.token, asdict(replace(game.options, **changes)),
                      (time.time(), by, {"kind": "settings", **changes}))


def _check_unlocked(game: Game) -> None:
    """A finished game is locked against stray taps until the host unlocks it (R2)."""
    if game.locked:
        raise Refusal("R2", "the game is over and locked: the host can unlock it to correct it")


def _check_index(game: Game, index: int) -> None:
    if not 0 <= index < len(game.events):
        raise Refusal("form", "there is no action {number}", number=index + 1)


def _write(store: Store, game: Game, version: int, by: str, keep: int, change, skip: int = 0,
           kind: str | None = None) -> None:
    """Keep the first `keep` events, put the events of `change` in place of the `skip`
    after them, and check every later event again (a result live auction mode added is
    worked out again from the bids). Refuse with the reason, or store the new log
    (Conflict if the game moved on); a log never ends with a live auction that is over
    but not settled: its result is added. New events are signed `by` now, the others
    keep their signatures; an undo or a correction (`kind`) is kept in the journal."""
    now = time.time()
    state, events, signatures = game.states[keep], [], []
    for event in change:
        state = apply_at(state, event, keep + len(events))
        events.append(event)
        signatures.append((by, now))
    for old in range(keep + skip, len(game.events)):
        added = added_result(game, old)
        event = auction_result(state) if added else game.events[old]
        if event is None:  # the auction no longer ends here
            continue
        try:
            state = apply_at(state, event, keep + len(events))
        except Refusal as refusal:
            raise Refusal("form", "this change would make action {number} illegal: {reason}",
                          number=old + 1, reason=refusal) from None
        events.append(event)
        signatures.append((by, now) if added and event != game.events[old]
                          else game.signatures[old])
    result, state = _with_live_result(game.options, state)
    events += result
    signatures += [(by, now)] * len(result)
    moves = money_moves(game.state, state) if skip else None
    journal = None if kind is None else (now, by, {
        "kind": kind, "index": keep, "moves": moves,
        "old": [dump_event(event) for event in game.events[keep:keep + skip]],
        "new": [dump_event(event) for event in change]})
    store.write_events(game.token, version, keep,
                       [(dump_event(event), *signature)
                        for event, signature in zip(events, signatures)], moves, journal)


def money_moves(before: GameState, after: GameState) -> dict:
    """What each purse and the pot gain or lose from one version of the game to another
    (an undo or a correction): the coins to move at the table so that they match."""
    return {"coins": [new - old for old, new in zip(before.coins, after.coins)],
            "pot": after.pot - before.pot}


def _with_live_result(options: Options, state: GameState) -> tuple[list, GameState]:
    """In live auction mode, the sale or free lot the auction has come to, if it is over,
    with the state after it; nothing if the rules refuse it (a winner who can no longer
    pay is left to the table, R5)."""
    result = auction_result(state) if options.live_auction else None
    if result is not None:
        try:
            return [result], apply(state, result)
        except Refusal:
            pass
    return [], state


def _check_version(game: Game, version: int) -> None:
    """A form made from an older state of the game is refused before any rule is checked."""
    if version != game.version:
        raise Conflict(game.token)
