"""Live auction mode over HTTP: the table referees bid by bid, phones bid on their turn."""
import json

import pytest

from companion.rules.events import Pass
from companion.store import games
from tests.web_helpers import (act, alerts, body, find_form, import_record, join, new_game,
                               page_headers, phone_client, snapshot, stamp, stored, submit, text,
                               undo)
from tests.web_helpers import app, host, phone  # noqa: F401 (fixtures)

LOT = ("reveal", "red 1", "blue 5")


def live_game(host, **values):
    token = new_game(host, live="on", **values)
    act(host, token, *LOT)
    return token


def bid(client, token, amount, htmx=False):
    return submit(client, f"/g/{token}", "action-bid", htmx=htmx, amount=str(amount))


def drop_out(client, token):
    return submit(client, f"/g/{token}", "action-pass")


def state(app, token):
    return games.load(app.config["STORE"], token).state


def test_R8_a_refereed_auction_pays_exactly_as_the_result_entered_directly(app, host):
    live = live_game(host)
    for response in (drop_out(host, live), bid(host, live, 3), drop_out(host, live)):
        assert response.status_code == 303, alerts(response)
    entered = new_game(host)
    act(host, entered, *LOT)
    act(host, entered, "sold", "Bert", 3)
    after_live, after_result = state(app, live), state(app, entered)
    assert (after_live.coins, after_live.pot, after_live.hands, after_live.start) == (
        after_result.coins, after_result.pot, after_result.hands, after_result.start)
    assert "Bert pays 3" in text(host.get(f"/g/{live}"))


def test_R3_the_table_shows_whose_turn_it_is_and_the_bid_to_beat(host):
    token = live_game(host)
    assert "Anna's turn" in text(host.get(f"/g/{token}"))
    bid(host, token, 2)
    page = text(host.get(f"/g/{token}"))
    assert "High bid: Anna, 2" in page and "Bert's turn" in page and "at least 3" in page


def test_R3_a_phone_bids_on_its_own_turn_and_not_before(app, host, phone):
    token = live_game(host)
    join(phone, token, "Bert")
    assert "Anna's turn" in text(phone.get(f"/g/{token}/me"))
    early = phone.post(f"/g/{token}/me/act", data={"action": "bid", "amount": "4",
                                                   "version": str(stored(app, token)[0])},
                       headers=page_headers(phone.get(f"/g/{token}/me")))
    assert "It is Anna's turn to bid or pass, not Bert's (R3)." in alerts(early)
    bid(host, token, 2)
    response = submit(phone, f"/g/{token}/me", "action-bid", amount="4")
    assert response.status_code == 303
    assert "High bid: Bert, 4" in text(host.get(f"/g/{token}"))


def test_R4_a_forbidden_bid_is_warned_and_booked_as_a_penalty_in_one_tap(app, host):
    token = new_game(host, live="on")
    act(host, token, *LOT)
    for step in (drop_out, drop_out):
        step(host, token)
    bid(host, token, 0)  # Claus takes red 1 and blue 5 for 0: he now holds a 1 and a 5
    act(host, token, "reveal", "green 2", "yellow 6")
    warning = host.get(f"/g/{token}/bid-check?amount=11")
    assert "Claus holds a 1: a bid of 11 is forbidden (R3)." in alerts(warning)
    form = find_form(warning, "book-penalty")
    response = host.post(form.action, data=form.fields, headers=page_headers(host.get(f"/g/{token}")))
    assert response.status_code == 303
    assert state(app, token).pot == 1
    assert "Claus's turn" in text(host.get(f"/g/{token}"))


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
def test_R5_an_unaffordable_bid_is_booked_as_an_overbid_and_the_auction_restarts(app, host, htmx):
    """The table cannot tell before the bid is recorded (R12); once it is refused, the
    overbid is one tap, whichever answer came first. Anna holds no card yet: the tap
    restarts the auction without her and offers no discard (R5)."""
    token = live_game(host)
    assert "Allowed if Anna can pay" in text(host.get(f"/g/{token}/bid-check?amount=13"))
    before = snapshot(app)
    refused = bid(host, token, 13, htmx=htmx)
    assert "Anna cannot pay 13 (R5)." in alerts(refused) and snapshot(app) == before
    assert "Anna said it anyway: restart without them (R5)" in text(refused)
    assert "discard and restart" not in text(refused)
    form = find_form(refused, "book-overbid")
    host.post(form.action, data=form.fields, headers=page_headers(host.get(f"/g/{token}")))
    page = text(host.get(f"/g/{token}"))
    assert "Bert's turn" in page and "Still in: Bert, Claus" in page


def test_R5_the_bidder_s_own_phone_warns_of_an_unaffordable_bid_before_it_is_made(app, host):
    token = live_game(host)
    anna = phone_client(app)
    join(anna, token, "Anna")
    warning = anna.get(f"/g/{token}/me/check?amount=13")
    assert "Anna holds 12 coins: a bid of 13 is more than that (R5)." in alerts(warning)


def test_R8_french_rules_an_opening_0_that_nobody_raises_is_a_free_lot(app, host):
    token = live_game(host, edition="fr")
    for response in (bid(host, token, 0), drop_out(host, token), drop_out(host, token)):
        assert response.status_code == 303, alerts(response)
    after = state(app, token)
    assert after.coins == (12, 12, 12) and after.rounds_played == 1
    assert [card.number for card in after.hand_of("Anna")] == [1, 5]
    assert stored(app, token)[1][-1] == {"type": "free"}  # the record says what it was (R8.6)


def test_R3_french_rules_the_start_player_is_not_offered_a_drop_out_before_opening(host):
    token = live_game(host, edition="fr")
    page = host.get(f"/g/{token}")
    assert 'value="pass"' not in body(page)
    assert ("French rules: the start player opens the bidding and may not drop out (R9)."
            in text(page))
    bid(host, token, 0)
    assert 'value="pass"' in body(host.get(f"/g/{token}"))  # Bert may drop out


def test_R9_a_live_auction_everyone_drops_out_of_is_announced_as_a_free_lot(host, phone):
    token = live_game(host)
    join(phone, token, "Bert")
    for _ in range(3):
        drop_out(host, token)
    for page in (host.get(f"/g/{token}"), phone.get(f"/g/{token}/me")):
        assert "No money moves: Anna takes the lot for free (R9)" in text(page)


def test_undo_takes_back_the_last_pass_and_the_sale_it_brought(app, host):
    token = live_game(host)
    bid(host, token, 2)
    drop_out(host, token)
    drop_out(host, token)
    assert state(app, token).rounds_played == 1
    undo(host, token)
    after = state(app, token)
    assert after.rounds_played == 0 and after.players[after.auction.turn] == "Claus"


def test_correcting_a_bid_rechecks_the_auction_after_it(app, host):
    token = live_game(host)
    bid(host, token, 2)
    bid(host, token, 3)  # Bert
    page = text(host.get(f"/g/{token}/history/1"))
    assert "Now: Anna bid 2" in page
    refused = submit(host, f"/g/{token}/history/1", "action-bid", amount="4")
    assert refused.status_code == 422
    assert "action 3 illegal: Bert must bid more than 4, not 3 (R3)" in text(refused)
    assert state(app, token).auction.high == 3  # nothing changed
    response = submit(host, f"/g/{token}/history/1", "action-bid", amount="1")
    assert response.status_code == 303
    assert "High bid: Bert, 3" in text(host.get(f"/g/{token}"))
    assert "Now: Anna bid 1" in text(host.get(f"/g/{token}/history/1"))


def test_correcting_a_drop_out_names_who_dropped_out(app, host):
    token = live_game(host)
    drop_out(host, token)  # Anna
    assert "Now: Anna dropped out" in text(host.get(f"/g/{token}/history/1"))
    refused = submit(host, f"/g/{token}/history/1", "action-pass", player="1")
    assert "It is Anna's turn to bid or pass, not Bert's (R3)." in alerts(refused)
    assert state(app, token).players[state(app, token).auction.turn] == "Bert"


def test_a_correction_that_ends_the_auction_records_its_sale(app, host):
    token = live_game(host)
    bid(host, token, 2)  # Anna
    drop_out(host, token)  # Bert
    bid(host, token, 3)  # Claus: Anna's turn again
    game = games.load(app.config["STORE"], token)
    games.correct(app.config["STORE"], game, game.version, 3, Pass("Claus"), "host")
    after = state(app, token)
    assert after.rounds_played == 1 and after.start_player == "Anna"
    table = text(host.get(f"/g/{token}"))  # the sale the correction made, to hand over once
    assert "Set the coins right: Anna gives 2, Bert gets 1, Claus gets 1" in table
    assert "Anna pays 2" not in table


def test_R5_a_winner_who_can_no_longer_pay_is_shown_and_booked_as_an_overbid(app, host):
    token = live_game(host)
    for response in (bid(host, token, 0), drop_out(host, token), drop_out(host, token),
                     act(host, token, "reveal", "green 2", "yellow 6")):
        assert response.status_code == 303, alerts(response)  # Anna took red 1, blue 5 for 0
    bid(host, token, 12)  # Anna bids all she holds, then pays a penalty for a forbidden bid
    for response in (act(host, token, "penalty", "Anna"), drop_out(host, token),
                     drop_out(host, token)):
        assert response.status_code == 303, alerts(response)
    assert state(app, token).rounds_played == 1  # no sale Anna cannot pay
    page = host.get(f"/g/{token}")
    assert ("The auction is over, but its result cannot be recorded: Anna cannot pay 12 (R5). "
            "Record the overbid.") in alerts(page)
    assert 'name="action" value="overbid"' in body(page)
    assert find_form(page, "action-overbid").fields["player"] == ["0"]  # Anna, preselected
    assert act(host, token, "overbid", "Anna", "red 1").status_code == 303
    page = text(host.get(f"/g/{token}"))
    assert "Bert's turn" in page and "Still in: Bert, Claus" in page


def test_bids_are_refused_when_live_auction_mode_is_off(app, host):
    token = new_game(host)
    act(host, token, *LOT)
    before = stored(app, token)
    response = host.post(f"/g/{token}/act", data={"action": "bid", "player": "0",
                                                  "amount": "4", "version": str(before[0])},
                         headers=page_headers(host.get(f"/g/{token}")))
    assert response.status_code == 422
    assert ("Live auction mode is off in this game: record the sale or the free lot."
            in alerts(response))
    assert stored(app, token) == before


def test_R3_a_typed_sale_is_refused_while_the_live_auction_runs(app, host):
    token = live_game(host)
    before = stored(app, token)
    response = host.post(f"/g/{token}/act", data={"action": "sold", "winner": "0", "price": "3",
                                                  "version": str(before[0])},
                         headers=page_headers(host.get(f"/g/{token}")))
    assert "The auction is still on: it is Anna's turn to bid or pass (R3)." in alerts(response)
    assert stored(app, token) == before


def test_R8_french_rules_a_phone_opening_for_an_excluded_start_player_cannot_bid_0(app, host):
    token = live_game(host, edition="fr")
    act(host, token, "overbid", "Anna", None)
    warning = host.get(f"/g/{token}/bid-check?amount=0")
    assert ("French rules: only the start player may open at 0, and Anna does not open this "
            "auction, so Bert can win only above 0 (R8)." in alerts(warning))
    before = stored(app, token)
    response = bid(host, token, 0)
    assert response.status_code == 422 and stored(app, token) == before


def test_R12_another_phone_cannot_learn_whether_the_bidder_can_pay(app, host, phone):
    token = live_game(host)
    join(phone, token, "Bert")
    warning = text(phone.get(f"/g/{token}/bid-check?amount=13"))  # Anna's turn, 12 coins
    assert "cannot pay" not in warning
    assert "Allowed if Anna can pay: money is secret, so this device cannot tell (R12)." in warning


def test_an_imported_record_with_live_bids_goes_on_in_live_auction_mode(app, host):
    """A record that stopped in the middle of a live auction can be played on from there."""
    record = {"format": "templari-game/1", "edition": "en", "players": ["Anna", "Bert", "Claus"],
              "events": [{"type": "reveal", "cards": [{"family": "red", "number": 1},
                                                      {"family": "blue", "number": 5}]},
                         {"type": "bid", "player": "Anna", "amount": 3}]}
    response = import_record(host, json.dumps(record).encode())
    token = response.headers["Location"].rsplit("/", 1)[1]
    assert app.config["STORE"].game(token).options["live_auction"] is True
    assert "Bert's turn" in text(host.get(f"/g/{token}"))


def test_after_a_reveal_or_a_settled_lot_the_page_shows_its_top_but_not_after_a_bid(host):
    """On a phone used as the table, the new lot and the payment are at the top of the page;
    a bid keeps the page where the bidding is."""
    token = new_game(host, live="on")
    reveal = act(host, token, *LOT, htmx=True)
    assert reveal.headers.get("HX-Reswap") == "outerHTML show:window:top"
    raise_ = submit(host, f"/g/{token}", "action-bid", htmx=True, amount="2")
    assert raise_.status_code == 200 and "HX-Reswap" not in raise_.headers
    drop_out(host, token)
    settled = submit(host, f"/g/{token}", "action-pass", htmx=True)
    assert "Anna pays 2" in text(settled)
    assert settled.headers.get("HX-Reswap") == "outerHTML show:window:top"


def test_a_phone_is_told_aloud_when_its_turn_comes(host, phone):
    """The turn alert is a live region outside the refreshed part, updated out of band."""
    token = live_game(host)
    join(phone, token, "Bert")
    page = body(phone.get(f"/g/{token}/me"))
    assert '<p id="turn-alert" class="sr" aria-live="assertive"></p>' in page
    seen = stamp(host.application, token)
    bid(host, token, 2)  # Anna: now Bert's turn
    refreshed = body(phone.get(f"/g/{token}/me/live?v={seen}", headers={"HX-Request": "true"}))
    assert ('<p id="turn-alert" class="sr" aria-live="assertive" hx-swap-oob="innerHTML">'
            "Your turn to bid or drop out</p>") in refreshed


def test_correcting_a_bid_works_out_again_the_result_the_bids_came_to(app, host):
    """Anna drops out, Bert bids 3, Claus drops out: the app recorded Bert's sale at 3. In
    fact Bert bid 5: the sale becomes 5 (R3, R8)."""
    token = live_game(host)
    drop_out(host, token)
    bid(host, token, 3)
    drop_out(host, token)
    assert stored(app, token)[1][-1] == {"type": "sold", "winner": "Bert", "price": 3}
    response = submit(host, f"/g/{token}/history/2", "action-bid", amount="5")
    assert response.status_code == 303, alerts(response)
    assert stored(app, token)[1][-1] == {"type": "sold", "winner": "Bert", "price": 5}
    assert "Bert bought the lot for 5" in text(host.get(f"/g/{token}/history"))


def test_removing_a_drop_out_reopens_the_auction_the_app_had_settled(app, host):
    token = live_game(host)
    drop_out(host, token)
    bid(host, token, 3)
    drop_out(host, token)  # Claus: the app records Bert's sale
    response = submit(host, f"/g/{token}/history/3", "action-remove")
    assert response.status_code == 303, alerts(response)
    assert state(app, token).rounds_played == 0
    assert "Claus's turn" in text(host.get(f"/g/{token}"))


def test_the_result_the_app_added_is_corrected_through_the_bids_not_removed(app, host):
    token = live_game(host)
    drop_out(host, token)
    bid(host, token, 3)
    drop_out(host, token)
    page = host.get(f"/g/{token}/history/4")
    assert "Remove this action" not in text(page)
    assert "correct a bid or a drop-out to change it" in text(page)
    before = stored(app, token)
    response = host.post(f"/g/{token}/history/4/remove", headers=page_headers(page),
                         data={"version": str(before[0])})
    assert response.status_code == 422
    assert "This result follows from the bids" in " ".join(alerts(response))
    assert stored(app, token) == before


def test_a_correction_cannot_type_a_result_where_the_live_auction_was_still_running(app, host):
    token = live_game(host)
    bid(host, token, 2)
    before = stored(app, token)
    page = text(host.get(f"/g/{token}/history/1"))
    assert "Sold" not in page.split("Or put another action in its place")[-1]
    response = submit(host, f"/g/{token}/history/1", "action-bid", action="sold",
                      winner="0", price="2")
    assert response.status_code == 422
    assert "The auction is still on: it is Anna's turn to bid or pass (R3)." in " ".join(
        alerts(response))
    assert stored(app, token) == before


def test_french_rules_a_free_lot_at_0_corrected_into_its_sale_at_0_stays_the_app_s_result(app, host):
    """R8.6: 'sold Anna 0' and 'free' are the same result of Anna's unraised 0; either way
    it is the result of the bids, corrected through them."""
    token = live_game(host, edition="fr")
    bid(host, token, 0)
    drop_out(host, token)
    drop_out(host, token)
    response = submit(host, f"/g/{token}/history/4", "action-free", action="sold",
                      winner="0", price="0")
    assert response.status_code == 303, alerts(response)
    assert "Remove this action" not in text(host.get(f"/g/{token}/history/4"))
    response = submit(host, f"/g/{token}/history/1", "action-bid", amount="1")
    assert response.status_code == 303, alerts(response)
    assert stored(app, token)[1][-1] == {"type": "sold", "winner": "Anna", "price": 1}
