"""What happens now (companion/guide.py) where the web tests' game does not go: exchanges,
players out of the auction, the French ban on bidding 0 (R5, R7, R8, R9)."""
from companion.events import Bid, Sold
from companion.guide import what_now
from companion.state import fold
from tests.helpers import exchange, overbid, play, reveal, setup

HANDS = {"Anna": "red 1 blue 5", "Bert": "red 2 blue 6", "Claus": "red 3 blue 7"}  # Claus starts
LOT = reveal("green 0 green 4")


def words(state, live=False, seat=None) -> list[str]:
    return [str(phrase) for phrase in what_now(state, live, seat)]


def test_R7_the_round_start_tells_of_exchanges_in_turn_from_the_start_player():
    state = play(hands=HANDS, exchange=True, side_sales=False)
    assert words(state)[0] == ("Before the reveal, each player in turn from Claus may swap a "
                               "card with an opponent, and then sits out this round's auction "
                               "(R7).")
    both = play(hands=HANDS, exchange=True)
    assert words(both)[0].endswith("may swap a card with an opponent and then sit out this "
                                   "auction (R6, R7).")
    assert len(words(play(hands=HANDS, side_sales=False))) == 1  # the reveal alone (R2)


def test_R7_a_start_player_who_exchanged_sits_out_and_the_next_player_opens():
    state = play(exchange("Claus", "red 3", "Anna", "red 1"), LOT, hands=HANDS, exchange=True)
    assert words(state)[0] == ("Claus sits out this auction, so Anna opens it; then, clockwise, "
                               "each player bids higher or drops out (R3).")
    assert words(state, seat=2)[1] == ("You exchanged a card this round, so you sit out its "
                                       "auction (R7).")
    assert words(state, seat=0)[1] == "You may not bid amounts ending in 3 or 5 (R3)."


def test_R9_when_everyone_exchanged_the_free_lot_is_to_record():
    state = play(exchange("Claus", "red 3", "Anna", "red 1"),
                 exchange("Anna", "blue 5", "Bert", "blue 6"),
                 exchange("Bert", "red 2", "Claus", "blue 7"), LOT, hands=HANDS, exchange=True)
    assert words(state) == ["Everyone is out of this auction: record the free lot, which goes "
                            "to Claus (R9)."]


def test_R5_an_overbidder_is_told_they_are_out_of_the_restarted_auction():
    state = play(LOT, overbid("Anna", "red 1"), hands=HANDS)
    assert words(state, seat=0)[1] == ("You bid more than you hold, so you sit out this round's "
                                       "auction (R5).")
    assert words(state, live=True) == [
        "Claus opens the bidding or passes; then, clockwise, each player bids higher or drops "
        "out (R3).", "Claus may not bid amounts ending in 3 or 7 (R3)."]


def test_R8_french_rules_nobody_but_the_start_player_may_bid_0():
    game = setup(edition="fr")
    state = fold(game, [reveal("red 1 blue 5"), Sold("Anna", 3), reveal("red 2 blue 6"),
                        Sold("Bert", 4), LOT])
    assert words(state, seat=0)[1] == "You may not bid 0, nor amounts ending in 1 or 5 (R3)."
    assert words(state, seat=1)[1] == "You may not bid amounts ending in 2 or 6 (R3)."
    opened = fold(game, [reveal("red 1 blue 5"), Sold("Anna", 3), reveal("red 2 blue 6"),
                         Sold("Bert", 4), LOT, Bid("Bert", 0)])
    assert words(opened, live=True) == [
        "It is Claus's turn: bid more than 0 or drop out (R3).",
        "Claus may bid any amount from 1 that they can pay (R8)."]
