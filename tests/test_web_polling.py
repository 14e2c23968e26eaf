"""Screens follow each other by polling /live?v=<stamp>; money stays secret (R12)."""
import re

import pytest

from tests.web_helpers import (FIRST_SALE, GAME, PLAYERS, act, alerts, join, new_game,
                               phone_client, play, snapshot, stamp, submit, text)
from tests.web_helpers import app, game, host, phone  # noqa: F401 (fixtures)

COINS = re.compile(r"\b\d+ coins\b")


def test_a_change_shows_on_the_other_screens_next_poll(app, host, phone, game):
    join(phone, game, "Bert")
    table = app.test_client()
    seen = stamp(app, game)
    polls = {table: f"/g/{game}/live", phone: f"/g/{game}/me/live"}
    for client, url in polls.items():
        assert client.get(f"{url}?v={seen}").status_code == 204
    play(host, game, GAME[:2])
    for client, url in polls.items():
        response = client.get(f"{url}?v={seen}", headers={"HX-Request": "true"})  # as htmx polls
        assert response.status_code == 200
        html = response.get_data(as_text=True)
        assert html.count('<div id="live"') == 1 and "<html" not in html
        payment = html.split('<div id="live"')[0]  # sent into the page's own live region
        assert 'id="payment"' in payment and 'hx-swap-oob="innerHTML"' in payment
        assert all(words in text(payment) for words in FIRST_SALE)
        assert f"v={stamp(app, game)}" in response.get_data(as_text=True)  # polls on from here


def test_a_poll_with_the_current_stamp_is_204_and_empty(app, phone, game):
    join(phone, game, "Anna")
    for url in (f"/g/{game}/live", f"/g/{game}/me/live"):
        response = phone.get(f"{url}?v={stamp(app, game)}")
        assert response.status_code == 204 and response.data == b""


def seated_phones(app, game):
    """A phone in every seat, by name."""
    phones = {}
    for number, name in enumerate(PLAYERS):
        phones[name] = phone_client(app, f"192.168.1.{20 + number}")
        join(phones[name], game, name)
    return phones


def test_secret_money_table_shows_no_totals_each_phone_only_its_own(app, host, game):
    """R12: payments are public, totals are not; Anna has 9 coins, Bert and Claus 13."""
    phones = seated_phones(app, game)
    play(host, game, GAME[:2])
    table = text(host.get(f"/g/{game}"))
    assert all(words in table for words in FIRST_SALE) and not COINS.findall(table)
    for phone in phones.values():  # the table screen is public, on a player's phone too
        assert not COINS.findall(text(phone.get(f"/g/{game}")))
    for name, coins in (("Anna", "9 coins"), ("Bert", "13 coins"), ("Claus", "13 coins")):
        for page in (phones[name].get(f"/g/{game}/me"), phones[name].get(f"/g/{game}/me/live")):
            assert COINS.findall(text(page)) == [coins]


def test_open_money_table_shows_every_total(host):
    """R12's 'open money' setting, for teaching games."""
    token = new_game(host, money="open")
    play(host, token, GAME[:2])
    assert COINS.findall(text(host.get(f"/g/{token}"))) == ["9 coins", "13 coins", "13 coins"]


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
def test_secret_money_refusals_show_no_totals_on_the_table(host, game, htmx):
    play(host, game, GAME[:1])
    response = act(host, game, "sold", "Anna", 13, htmx=htmx)
    assert "13" in " ".join(alerts(response))  # still refused, with a message
    assert not COINS.findall(text(response))


def test_R12_the_host_s_device_learns_whether_a_player_can_pay_only_from_a_submitted_sale(
        app, host, game):
    """Before a sale is submitted, the shared screen cannot tell 9 from 12 (R12); the sale
    submitted is refused in public, as the player would have to own up (R5)."""
    play(host, game, GAME[:2] + [("reveal", "red 1", "yellow 6")])  # Anna paid 3: she holds 9
    for price in (9, 12):
        preview = text(host.get(f"/g/{game}/preview?winner=0&price={price}"))
        assert "Allowed if Anna can pay: money is secret, so this device cannot tell (R12)." in preview
        assert "cannot pay" not in preview
    before = snapshot(app)
    refused = act(host, game, "sold", "Anna", 12)
    assert refused.status_code == 422 and "Anna cannot pay 12 (R5)." in alerts(refused)
    assert "9" not in " ".join(alerts(refused)) and snapshot(app) == before


def test_secret_money_cannot_be_found_by_trying_prices_on_another_phone(host, phone, game):
    """R12: only Anna's own phone learns whether Anna can pay."""
    play(host, game, GAME[:2])  # Anna holds 9
    join(phone, game, "Bert")
    answers = {price: text(phone.get(f"/g/{game}/preview?winner=0&price={price}"))
               for price in (9, 12)}
    for answer in answers.values():
        assert "Allowed if Anna can pay: money is secret, so this device cannot tell (R12)." in answer
        assert "cannot pay" not in answer
    assert "forbidden" in text(phone.get(f"/g/{game}/preview?winner=0&price=15"))  # R3 still shown
    assert "Bert holds 13 coins: a bid of 14 is more than that (R5)" in text(
        phone.get(f"/g/{game}/preview?winner=1&price=14"))  # his own money, on his phone


def test_a_phone_whose_seat_was_freed_keeps_polling_without_error(app, host, phone, game):
    """The checked client fails on the 500."""
    join(phone, game, "Anna")
    seen = stamp(app, game)
    submit(host, f"/g/{game}", f"/g/{game}/seats/0/free")
    response = phone.get(f"/g/{game}/me/live?v={seen}")
    assert response.status_code == 200 and "The host freed your seat" in text(response)


def test_the_sale_preview_says_the_payment_once_and_why(host, game):
    """R8: the preview says who pays whom, then only why (who holds the most of the
    price's last digit), not the split a second time."""
    play(host, game, GAME[:2] + [("reveal", "red 1", "yellow 6")])  # Anna holds blue 5
    preview = text(host.get(f"/g/{game}/preview?winner=1&price=5"))
    assert ("If won at this price: Bert pays 5 (+ 1 from the pot): Anna takes 6 (Anna holds "
            "the only 5)") in preview
    assert preview.count("takes") == 1
