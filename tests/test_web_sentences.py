"""Sentences the screens said that the rules did not bear out, found by review agents
against RULES.md: what a phone says it can bid (R3, R5, R9), an overbid before the reveal
(R5, R6), a French win at 0 (R8), a free lot (R9) and a penalty (R4) undone."""
import re

import pytest

from companion.rules.events import Bid, Free, Pass, Sold
from tests.helpers import overbid, reveal
from tests.web_helpers import act, alerts, body, imported, join, phone_client, text, undo
from tests.web_helpers import app, host  # noqa: F401 (fixtures)


def test_R3_R5_a_phone_that_cannot_beat_the_bid_says_it_cannot_bid_not_its_highest(app, host):
    """Live auction: Bert has 3 coins and Claus bid 7. His phone said "Highest bid you
    can make: 3"; he can bid nothing."""
    token = imported(host, reveal("red 1 blue 5"), Sold("Bert", 9), reveal("green 2 yellow 6"),
                     Bid("Bert", 2), Bid("Claus", 7), Pass("Anna"), live=True)
    bert = phone_client(app, "192.168.1.21")
    join(bert, token, "Bert")
    words = text(bert.get(f"/g/{token}/me"))
    assert "3 coins" in words and "You cannot bid at all." in words
    assert "Highest bid you can make" not in words
    assert ("It is your turn: every amount you may bid is more than you hold (R3, R5): drop "
            "out.") in words


def test_R9_a_french_phone_barred_by_the_opening_says_it_cannot_bid(app, host):
    """French rules: Anna starts holding a 0, so must open at 1; Bert has 1 coin and may
    bid only more than 1 (R9): nothing he can pay."""
    token = imported(host, reveal("red 0 yellow 5"), Free(), reveal("green 2 blue 6"),
                     edition="fr", start_coins=1)
    bert = phone_client(app, "192.168.1.21")
    join(bert, token, "Bert")
    words = text(bert.get(f"/g/{token}/me"))
    assert "1 coin" in words and "You cannot bid at all." in words
    assert "Highest bid you can make" not in words


def test_R5_R6_an_overbid_before_the_reveal_starts_the_side_sale_s_auction_again(app, host):
    """Before the reveal an overbid is in a side sale's auction, which starts again without
    the player (R5: "l'enchère en cours est recommencée sans ce joueur"), who is not
    excluded from the lot's: not the lot's auction restarting."""
    token = imported(host, reveal("red 1 blue 5"), Sold("Anna", 3), overbid("Anna", "red 1"))
    said = ("Anna bid more than they hold, discarded ♦ red 1; the side sale's auction starts "
            "again without them")
    assert said in text(host.get(f"/g/{token}"))
    history = text(host.get(f"/g/{token}/history"))
    assert said in history and "restarts" not in history


def test_R5_an_overbid_in_the_lot_s_auction_restarts_it(app, host):
    token = imported(host, reveal("red 1 blue 5"), Sold("Anna", 3), reveal("green 2 yellow 6"),
                     overbid("Anna", "red 1"))
    said = "Anna bid more than they hold, discarded ♦ red 1; the auction restarts"
    assert said in text(host.get(f"/g/{token}"))
    assert said in text(host.get(f"/g/{token}/history"))


def test_R8_a_french_win_at_0_is_told_as_a_free_lot_not_a_purchase(app, host):
    token = imported(host, reveal("red 1 blue 5"), Sold("Anna", 0), edition="fr")
    history = text(host.get(f"/g/{token}/history"))
    assert "Anna won the lot at 0: a free lot (R8)" in history
    assert "bought the lot for 0" not in history


def test_R4_an_undone_penalty_that_cost_nothing_is_not_told_as_a_coin_to_the_pot(app, host):
    """Anna has no coin left: her penalty costs nothing (R4). Undone, the history told it
    as "1 coin to the pot"."""
    token = imported(host, reveal("red 1 blue 5"), Sold("Anna", 3), reveal("green 2 yellow 6"),
                     start_coins=3)
    assert act(host, token, "penalty", "Anna").status_code == 303
    assert undo(host, token).status_code == 303
    history = text(host.get(f"/g/{token}/history"))
    assert "undid Anna made a forbidden bid (R4)" in history
    assert "1 coin to the pot" not in history


def test_R9_a_french_free_lot_is_not_told_as_nobody_bidding(app, host):
    """French rules: the start player must open, so a lot goes free when they open at 0
    and nobody raises, or when they may not bid (R9): not "Nobody bid"."""
    token = imported(host, reveal("red 1 blue 5"), Free(), edition="fr")
    history = text(host.get(f"/g/{token}/history"))
    assert "The lot went free to the start player (R9)" in history
    assert "Nobody bid" not in history


def test_R8_R9_french_rules_a_player_with_no_card_is_not_told_any_amount(app, host):
    """French rules: only the start player can win at 0 (R8.6), and a start player
    holding a 0 opens above it, which anyone else must outbid (R9): the table's cards
    said "may bid any amount" of players with no card."""
    token = imported(host, edition="fr")
    cards = text(host.get(f"/g/{token}"))
    assert "Anna start player no cards May bid any amount Bert" in cards
    assert "Bert no cards May bid any amount above 0" in cards
    token = imported(host, reveal("red 0 blue 5"), Sold("Anna", 3), edition="fr")
    cards = text(host.get(f"/g/{token}"))
    assert "Bert no cards May bid any amount above 1" in cards  # Anna opens at 1 at least
    french = app.test_client()
    french.set_cookie("lang", "fr")
    assert "Peut miser toute somme au-dessus de 1" in text(french.get(f"/g/{token}"))


def test_R9_a_card_drawn_before_the_start_player_takes_a_0_says_the_new_floor(app, host):
    """Bert's card, drawn and kept while he may bid above 0, says above 1 once Anna, the
    start player, holds a 0, though his own hand did not change."""
    token = imported(host, edition="fr")
    assert "Bert no cards May bid any amount above 0" in text(host.get(f"/g/{token}"))
    act(host, token, "reveal", "red 0", "blue 5")
    act(host, token, "sold", "Anna", 3)
    assert "Bert no cards May bid any amount above 1" in text(host.get(f"/g/{token}"))


# --- the French edition's opening, in the table's words (R8.6, R9) -------------------

def in_french(app):
    """The host's device reading the French interface."""
    client = app.test_client()
    client.set_cookie("lang", "fr")
    return client


def free_button(page) -> str | None:
    """The free lot's button on the table, as read; None when it is not offered."""
    found = re.search(r'<form[^>]*class="action action-free".*?</form>', body(page), re.S)
    return found and text(found.group(0))


# The French edition's free lot: the start player opened at 0 and nobody raised (R9).
OPENED_AT_0 = {"en": "The start player opened at 0 and nobody raised: the lot goes free (R9)",
               "fr": "Le premier joueur a ouvert à 0 et personne n'a surenchéri : le lot est "
                     "gratuit (R9)"}
NOBODY_BID = {"en": "Nobody bid: the start player takes the lot",
              "fr": "Personne n'enchérit : le premier joueur prend le lot"}


def test_R9_the_free_lot_button_says_what_makes_a_lot_free_in_each_edition(app, host):
    """English rules: nobody bid. French rules the start player must open: the lot goes
    free when they open at 0 and nobody raises; when they hold a 0 it cannot go free (no
    button); when they do not open (excluded, R5), nobody bid."""
    french = in_french(app)
    english_rules = imported(host, reveal("red 1 blue 5"))
    assert free_button(host.get(f"/g/{english_rules}")) == NOBODY_BID["en"]
    assert free_button(french.get(f"/g/{english_rules}")) == NOBODY_BID["fr"]
    opens = imported(host, reveal("red 1 blue 5"), edition="fr")
    assert free_button(host.get(f"/g/{opens}")) == OPENED_AT_0["en"]
    assert free_button(french.get(f"/g/{opens}")) == OPENED_AT_0["fr"]
    holds_0 = imported(host, reveal("red 0 blue 5"), Free(), reveal("green 2 blue 6"),
                       edition="fr")
    assert free_button(host.get(f"/g/{holds_0}")) is None
    excluded = imported(host, reveal("red 0 blue 5"), Free(), reveal("green 2 blue 6"),
                        overbid("Anna", "blue 5"), edition="fr")
    assert free_button(french.get(f"/g/{excluded}")) == NOBODY_BID["fr"]


# A sale to Bert at 0, French rules, refused: by Anna's opening when she holds a 0 (R9), and
# not as "only Anna can win at 0" when she does not open this auction (R5, R8).
AT_0 = {
    "holds a 0": {
        "en": "French rules: the start player Anna must open at 1 or more, so Bert can win "
              "only above 1, not at 0 (R9).",
        "fr": "Règles françaises : le premier joueur, Anna, doit ouvrir à 1 ou plus, donc "
              "Bert ne peut remporter l'enchère qu'au-dessus de 1, pas à 0 (R9)."},
    "excluded": {
        "en": "French rules: only the start player may open at 0, and Anna does not open "
              "this auction, so Bert can win only above 0 (R8).",
        "fr": "Règles françaises : seul le premier joueur peut ouvrir à 0, et Anna n'ouvre "
              "pas cette enchère, donc Bert ne peut la remporter qu'au-dessus de 0 (R8)."},
}


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("case", AT_0)
def test_R8_R9_a_french_sale_at_0_is_refused_in_words_the_help_bears_out(app, host, case,
                                                                         language):
    excluded = (overbid("Anna", "blue 5"),) if case == "excluded" else ()
    token = imported(host, reveal("red 0 blue 5"), Free(), reveal("green 2 blue 6"),
                     *excluded, edition="fr")
    client = in_french(app) if language == "fr" else host
    assert alerts(act(client, token, "sold", "Bert", 0)) == [AT_0[case][language]]


def part(page, css_class: str) -> str:
    """The text of the page's first element of that class."""
    return text(re.search(rf'<(\w+) class="{css_class}".*?</\1>', body(page), re.S).group(0))


@pytest.mark.parametrize("language, help, turn", [
    ("en", "Claus may bid any amount above 3 that they can pay (R3).",
     "Claus's turn · May bid any amount above 3"),
    ("fr", "Claus peut miser n'importe quelle somme au-dessus de 3, dans la limite de sa "
           "bourse (R3).", "À Claus de jouer · Peut miser toute somme au-dessus de 3")])
def test_R3_R9_a_live_auction_says_the_bid_to_beat_not_the_opening(app, host, language, help,
                                                                   turn):
    """French rules, live: Anna holds a 0 and opens at 1; Bert raises to 3. The help said
    Claus may bid "above 1", the auction's turn "any amount": above 3 now."""
    token = imported(host, reveal("red 0 yellow 5"), Bid("Anna", 0), Pass("Bert"),
                     Pass("Claus"), Free(), reveal("red 1 yellow 6"), Bid("Anna", 1),
                     Bid("Bert", 3), live=True, edition="fr")  # the first game: help on
    page = (in_french(app) if language == "fr" else host).get(f"/g/{token}")
    assert part(page, "guide").endswith(help)
    assert part(page, "turn") == turn
