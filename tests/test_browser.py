"""One real table in Chromium: the host starts a game, two phones take seats, the table
records a lot and its sale, and both phones show who pays whom without reloading."""
import re

from tests.browser_helpers import ARTIFACTS, PHONE, TABLE, WAIT, open_page
from tests.web_helpers import FIRST_SALE, PLAYERS


def test_phones_see_the_payment_without_reloading(server, browser):
    from playwright.sync_api import expect
    base = server.url
    errors = []
    table = open_page(browser.new_context(**TABLE), base + "/", errors)
    for number, name in enumerate(PLAYERS, start=1):
        table.get_by_label(f"Seat {number}", exact=True).fill(name)
    table.get_by_role("button", name="Start the game").click()
    expect(table).to_have_url(re.compile(r"/g/[\w-]{20,}$"))
    token = table.url.rsplit("/", 1)[1]

    phones = {}
    for name in ("Bert", "Claus"):
        phone = open_page(browser.new_context(**PHONE), f"{base}/g/{token}/join", errors)
        phone.get_by_role("button", name=name).click()
        expect(phone).to_have_url(re.compile(r"/me$"))
        expect(phone.locator(".me h2")).to_have_text(name)
        phones[name] = phone

    table.reload()  # the seats taken changed the game's version: start from the latest page
    # The payment is announced by live regions that are on the page before it (aria-live).
    regions = {phone: phone.query_selector("#payment[aria-live=polite]") for phone in phones.values()}
    table.get_by_label("red 0", exact=True).check()
    table.get_by_label("yellow 5", exact=True).check()
    table.get_by_role("button", name="Reveal these 2 cards").click()
    sold = table.locator("form.action-sold")
    sold.get_by_label("Anna").check()
    sold.locator("input[name=price]").fill("3")
    expect(sold.locator(".preview")).to_contain_text("Allowed", timeout=WAIT)
    sold.get_by_role("button", name="Sold", exact=True).click()
    expect(table.locator(".payment")).to_contain_text(FIRST_SALE[0], timeout=WAIT)

    for phone in phones.values():
        for words in FIRST_SALE:
            expect(phone.locator(".payment")).to_contain_text(words, timeout=WAIT)
        assert FIRST_SALE[0] in regions[phone].evaluate("region => region.isConnected && region.textContent")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 360
    expect(phones["Bert"].locator(".me .coins")).to_have_text("13 coins")

    ARTIFACTS.mkdir(exist_ok=True)
    table.screenshot(path=ARTIFACTS / "table.png", full_page=True)
    phones["Bert"].screenshot(path=ARTIFACTS / "phone.png", full_page=True)
    assert not errors
