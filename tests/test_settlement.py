"""R8 (sold: who gets the money) and R9 (free lot), worked example by worked example.

Every test plays the example through `fold`/`apply` with Reveal and Sold events and
checks what the table sees: the payments, the remainder, and the explanation.
"""
from companion.rules.events import Free, Penalty, Sold
from companion.rules.state import apply, settled_sale

from tests.helpers import overbid, play, reveal

LOT = "black 0 black 5"
# A penalty needs a card that forbids the bid (R4): Claus's, which decide no sale here.
CLAUS = {"Claus": "green 2 green 3"}


def sale(winner, price, *, hands=None, before=(), lot=LOT, **settings):
    """The table just before and just after `winner` buys `lot` for `price`."""
    table = play(*before, reveal(lot), hands=hands, **settings)
    return table, apply(table, Sold(winner, price))


def coin_changes(before, after) -> dict[str, int]:
    """Who gained or lost how many coins, as the table saw it."""
    return {name: after.coins_of(name) - before.coins_of(name)
            for name in before.players if after.coins_of(name) != before.coins_of(name)}


def check_sale(before, after, *, changes, remainder, reason, instructions):
    """The sale's payments, remainder and explanation; the winner is start player (R8)."""
    settled = after.last_sale
    winner = settled.winner
    assert coin_changes(before, after) == changes
    assert settled.payouts == {name: gain for name, gain in changes.items() if name != winner}
    assert (settled.remainder, after.pot) == (remainder, remainder)
    assert settled.reason == reason
    assert settled.instructions == instructions
    assert after.start_player == winner
    assert after.hand_of(winner)[-2:] == before.lot


def test_anna_buys_for_7_bert_holds_the_only_7():
    """R8.4: one player with the most takes it all."""
    check_sale(*sale("Anna", 7, hands={"Bert": "blue 7 red 1"}),
               changes={"Anna": -7, "Bert": 7}, remainder=0,
               reason="Bert holds the only 7: Bert takes 7",
               instructions="Anna pays 7: Bert takes 7")


def test_dieter_buys_for_9_anna_bert_and_claus_hold_one_9_each():
    """R8.4, 4 players: a tie on the most shares equally."""
    hands = {"Anna": "red 9 red 1", "Bert": "yellow 9 yellow 1", "Claus": "green 9 green 1"}
    check_sale(*sale("Dieter", 9, hands=hands, players=("Anna", "Bert", "Claus", "Dieter")),
               changes={"Anna": 3, "Bert": 3, "Claus": 3, "Dieter": -9}, remainder=0,
               reason="Anna, Bert and Claus hold one 9 each: they share 9, 3 each",
               instructions="Dieter pays 9: Anna takes 3, Bert takes 3, Claus takes 3")


def test_anna_buys_for_8_bert_holds_two_8s_claus_one():
    """R8.4: the highest count wins, not everyone holding the number."""
    hands = {"Bert": "red 8 yellow 8", "Claus": "green 8 green 1"}
    check_sale(*sale("Anna", 8, hands=hands),
               changes={"Anna": -8, "Bert": 8}, remainder=0,
               reason="Bert holds two 8s, more than anyone: Bert takes 8",
               instructions="Anna pays 8: Bert takes 8")


def test_anna_buys_for_6_nobody_holds_a_6():
    """R8.4: nobody holds the number, so all but the winner share."""
    check_sale(*sale("Anna", 6),
               changes={"Anna": -6, "Bert": 3, "Claus": 3}, remainder=0,
               reason="nobody holds a 6: Bert and Claus share 6, 3 each",
               instructions="Anna pays 6: Bert takes 3, Claus takes 3")


def test_claus_buys_for_12_bert_holds_the_only_2():
    """R8.2: the deciding number is the price's units digit."""
    check_sale(*sale("Claus", 12, hands={"Bert": "red 2 red 5"}),
               changes={"Claus": -12, "Bert": 12}, remainder=0,
               reason="Bert holds the only 2: Bert takes 12",
               instructions="Claus pays 12: Bert takes 12")


def test_anna_pays_13_then_bert_buys_for_9_with_the_pot():
    """R8.5 then R8.1: the remainder 1 stays in the pot and joins the next sale.

    Players start with 20 coins here, so that Anna can pay 13.
    """
    before, after = sale("Anna", 13, lot="red 1 blue 5", start_coins=20)
    check_sale(before, after,
               changes={"Anna": -13, "Bert": 6, "Claus": 6}, remainder=1,
               reason="nobody holds a 3: Bert and Claus share 13, 6 each, 1 stays in the pot",
               instructions="Anna pays 13: Bert takes 6, Claus takes 6, 1 stays in the pot")
    table = apply(after, reveal("green 2 yellow 6"))
    check_sale(table, apply(table, Sold("Bert", 9)),
               changes={"Bert": -9, "Anna": 5, "Claus": 5}, remainder=0,
               reason="nobody holds a 9: Anna and Claus share 9 + 1 from the pot = 10, 5 each",
               instructions="Bert pays 9 (+ 1 from the pot): Anna takes 5, Claus takes 5")


def test_penalty_coins_in_the_pot_go_to_the_next_sale():
    """R4 + R8.1: a penalty coin is shared with the next price."""
    check_sale(*sale("Anna", 7, hands={"Bert": "blue 7 red 1", **CLAUS}, before=[Penalty("Claus")]),
               changes={"Anna": -7, "Bert": 8}, remainder=0,
               reason="Bert holds the only 7: Bert takes 7 + 1 from the pot = 8",
               instructions="Anna pays 7 (+ 1 from the pot): Bert takes 8")


def test_english_price_0_is_a_sale_that_shares_the_pot():
    """R8.6 English: a price of 0 shares the pot with deciding number 0; the winner starts."""
    pot_of_2 = [Penalty("Claus"), Penalty("Claus")]
    check_sale(*sale("Bert", 0, hands=CLAUS, before=pot_of_2, edition="en"),
               changes={"Anna": 1, "Claus": 1}, remainder=0,
               reason="nobody holds a 0: Anna and Claus share 0 + 2 from the pot = 2, 1 each",
               instructions="Bert pays 0 (+ 2 from the pot): Anna takes 1, Claus takes 1")


def test_french_price_0_is_a_free_lot_for_the_start_player():
    """R8.6 French: the start player wins at 0, the lot goes free, no money moves (R9)."""
    took = [reveal("green 2 green 3"), Free()]  # Bert takes a free lot: he holds no 0
    before, after = sale("Bert", 0, before=[*took, Penalty("Bert")], edition="fr",
                         start_player="Bert")
    assert coin_changes(before, after) == {}
    assert (after.pot, after.start_player, after.last_sale) == (1, "Bert", None)
    assert after.hand_of("Bert")[-2:] == before.lot


def test_french_price_0_after_a_sale_settles_nothing_however_the_states_were_folded():
    """R8.6 French: a win at 0 after an earlier sale is a free lot, not that sale again,
    whether the states around it come from one fold or from two (a history, a screen)."""
    round_1 = [reveal("red 1 blue 2"), Sold("Bert", 3)]  # Bert starts from round 2
    before = play(*round_1, reveal("red 4 green 5"), edition="fr")
    after = apply(before, Sold("Bert", 0))
    again = play(*round_1, reveal("red 4 green 5"), Sold("Bert", 0), edition="fr")
    assert after == again and after.last_sale == before.last_sale  # Bert's sale at 3
    assert settled_sale(Sold("Bert", 0), before, after) is None
    assert settled_sale(Sold("Bert", 0), before, again) is None
    first = play(reveal("red 1 blue 2"), edition="fr")
    assert settled_sale(Sold("Bert", 3), first, play(*round_1, edition="fr")) == (
        before.last_sale)


def test_free_lot_goes_to_the_start_player_and_the_pot_stays():
    """R9: no money moves, the pot stays, the start player keeps starting."""
    table = play(Penalty("Claus"), reveal(LOT), hands=CLAUS)  # Claus starts, dealt last
    after = apply(table, Free())
    assert coin_changes(table, after) == {}
    assert (after.pot, after.start_player, after.rounds_played) == (1, "Claus", 2)
    assert after.hand_of("Claus")[-2:] == table.lot


def test_cards_count_as_held_before_the_lot_is_taken():
    """R8.3: the lot's own cards never decide who is paid, even the winner's."""
    before, after = sale("Anna", 5, hands={"Claus": "red 5 red 1"}, lot="blue 5 green 5")
    check_sale(before, after, changes={"Anna": -5, "Claus": 5}, remainder=0,
               reason="Claus holds the only 5: Claus takes 5",
               instructions="Anna pays 5: Claus takes 5")


def test_excluded_players_still_receive_money():
    """R8.3: a player who overbid this round (R5) is counted like the others."""
    table = play(reveal(LOT), overbid("Bert", "red 1"), hands={"Bert": "blue 7 red 1"})
    check_sale(table, apply(table, Sold("Anna", 7)),
               changes={"Anna": -7, "Bert": 7}, remainder=0,
               reason="Bert holds the only 7: Bert takes 7",
               instructions="Anna pays 7: Bert takes 7")


def test_english_price_0_with_too_little_to_share_says_nobody_takes_anything():
    """R8.5: 1 coin in the pot cannot be shared by 3 players: it all stays there."""
    before, after = sale("Anna", 0, hands=CLAUS, before=[Penalty("Claus")],
                         players=("Anna", "Bert", "Claus", "Dieter"))
    assert coin_changes(before, after) == {} and after.pot == 1
    assert after.last_sale.instructions == (
        "Anna pays 0 (+ 1 from the pot): nobody takes anything, 1 stays in the pot")


def test_a_remainder_of_2_stays_in_the_pot_in_the_plural():
    """R8.5 with 4 players: 5 shared by 3 is 1 each, 2 stay in the pot."""
    check_sale(*sale("Anna", 5, players=("Anna", "Bert", "Claus", "Dieter")),
               changes={"Anna": -5, "Bert": 1, "Claus": 1, "Dieter": 1}, remainder=2,
               reason="nobody holds a 5: Bert, Claus and Dieter share 5, 1 each, "
                      "2 stay in the pot",
               instructions="Anna pays 5: Bert takes 1, Claus takes 1, Dieter takes 1, "
                            "2 stay in the pot")
