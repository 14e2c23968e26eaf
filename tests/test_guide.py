"""What happens now (companion/rules/guide.py) where the web tests' game does not go: exchanges,
players out of the auction, the French ban on bidding 0 (R5, R7, R8, R9)."""
from companion.rules.events import Bid, Free, Pass, Penalty, Sold
from companion.rules.guide import what_now
from companion.rules.state import apply, fold
from tests.helpers import exchange, overbid, play, refused, reveal, setup

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


def test_R9_french_rules_others_are_told_to_bid_above_the_opening_of_a_start_player_with_a_0():
    """Claus buys a 0 and a 1 and starts: he must open at 2, so the others win only above
    2 (R9), as the core holds them to."""
    state = fold(setup(edition="fr"), [
        reveal("red 2 blue 5"), Sold("Anna", 3), reveal("red 3 blue 6"), Sold("Bert", 4),
        reveal("red 0 blue 1"), Sold("Claus", 4), reveal("green 4 green 7")])
    assert words(state)[0] == ("Claus holds a 0, so must open at 2 or more, and buys the lot if "
                               "nobody raises (R9).")
    assert words(state, seat=1)[1] == ("You may bid only more than 2, and no amount ending in 3 "
                                       "or 6 (R3, R9).")
    assert refused(state, Sold("Bert", 2)).rule == "R9"
    assert apply(state, Sold("Bert", 4)).last_sale.winner == "Bert"


def test_R3_R9_a_live_auction_s_help_says_the_bid_to_beat_once_it_is_above_the_opening():
    """Claus holds a 0 and a 1, starts, and opens at 2 as he must; Anna raises to 4: Bert
    may bid only above 4 now, not "above 2" (R3, R9)."""
    state = fold(setup(edition="fr"), [
        reveal("red 2 blue 5"), Sold("Anna", 3), reveal("red 3 blue 6"), Sold("Bert", 4),
        reveal("red 0 blue 1"), Sold("Claus", 4), reveal("green 4 green 7")])
    assert words(apply(state, Bid("Claus", 2)), live=True)[1] == (
        "Anna may bid only more than 2, and no amount ending in 2 or 5 (R3, R9).")
    raised = apply(apply(state, Bid("Claus", 2)), Bid("Anna", 4))
    assert words(raised, live=True) == [
        "It is Bert's turn: bid more than 4 or drop out (R3).",
        "Bert may bid only more than 4, and no amount ending in 3 or 6 (R3)."]
    assert words(raised, live=True, seat=1)[1] == (
        "You may bid only more than 4, and no amount ending in 3 or 6 (R3).")


def test_R9_french_rules_a_start_player_with_no_legal_bid_does_not_open():
    """Anna holds a 0 and a 1 and has 1 coin: every amount she can pay is forbidden."""
    state = fold(setup(edition="fr", start_coins=1),
                 [reveal("red 0 blue 1"), Free(), reveal("green 4 green 7")])
    assert words(state)[0] == ("Anna has no amount they may bid, so does not open; then, "
                               "clockwise, each player bids or drops out (R9).")


def test_R5_a_live_auction_whose_winner_can_no_longer_pay_asks_for_the_overbid():
    """Anna bids 12 of her 12 coins, then pays a penalty coin (R4): her win cannot be
    recorded, her overbid can."""
    state = play(reveal("red 1 blue 5"), Bid("Anna", 12), Penalty("Anna"), Pass("Bert"),
                 Pass("Claus"), hands={"Anna": "green 3 yellow 6"})
    expected = ["Anna won the auction at 12 but can no longer pay it: record their overbid; "
                "they discard a card and the auction starts again without them (R5)."]
    assert words(state, live=True) == expected
    assert words(state, live=True, seat=1) == expected


def test_R6_R7_round_1_offers_no_side_sale_nor_exchange_when_nobody_holds_a_card():
    """A side sale needs a card to sell (R6), an exchange a card to give and one to take
    (R7): before the first lot nobody holds one."""
    first = fold(setup(exchange=True), [])
    reveal_1 = ("Anna is the start player: turn over the top 2 cards of the deck, the lot of "
                "round 1 (R2).")
    assert words(first) == words(first, seat=1) == [reveal_1]
    one_holder = play(hands={"Anna": "red 1 blue 5"}, exchange=True)  # Anna starts
    assert words(one_holder)[0] == ("Before the reveal, a player may put one of their cards "
                                    "up for auction among the others; the buyer pays the "
                                    "seller (R6).")  # nobody to swap with (R7)


def test_R7_no_second_exchange_is_offered_nor_one_whose_turn_has_passed():
    """Claus starts; exchanges go Claus, Anna, Bert, once each (R7)."""
    offer = ("Before the reveal, each player in turn from Claus may swap a card with an "
             "opponent, and then sits out this round's auction (R7).")
    claus = play(exchange("Claus", "red 3", "Anna", "red 1"), hands=HANDS, exchange=True,
                 side_sales=False)
    assert words(claus, seat=2) == ["You are the start player: turn over the top 2 cards of "
                                    "the deck, the lot of round 4 (R2)."]
    assert words(claus)[0] == words(claus, seat=0)[0] == words(claus, seat=1)[0] == offer
    bert = play(exchange("Claus", "red 3", "Anna", "red 1"),
                exchange("Bert", "red 2", "Claus", "blue 7"), hands=HANDS, exchange=True,
                side_sales=False)
    assert len(words(bert)) == len(words(bert, seat=0)) == 1  # Anna's turn has passed


# Anna holds a 0 and a 1 and has 1 coin: every amount she can pay ends in a number she
# holds (R3, R5). Bert starts and holds a 2 and a 5.
SHORT = {"Anna": "red 0 blue 1", "Bert": "red 2 blue 5"}


def test_R3_R5_a_player_who_can_bid_nothing_is_told_so_on_their_phone_only():
    state = play(LOT, hands=SHORT, start_coins=1)
    nothing = ("You can bid nothing in this auction: every amount you may bid is more than you "
               "hold (R3, R5).")
    assert words(state, seat=0)[1] == nothing
    assert words(state, seat=1)[1] == "You may not bid amounts ending in 2 or 5 (R3)."
    assert words(state, live=True, seat=0)[1] == nothing
    bert_opened = apply(apply(state, Bid("Bert", 0)), Pass("Claus"))
    assert words(bert_opened, live=True, seat=0)[0] == (
        "It is your turn: every amount you may bid is more than you hold (R3, R5): drop out.")
    # The table may not learn what Anna can pay (R12).
    assert words(bert_opened, live=True) == [
        "It is Anna's turn: bid more than 0 or drop out (R3).",
        "Anna may bid only more than 0, and no amount ending in 0 or 1 (R3)."]


def test_R9_a_french_start_player_who_cannot_open_is_told_so_on_the_table_and_their_phone():
    """Anna holds a 0 and a 1 and has 1 coin: she does not open (R9)."""
    state = fold(setup(edition="fr", start_coins=1),
                 [reveal("red 0 blue 1"), Free(), reveal("green 4 green 7")])
    table = ("Anna has no amount they may bid, so does not open; then, clockwise, each player "
             "bids or drops out (R9).")
    assert words(state)[0] == words(state, live=True)[0] == words(state, seat=1)[0] == table
    assert words(state, seat=0)[0] == ("You have no amount you may bid, so you do not open; "
                                       "then, clockwise, each player bids or drops out (R9).")
    assert words(state, live=True, seat=0)[0] == (
        "It is your turn: you have no amount you may bid, so you do not open: drop out (R9).")


def test_R3_a_player_holding_every_number_is_told_that_is_why_they_can_bid_nothing():
    """Anna holds a card of every number, 0 to 9: every amount ends in one she holds (R3),
    whatever her coins (found by a second agent's review: the phone spoke of her money)."""
    state = play(LOT, hands={"Bert": "blue 5 blue 6",
                             "Anna": "red 0 red 1 red 2 red 3 red 4 yellow 5 yellow 6 yellow 7 "
                                     "yellow 8 yellow 9"})
    assert state.start_player == "Anna" and state.coins_of("Anna") > 9
    assert words(state, seat=0)[1] == (
        "You can bid nothing in this auction: you hold every number from 0 to 9, so every "
        "amount ends in one you hold (R3).")
    assert words(state, live=True, seat=0)[0] == (
        "It is your turn: you hold every number from 0 to 9, so every amount ends in one you "
        "hold (R3): drop out.")


def test_R5_R9_a_french_player_barred_by_the_opening_is_told_so():
    """French rules: Anna starts holding a 0, so must open at 1 (R9); Bert, with 1 coin, may
    bid only more than 1, which he cannot pay (R5). Said so, not as if the amounts he may
    bid were barred by his cards."""
    state = fold(setup(edition="fr", start_coins=1),
                 [reveal("red 0 yellow 5"), Free(), reveal("green 2 blue 6")])
    assert (state.start_player, state.coins_of("Bert")) == ("Anna", 1)
    assert words(state, seat=1)[1] == (
        "You can bid nothing in this auction: you may bid only more than 1 (R9), which is "
        "more than you hold (R5).")
