"""Taking back and correcting what the table recorded: every change re-checks the log
(R11) and tells the table which real coins to move so that they match the app again."""
from tests.web_helpers import (GAME, alerts, body, find_form, join, play, seat, stored,
                               submit, text, undo)
from tests.web_helpers import app, game, host, phone  # noqa: F401 (fixtures)


def history(client, token) -> str:
    """The history's rounds as they stand (without the journal of what was undone)."""
    return text(body(client.get(f"/g/{token}/history")).split('<section class="journal">')[0])


def test_undo_of_a_sale_tells_every_screen_which_coins_go_back(host, phone, game):
    """R8 taken back: Anna paid 3, Bert and Claus took 1 each, 1 stayed in the pot. Every
    screen says so until the next action."""
    join(phone, game, "Bert")
    play(host, game, GAME[:2])
    assert undo(host, game).status_code == 303
    moves = "Set the coins right: Anna gets 3, Bert gives 1, Claus gives 1, 1 comes out of the pot"
    for page in (host.get(f"/g/{game}"), phone.get(f"/g/{game}/me"),
                 host.get(f"/g/{game}/history")):
        assert moves in text(page)
    assert "Anna pays 3" not in text(host.get(f"/g/{game}"))
    play(host, game, [("sold", "Anna", 3)])
    assert moves not in text(host.get(f"/g/{game}"))


def test_undo_of_a_reveal_moves_no_coin_and_says_nothing(host, game):
    play(host, game, GAME[:1])
    undo(host, game)
    assert "Set the coins right" not in text(host.get(f"/g/{game}"))


def test_a_correction_can_put_another_kind_of_action_in_place(app, host, game):
    """Round 3 went free (action 8); in fact Claus bought it for 5: Anna holds the only 5."""
    play(host, game, GAME[:8])
    response = submit(host, f"/g/{game}/history/7", "action-sold", winner=seat("Claus"),
                      price="5")
    assert response.status_code == 303, alerts(response)
    page = history(host, game)
    assert "Claus bought the lot for 5" in page and "Nobody bid" not in page
    assert "Set the coins right: Anna gets 5, Claus gives 5" in page
    assert len(stored(app, game)[1]) == 8


def test_an_action_recorded_by_mistake_can_be_removed(app, host, game):
    """Bert's penalty (action 5) never happened: the pot had 1 coin less for his sale."""
    play(host, game, GAME[:6])
    response = submit(host, f"/g/{game}/history/4", "action-remove")
    assert response.status_code == 303, alerts(response)
    page = history(host, game)
    assert "forbidden bid" not in page
    assert "Bert pays 4 (+ 1 from the pot): Anna takes 2, Claus takes 2, 1 stays in the pot" in page
    assert "Set the coins right: Anna gives 1, Bert gets 1, Claus gives 1, 1 goes into the pot" in page
    assert len(stored(app, game)[1]) == 5


def test_a_removal_that_a_later_action_needs_is_refused_with_its_number(app, host, game):
    """Without Anna's purchase (action 2), round 1's lot is unsettled, so her side sale
    (action 3) would come after a reveal (R6): refused, numbered as the history shows it."""
    play(host, game, GAME[:3])
    before = stored(app, game)
    response = submit(host, f"/g/{game}/history/1", "action-remove")
    assert response.status_code == 422
    assert any("This change would make action 3 illegal: a side sale cannot come after the "
               "reveal of round 1" in alert for alert in alerts(response)), alerts(response)
    assert stored(app, game) == before


def test_the_correction_page_offers_only_what_fits_that_moment(host, game):
    """Action 2 came after a reveal: a sale, a free lot, a penalty or an overbid may stand
    there, not a side sale or another reveal (R2, R6)."""
    play(host, game, GAME[:2])
    page = text(host.get(f"/g/{game}/history/1"))
    for offered in ("Nobody bid", "Penalty (forbidden bid)", "Overbid (more than they hold)",
                    "Remove this action"):
        assert offered in page, offered
    assert "Side sale" not in page and "Reveal the lot" not in page


def test_after_an_undo_the_action_before_is_not_announced_again(host, game):
    """Bert's penalty coin (action 5) was handed over before his sale was undone: the
    table must not be asked to pay it twice; the pot's 2 coins go back in."""
    play(host, game, GAME[:6])
    undo(host, game)
    table = text(host.get(f"/g/{game}"))
    assert "Bert puts 1 coin into the pot" not in table
    assert "Set the coins right: Anna gives 3, Bert gets 4, Claus gives 3, 2 go into the pot" in table


def test_a_refused_removal_keeps_the_action_s_own_form_filled_in(host, game):
    play(host, game, GAME[:3])
    response = submit(host, f"/g/{game}/history/1", "action-remove")
    assert response.status_code == 422
    sold = find_form(response, "action-sold").fields
    assert (sold["winner"], sold["price"]) == ([seat("Anna")], ["3"])


def test_a_correction_cannot_put_a_live_bid_in_a_game_without_live_auctions(app, host, game):
    play(host, game, GAME[:2])
    before = stored(app, game)
    response = submit(host, f"/g/{game}/history/1", "action-sold", action="bid",
                      player=seat("Anna"), amount="3")
    assert response.status_code == 422
    assert "Live auction mode is off in this game" in " ".join(alerts(response))
    assert stored(app, game) == before
