"""The live auction, bid by bid (R3, R4, R5, R8, R9): turn order, raises, the end."""
import pytest
from hypothesis import given, settings, strategies as st

from companion.rules.bidding import highest_allowed, lowest_allowed
from companion.rules.cards import Card
from companion.rules.events import Bid, Free, Pass, Penalty, Sold
from companion.rules.record import dump_record, fold_record
from companion.rules.refusal import Refusal
from companion.rules.replay import replay_text
from companion.rules.state import apply, auction_result, fold, replace, result_refusal
from tests.helpers import exchange, overbid, play, refused, reveal, setup

LOT = reveal("red 1 blue 5")


def live(*events, **settings):
    """The state after revealing the lot and then `events` (Anna starts)."""
    return play(LOT, *events, **settings)


def test_R3_the_start_player_opens_then_clockwise():
    state = live()
    assert state.players[state.auction.turn] == "Anna"
    state = apply(state, Bid("Anna", 2))
    assert state.players[state.auction.turn] == "Bert"
    state = apply(state, Pass("Bert"))
    assert state.players[state.auction.turn] == "Claus"


@pytest.mark.parametrize(("events", "bid", "message"), [
    pytest.param([], Bid("Bert", 3), "it is Anna's turn to bid or pass, not Bert's (R3)",
                 id="out-of-turn"),
    pytest.param([Bid("Anna", 4)], Bid("Bert", 4), "Bert must bid more than 4, not 4 (R3)",
                 id="not-higher"),
    pytest.param([Bid("Anna", 4)], Bid("Bert", 13),
                 "Bert holds 12 coins: a bid of 13 is more than that (R5)", id="unaffordable"),
    pytest.param([Pass("Anna"), Pass("Bert"), Pass("Claus")], Bid("Anna", 1),
                 "the auction is over: record how it ended (R3)", id="after-the-end"),
])
def test_R3_R5_illegal_bids_are_refused(events, bid, message):
    assert refused(live(*events), bid).message == message


def test_R3_a_forbidden_ending_is_refused_and_recorded_as_a_penalty_instead():
    """R4: the player pays 1 coin to the pot and keeps the turn."""
    state = play(LOT, Sold("Anna", 0), reveal("green 2 yellow 6"))  # Anna holds a 1 and a 5
    assert refused(state, Bid("Anna", 11)).message == "Anna holds a 1: a bid of 11 is forbidden (R3)"
    state = apply(state, Penalty("Anna"))
    assert (state.pot, state.players[state.auction.turn]) == (1, "Anna")


def test_R3_when_one_bidder_is_left_the_highest_bid_wins():
    state = live(Pass("Anna"), Bid("Bert", 3), Pass("Claus"))
    assert auction_result(state) == Sold("Bert", 3)


def test_R9_english_rules_nobody_bids_the_lot_goes_free():
    state = live(Pass("Anna"), Pass("Bert"), Pass("Claus"))
    assert auction_result(state) == Free()
    assert apply(state, Free()).hand_of("Anna") == LOT.cards


def test_R3_french_rules_the_start_player_must_open():
    state = live(edition="fr")
    message = "French rules: the start player Anna opens the auction and must bid (0 is allowed) (R3)"
    assert refused(state, Pass("Anna")).message == message


def test_R8_french_rules_an_opening_0_that_nobody_raises_is_a_free_lot():
    state = live(Bid("Anna", 0), Pass("Bert"), Pass("Claus"), edition="fr")
    assert auction_result(state) == Free()
    for result in (Free(), Sold("Anna", 0)):  # either way of recording it (R8.6)
        after = apply(state, result)
        assert (after.coins, after.pot, after.hand_of("Anna")) == ((12, 12, 12), 0, LOT.cards)


def test_R5_an_overbid_restarts_the_auction_without_the_overbidder():
    state = live(Bid("Anna", 2), Bid("Bert", 5), overbid("Claus", None))
    assert (state.auction.high, state.players[state.auction.turn]) == (None, "Anna")
    assert "Claus" not in [state.players[seat] for seat in state.auction.active]


def test_R7_players_who_exchanged_are_skipped():
    state = play(exchange("Anna", "red 1", "Bert", "green 2"), reveal("red 3 blue 6"),
                 hands={"Bert": "green 2 yellow 4", "Anna": "red 1 blue 5"}, exchange=True)
    assert [state.players[seat] for seat in state.auction.active] == ["Bert", "Claus"]


def test_R7_when_everyone_exchanged_the_lot_goes_free_at_once():
    hands = {"Bert": "green 2 yellow 4", "Claus": "green 3 yellow 5", "Anna": "red 1 blue 6"}
    state = play(exchange("Anna", "red 1", "Bert", "green 2"),
                 exchange("Bert", "red 1", "Claus", "green 3"),
                 exchange("Claus", "red 1", "Anna", "green 2"),
                 reveal("red 7 blue 8"), hands=hands, exchange=True)
    assert auction_result(state) == Free()


@pytest.mark.parametrize(("events", "result", "message"), [
    pytest.param([Bid("Anna", 2)], Sold("Anna", 2),
                 "the auction is still on: it is Bert's turn to bid or pass (R3)", id="still-on"),
    pytest.param([Bid("Anna", 2), Pass("Bert"), Pass("Claus")], Sold("Anna", 3),
                 "Anna won the auction at 2 (R3)", id="other-price"),
    pytest.param([Bid("Anna", 2), Pass("Bert"), Pass("Claus")], Free(),
                 "Anna won the auction at 2 (R3)", id="free-after-a-bid"),
    pytest.param([Pass("Anna"), Pass("Bert"), Pass("Claus")], Sold("Bert", 0),
                 "everyone passed without a bid: the lot goes free (R3)", id="sold-after-all-passed"),
])
def test_R3_a_result_after_live_bids_must_be_how_the_auction_ended(events, result, message):
    assert refused(live(*events), result).message == message


def test_live_bids_and_passes_round_trip_through_the_record():
    events = [LOT, Bid("Anna", 2), Pass("Bert"), Pass("Claus"), Sold("Anna", 2)]
    record = dump_record(setup(), events)
    assert {"type": "bid", "player": "Anna", "amount": 2} in record["events"]
    assert fold_record(record) == fold(setup(), events)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 12)), min_size=1, max_size=12))
def test_a_live_auction_pays_exactly_as_the_same_result_entered_directly(moves):
    """Whatever the bids, the refereed auction settles like its result in result mode."""
    start = play(LOT, Sold("Bert", 3), reveal("green 3 yellow 6"))
    state = start
    for raises, amount in moves:
        if auction_result(state) is not None:
            break
        name = state.players[state.auction.turn]
        high = state.auction.high
        move = Bid(name, max(amount, 0 if high is None else high + 1)) if raises else Pass(name)
        try:
            state = apply(state, move)
        except Refusal:  # a forbidden or unaffordable raise: drop out instead
            state = apply(state, Pass(name))
    result = auction_result(state)
    if result is not None:
        assert apply(state, result) == apply(start, result)


def test_replay_summary_shows_a_running_auction():
    state = live(Pass("Anna"), Bid("Bert", 3))
    assert "auction: Bert bids 3, Claus to bid or pass" in replay_text(state).splitlines()[0]


def test_R5_a_winner_left_unable_to_pay_by_a_penalty_gets_no_sale_but_an_overbid():
    """Anna holds a 3 and a 6 (R4: a penalty needs a card that forbids the bid)."""
    state = live(Bid("Anna", 12), Penalty("Anna"), Pass("Bert"), Pass("Claus"),
                 hands={"Anna": "green 3 yellow 6"})
    assert auction_result(state) == Sold("Anna", 12)
    assert result_refusal(state).message == "Anna holds 11 coins: a bid of 12 is more than that (R5)"
    state = apply(state, overbid("Anna", "green 3"))
    assert state.players[state.auction.turn] == "Bert" and state.auction.active == (1, 2)


def test_R8_french_rules_only_the_start_player_may_open_at_0():
    state = live(overbid("Anna", None), edition="fr")  # Bert opens for the excluded Anna
    message = ("French rules: only the start player may open at 0, and Anna does not open "
               "this auction, so Bert can win only above 0 (R8)")
    assert refused(state, Bid("Bert", 0)).message == message


def test_R3_french_rules_whoever_opens_for_an_excluded_start_player_may_pass():
    state = live(overbid("Anna", None), Pass("Bert"), Pass("Claus"), edition="fr")
    assert auction_result(state) == Free()


def test_R3_french_rules_a_start_player_with_no_legal_bid_may_pass():
    """Anna spent all 12 coins and holds a 0: she can bid nothing, not even 0."""
    state = fold(setup(edition="fr"), [reveal("red 0 blue 5"), Sold("Anna", 12),
                                       reveal("green 2 yellow 6")])
    assert (state.coins_of("Anna"), state.start_player) == (0, "Anna")
    state = apply(state, Pass("Anna"))
    assert state.players[state.auction.turn] == "Bert"


def test_R3_R8_a_french_player_holding_every_digit_but_0_may_bid_10_not_0():
    """French rules: only the start player may bid 0 (R8); Bert, holding every digit but 0
    (R3), can still bid 10 if he has it, and with less has no bid at all (found by the
    property test of tests/test_preview.py: the guide said he could bid nothing)."""
    state = live(edition="fr")
    bert = state.players.index("Bert")
    every_digit_but_0 = tuple(Card("red", number) for number in range(1, 10))
    rich = replace(state, hands=state.hands[:bert] + (every_digit_but_0,) + state.hands[bert + 1:])
    assert lowest_allowed(rich, bert) == 10 and highest_allowed(rich, bert) == 10
    assert refused(rich, Sold("Bert", 0)).rule == "R8"
    assert apply(rich, Sold("Bert", 10)).hand_of("Bert")[-2:] == LOT.cards
    poor = replace(rich, coins=rich.coins[:bert] + (9,) + rich.coins[bert + 1:])
    assert lowest_allowed(poor, bert) is None and highest_allowed(poor, bert) is None
