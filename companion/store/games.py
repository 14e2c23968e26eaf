"""A stored game seen through the rules core, and the one way to change it.

Every change is checked by folding the new log through the core before it is written
(its events from the change on, from the state before it), so a refused action, undo or
correction changes nothing.
Every change is signed: `by` names the device that made it ("host", "grant:<id>"
for a device the host granted, "seat:<n>" for a seated phone, "import").
"""
import copy
import time
from dataclasses import asdict, dataclass, replace

from companion.rules.events import Bid, Free, Pass, Sold
from companion.rules.phrase import N_, Phrase
from companion.rules.record import dump_event, dump_record, fold_record, load_setup, parse_event
from companion.rules.refusal import Refusal, public_message
from companion.rules.state import (GameState, apply, apply_at, auction_result,
                                   check_auction_over, fold_all, next_actions)
from .sql import CODE_LENGTH, Bounds, Conflict, SQLStore, StoredGame, Unreadable


# What one game may hold, so that a phone tapping a penalty again and again cannot make
# its pages slow the whole server. A real game needs far fewer events: 15 rounds (R2)
# of 5 players, each round a reveal and a result, at most 5 side sales (one per seller,
# R6), 5 exchanges (one each, R7) and a few overbids (each excludes the player from the
# lot's auction or costs a card, R5); a live auction where each bid raises the high bid,
# which its bidder must be able to pay, rarely passes 40 bids and 5 drop-outs a lot,
# even started again after an overbid; penalties have no bound in the rules (R4), but no
# table pays more than a few a round. About 100 events a round, 1,500 a game: 2,000
# leaves room. Each undo, correction and removal is kept in the journal: a table makes a
# few in a game, and 10 a round would be 150. The host's settings are always noted: only
# host devices make them, and one of them is how the host stops a phone (recording from
# phones off).
MAX_EVENTS = 2000
MAX_JOURNAL = 500


@dataclass(frozen=True)
class Options:
    """Companion settings that are not part of the game record."""

    money_open: bool = False
    live_auction: bool = False
    phones_record: bool = True  # seated phones may record the table's actions
    unlocked: bool = False  # a finished game may be corrected (the host unlocked it)
    guide: bool = False  # every screen says what happens now (help for new players)


class Game:
    """A stored game: settings, the event log and every state along it (`states`: before
    the first event and after each one; `state`: after the last). A Refusal if the log no
    longer replays."""

    def __init__(self, stored: StoredGame):
        self.token = stored.token
        self.version = stored.version
        self.stamp = stored.stamp
        self.seats = stored.seats
        self.moves = _readable(stored.moves)
        self.code = stored.code
        self.created = stored.created
        self.next_game = stored.next_game  # the game its table plays next, once started
        self.signatures = list(stored.signatures) or [(None, None)] * len(stored.events)
        self.journal = [(at, by, _readable(entry)) for at, by, entry in stored.journal]
        self.options = Options(**_readable(stored.options))
        self.setup = load_setup({**_readable(stored.header), "events": []})
        self.events = [_parsed(index, event) for index, event in enumerate(stored.events)]
        self.states = fold_all(self.setup, self.events)
        self.state = self.states[-1]

    def state_at(self, index: int) -> GameState:
        """The state before event `index` (after the last event for len(events))."""
        return self.states[index]

    def changed(self, version: int, stamp: int, keep: int, events, signatures, states,
                moves, journal) -> "Game":
        """This game after a change it was checked for and that was stored: its first
        `keep` events, then `events`, with the `states` the check folded from the state
        before event `keep` on (so nothing is folded again)."""
        game = copy.copy(self)
        game.version, game.stamp, game.moves = version, stamp, moves
        game.events = self.events[:keep] + list(events)
        game.signatures = self.signatures[:keep] + list(signatures)
        game.journal = self.journal + ([] if journal is None else [journal])
        game.states = self.states[:keep] + states
        game.state = states[-1]
        return game

    @property
    def locked(self) -> bool:
        """A finished game takes no change until the host unlocks it."""
        return self.state.finished and not self.options.unlocked

    def record(self) -> dict:
        """The game record (game-record.md) for export."""
        return dump_record(self.setup, self.events)

    @property
    def finished_at(self) -> float:
        """When its last event was recorded (or imported); when it started if unknown."""
        at = self.signatures[-1][1] if self.signatures else None
        return self.created if at is None else at

    @property
    def imported(self) -> bool:
        """Whether every event came with an imported record (none recorded at a table)."""
        return all(by == "import" for by, _ in self.signatures)


class Damaged(Exception):
    """A stored game whose log no longer replays (its database edited by hand): `reason`
    says where and why; `record` is the record as stored, kept for export."""

    def __init__(self, stored: StoredGame, refusal: Refusal):
        super().__init__(refusal.message)
        self.token, self.created = stored.token, stored.created
        self.reason = located(public_message(refusal, True))  # shown to any device (R12)
        header = stored.header if isinstance(stored.header, dict) else {"header": stored.header}
        self.record = {**header, "events": list(stored.events)}


def load(store: SQLStore, token: str) -> Game | None:
    """The stored game, None if there is none; Damaged if its log no longer replays."""
    stored = store.game(token)
    return None if stored is None else checked(stored)


def game_or_damage(stored: StoredGame) -> Game | Damaged:
    """The stored game with its whole log replayed, or Damaged if it no longer replays."""
    try:
        return checked(stored)
    except Damaged as damaged:
        return damaged


def checked(stored: StoredGame) -> Game:
    """The stored game with its whole log replayed; Damaged if the rules refuse it now."""
    try:
        return Game(stored)
    except Refusal as refusal:
        raise Damaged(stored, refusal) from None


def located(refusal: Refusal) -> Refusal | Phrase:
    """A record's refusal with the action it names, if it names one: 'action 12: ...'."""
    if refusal.event is None:
        return refusal
    return Phrase(N_("action {number}: {reason}"), number=refusal.event + 1, reason=refusal)


def _readable(value):
    """A stored value; a Refusal if its text is not JSON."""
    if isinstance(value, Unreadable):
        raise Refusal("record", "its stored text is not valid JSON")
    return value


def _parsed(index: int, raw):
    """Stored event `index` as an event object; a refusal names the action."""
    try:
        return parse_event(_readable(raw))
    except Refusal as refusal:
        refusal.event = index
        raise


def create(store: SQLStore, record: dict, options: Options, host: str | None = None,
           code_length: int = CODE_LENGTH, bounds: Bounds | None = None) -> str:
    """Check a whole record (new or imported) and store it as a new game, hosted by the
    device `host` if given (a hosted server's device token), with a code of `code_length`
    characters, within the server's `bounds` if given (else Bounded); a record with live
    bids or drop-outs is played on in live auction mode. Its events are signed as
    imported; a record longer than one game may hold is refused before its events are
    checked."""
    load_setup(record)  # its shape first: the events are a list
    if len(record["events"]) > MAX_EVENTS:
        raise Refusal("record", "the record holds {count} actions, and one game may hold at "
                                "most {most}", count=len(record["events"]), most=MAX_EVENTS)
    state = fold_record(record)
    if any(event["type"] in (Bid.kind, Pass.kind) for event in record["events"]):
        options = replace(options, live_auction=True)
    result = _live_result(options, state)
    header = {key: value for key, value in record.items() if key != "events"}
    now = time.time()
    events = record["events"] + [dump_event(event) for event in result]
    return store.create_game(header, asdict(options), [(event, "import", now) for event in events],
                             host, code_length, bounds)


def rematch(store: SQLStore, game: Game, start: int, host: str | None = None,
            code_length: int = CODE_LENGTH, bounds: Bounds | None = None) -> str:
    """The token of the game the table of `game` plays next: the same players in the same
    seats, the same rules and settings, the player in seat `start` its first start player
    (R1), its code of `code_length` characters, started within `bounds` as by `create`; the one
    started already, if any (a second tap, another host device)."""
    header = {key: value for key, value in dump_record(game.setup, []).items()
              if key != "events"}
    header["start_player"] = game.setup.players[start]
    return store.rematch(game.token, header, asdict(replace(game.options, unlocked=False)),
                         host, code_length, bounds)


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
    return _kinds(game.options, game.state_at(index))


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
            and auction_result(game.state_at(index)) is not None)


def append(store: SQLStore, game: Game, version: int, event, by: str) -> Game:
    """Record one more event (in live auction mode, with the result it brings about);
    the game as it is now."""
    _check_version(game, version)
    _check_mode(game.options, game.state, event)
    return _write(store, game, version, by, len(game.events), [event])


def _check_mode(options: Options, state: GameState, event) -> None:
    """Bids and drop-outs only in live auction mode (the core checks whose turn it is);
    while a live auction runs, no typed result (R3)."""
    if isinstance(event, (Bid, Pass)) and not options.live_auction:
        raise Refusal("form", "live auction mode is off in this game: record the sale or "
                              "the free lot")
    if isinstance(event, (Sold, Free)) and options.live_auction and state.auction:
        check_auction_over(state)


def undo(store: SQLStore, game: Game, version: int, by: str) -> Game:
    """Take back the last action (with the result live auction mode added after it)."""
    _check_version(game, version)
    _check_unlocked(game)
    if not game.events:
        raise Refusal("form", "there is nothing to undo")
    size = 2 if len(game.events) > 1 and added_result(game, len(game.events) - 1) else 1
    return _write(store, game, version, by, len(game.events) - size, [], skip=size,
                  kind="undo")


def correct(store: SQLStore, game: Game, version: int, index: int, event, by: str) -> Game:
    """Replace event `index`; every later event is checked again."""
    _check_version(game, version)
    _check_unlocked(game)
    _check_index(game, index)
    _check_mode(game.options, game.state_at(index), event)
    return _write(store, game, version, by, index, [event], skip=1, kind="correct")


def remove(store: SQLStore, game: Game, version: int, index: int, by: str) -> Game:
    """Take event `index` out of the log; every later event is checked again."""
    _check_version(game, version)
    _check_unlocked(game)
    _check_index(game, index)
    if added_result(game, index):
        raise Refusal("form", "this result follows from the bids: correct or remove a bid "
                              "or a drop-out instead")
    return _write(store, game, version, by, index, [], skip=1, kind="remove")


def set_options(store: SQLStore, game: Game, by: str, **changes) -> None:
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


def _write(store: SQLStore, game: Game, version: int, by: str, keep: int, change, skip: int = 0,
           kind: str | None = None) -> Game:
    """Keep the first `keep` events, put the events of `change` in place of the `skip`
    after them, and check every later event again (see `rewritten`). Refuse with the
    reason, or store the new log (Conflict if the game moved on). New events are signed
    `by` now, the others keep their signatures; an undo or a correction (`kind`) is kept
    in the journal. Returns the game as stored now, folded from the state before the
    change."""
    now = time.time()
    events, signatures, states = rewritten(game, keep, change, skip, (by, now))
    _check_room(game, keep + len(events), kind)
    moves = money_moves(game.state, states[-1]) if skip else None
    journal = None if kind is None else (now, by, {
        "kind": kind, "index": keep, "moves": moves,
        "old": [dump_event(event) for event in game.events[keep:keep + skip]],
        "new": [dump_event(event) for event in change]})
    tail = _unchanged_tail(game, keep, events, signatures)
    written = len(events) - tail
    before, after = store.write_events(game.token, version, keep,
                                       [(dump_event(event), *signature) for event, signature
                                        in zip(events[:written], signatures[:written])],
                                       moves, journal, tail)
    if before != game.stamp:  # a seat was taken or freed meanwhile: read it all again
        return load(store, game.token)
    return game.changed(version + 1, after, keep, events, signatures, states, moves, journal)


def _unchanged_tail(game: Game, keep: int, events: list, signatures: list) -> int:
    """How many of the new log's last events are stored already as they are, in the same
    places (a correction leaves the log as long: the events after it are mostly the same);
    0 when the log grows or shrinks."""
    if keep + len(events) != len(game.events):
        return 0
    tail = 0
    while (tail < len(events) and events[-1 - tail] == game.events[-1 - tail]
           and signatures[-1 - tail] == game.signatures[-1 - tail]):
        tail += 1
    return tail


def rewritten(game: Game, keep: int, change, skip: int, signature: tuple):
    """The log from event `keep` on, with the events of `change` in place of the `skip`
    there, every later event checked again (a Refusal names the first it would make
    illegal): its events, their signatures (`signature` for the new ones) and the states
    along it, folded through the core from the state before event `keep`. A result live
    auction mode added is worked out again from the bids, and a log never ends with a
    live auction that is over but not settled: its result is added."""
    states, events, signatures = [game.state_at(keep)], [], []

    def fold_in(event, signed) -> None:
        """Fold in the next event of the log (a Refusal names its index)."""
        states.append(apply_at(states[-1], event, keep + len(events)))
        events.append(event)
        signatures.append(signed)

    for event in change:
        fold_in(event, signature)
    for old in range(keep + skip, len(game.events)):
        event, recorded = _refolded(game, old, states[-1]), game.events[old]
        if event is None:  # the auction no longer ends here
            continue
        try:
            fold_in(event, game.signatures[old] if event == recorded else signature)
        except Refusal as refusal:
            raise Refusal("form", "this change would make action {number} illegal: {reason}",
                          number=old + 1, reason=refusal) from None
    for event in _live_result(game.options, states[-1]):
        fold_in(event, signature)
    return events, signatures, states


def _refolded(game: Game, index: int, state: GameState):
    """What stands in place of event `index` when the log is folded again to `state`:
    the event, or if live auction mode added it, the result the auction comes to now
    (None if it no longer ends there)."""
    return auction_result(state) if added_result(game, index) else game.events[index]


def _check_room(game: Game, size: int, kind: str | None) -> None:
    """A change may not take the game past what one game may hold: `size` events (one
    that leaves the log no longer is let through) and, for an undo or a correction
    (`kind`), one more entry in the journal."""
    if size > max(MAX_EVENTS, len(game.events)):
        raise Refusal("form", "this game already holds {count} actions, and one game may hold "
                              "at most {most}: no game of Templari needs so many, so look in "
                              "the history for actions recorded by mistake",
                      count=len(game.events), most=MAX_EVENTS)
    if kind is None:
        return
    kept = sum(entry["kind"] != "settings" for _, _, entry in game.journal)
    if kept >= MAX_JOURNAL:
        raise Refusal("form", "this game's history already keeps {count} undos and "
                              "corrections, and one game may keep at most {most}: nothing "
                              "more can be undone or corrected in it", count=kept,
                      most=MAX_JOURNAL)


def money_moves(before: GameState, after: GameState) -> dict:
    """What each purse and the pot gain or lose from one version of the game to another
    (an undo or a correction): the coins to move at the table so that they match."""
    return {"coins": [new - old for old, new in zip(before.coins, after.coins)],
            "pot": after.pot - before.pot}


def _live_result(options: Options, state: GameState) -> list:
    """In live auction mode, the sale or free lot the auction has come to, if it is over;
    nothing if the rules refuse it (a winner who can no longer pay is left to the table,
    R5)."""
    result = auction_result(state) if options.live_auction else None
    if result is not None:
        try:
            apply(state, result)
            return [result]
        except Refusal:
            pass
    return []


def _check_version(game: Game, version: int) -> None:
    """A form made from an older state of the game is refused before any rule is checked."""
    if version != game.version:
        raise Conflict(game.token)
