"""R11: what the companion refuses, with a message naming the rule, the player and the numbers.

Each case builds a table through the events that lead to it, applies one forbidden
event, and checks the exact message and that the table is as it was (`refused`).
"""
import pytest

from companion.rules.events import Free, Penalty, Sold
from companion.rules.record import fold_record, load_setup
from companion.rules.refusal import Refusal

from tests.helpers import (MINIMAL_RECORD, all_rounds_free, exchange, overbid, play, refused,
                           reveal, side_sale)

LOT = "black 0 black 5"
ANNA = {"Anna": "red 1 blue 5"}
# Dealt in this order, so Bert is the start player afterwards (see helpers.deal).
ANNA_BERT = {"Anna": "red 1 blue 5", "Bert": "green 2 yellow 6"}
EVERYONE = {"Bert": "green 2 yellow 6", "Claus": "purple 3 black 8", "Anna": "red 1 blue 5"}


def table(*events, **settings):
    """A table to build when the test runs: `play(*events, **settings)`."""
    return lambda: play(*events, **settings)


def after_reveal(*events, **settings):
    """A table where the lot LOT is on the table, after `events`."""
    return table(*events, reveal(LOT), **settings)


ACTIONS = [
    # R1: the deck's counts
    pytest.param(table(reveal("red 1 blue 5"), Free()), reveal("red 1 green 2"),
                 "the red 1 has already been seen: each card exists once (R1)",
                 id="R1-card-seen-twice"),
    pytest.param(table(), reveal("red 1 red 1"), "the lot shows the red 1 twice (R1)",
                 id="R1-card-twice-in-one-lot"),
    pytest.param(table(reveal(LOT), overbid("Anna", "red 1"), Free(), hands=ANNA), reveal("red 1 green 2"),
                 "the red 1 has already been seen: each card exists once (R1)",
                 id="R1-R5-discarded-card-never-returns"),
    pytest.param(table(reveal("red 0 red 1"), Free(), reveal("red 2 red 3"), Free(),
                       reveal("red 4 blue 5"), Free()),
                 reveal("red 6 blue 6"), "this would be card 6 of the red family, which has 5 (R1)",
                 id="R1-sixth-card-of-a-family"),
    pytest.param(table(reveal("red 7 blue 7"), Free(), reveal("green 7 yellow 1"), Free()),
                 reveal("black 7 purple 2"), "this would be the 4th card numbered 7: there are 3 (R1)",
                 id="R1-fourth-card-of-a-number"),
    pytest.param(table(), reveal("pink 1 blue 5"), "there is no family 'pink' in this game (R1)",
                 id="R1-unknown-family"),
    pytest.param(table(), reveal("red 10 blue 5"), "cards show numbers 0 to 9, not 10 (R1)",
                 id="R1-number-above-9"),
    pytest.param(table(), reveal("red 1 blue 5 green 2"),
                 "a lot is 2 cards, not 3 (R2)", id="R2-lot-of-three"),
    # R2: the order of a round
    pytest.param(table(), Sold("Anna", 3), "a sale needs a lot: reveal round 1's 2 cards first (R2)",
                 id="R2-sale-with-no-lot"),
    pytest.param(table(reveal(LOT), Sold("Anna", 3)), Sold("Anna", 4),
                 "a sale needs a lot: reveal round 2's 2 cards first (R2)",
                 id="R2-second-sale-of-one-lot"),
    pytest.param(table(), Free(), "'nobody bid' needs a lot: reveal round 1's 2 cards first (R2)",
                 id="R2-free-with-no-lot"),
    pytest.param(after_reveal(), reveal("red 1 blue 2"),
                 "a second reveal cannot come after the reveal of round 1: settle the lot first (R2)",
                 id="R2-second-reveal-before-settling"),
    pytest.param(table(side_sales=False), overbid("Anna", None),
                 "no auction is under way for Anna to bid in: the lot is not revealed and side sales are off (R5)",
                 id="R5-overbid-before-reveal-without-side-sales"),
    # R3, R5, R8: what the winner may pay
    pytest.param(after_reveal(), Sold("Bert", 13),
                 "Bert holds 12 coins: a bid of 13 is more than that (R5)",
                 id="R5-price-the-winner-cannot-pay"),
    pytest.param(after_reveal(hands={"Bert": "red 4 blue 5"}, start_coins=20), Sold("Bert", 14),
                 "Bert holds a 4: a bid of 14 is forbidden (R3)", id="R3-price-digit-held"),
    pytest.param(after_reveal(reveal("red 0 blue 5"), Free()), Sold("Anna", 0),
                 "Anna holds a 0: a bid of 0 is forbidden (R3)", id="R3-english-0-with-a-0-held"),
    pytest.param(after_reveal(reveal("red 0 blue 5"), Free(), edition="fr"), Sold("Anna", 0),
                 "Anna holds a 0: a bid of 0 is forbidden (R3)", id="R3-french-0-with-a-0-held"),
    pytest.param(after_reveal(), Sold("Anna", -1), "a price cannot be negative (-1) (R3)",
                 id="R3-negative-price"),
    pytest.param(after_reveal(edition="fr"), Sold("Bert", 0),
                 "French rules: only the start player Anna can win at 0, not Bert (R8)",
                 id="R8-french-price-0-by-a-non-start-player"),
    pytest.param(table(reveal(LOT), overbid("Anna", None)), Sold("Anna", 3),
                 "Anna is excluded from this round's auction (R5/R7)", id="R5-overbid-winner"),
    pytest.param(after_reveal(exchange("Anna", "red 1", "Bert", "green 2"), hands=ANNA_BERT,
                              exchange=True),
                 Sold("Anna", 3), "Anna is excluded from this round's auction (R5/R7)",
                 id="R7-exchanged-winner"),
    # R4, R5: penalties and overbids
    pytest.param(table(side_sales=False), Penalty("Anna"),
                 "no auction is under way for Anna to bid in: the lot is not revealed and side sales are off (R4)",
                 id="R4-penalty-before-reveal-without-side-sales"),
    pytest.param(after_reveal(hands=ANNA), overbid("Anna", "green 3"),
                 "Anna does not hold the green 3 (R5)", id="R5-discard-not-held"),
    pytest.param(after_reveal(hands=ANNA), overbid("Anna", None),
                 "Anna holds 2 cards: one of them must be discarded (R5)",
                 id="R5-no-discard-while-holding-cards"),
    pytest.param(after_reveal(), overbid("Anna", "red 1"),
                 "Anna holds no card, so none can be discarded (R5)", id="R5-discard-holding-nothing"),
    # R6: side sales
    pytest.param(table(), side_sale("Anna", "red 1", "Bert", 3), "Anna does not hold the red 1 (R6)",
                 id="R6-side-sale-of-a-card-not-held"),
    pytest.param(after_reveal(hands=ANNA), side_sale("Anna", "red 1", "Bert", 3),
                 "a side sale cannot come after the reveal of round 2: settle the lot first (R6)",
                 id="R6-side-sale-after-reveal"),
    pytest.param(table(hands=ANNA, side_sales=False), side_sale("Anna", "red 1", "Bert", 3),
                 "side sales are off in this game (R6)", id="R6-side-sale-when-off"),
    pytest.param(table(hands=ANNA), side_sale("Anna", "red 1", "Anna", 3),
                 "Anna cannot buy their own card (R6)", id="R6-seller-buys-own-card"),
    pytest.param(table(side_sale("Anna", "red 1", "Bert", 3), hands=ANNA),
                 side_sale("Anna", "blue 5", "Claus", 2),
                 "Anna has already sold a card this round: one each (R6)",
                 id="R6-second-side-sale-by-one-seller"),
    pytest.param(table(hands={"Anna": "red 1 blue 5", "Bert": "green 2 yellow 3"}),
                 side_sale("Anna", "red 1", "Bert", 13), "Bert holds a 3: a bid of 13 is forbidden (R3)",
                 id="R3-side-sale-price-digit-held-by-buyer"),
    pytest.param(table(hands=ANNA), side_sale("Anna", "red 1", "Bert", 13),
                 "Bert holds 12 coins: a bid of 13 is more than that (R5)",
                 id="R5-side-sale-price-the-buyer-cannot-pay"),
    pytest.param(table(hands=ANNA), side_sale("Anna", "red 1", "Bert", -2),
                 "a price cannot be negative (-2) (R3)", id="R3-side-sale-negative-price"),
    # R7: exchanges
    pytest.param(after_reveal(hands=ANNA_BERT, exchange=True), exchange("Anna", "red 1", "Bert", "green 2"),
                 "an exchange cannot come after the reveal of round 3: settle the lot first (R7)",
                 id="R7-exchange-after-reveal"),
    pytest.param(table(hands=ANNA_BERT), exchange("Anna", "red 1", "Bert", "green 2"),
                 "the exchange variant is off in this game (R7)", id="R7-exchange-when-off"),
    pytest.param(table(exchange("Anna", "red 1", "Bert", "green 2"), hands=ANNA_BERT, exchange=True),
                 exchange("Anna", "green 2", "Bert", "red 1"),
                 "Anna has already exchanged this round: once each (R7)", id="R7-second-exchange"),
    pytest.param(table(exchange("Claus", "purple 3", "Anna", "red 1"), hands=EVERYONE, exchange=True),
                 exchange("Bert", "green 2", "Anna", "blue 5"),
                 "exchanges go clockwise from the start player Anna: Bert's turn came before Claus's (R7)",
                 id="R7-exchange-out-of-clockwise-order"),
    pytest.param(table(hands=ANNA_BERT, exchange=True), exchange("Anna", "red 1", "Anna", "blue 5"),
                 "Anna cannot exchange with themselves (R7)", id="R7-exchange-with-oneself"),
    pytest.param(table(hands=ANNA_BERT, exchange=True), exchange("Anna", "red 1", "Bert", "red 9"),
                 "Bert does not hold the red 9 (R7)", id="R7-take-a-card-the-opponent-lacks"),
    pytest.param(table(hands=ANNA_BERT, exchange=True), exchange("Anna", "red 9", "Bert", "green 2"),
                 "Anna does not hold the red 9 (R7)", id="R7-give-a-card-not-held"),
]


@pytest.mark.parametrize(("build", "event", "message"), ACTIONS)
def test_refused(build, event, message):
    refusal = refused(build(), event)
    assert refusal.message == message
    assert message.endswith(f"({refusal.rule})")


@pytest.mark.parametrize("event", [
    reveal("red 1 blue 1"), Free(), Sold("Anna", 1), Penalty("Anna"), overbid("Anna", None),
    side_sale("Anna", "red 0", "Bert", 1),
], ids=lambda event: event.kind)
def test_R2_anything_after_round_15_is_refused(event):
    finished = play(*all_rounds_free())
    assert finished.finished and finished.rounds_played == 15
    assert refused(finished, event).message == "the game is over: all 15 rounds have settled (R2)"


@pytest.mark.parametrize(("build", "event"), [
    pytest.param(after_reveal(), Sold("Zed", 1), id="winner"),
    pytest.param(after_reveal(), Penalty("Zed"), id="penalty"),
    pytest.param(after_reveal(), overbid("Zed", None), id="overbid"),
    pytest.param(table(hands=ANNA), side_sale("Zed", "red 1", "Bert", 1), id="seller"),
    pytest.param(table(hands=ANNA), side_sale("Anna", "red 1", "Zed", 1), id="buyer"),
    pytest.param(table(hands=ANNA, exchange=True), exchange("Anna", "red 1", "Zed", "green 2"),
                 id="opponent"),
])
def test_R1_unknown_player_is_refused(build, event):
    assert refused(build(), event).message == "'Zed' is not a player of this game (R1)"


@pytest.mark.parametrize(("build", "discard"), [
    pytest.param(table(reveal(LOT), overbid("Anna", "red 1"), hands=ANNA), "blue 5",
                 id="overbid-after-overbid"),
    pytest.param(after_reveal(exchange("Anna", "red 1", "Bert", "green 2"), hands=ANNA_BERT,
                              exchange=True), "green 2", id="overbid-after-exchange"),
])
def test_R5_an_excluded_player_cannot_overbid(build, discard):
    """R3: a player excluded this round takes no part, so cannot bid more than they hold."""
    assert refused(build(), overbid("Anna", discard)).message == (
        "Anna is excluded from this round's auction (R5/R7)")


REVEAL = {"type": "reveal", "cards": [{"family": "red", "number": 1}, {"family": "blue", "number": 5}]}
SOLD = {"type": "sold", "winner": "Anna", "price": 3}
DROP = object()  # a header key to leave out


@pytest.mark.parametrize(("changes", "error"), [
    pytest.param({"format": "templari-game/2"}, "header: the format must be 'templari-game/1'",
                 id="wrong-format"),
    pytest.param({"format": DROP}, "header: the format must be 'templari-game/1'", id="no-format"),
    pytest.param({"players": DROP}, "header: the record needs 'players'", id="no-players"),
    pytest.param({"start_coin": 12}, "header: unknown key 'start_coin' in the record", id="unknown-key"),
    pytest.param({"variants": {"exchanges": True}}, "header: unknown key 'exchanges' in variants",
                 id="unknown-variant"),
    pytest.param({"players": ["Anna", "Bert"]}, "header: Templari is for 3 to 5 players, not 2 (R1)",
                 id="R1-two-players"),
    pytest.param({"players": list("ABCDEF")}, "header: Templari is for 3 to 5 players, not 6 (R1)",
                 id="R1-six-players"),
    pytest.param({"players": ["Anna", " Anna", "Bert"]}, "header: two players are called 'Anna' (R1)",
                 id="R1-duplicate-name-once-trimmed"),
    pytest.param({"players": ["Anna", "", "Bert"]}, "header: a player needs a non-empty name (R1)",
                 id="R1-empty-name"),
    pytest.param({"players": ["Anna", "   ", "Bert"]}, "header: a player needs a non-empty name (R1)",
                 id="R1-blank-name"),
    pytest.param({"players": ["Anna", "x" * 41, "Bert"]},
                 f"header: the name '{'x' * 41}' is longer than 40 characters (R1)", id="R1-41-characters"),
    pytest.param({"players": [1, 2, 3]}, "header: players must be a list, each item text",
                 id="names-not-text"),
    pytest.param({"start_player": "Zed"}, "header: 'Zed' is not a player of this game (R1)",
                 id="R1-unknown-start-player"),
    pytest.param({"start_player": " "}, "header: '' is not a player of this game (R1)",
                 id="R1-blank-start-player"),
    pytest.param({"start_player": 3}, "header: a player name must be text, not 3",
                 id="start-player-not-text"),
    pytest.param({"start_coins": True}, "header: start_coins must be a whole number, not True",
                 id="start-coins-boolean"),
    pytest.param({"start_coins": 12.0}, "header: start_coins must be a whole number, not 12.0",
                 id="start-coins-float"),
    pytest.param({"start_coins": -1}, "header: players cannot start with -1 coins (R1)",
                 id="R1-negative-start-coins"),
    pytest.param({"variants": {"side_auctions": 1}}, "header: side_auctions must be true or false, not 1",
                 id="variant-number"),
    pytest.param({"edition": "de"}, "header: the edition must be 'en' or 'fr', not 'de'",
                 id="R3-unknown-edition"),
    pytest.param({"families": list("abcde")}, "header: the deck has 6 families, not 5 (R1)",
                 id="R1-five-families"),
    pytest.param({"families": list("abcdea")}, "header: two families are called 'a' (R1)",
                 id="R1-duplicate-family"),
    pytest.param({"events": {}}, "header: events must be a list, not {}", id="events-not-a-list"),
    pytest.param({"events": [REVEAL, {**SOLD, "price": True}]},
                 "event 1: price must be a whole number, not True", id="price-boolean"),
    pytest.param({"events": [{**REVEAL, "cards": [{"family": "red", "number": True}, REVEAL["cards"][1]]}]},
                 "event 0: number must be a whole number, not True", id="card-number-boolean"),
    pytest.param({"events": [{**REVEAL, "lot": 1}]}, "event 0: unknown key 'lot' in a reveal event",
                 id="unknown-event-key"),
    pytest.param({"events": [REVEAL, {"type": "sold", "winner": "Anna"}]},
                 "event 1: a sold event needs 'price'", id="missing-event-field"),
    pytest.param({"events": [REVEAL, "sold"]}, "event 1: an event must be an object, not 'sold'",
                 id="event-not-an-object"),
    pytest.param({"events": [REVEAL, SOLD, {"type": "raise", "player": "Bert"}]},
                 "event 2: unknown event type 'raise'", id="unknown-event-type"),
])
def test_record_refused(changes, error):
    """Shape errors have no R-number (rule "record"); rule errors name theirs."""
    record = {key: value for key, value in {**MINIMAL_RECORD, **changes}.items() if value is not DROP}
    with pytest.raises(Refusal) as info:
        fold_record(record)
    refusal = info.value
    assert f"{refusal.where}: {refusal.message}" == error
    assert error.endswith(f"({refusal.rule})") or refusal.rule == "record"


def test_record_refused_a_game_record_is_an_object():
    with pytest.raises(Refusal, match="^a game record is a JSON object$"):
        load_setup([])
