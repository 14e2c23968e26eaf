"""One real table in Chromium: the host starts a game, two phones take seats, the table
records a lot and its sale, and both phones show who pays whom without reloading."""
import ipaddress
import re
import sys

from tests.browser_helpers import (ARTIFACTS, PHONE, TABLE, WAIT, check_screen, loose,
                                   open_page, press, take_seat)
from tests.web_helpers import FIRST_SALE, PLAYERS


def start_game(table) -> str:
    """The host starts a game of PLAYERS from its list of games; the game's token."""
    from playwright.sync_api import expect
    for number, name in enumerate(PLAYERS, start=1):
        table.get_by_label(f"Seat {number}", exact=True).fill(name)
    table.get_by_role("button", name="Start the game").click()
    expect(table).to_have_url(re.compile(r"/g/[\w-]{20,}$"))
    return table.url.rsplit("/", 1)[1]


def reveal_lot(page, *cards) -> None:
    """Tap the lot's two cells: the second reveals the lot, and the sale form comes."""
    from playwright.sync_api import expect
    for card in cards:
        press(page.get_by_label(card, exact=True))
    expect(page.locator("form.action-sold")).to_be_visible(timeout=WAIT)


def sell_first_lot(table) -> None:
    """Round 1 on the table: red 0 and yellow 5 revealed, sold to Anna for 3 (FIRST_SALE)."""
    from playwright.sync_api import expect
    reveal_lot(table, "red 0", "yellow 5")
    sold = table.locator("form.action-sold")
    sold.get_by_label("Anna").check()
    sold.locator("input[name=price]").fill("3")
    expect(sold.locator(".preview")).to_contain_text("Allowed", timeout=WAIT)
    sold.get_by_role("button", name="Sold", exact=True).click()
    expect(table.locator(".payment")).to_contain_text(FIRST_SALE[0], timeout=WAIT)


def test_a_phone_is_another_device(server, browser, phone_browser, phone_net):
    """The phone's browser reaches the app from its own network, so the app sees it as a
    phone; the table's browser, on the loopback, is the host."""
    from playwright.sync_api import expect
    errors = []
    phone = open_page(phone_browser.new_context(**PHONE), server.phone_url + "/", errors)
    expect(phone.get_by_role("main")).to_contain_text("Scan the QR code")
    expect(phone.get_by_role("main")).not_to_contain_text("Your games")
    table = open_page(browser.new_context(**TABLE), server.url + "/", errors)
    expect(table.get_by_role("heading", name="Your games")).to_be_visible()
    assert phone_net.phone_side in server.peers
    assert not [peer for peer in server.peers - {phone_net.phone_side}
                if not ipaddress.ip_address(peer).is_loopback]
    assert not errors


def test_phones_see_the_payment_without_reloading(server, browser, phone_browser):
    from playwright.sync_api import expect
    errors = []
    table = open_page(browser.new_context(**TABLE), server.url + "/", errors)
    token = start_game(table)

    phones = {}
    for name in ("Bert", "Claus"):
        phone = open_page(phone_browser.new_context(**PHONE),
                          f"{server.phone_url}/g/{token}/join", errors)
        phone.get_by_role("button", name=name).click()
        expect(phone).to_have_url(re.compile(r"/me$"))
        expect(phone.locator(".me h1")).to_have_text(name)
        phones[name] = phone

    table.reload()  # the seats taken changed the game's version: start from the latest page
    # The payment is announced by live regions that are on the page before it (aria-live).
    regions = {phone: phone.query_selector("#payment[aria-live=polite]") for phone in phones.values()}
    sell_first_lot(table)

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


# Every blocked inline script or style, as the page's console hears of it.
REPORT_CSP_VIOLATIONS = """document.addEventListener('securitypolicyviolation', event =>
  console.error(`securitypolicyviolation: ${event.violatedDirective} ${event.blockedURI}`));"""


def test_pages_keep_to_the_content_security_policy(server, browser):
    """The app's policy allows no inline script or style: nothing is blocked while a game is
    started, a lot revealed and sold and a bid checked, and cards still show their family's
    colour (a class, not a style attribute)."""
    from playwright.sync_api import expect
    context = browser.new_context(**TABLE)
    context.add_init_script(REPORT_CSP_VIOLATIONS)
    errors, violations = [], []
    table = context.new_page()
    table.on("pageerror", lambda error: errors.append(error))
    table.on("console", lambda message: violations.append(message.text) if (
        "Content Security Policy" in message.text or "securitypolicyviolation" in message.text)
        else None)
    table.goto(server.url + "/")
    token = start_game(table)

    # A family's second row of the reveal grid shows its symbol again, on a phone only.
    again = table.locator(".family-row").first.locator(".again")
    expect(again).to_be_hidden()
    table.set_viewport_size({"width": 360, "height": 740})
    expect(again).to_have_text("♦")
    table.set_viewport_size(TABLE["viewport"])

    sell_first_lot(table)

    anna = table.locator(".player").first.locator(".card")  # red 0, yellow 5
    expect(anna).to_have_count(2)
    red, yellow = (anna.nth(index).evaluate("card => getComputedStyle(card).borderTopColor")
                   for index in (0, 1))
    plain = table.locator(".player h3").first.evaluate("h => getComputedStyle(h).color")
    assert len({red, yellow, plain}) == 3, (red, yellow, plain)

    table.goto(f"{server.url}/g/{token}/join")  # this device takes a seat: the bid check
    table.get_by_role("button", name="Bert").click()
    expect(table).to_have_url(re.compile(r"/me$"))
    table.get_by_label("Can I bid this amount?").fill("5")
    expect(table.locator("#check")).to_contain_text("If won at this price", timeout=WAIT)
    table.get_by_label("Can I bid this amount?").press("Enter")  # no form: nothing is sent
    expect(table).to_have_url(re.compile(r"/me$"))
    for page in ("history", "history/0", "score"):
        table.goto(f"{server.url}/g/{token}/{page}")
    assert violations == [] and errors == []


def new_table_game(server, browser, errors):
    """The host starts a game of PLAYERS on the table's screen; the page and its token."""
    table = open_page(browser.new_context(**TABLE), server.url + "/", errors)
    return table, start_game(table)


def test_a_phone_without_a_camera_joins_by_typing_the_code(server, browser, phone_browser):
    """The table shows its address in words and a short code; a phone in the phones'
    network types both (the code in lower case, as thumbs do) and takes a seat."""
    from playwright.sync_api import expect
    errors = []
    table, token = new_table_game(server, browser, errors)
    address = table.locator(".join .address").inner_text()
    code = table.locator(".join .code").inner_text()
    assert address == server.phone_url and re.fullmatch(r"\w{3}-\w{4}", code)
    phone = open_page(phone_browser.new_context(**PHONE), address, errors)
    press(phone.get_by_label(loose("Game code")))
    phone.get_by_label(loose("Game code")).press_sequentially(code.lower())
    press(phone.get_by_role("button", name="Open the game"))
    expect(phone).to_have_url(f"{server.phone_url}/g/{token}/join")
    check_screen(phone)
    press(phone.get_by_role("button", name="Bert"))
    expect(phone.locator(".me h1")).to_have_text("Bert")
    assert not errors


def test_roles_hold_for_a_phone_on_the_network(server, browser, phone_browser):
    """A phone that only opened the link watches: no form, and a change it forges is
    refused. Seated, it records; when the host turns that off, its forms go away."""
    from playwright.sync_api import expect
    errors = []
    table, token = new_table_game(server, browser, errors)
    phone = open_page(phone_browser.new_context(**PHONE), f"{server.phone_url}/g/{token}", errors)
    expect(phone.get_by_text("This device only watches the table")).to_be_visible()
    expect(phone.get_by_role("button", name="Reveal these 2 cards")).to_have_count(0)
    forged = phone.evaluate("""async () => {
        const token = JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRF-Token'];
        const answer = await fetch(location.pathname + '/undo', {method: 'POST',
            headers: {'X-CSRF-Token': token}, body: new URLSearchParams({version: '0'})});
        return [answer.status, await answer.text()];
    }""")
    assert forged[0] == 403 and "only watches the table" in forged[1]
    phone.goto(f"{server.phone_url}/g/{token}/join")
    press(phone.get_by_role("button", name="Claus"))
    expect(phone).to_have_url(re.compile(r"/me$"))
    phone.goto(f"{server.phone_url}/g/{token}")
    expect(phone.get_by_role("button", name="Reveal these 2 cards")).to_be_visible()
    settings = table.context.new_page()
    settings.goto(f"{server.url}/g/{token}/settings")
    settings.get_by_label(loose("Players may record from their phones")).uncheck()
    settings.get_by_role("button", name="Save").click()
    expect(phone.get_by_text("The host has turned off recording from phones")).to_be_visible(
        timeout=WAIT)
    expect(phone.get_by_role("button", name="Reveal these 2 cards")).to_have_count(0)
    assert not errors


def test_a_foreign_host_header_gets_400_from_the_phones_network_and_the_host(server, phone_net):
    """DNS rebinding: a request naming another host gets nothing, wherever it comes from."""
    import subprocess
    import urllib.request
    probe = ("import http.client, sys; c = http.client.HTTPConnection(sys.argv[1], sys.argv[2]);"
             " c.request('GET', '/', headers={'Host': 'evil.example'});"
             " print(c.getresponse().status)")
    host_side, port = server.phone_url.removeprefix("http://").split(":")
    from_phone = subprocess.run(["ip", "netns", "exec", phone_net.namespace, sys.executable,
                                 "-c", probe, host_side, port],
                                capture_output=True, text=True, timeout=30)
    assert from_phone.stdout.strip() == "400", from_phone.stderr
    request = urllib.request.Request(server.url + "/", headers={"Host": "evil.example"})
    try:
        urllib.request.urlopen(request, timeout=10)
        raise AssertionError("a foreign Host was answered")
    except urllib.error.HTTPError as error:
        assert error.code == 400 and "Your games" not in error.read().decode()


def test_150_idle_connections_from_one_device_leave_the_table_usable(server, browser,
                                                                     phone_browser, phone_net):
    """A device on the table's Wi-Fi opens 150 connections and sends nothing (waitress
    holds them, its threads free): the host's table still records a sale, and a seated
    phone on the same network shows the payment without reloading (R8)."""
    import socket
    from playwright.sync_api import expect
    from tests.netns import inside
    from tests.web_helpers import GAME, new_game, play
    port = int(server.phone_url.rsplit(":", 1)[1])
    idle = inside(phone_net.namespace, lambda: [
        socket.create_connection((phone_net.host_side, port), timeout=10) for _ in range(150)])
    try:
        token = new_game(server.app.test_client())
        errors = []
        phone = take_seat(phone_browser.new_context(**PHONE), server, token, "Bert", errors)
        table = open_page(browser.new_context(**TABLE), f"{server.url}/g/{token}", errors)
        expect(table.locator("form.action-reveal")).to_be_visible(timeout=WAIT)
        play(server.app.test_client(), token, GAME[:2])
        for words in FIRST_SALE:
            expect(phone.locator(".payment")).to_contain_text(words, timeout=WAIT)
            expect(table.locator(".payment")).to_contain_text(words, timeout=WAIT)
        assert not errors
    finally:
        for connection in idle:
            connection.close()
