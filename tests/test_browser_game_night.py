"""Game night (issue 12) in Chromium: the laptop at a glance (1280 x 800 and 1366 x 768),
a round in five taps, the TV view following the table, and phones to the very end."""
import re

import pytest

from tests.browser_helpers import (NO_PLAYWRIGHT, PHONE, TABLE, WAIT, check_screen, loose,
                                   open_page, press, take_seat)
from tests.web_helpers import GAME, act, new_game, play

expect = pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT).expect
FIVE = ("Anna", "Bert", "Claus", "Dieter", "Eva")
LAPTOPS = [{"width": 1280, "height": 800}, {"width": 1366, "height": 768}]
# Ten rounds of five players: each lot and who bought it (the first price they may pay).
LOTS = [("red 0", "yellow 5"), ("red 1", "yellow 6"), ("red 2", "yellow 7"), ("green 0", "blue 5"),
        ("green 1", "blue 6"), ("green 2", "blue 7"), ("red 3", "red 4"), ("yellow 8", "yellow 9"),
        ("green 3", "green 4"), ("blue 8", "blue 9")]

# Every element matched that is not wholly inside the window, or that something else
# covers at its centre (a sticky banner, say): the start of its HTML.
OUT_OF_SIGHT = """selector => [...document.querySelectorAll(selector)].filter(element => {
  const box = element.getBoundingClientRect();
  if (box.width === 0 || box.top < 0 || box.left < 0 || box.bottom > innerHeight ||
      box.right > innerWidth) return true;
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return !(hit && (element.contains(hit) || hit.contains(element)));
}).map(element => element.outerHTML.slice(0, 120))"""


def late_game(client, live=False) -> str:
    """A game of five in round 11, made over HTTP by the host (the laptop): its token."""
    token = new_game(client, players=FIVE, **({"live": "on"} if live else {}))
    for number, cards in enumerate(LOTS):
        assert act(client, token, "reveal", *cards).status_code == 303
        if live:
            auction(client, token)
            continue
        winner = str(number % len(FIVE))
        assert any(act(client, token, "sold", winner=winner, price=str(price)).status_code == 303
                   for price in range(1, 10))
    return token


def auction(client, token) -> None:
    """A live auction on the table: the first who can pay their lowest bid makes it, then
    everyone else drops out."""
    opened = False
    while "action-pass" in (page := client.get(f"/g/{token}").get_data(as_text=True)):
        if not opened:
            lowest = re.search(r"at least (\d+)", page).group(1)
            opened = act(client, token, "bid", amount=lowest).status_code == 303
            if opened:
                continue
        assert act(client, token, "pass").status_code == 303


def controls(form: str) -> str:
    """The selector of what a form shows: its labels, buttons and inputs."""
    return ", ".join(f"{form} {part}" for part in ("label", "button", "input:not([type=hidden])"))


def out_of_sight(page, selector) -> list[str]:
    return page.evaluate(OUT_OF_SIGHT, selector)


class Taps:
    """Counts the taps (clicks) a step takes."""

    def __init__(self):
        self.count = 0

    def __call__(self, locator) -> None:
        self.count += 1
        press(locator)


@pytest.mark.parametrize("window", LAPTOPS, ids=lambda window: f"{window['width']}x{window['height']}")
def test_the_laptop_records_a_round_in_five_taps_without_scrolling(server, browser, window):
    token = late_game(server.app.test_client())
    table = open_page(browser.new_context(viewport=window), f"{server.url}/g/{token}", [])
    names = ".player h3"
    assert out_of_sight(table, f"{names}, {controls('form.action-reveal')}") == []
    taps = Taps()
    for card in ("purple 0", "purple 1"):
        taps(table.get_by_label(card, exact=True))
    sold = table.locator("form.action-sold")
    expect(sold).to_be_visible(timeout=WAIT)
    assert out_of_sight(table, f"{names}, .lot .card, {controls('form.action-sold')}") == []
    check_screen(table, f"laptop-{window['width']}x{window['height']}")
    taps(sold.get_by_label("Anna"))
    taps(sold.locator("input[name=price]"))
    sold.locator("input[name=price]").press_sequentially("1")
    expect(sold.locator(".preview")).to_contain_text("Allowed", timeout=WAIT)
    taps(sold.get_by_role("button", name="Sold", exact=True))
    expect(table.locator(".payment")).to_contain_text("Anna pays 1", timeout=WAIT)
    assert taps.count == 5
    assert out_of_sight(table, f"{names}, form.action-reveal") == []


@pytest.mark.parametrize("window", LAPTOPS, ids=lambda window: f"{window['width']}x{window['height']}")
def test_the_laptop_shows_a_live_auction_s_bid_pad_without_scrolling(server, browser, window):
    client = server.app.test_client()
    token = late_game(client, live=True)
    act(client, token, "reveal", "purple 0", "purple 1")
    table = open_page(browser.new_context(viewport=window), f"{server.url}/g/{token}", [])
    assert out_of_sight(table, f".player h3, .lot .card, .auction .turn, "
                               f"{controls('form.action-bid')}, {controls('form.action-pass')}") == []


def test_a_phone_used_as_the_table_records_a_round_in_five_taps(server, browser, phone_browser):
    token = new_game(server.app.test_client())
    phone = take_seat(phone_browser.new_context(**PHONE), server, token, "Bert")
    phone.goto(f"{server.phone_url}/g/{token}")
    taps = Taps()
    for card in ("red 0", "yellow 5"):
        taps(phone.get_by_label(card, exact=True))
    sold = phone.locator("form.action-sold")
    expect(sold).to_be_visible(timeout=WAIT)
    taps(sold.get_by_label("Anna"))
    taps(sold.locator("input[name=price]"))
    sold.locator("input[name=price]").press_sequentially("3")
    taps(sold.get_by_role("button", name="Sold", exact=True))
    expect(phone.locator(".payment")).to_contain_text("Anna pays 3", timeout=WAIT)
    assert taps.count == 5


# A phone used as the host's table (the loopback: the host): a recent phone, and a small one.
TABLE_PHONES = [{"width": 390, "height": 844}, {"width": 360, "height": 740}]
SIDE_SALE_PAID = {"en-GB": "Anna pays Bert 3 for", "fr-FR": "Anna paie 3 à Bert pour"}
SCROLLED = "[scrollX, scrollY]"


@pytest.mark.parametrize("locale", SIDE_SALE_PAID)
@pytest.mark.parametrize("window", TABLE_PHONES, ids=lambda window: f"{window['width']}x{window['height']}")
def test_a_phone_used_as_the_table_has_the_undo_and_the_whole_side_sale_in_its_first_screen(
        server, browser, window, locale):
    """Right after a sale: its Undo, the side sale's line and the whole reveal grid in sight;
    then the side sale, step by step (its card, which chooses the seller, the buyer, the
    price, Record), never scrolled to (R6)."""
    client = server.app.test_client()
    token = late_game(client)
    context = browser.new_context(viewport=window, is_mobile=True, has_touch=True, locale=locale)
    table = open_page(context, f"{server.url}/g/{token}", [])
    assert out_of_sight(table, ".payment, form.undo button, details.side-sale > summary, "
                               "form.action-reveal .cell") == []
    press(table.locator("details.side-sale > summary"))
    sale = table.locator("form.action-side_sale")
    expect(sale).to_be_visible()
    assert out_of_sight(table, "form.action-side_sale :is(legend, .holder .pill)") == []
    check_screen(table)  # at 360 px: each choice a 44 px target, nothing sideways
    press(sale.locator("input[name=card][value='0:1']"))  # Bert's red 1: Bert sells it
    expect(sale.locator("input[name=seller][value='1']")).to_be_checked()
    shown = "form.action-side_sale :is(label, button, input:not([type=hidden])):not([hidden] *)"
    assert out_of_sight(table, shown) == []  # the seller's cards, the buyer, price, Record
    press(sale.locator("input[name=buyer][value='0']"))  # Anna buys it
    press(sale.locator("input[name=price]"))
    sale.locator("input[name=price]").press_sequentially("3")
    press(sale.locator("button"))
    expect(table.locator(".payment")).to_contain_text(SIDE_SALE_PAID[locale], timeout=WAIT)
    assert table.evaluate(SCROLLED) == [0, 0]
    undo = table.locator("form.undo button")
    assert out_of_sight(table, "form.undo button") == []
    press(undo)
    expect(table.locator(".payment")).not_to_contain_text(SIDE_SALE_PAID[locale], timeout=WAIT)
    expect(table.locator("details.side-sale")).to_be_visible()
    assert table.evaluate(SCROLLED) == [0, 0]


def test_the_tv_view_follows_the_table_and_has_no_form(server, browser):
    client = server.app.test_client()
    token = new_game(client)
    tv = open_page(browser.new_context(viewport={"width": 1920, "height": 1080}),
                   f"{server.url}/g/{token}/tv", [])
    expect(tv.locator("form")).to_have_count(0)
    expect(tv.locator(".join .code")).to_have_text(re.compile(r"^\w{3}-\w{4}$"))
    expect(tv.locator("img[alt^='QR code']")).to_be_visible()
    size = tv.evaluate("parseFloat(getComputedStyle(document.querySelector('.player')).fontSize)")
    assert size >= 24  # px on a 1920-wide screen: readable from 2 m
    play(client, token, GAME[:2])
    expect(tv.locator(".payment")).to_contain_text("Anna pays 3", timeout=WAIT)
    expect(tv.locator(".status")).to_contain_text(loose("Round 2 of 15 · Start player Anna"))
    check_screen(tv, "tv")


TVS = [{"width": 1920, "height": 1080}, {"width": 1280, "height": 720}]
TV_READS = (".payment-box p, .status p:first-child, .player h3, .player .cards, .player .forbidden, "
            ".unseen, .guide")


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
@pytest.mark.parametrize("window", TVS, ids=lambda window: f"{window['width']}x{window['height']}")
def test_the_tv_view_shows_a_late_game_of_five_on_one_screen(server, browser, window, locale):
    """Round 11 of five, a seat still free (the QR code large): the payment, every player's
    cards and endings, what is still to come and what happens now (the table's very
    sentences) all in view, nothing to scroll to (a TV cannot scroll)."""
    token = late_game(server.app.test_client())  # the server's first game: help on
    tv = open_page(browser.new_context(viewport=window, locale=locale),
                   f"{server.url}/g/{token}/tv", [])
    expect(tv.locator(".player")).to_have_count(5)
    assert out_of_sight(tv, TV_READS) == []
    assert tv.evaluate("document.documentElement.scrollHeight") <= window["height"]
    table = open_page(browser.new_context(**TABLE, locale=locale), f"{server.url}/g/{token}", [])
    assert tv.locator(".guide").inner_text() == table.locator(".guide").inner_text()


def test_a_phone_at_the_end_shows_the_game_over_and_the_score_fits(server, phone_browser):
    client = server.app.test_client()
    token = new_game(client)
    phone = take_seat(phone_browser.new_context(**PHONE), server, token, "Claus")
    play(client, token, GAME)  # the phone is open all the while: it follows to the end
    over = phone.get_by_role("region", name="The game is over")
    expect(over).to_contain_text(re.compile(r"(You won|Place \d of 3), with \d+ points?\."),
                                 timeout=WAIT)
    expect(phone.get_by_role("textbox")).to_have_count(0)  # no bid tools
    expect(phone.get_by_text("Highest bid you can make")).to_have_count(0)
    check_screen(phone, "phone-game-over")
    press(over.get_by_role("link", name="See the full score"))
    expect(phone.get_by_role("heading", name="Final score")).to_be_visible()
    check_screen(phone, "phone-score")  # nothing scrolls sideways at 360 px
    blocks = phone.locator("table.score tbody tr")
    expect(blocks).to_have_count(3)
    widths = blocks.evaluate_all("rows => rows.map(row => row.getBoundingClientRect().width)")
    assert all(width <= 360 for width in widths)
    label = "cell => getComputedStyle(cell, '::before').content"
    assert blocks.first.locator("td").first.evaluate(label) == '"red"'  # each number named
