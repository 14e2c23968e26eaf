"""One real table in Chromium: the host starts a game, two phones take seats, the table
records a lot and its sale, and both phones show who pays whom without reloading."""
import re
import threading
from pathlib import Path

import pytest

from tests.web_helpers import FIRST_SALE, PLAYERS, make_app

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent / "artifacts"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = dict(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
WAIT = 5000  # ms: htmx polls every second


@pytest.fixture
def server(tmp_path):
    """The app served by waitress on a free port of 127.0.0.1: (base URL, app)."""
    from waitress.server import create_server
    app = make_app(tmp_path / "data")
    statuses = []
    app.after_request(lambda response: statuses.append(response.status_code) or response)
    srv = create_server(app, host="127.0.0.1", port=0)
    threading.Thread(target=srv.run, daemon=True).start()
    yield f"http://127.0.0.1:{srv.effective_port}", app
    srv.close()
    assert not app.extensions["test_errors"] and max(statuses, default=200) < 500


@pytest.fixture
def browser():
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (CI does)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


def open_page(context, url, errors):
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(error))
    page.goto(url)
    return page


def test_phones_see_the_payment_without_reloading(server, browser):
    from playwright.sync_api import expect
    base, _ = server
    errors = []
    table = open_page(browser.new_context(viewport={"width": 1280, "height": 800}),
                      base + "/", errors)
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
        assert phone.evaluate("document.documentElement.scrollWidth") <= 360
    expect(phones["Bert"].locator(".me .coins")).to_have_text("13 coins")

    ARTIFACTS.mkdir(exist_ok=True)
    table.screenshot(path=ARTIFACTS / "table.png", full_page=True)
    phones["Bert"].screenshot(path=ARTIFACTS / "phone.png", full_page=True)
    assert not errors
