"""The rulings of RULES.md on the French opening (R9), penalties (R4) and overbids in a
side sale's auction (R5, R6): each refusal with its exact message and the state left
as it was (`refused`), and the accepted counterpart of each.

French tables are built with free lots to the start player (the English deal of
tests/helpers.py buys at 0, which French rules keep for the start player).
"""
import pytest

from companion.rules.events import Bid, Free, Pass, Penalty, Sold
from companion.rules.setup import Setup
from companion.rules.state import apply, auction_result, fold, next_actions

from tests.helpers import PLAYERS, cards, exchange, overbid, play, refused, reveal

LOT = reveal("green 2 yellow 6")
ANNA = {"Anna": "red 1 blue 5"}
# Dealt in this order, so Bert is the start player afterwards (see helpers.deal).
ANNA_BERT = {"Anna": "red 1 blue 5", "Bert": "green 3 yellow 7"}


def french(*events, **settings):
    """A French-rules table (Anna starts unless said) after `events`."""
    return fold(Setup(players=PLAYERS, edition="fr", **settings), list(events))


def anna_holds(lot: str, *events, **settings):
    """French rules: Anna, the start player, took `lot` free (she held no 0 then, so could
    open at 0), then the lot LOT is revealed, then `events`."""
    return french(reveal(lot), Free(), LOT, *events, **settings)


# --- R9: the French start player must open, at their lowest legal amount ---------------

def test_R9_french_a_start_player_holding_a_0_cannot_let_the_lot_go_free():
    state = anna_holds("red 0 blue 5")
    assert refused(state, Free()).message == (
        "French rules: the start player Anna holds a 0, so must open at 1 or more and buys "
        "the lot if nobody raises: it cannot go free (R9)")
    assert "free" not in next_actions(state)  # nor is it offered
    assert "free" in next_actions(anna_holds("red 1 blue 5"))  # she may open at 0


def test_R9_french_a_start_player_holding_a_0_whom_nobody_raises_buys_at_their_lowest_amount():
    """Typed as a result, or bid by bid: she opens at 1 and pays it (nobody holds a 1:
    Bert and Claus share 1, which stays in the pot)."""
    state = anna_holds("red 0 blue 5")
    typed = apply(state, Sold("Anna", 1))
    assert (typed.coins, typed.pot, typed.start_player) == ((11, 12, 12), 1, "Anna")
    assert typed.hand_of("Anna")[-2:] == LOT.cards
    live = state
    for event in (Bid("Anna", 1), Pass("Bert"), Pass("Claus")):
        live = apply(live, event)
    assert auction_result(live) == Sold("Anna", 1)
    assert apply(live, Sold("Anna", 1)) == typed


def test_R9_french_a_start_player_holding_a_0_cannot_pass_before_opening():
    assert refused(anna_holds("red 0 blue 5"), Pass("Anna")).message == (
        "French rules: the start player Anna opens the auction and must bid at least 1, "
        "as they hold a 0 (R9)")


def test_R9_french_a_sale_to_another_player_at_the_start_player_s_lowest_opening_is_refused():
    """Anna holds a 0 and a 1: she opens at 2 at least, so Claus buys above 2."""
    state = anna_holds("red 0 red 1")
    assert refused(state, Sold("Claus", 2)).message == (
        "French rules: the start player Anna must open at 2 or more, so Claus can win only "
        "above 2, not at 2 (R9)")
    assert refused(state, Sold("Bert", 1)).message == (
        "French rules: the start player Anna must open at 2 or more, so Bert can win only "
        "above 2, not at 1 (R9)")


def test_R9_french_a_sale_at_0_to_another_player_is_refused_by_the_opening_of_a_start_player_with_a_0():
    """Anna holds a 0: she must open at 1 or more, so she cannot win at 0 either; Bert is
    told the opening he must beat, not that 0 is Anna's (R8.6, R9)."""
    assert refused(anna_holds("red 0 blue 5"), Sold("Bert", 0)).message == (
        "French rules: the start player Anna must open at 1 or more, so Bert can win only "
        "above 1, not at 0 (R9)")


def test_R9_french_a_sale_to_another_player_above_the_start_player_s_lowest_opening_is_accepted():
    after = apply(anna_holds("red 0 red 1"), Sold("Claus", 3))
    assert (after.coins_of("Claus"), after.start_player) == (9, "Claus")


def test_R9_R5_french_an_excluded_start_player_still_gets_a_free_lot():
    """Excluded after an overbid (R5), Anna, who still holds her 0, does not open: if
    nobody else bids the lot goes free to her; anyone else may buy it above 0 (0 stays
    hers alone, R8.6)."""
    state = anna_holds("red 0 blue 5", overbid("Anna", "blue 5"))
    after = apply(state, Free())
    assert after.hand_of("Anna")[-2:] == LOT.cards and after.coins == state.coins
    assert apply(state, Sold("Bert", 1)).start_player == "Bert"
    assert refused(state, Sold("Bert", 0)).message == (  # not "only Anna can win at 0"
        "French rules: only the start player may open at 0, and Anna does not open this "
        "auction, so Bert can win only above 0 (R8)")


def test_R9_R7_french_a_start_player_who_exchanged_still_gets_a_free_lot():
    """Bert took green 3 and yellow 7 free; Anna bought red 0 and blue 5 for 1 above his
    opening at 0, and starts; she exchanges (R7), so does not open."""
    state = french(reveal("green 3 yellow 7"), Free(), reveal("red 0 blue 5"), Sold("Anna", 1),
                   exchange("Anna", "blue 5", "Bert", "green 3"), LOT,
                   start_player="Bert", exchange=True)
    assert state.start_player == "Anna" and state.hand_of("Anna") == cards("red 0 green 3")
    after = apply(state, Free())
    assert after.hand_of("Anna")[-2:] == LOT.cards and after.coins == state.coins


def test_R9_french_a_start_player_with_no_legal_bid_still_gets_a_free_lot():
    """Anna spent her 12 coins and holds a 0: she can bid nothing, not even 0."""
    state = french(reveal("red 0 blue 5"), Sold("Anna", 12), LOT)
    assert state.coins_of("Anna") == 0
    assert apply(state, Free()).hand_of("Anna")[-2:] == LOT.cards
    assert apply(state, Sold("Bert", 1)).start_player == "Bert"


def test_R9_french_a_start_player_with_no_0_may_open_at_0_so_the_lot_may_go_free():
    state = anna_holds("red 1 blue 5")
    after = apply(state, Free())
    assert after.hand_of("Anna")[-2:] == LOT.cards and after.coins == (12, 12, 12)


def test_R9_english_a_start_player_holding_a_0_may_pass_so_the_lot_may_go_free():
    state = fold(Setup(players=PLAYERS, edition="en"), [reveal("red 0 blue 5"), Free(), LOT])
    assert apply(state, Free()).hand_of("Anna")[-2:] == LOT.cards
    assert apply(state, Sold("Bert", 1)).start_player == "Bert"


# --- R4: a penalty needs a bidder who holds a card and, after the reveal, takes part ----

@pytest.mark.parametrize("events", [
    pytest.param([], id="before-the-reveal"),
    pytest.param([LOT], id="after-the-reveal"),
])
def test_R4_a_penalty_for_a_player_who_holds_no_card_is_refused(events):
    """No card forbids nothing (R3), in a side sale's auction or the lot's."""
    assert refused(play(*events, hands=ANNA), Penalty("Claus")).message == (
        "Claus holds no card, so no bid of theirs can be forbidden (R4)")


@pytest.mark.parametrize("events", [
    pytest.param([], id="before-the-reveal"),
    pytest.param([LOT], id="after-the-reveal"),
])
def test_R4_a_penalty_for_a_player_who_holds_a_card_costs_a_coin(events):
    before = play(*events, hands=ANNA)
    after = apply(before, Penalty("Anna"))
    assert (after.coins_of("Anna"), after.pot) == (before.coins_of("Anna") - 1, before.pot + 1)


@pytest.mark.parametrize("build", [
    pytest.param(lambda: play(LOT, overbid("Anna", "red 1"), hands=ANNA), id="after-overbid"),
    pytest.param(lambda: play(exchange("Anna", "red 1", "Bert", "green 3"), LOT,
                              hands=ANNA_BERT, exchange=True), id="after-exchange"),
])
def test_R4_a_penalty_for_a_player_excluded_from_the_lot_s_auction_is_refused(build):
    """An excluded player does not bid (R3), so makes no forbidden bid."""
    assert refused(build(), Penalty("Anna")).message == (
        "Anna is excluded from this round's auction, so makes no bid that could be "
        "forbidden (R4)")


def test_R4_a_player_who_exchanged_may_still_owe_a_penalty_in_a_side_sale_s_auction():
    """Before the reveal an exchange excludes from the lot's auction only (R7, R6)."""
    before = play(exchange("Anna", "red 1", "Bert", "green 3"), hands=ANNA_BERT, exchange=True)
    after = apply(before, Penalty("Anna"))
    assert (after.coins_of("Anna"), after.pot) == (before.coins_of("Anna") - 1, 1)


# --- R5, R6: an overbid in a side sale's auction ------------------------------------

def test_R5_R6_an_overbid_before_the_reveal_discards_and_does_not_exclude():
    """Side sales on: a side auction's overbid costs the discard, and the player still
    bids for the lot, whose auction has not begun."""
    before = play(hands=ANNA)
    assert "overbid" in next_actions(before)
    after = apply(before, overbid("Anna", "red 1"))
    assert (after.hand_of("Anna"), after.discarded) == (cards("blue 5"), cards("red 1"))
    assert (after.excluded, after.auction, after.lot, after.coins) == (
        frozenset(), None, (), before.coins)
    revealed = apply(after, LOT)
    assert "Anna" in [revealed.players[seat] for seat in revealed.auction.active]
    assert apply(revealed, Sold("Anna", 3)).hand_of("Anna")[-2:] == LOT.cards


def test_R5_R6_an_overbid_before_the_reveal_by_a_player_holding_nothing_discards_nothing():
    before = play(hands=ANNA)
    assert apply(before, overbid("Claus", None)) == before


def test_R5_R6_an_overbid_before_the_reveal_must_discard_a_held_card():
    state = play(hands=ANNA)
    assert refused(state, overbid("Anna", None)).message == (
        "Anna holds 2 cards: one of them must be discarded (R5)")
    assert refused(state, overbid("Anna", "green 3")).message == (
        "Anna does not hold the green 3 (R5)")
    one_left = apply(state, overbid("Anna", str(state.hand_of("Anna")[0])))
    assert refused(one_left, overbid("Anna", None)).message == (
        "Anna holds 1 card: it must be discarded (R5)")  # (not "1 cards")


def test_R5_an_overbid_before_the_reveal_with_side_sales_off_is_refused():
    """No side sale, so no auction before the reveal."""
    state = play(hands=ANNA, side_sales=False)
    assert "overbid" not in next_actions(state)
    assert refused(state, overbid("Anna", "red 1")).message == (
        "no auction is under way for Anna to bid in: the lot is not revealed and side sales "
        "are off (R5)")
