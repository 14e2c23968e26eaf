"""Properties that hold at every step of any legal game (tests/strategies.py)."""
import copy
import json
from collections import Counter

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from companion.rules.events import Sold
from companion.rules.record import dump_record, fold_record, load_setup, parse_event
from companion.rules.refusal import Refusal
from companion.rules.state import apply

from tests.strategies import any_events, games

PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def is_free_at_0(setup, event) -> bool:
    """A French sale at 0 is a free lot (R8.6)."""
    return setup.edition == "fr" and event.price == 0


@PROPERTY
@given(games())
def test_R1_coins_plus_pot_always_equal_start_coins_times_players(game):
    total = game.setup.start_coins * len(game.setup.players)
    for state in game.states():
        assert sum(state.coins) + state.pot == total


@PROPERTY
@given(games())
def test_R1_every_card_is_unrevealed_held_discarded_or_in_the_lot(game):
    deck = Counter(game.deck)
    assert len(deck) == 30
    for state in game.states():
        held = [card for hand in state.hands for card in hand]
        unrevealed = [card for card in game.deck if card not in state.seen]
        assert Counter(unrevealed + held + list(state.discarded) + list(state.lot)) == deck


@PROPERTY
@given(games())
def test_R3_R5_no_purse_and_no_pot_is_ever_negative(game):
    for state in game.states():
        assert min(state.coins) >= 0 and state.pot >= 0


@PROPERTY
@given(games())
def test_R8_the_winner_pays_exactly_the_price_and_nobody_else_loses(game):
    for before, event, after in game.steps():
        if isinstance(event, Sold):
            paid = 0 if is_free_at_0(game.setup, event) else event.price
            changes = {name: after.coins_of(name) - before.coins_of(name) for name in game.setup.players}
            assert changes.pop(event.winner) == -paid
            assert min(changes.values()) >= 0


@PROPERTY
@given(games())
def test_R8_R9_the_start_player_is_whoever_last_bought(game):
    """Free lots and French sales at 0 leave the start player where it was."""
    start = game.setup.start_player
    for _, event, after in game.steps():
        if isinstance(event, Sold) and not is_free_at_0(game.setup, event):
            start = event.winner
        assert after.start_player == start


@PROPERTY
@given(games())
def test_R5_R6_an_overbid_before_the_reveal_discards_but_excludes_nobody(game):
    """A side auction's overbid: no exclusion from the lot's auction, none to restart."""
    for before, event, after in game.steps():
        if event.kind == "overbid" and not before.lot:
            assert (after.excluded, after.auction) == (before.excluded, None)
            discards = 1 if before.hand_of(event.player) else 0
            assert len(after.discarded) == len(before.discarded) + discards


@PROPERTY
@given(games())
def test_record_dump_then_load_is_identity(game):
    record = json.loads(json.dumps(dump_record(game.setup, game.events)))
    assert fold_record(record) == game.states()[-1]
    setup, events = load_setup(record), [parse_event(raw) for raw in record["events"]]
    assert (setup, events) == (game.setup, list(game.events))
    assert dump_record(setup, events) == record


@PROPERTY
@given(games(), st.data())
def test_R11_a_refused_event_leaves_the_state_unchanged(game, data):
    states = game.states()
    state = data.draw(st.sampled_from(states), label="state")
    event = data.draw(any_events(game.setup, game.deck), label="event")
    before = copy.deepcopy(state)
    try:
        apply(state, event)
    except Refusal as refusal:
        assert refusal.rule.startswith("R") and refusal.message.endswith(f"({refusal.rule})")
    assert state == before


KINDS = {
    "reveal": lambda event: event.kind == "reveal",
    "sold-at-0": lambda event: event.kind == "sold" and event.price == 0,
    "sold": lambda event: event.kind == "sold" and event.price > 0,
    "free": lambda event: event.kind == "free",
    "penalty": lambda event: event.kind == "penalty",
    "overbid-discarding-a-card": lambda event: event.kind == "overbid" and event.discard is not None,
    "overbid-holding-nothing": lambda event: event.kind == "overbid" and event.discard is None,
    "side-sale": lambda event: event.kind == "side_sale",
    "exchange": lambda event: event.kind == "exchange",
}


SEARCH = settings(max_examples=200, phases=[Phase.generate], database=None, deadline=None)


@pytest.mark.parametrize("edition", ["en", "fr"])
@pytest.mark.parametrize("kind", KINDS)
def test_the_strategy_plays_every_kind_of_event(kind, edition):
    """The properties above do see every event kind, in both editions."""
    find(games(), lambda game: game.setup.edition == edition and any(map(KINDS[kind], game.events)),
         settings=SEARCH)


def test_the_strategy_plays_overbids_in_side_auctions():
    find(games(), lambda game: any(event.kind == "overbid" and not before.lot
                                   for before, event, _ in game.steps()), settings=SEARCH)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_strategy_plays_whole_games(players):
    find(games(), lambda game: len(game.setup.players) == players and game.states()[-1].finished,
         settings=SEARCH)
