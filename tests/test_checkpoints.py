"""A game keeps a few states along its log (companion/store/checkpoints.py) and a change folds
from the one nearest to it, and stops where it meets the old log again: every change
still gives the game, or the refusal, that folding the whole log from the start gives."""
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules.events import Free, Penalty, Sold
from companion.rules.record import dump_record, fold_record, load_setup, parse_event
from companion.rules.refusal import Refusal
from companion.rules.state import apply, apply_at, auction_result, fold_all, settled_sale
from companion.store import checkpoints, games
from companion.store.sqlite import Store
from tests.strategies import any_events, games as legal_games

NOW = 1000.0  # the clock of every change, so that new signatures compare
CHANGES = settings(max_examples=150, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return Store(tmp_path_factory.mktemp("data"))


def folded_from_the_start(game: games.Game, keep: int, change, skip: int):
    """A change as games made it before it kept states: every state of the old log folded
    from the start, then the new log from the state before the change to its end. Its
    events, signatures and last state, or its Refusal."""
    old = fold_all(game.setup, game.events)
    live = game.options.live_auction
    state, events, signatures = old[keep], list(game.events[:keep]), list(game.signatures[:keep])
    for event in change:
        state = apply_at(state, event, len(events))
        events.append(event)
        signatures.append(("host", NOW))
    for index in range(keep + skip, len(game.events)):
        added = live and _added(game, index, old)
        event = auction_result(state) if added else game.events[index]
        if event is None:
            continue
        try:
            state = apply_at(state, event, len(events))
        except Refusal as refusal:
            raise Refusal("form", "this change would make action {number} illegal: {reason}",
                          number=index + 1, reason=refusal) from None
        events.append(event)
        signatures.append(("host", NOW) if added and event != game.events[index]
                          else game.signatures[index])
    result = auction_result(state) if live else None
    if result is not None:
        try:
            state = apply(state, result)
            events.append(result)
            signatures.append(("host", NOW))
        except Refusal:
            pass
    return events, signatures, state


def _added(game: games.Game, index: int, states) -> bool:
    """Whether event `index` is a result the auction had come to (live mode adds it)."""
    return (isinstance(game.events[index], (Sold, Free))
            and auction_result(states[index]) is not None)


def expected(game: games.Game, operation):
    """What `operation` ((kind, index, event)) should make of `game`, as a full fold."""
    kind, index, event = operation
    old = fold_all(game.setup, game.events)
    if kind == "correct":
        games._check_mode(game.options, old[index], event)
        return folded_from_the_start(game, index, [event], 1)
    if kind == "remove":
        if game.options.live_auction and _added(game, index, old):
            raise Refusal("form", "this result follows from the bids: correct or remove a bid "
                                  "or a drop-out instead")
        return folded_from_the_start(game, index, [], 1)
    size = 2 if len(game.events) > 1 and game.options.live_auction and _added(
        game, len(game.events) - 1, old) else 1
    return folded_from_the_start(game, len(game.events) - size, [], size)


def made(store: Store, game: games.Game, operation) -> games.Game:
    """`operation` made through games, as the server makes it."""
    kind, index, event = operation
    with mock.patch("companion.store.games.time") as clock:
        clock.time.return_value = NOW
        if kind == "correct":
            return games.correct(store, game, game.version, index, event, "host")
        if kind == "remove":
            return games.remove(store, game, game.version, index, "host")
        return games.undo(store, game, game.version, "host")


def words(refusal: Refusal) -> tuple:
    return refusal.rule, refusal.text, refusal.message, refusal.params.get("number")


@st.composite
def operations(draw, game: games.Game, deck):
    """A correction, a removal or an undo; a correction puts in place the same event, a
    penalty, the event of another action, another price, or any event at all; a removal
    is often of an action that changed nothing (a penalty of a player without coins), so
    that the game after it meets the old one at once, one action earlier."""
    kind = draw(st.sampled_from(("correct", "correct", "correct", "remove", "undo")))
    index = draw(st.integers(0, len(game.events) - 1))
    states = fold_all(game.setup, game.events)
    idle = [at for at in range(len(game.events)) if states[at] == states[at + 1]]
    if kind == "remove" and idle and draw(st.booleans()):
        return kind, draw(st.sampled_from(idle)), None
    if kind != "correct":
        return kind, index, None
    own = game.events[index]
    others = [own, draw(st.sampled_from(game.events)), Penalty(draw(st.sampled_from(
        game.setup.players))), draw(any_events(game.setup, deck))]
    if isinstance(own, Sold):
        others.append(Sold(own.winner, draw(st.integers(0, 30))))
    return kind, index, draw(st.sampled_from(others))


def check_same(game: games.Game, events, signatures, state) -> None:
    """`game` is the game a full fold gives: its log, signatures and states (the states
    before each event found from the kept ones, then all along the log), and each sale
    told apart from a free lot at 0 as a fold from the start tells it."""
    assert game.events == events and game.signatures == signatures
    assert game.state == state
    states = fold_all(game.setup, events)
    assert game._states is None  # first from the kept states, then from all of them
    for at in (game.state_at, lambda index: game.states[index]):
        assert [at(index) for index in range(len(events) + 1)] == states
        for index, event in enumerate(events):
            assert (settled_sale(event, at(index), at(index + 1))
                    == settled_sale(event, states[index], states[index + 1]))
    kept = game.kept  # the states along the log are the kept ones where there are
    assert game.states[-1] is game.state and (not events or game.states[-2] is kept.before)
    assert all(game.states[mark] is state for mark, state in zip(kept.marks, kept.states))
    check_kept(game)


def check_kept(game: games.Game) -> None:
    """The states a game keeps: the state before each sale at 0, never more than SPACING
    events apart, and no more than a fold keeps (two for each SPACING events at most)."""
    kept, spacing = game.kept, checkpoints.SPACING
    marks = kept.marks + [kept.length]
    assert kept.marks[0] == 0 and all(b - a <= spacing for a, b in zip(marks, marks[1:]))
    at_zero = [index for index, event in enumerate(game.events)
               if isinstance(event, Sold) and event.price == 0]
    assert set(at_zero) <= set(kept.marks)
    assert len(kept.marks) <= 2 * (kept.length // spacing + 1) + len(at_zero)
    states = fold_all(game.setup, game.events)
    assert [states[mark] for mark in kept.marks] == kept.states
    assert kept.state == states[-1] and kept.before == (states[-2] if game.events else None)


@CHANGES
@given(game=legal_games(), spacing=st.sampled_from((checkpoints.SPACING, 1, 3)),
       live=st.booleans(), data=st.data())
def test_a_change_gives_the_game_a_fold_from_the_start_gives(store, game, spacing, live,
                                                             data):
    """A few corrections, removals and undos in turn on a random game (and undos put
    back), with states kept every SPACING events or every few: each one gives exactly
    the game, or the refusal in the same words, of a fold from the start; the game as
    stored is the game returned."""
    with mock.patch.object(checkpoints, "SPACING", spacing):
        token = games.create(store, dump_record(game.setup, game.events),
                             games.Options(unlocked=True, live_auction=live))
        kept = games.load(store, token)
        for _ in range(data.draw(st.integers(1, 4))):
            if not kept.events:
                break
            operation = data.draw(operations(kept, game.deck))
            try:
                events, signatures, state = expected(kept, operation)
            except Refusal as refusal:
                with pytest.raises(Refusal) as refused:
                    made(store, kept, operation)
                assert words(refused.value) == words(refusal)
                assert words(refused.value.params.get("reason", refusal)) == words(
                    refusal.params.get("reason", refusal))
                assert games.load(store, token).version == kept.version  # nothing written
                continue
            undone = kept.events[-1]
            kept = made(store, kept, operation)
            check_same(kept, events, signatures, state)
            check_same(games.load(store, token), events, signatures, state)
            if operation[0] == "undo" and not live:  # put back (live, a result is not typed)
                kept = games.append(store, kept, kept.version, undone, "host")
                check_same(kept, *_folded(games.load(store, token)))


def _folded(game: games.Game):
    """The game's log and signatures, and its state folded from the start."""
    return game.events, game.signatures, fold_all(game.setup, game.events)[-1]


FRENCH_ZERO = {  # a French game whose round 2 went to the start player at 0 by live bids
    "format": "templari-game/1", "edition": "fr",
    "variants": {"side_auctions": True, "exchange": False},
    "players": ["Anna", "Bert", "Claus"], "start_player": "Anna",
    "events": [
        {"type": "reveal", "cards": [{"family": "red", "number": 1},
                                     {"family": "blue", "number": 2}]},
        {"type": "sold", "winner": "Bert", "price": 3},
        {"type": "penalty", "player": "Bert"},
        {"type": "reveal", "cards": [{"family": "red", "number": 4},
                                     {"family": "green", "number": 5}]},
        {"type": "bid", "player": "Bert", "amount": 0},
        {"type": "pass", "player": "Claus"},
        {"type": "pass", "player": "Anna"},
        {"type": "sold", "winner": "Bert", "price": 0},
        {"type": "reveal", "cards": [{"family": "red", "number": 6},
                                     {"family": "green", "number": 7}]}]}


def test_a_correction_that_meets_the_old_log_before_a_result_the_bids_now_make_otherwise(
        store):
    """An imported French sale at 0 that the live bids make a free lot (R8.6) is written
    again as the free lot by any change before it, even one after which the rest of the
    log would be taken as it was (here the penalty before it recorded again as it was)."""
    token = games.create(store, FRENCH_ZERO, games.Options())
    game = games.load(store, token)
    assert game.options.live_auction and game.events[7] == Sold("Bert", 0)
    operation = ("correct", 2, Penalty("Bert"))
    events, signatures, state = expected(game, operation)
    assert events[7] == Free()
    check_same(made(store, game, operation), events, signatures, state)


def test_a_sale_at_0_after_another_sale_is_told_a_free_lot_whichever_way_its_states_came(
        store):
    """A French sale at 0 after a real sale, then one more action recorded: the history
    (every state) and the page of that action (the states around it) both tell it a free
    lot, not the earlier sale again (settled_sale tells them by the last sale kept)."""
    record = {**FRENCH_ZERO, "events": FRENCH_ZERO["events"][:8]}
    token = games.create(store, record, games.Options())
    game = games.load(store, token)
    game = games.append(store, game, game.version, parse_event(FRENCH_ZERO["events"][8]),
                        "host")
    assert settled_sale(game.events[7], game.state_at(7), game.state_at(8)) is None
    assert settled_sale(game.events[7], game.states[7], game.states[8]) is None
    assert settled_sale(game.events[1], game.states[1], game.states[2]) is not None


def test_a_long_game_keeps_a_few_states_and_finds_any_in_a_few_events(store):
    """2,000 actions keep fewer than 100 states; the state before any action is folded
    from one at most SPACING actions before it."""
    record = {**FRENCH_ZERO, "events": FRENCH_ZERO["events"][:3] + [
        {"type": "penalty", "player": "Bert"}] * (games.MAX_EVENTS - 3)}
    game = games.load(store, games.create(store, record, games.Options()))
    assert len(game.kept.marks) < 100
    check_kept(game)
    with mock.patch("companion.store.checkpoints.apply", side_effect=apply) as folded:
        assert game.state_at(1000) == fold_record({**record, "events": record["events"][:1000]})
    assert folded.call_count < checkpoints.SPACING


def test_a_removal_near_the_start_of_a_long_game_folds_only_until_it_meets_the_old_one(
        store):
    """2,000 actions, Bert's penalties after the first sale: one of them taken out near
    the start, Bert runs out of coins one penalty later, and the game is the old one from
    the next state kept on, one action earlier: a few dozen actions are folded, not
    2,000, and the game is the one a fold from the start gives."""
    record = {**FRENCH_ZERO, "events": FRENCH_ZERO["events"][:3] + [
        {"type": "penalty", "player": "Bert"}] * (games.MAX_EVENTS - 3)}
    game = games.load(store, games.create(store, record, games.Options()))
    operation = ("remove", 4, None)
    events, signatures, state = expected(game, operation)
    with mock.patch("companion.store.checkpoints.apply_at", side_effect=apply_at) as folded:
        changed = made(store, game, operation)
    assert folded.call_count <= 2 * checkpoints.SPACING
    check_same(changed, events, signatures, state)


def test_after_a_sale_at_0_only_the_very_same_last_sale_meets_the_old_log():
    """The state after a French sale at 0, folded again from before the sale of round 1,
    equals the one the old log kept there but holds a last sale made again: taking the
    old log on from it would tell the free lot a sale (settled_sale). It meets the old
    log one action later, after the reveal."""
    record = {**FRENCH_ZERO, "events": [FRENCH_ZERO["events"][index] for index in (0, 1, 3)]
              + [{"type": "sold", "winner": "Bert", "price": 0}, FRENCH_ZERO["events"][8],
                 {"type": "penalty", "player": "Bert"}]}
    events = [parse_event(event) for event in record["events"]]
    states = fold_all(load_setup(record), events)
    old = checkpoints.Kept([0, 3, 4, 5], [states[0], states[3], states[4], states[5]],
                           states[-2], states[-1], len(events))
    folding = checkpoints.Folding(old, events, 2)  # folded again from the start
    folding.step(events[2])
    folding.step(events[3])
    assert folding.state == states[4] and not folding.meets(4)
    folding.step(events[4])
    assert folding.meets(5)


def test_states_kept_close_together_are_left_out_but_not_the_one_before_a_sale_at_0():
    """Where changes met the old log, kept states may come close together: one is left
    out when the next one (or the end) is within SPACING events of the last one kept;
    the state before a sale at 0 always stays."""
    events = [Penalty("Bert")] * 41
    events[12] = Sold("Bert", 0)
    assert checkpoints._thinned([0, 10, 12, 20, 40], list("abcde"), events, 41, 1) == (
        [0, 12], ["a", "c"])
    longer = [Penalty("Bert")] * 52  # without 10, 40 would be 40 events after 0
    assert checkpoints._thinned([0, 10, 40], list("abc"), longer, 52, 1) == (
        [0, 10, 40], ["a", "b", "c"])
