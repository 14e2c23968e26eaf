"""Never silent (issue 11), in Chromium: a lot that lost the race says so on the phone that
sent it, and every screen says when the table server cannot be reached, keeps what was
typed, and catches up when the server is back."""
import re

from tests.browser_helpers import PHONE, WAIT, hears_nothing, loose, press, take_seat
from tests.test_browser import new_table_game, reveal_lot

OFFLINE = "The table server cannot be reached"


def slow_table_screen(server, phone_browser, token, name, errors):
    """A phone that took `name`'s seat, then opened the table screen to record, and hears
    of nothing new."""
    phone = take_seat(phone_browser.new_context(**PHONE), server, token, name, errors)
    hears_nothing(phone)
    phone.goto(f"{server.phone_url}/g/{token}")
    return phone


def test_a_lot_that_lost_the_race_says_what_was_recorded_instead(server, browser, phone_browser):
    """The phone's screen has not heard of the table's lot yet (its poll is slow) when its
    own lot is tapped: it is told whose lot counts, and its own does not."""
    from playwright.sync_api import expect
    errors = []
    table, token = new_table_game(server, browser, errors)
    phone = slow_table_screen(server, phone_browser, token, "Bert", errors)
    table.reload()
    reveal_lot(table, "red 0", "yellow 5")
    for card in ("red 1", "yellow 6"):  # the second tap sends the phone's lot
        press(phone.get_by_label(card, exact=True))
    note = phone.get_by_role("status").filter(has_text="Your lot was not recorded")
    expect(note).to_contain_text(re.compile(
        r"Recorded first by the host's device at \d\d:\d\d: Revealed .*0.*5"), timeout=WAIT)
    expect(phone.locator("form.action-sold")).to_be_visible()
    assert not errors


def test_every_screen_says_when_the_server_is_gone_and_catches_up_when_it_is_back(
        server, browser, phone_browser):
    from playwright.sync_api import expect
    errors = []
    table, token = new_table_game(server, browser, errors)
    phone = take_seat(phone_browser.new_context(**PHONE), server, token, "Bert", errors)
    table.reload()
    for page in (table, phone):
        expect(page.get_by_text(OFFLINE)).to_be_hidden()

    server.stop()
    for page in (table, phone):  # their polls fail
        expect(page.get_by_role("alert").filter(has_text=OFFLINE)).to_be_visible(timeout=WAIT)
    for card in ("red 0", "yellow 5"):  # the second tap sends the lot: no answer
        table.get_by_label(card, exact=True).check()
    expect(table.get_by_text(OFFLINE)).to_be_visible()
    assert table.get_by_label("red 0", exact=True).is_checked()  # what was typed stays
    assert table.get_by_label("yellow 5", exact=True).is_checked()

    server.start()
    for page in (table, phone):
        expect(page.get_by_text(OFFLINE)).to_be_hidden(timeout=WAIT)
    table.get_by_role("button", name="Reveal these 2 cards").click()  # sent again: counts
    expect(table.locator("form.action-sold")).to_be_visible(timeout=WAIT)
    expect(phone.locator(".lot")).to_contain_text(loose("0"), timeout=WAIT)  # caught up
    history = table.context.new_page()
    history.goto(f"{server.url}/g/{token}/history")
    expect(history.locator(".round li").filter(has_text="Revealed")).to_have_count(1)
    assert not errors
