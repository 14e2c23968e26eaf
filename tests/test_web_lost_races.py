"""Every outcome told where it was asked (issue 11): a change that lost the race says, on
the device that sent it, what happened instead; a form sent again after its answer was
lost counts once and says so."""
import re

from tests.web_helpers import (GAME, act, action_fields, find_form, join, new_game, page_headers,
                               phone_client, play, stored, text)
from tests.web_helpers import app, game, host  # noqa: F401 (fixtures)

SIGNED = r"Recorded first by {who} at \d\d:\d\d: {what}\. {yours}"


def send(client, page, key, **fields):
    """Post the form `key` as the page showed it (its version), with `fields` filled in."""
    form = find_form(page, key)
    return client.post(form.action, data=form.fields | fields, headers=page_headers(page))


def test_a_sale_sent_again_after_its_answer_was_lost_counts_once(app, host, game):
    play(host, game, GAME[:1])
    page = host.get(f"/g/{game}")
    assert send(host, page, "action-sold", **action_fields("sold", "Anna", 3)).status_code == 303
    version, events = stored(app, game)
    again = send(host, page, "action-sold", **action_fields("sold", "Anna", 3))
    assert again.status_code == 200
    assert ("This device had already sent it, and it counts once. Recorded first by the "
            "host's device at") in text(again)
    assert "Anna bought the lot for 3." in text(again)
    assert stored(app, game) == (version, events)


def test_another_sale_from_the_same_old_form_is_told_it_was_not_recorded(app, host, game):
    play(host, game, GAME[:1])
    page = host.get(f"/g/{game}")
    send(host, page, "action-sold", **action_fields("sold", "Anna", 3))
    before = stored(app, game)
    other = send(host, page, "action-sold", **action_fields("sold", "Bert", 5))
    assert other.status_code == 409
    assert re.search(SIGNED.format(who="the host's device", what="Anna bought the lot for 3",
                                   yours="Your sale was not recorded"), text(other))
    assert stored(app, game) == before


def test_a_lot_that_lost_to_a_phone_names_the_phone_and_its_lot(app, host, game):
    phone = phone_client(app)
    join(phone, game, "Bert")
    page = host.get(f"/g/{game}")
    assert send(phone, phone.get(f"/g/{game}"), "action-reveal",
                **action_fields("reveal", "red 0", "yellow 5")).status_code == 303
    before = stored(app, game)
    lost = send(host, page, "action-reveal", **action_fields("reveal", "red 1", "yellow 6"))
    assert lost.status_code == 409
    assert re.search(SIGNED.format(who="Bert's phone", what="Revealed .*",
                                   yours="Your lot was not recorded"), text(lost))
    assert stored(app, game) == before


def test_a_penalty_that_lost_keeps_the_typed_player_while_the_lot_still_takes_one(app, host, game):
    """What was typed stays when it still applies: another device recorded a penalty."""
    play(host, game, GAME[:4])  # Anna holds yellow 5, Bert red 0
    page = host.get(f"/g/{game}")
    play(host, game, [("penalty", "Bert")])
    lost = send(host, page, "action-penalty", **action_fields("penalty", "Anna"))
    assert lost.status_code == 409
    assert "Bert made a forbidden bid: 1 coin to the pot. Your penalty was not recorded." in (
        text(lost))
    assert find_form(lost, "action-penalty").fields["player"] == ["0"]  # Anna, as typed


def test_an_undo_sent_twice_undoes_once(app, host, game):
    play(host, game, GAME[:2])
    page = host.get(f"/g/{game}")
    assert send(host, page, "undo").status_code == 303
    after_one = stored(app, game)
    again = send(host, page, "undo")
    assert again.status_code == 200 and "it counts once" in text(again)
    assert "undid Anna bought the lot for 3" in text(again)
    assert stored(app, game) == after_one


def test_a_phone_bid_that_lost_to_the_table_says_what_the_table_recorded(app, host):
    token = new_game(host, live="on")
    play(host, token, GAME[:1])
    assert act(host, token, "bid", amount="2").status_code == 303  # Anna bids: Bert's turn
    phone = phone_client(app)
    join(phone, token, "Bert")
    page = phone.get(f"/g/{token}/me")
    assert act(host, token, "pass").status_code == 303  # the table records Bert's drop-out
    before = stored(app, token)
    lost = send(phone, page, "action-bid", amount="4")
    assert lost.status_code == 409
    assert re.search(SIGNED.format(who="the host's device", what="Bert dropped out",
                                   yours="Your bid was not recorded"), text(lost))
    assert stored(app, token) == before


def test_a_correction_racing_an_undo_says_the_action_is_gone(app, host, game):
    play(host, game, GAME[:2])
    page = host.get(f"/g/{game}/history/1")
    assert send(host, host.get(f"/g/{game}"), "undo").status_code == 303
    before = stored(app, game)
    lost = send(host, page, "action-sold", **action_fields("sold", "Bert", 4))
    assert lost.status_code == 409
    assert "undid Anna bought the lot for 3. Your correction was not recorded." in text(lost)
    assert stored(app, game) == before
