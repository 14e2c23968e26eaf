"""Screens that fit the table (issue 27), measured in Chromium: a phone used as the table
has every step's controls on its first screen (360 x 740 and 390 x 844), a lost race is told
in sight on the phone that tried, the TV view shows a 5-player game on one screen (1920 x
1080 and 1280 x 720), a phone that changes hands hides its coins and leaves its seat, the
forms follow the player chosen and take few taps, and the laptop shows how to join until
every seat is taken.

"In sight" is measured as a player sees it, without scrolling: the element's box is wholly
inside the window, and nothing covers it (the element the browser finds at its centre is
it, or inside it). Each test also passes browser_helpers.check_screen (no sideways scroll,
44 px targets and 16 px text at 360 px, every control named); the screenshots of the README
and docs/playing.md are refreshed from here."""
import re
import shutil
from pathlib import Path

import pytest

from tests.browser_helpers import (ARTIFACTS, NO_PLAYWRIGHT, PHONE, WAIT, check_screen,
                                   hears_nothing, loose, open_page, press, take_seat)
from tests.test_browser_game_night import (FIVE, Taps, auction, controls, late_game,
                                          out_of_sight)
from tests.web_helpers import act, join, new_game, phone_client, play

expect = pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT).expect
expect.set_options(timeout=WAIT)

DOCS = Path(__file__).resolve().parents[1] / "docs"
PHONES = [{"width": 360, "height": 740}, {"width": 390, "height": 844}]
TVS = [{"width": 1920, "height": 1080}, {"width": 1280, "height": 720}]
LAPTOP = {"width": 1280, "height": 800}


def size(window) -> str:
    return f"{window['width']}x{window['height']}"


def phone_context(phone_browser, window, locale="en-GB"):
    """A phone of that screen size: touch, on the phones' network."""
    return phone_browser.new_context(**{**PHONE, "viewport": window}, locale=locale)


def in_sight(page, selector) -> None:
    """Everything `selector` matches is on the screen as it is, and nothing covers it."""
    expect(page.locator(selector).first).to_be_visible()
    assert out_of_sight(page, selector) == [], f"out of sight on {page.url}"


def shot(page, name: str, docs: str | None = None) -> None:
    """check_screen's screenshot of what the window shows; with `docs`, also docs/'s."""
    check_screen(page)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"{name}.png")
    if docs:
        shutil.copyfile(ARTIFACTS / f"{name}.png", DOCS / f"{docs}.png")


def seat_everyone(app, token, players=FIVE) -> None:
    """A phone of its own in every seat (over HTTP, each from its own address)."""
    for number, name in enumerate(players):
        assert join(phone_client(app, f"192.168.1.{40 + number}"), token, name,
                    players).status_code == 303


def lowest_bid(client, token, or_pass=False) -> None:
    """Whoever's turn it is bids the lowest they may, on the host's table (or, if they
    cannot pay it and `or_pass`, drops out)."""
    page = client.get(f"/g/{token}").get_data(as_text=True)
    lowest = re.search(r"at least (\d+)", page)
    if lowest and act(client, token, "bid", amount=lowest.group(1)).status_code == 303:
        return
    assert or_pass and act(client, token, "pass").status_code == 303


def turn(app, token) -> str:
    """Whose turn it is in the live auction."""
    from companion.store import games
    game = games.load(app.config["STORE"], token)
    return game.setup.players[game.state.auction.turn]


# --- 1. a phone as the table ----------------------------------------------------------

@pytest.mark.parametrize("window", PHONES, ids=size)
def test_a_phone_as_the_table_has_every_step_s_controls_on_its_first_screen(
        server, phone_browser, window):
    """Round 11 of five players, recorded on Bert's phone: the reveal grid's 60 cards, then
    the lot, the winner, the price and Sold (with its preview shown), then the payment and
    the next grid; nothing sticks over them. Then one tap back to Bert's own screen."""
    token = late_game(server.app.test_client())
    phone = take_seat(phone_context(phone_browser, window), server, token, "Bert")
    phone.goto(f"{server.phone_url}/g/{token}")
    in_sight(phone, ".payment, .grid .cell input")
    shot(phone, f"phone-table-reveal-{size(window)}")
    for card in ("purple 0", "purple 1"):
        press(phone.get_by_label(card, exact=True))
    sold = phone.locator("form.action-sold")
    expect(sold).to_be_visible()
    in_sight(phone, f".lot .card, {controls('form.action-sold')}")
    press(sold.get_by_role("radio", name="Anna"))
    price = sold.get_by_role("textbox", name="Price")
    press(price)
    price.press_sequentially("1")
    expect(sold.locator(".preview")).to_contain_text("If won at this price")
    in_sight(phone, f"{controls('form.action-sold')}, form.action-sold .preview")
    shot(phone, f"phone-table-sold-{size(window)}")
    press(sold.get_by_role("button", name="Sold", exact=True))
    expect(phone.locator(".payment")).to_contain_text("Anna pays 1")
    expect(phone.get_by_role("heading", name="Round 12: reveal the lot")).to_be_visible()
    in_sight(phone, ".payment, .grid .cell input")
    # one tap back to the phone's own screen, from the link in the header
    in_sight(phone, "header a[href$='/me']")
    taps = Taps()
    taps(phone.get_by_role("link", name="My seat", exact=True))
    expect(phone).to_have_url(re.compile(r"/me$"))
    expect(phone.get_by_role("heading", name="Bert", exact=True)).to_be_visible()
    assert taps.count == 1


@pytest.mark.parametrize("window", PHONES, ids=size)
def test_a_phone_has_a_live_auction_s_bid_pad_on_its_first_screen_at_every_bid(
        server, phone_browser, window):
    """Live auction mode, round 11 of five: on the table screen of the phone whose turn it
    is, and on its own screen, whose turn it is, the bid pad and the drop-out, at its first
    bid and at its next one."""
    client = server.app.test_client()
    token = late_game(client, live=True)
    act(client, token, "reveal", "purple 0", "purple 1")
    bidder = turn(server.app, token)
    context = phone_context(phone_browser, window)
    me = take_seat(context, server, token, bidder)
    table = open_page(context, f"{server.phone_url}/g/{token}", [])
    pad = (f".auction .turn, {controls('form.action-bid')}, "
           f"{controls('form.action-pass')}")
    for bid in range(2):
        for page in (table, me):
            expect(page.locator("form.action-bid")).to_be_visible()
            in_sight(page, pad)
        if bid == 0:
            shot(table, f"phone-table-live-{size(window)}")
            shot(me, f"phone-live-{size(window)}")
        lowest_bid(client, token)  # the phone's bid, then the others' until its turn again
        while turn(server.app, token) != bidder:
            lowest_bid(client, token, or_pass=True)
        me.reload()
        table.reload()


# --- 2. a lost race, told where the phone looks ----------------------------------------

RACE = {"en": ("en-GB", "Your sale was not recorded."),
        "fr": ("fr-FR", "Votre vente n'a pas été enregistrée.")}


@pytest.mark.parametrize("language", RACE)
def test_a_lost_race_is_told_in_sight_on_the_phone_that_tried(server, phone_browser, language):
    """Bert's phone, whose screen has not heard of Claus's sale yet (its poll is slow),
    taps Sold scrolled down the page: it is told, in sight, that its sale was not
    recorded and which was."""
    locale, yours = RACE[language]
    client = server.app.test_client()
    token = late_game(client)
    act(client, token, "reveal", "purple 0", "purple 1")
    slow = take_seat(phone_context(phone_browser, PHONES[0], locale), server, token, "Bert")
    hears_nothing(slow)
    slow.goto(f"{server.phone_url}/g/{token}")
    sold = slow.locator("form.action-sold")
    press(sold.get_by_role("radio", name="Anna"))
    sold.locator("input[name=price]").fill("1")
    fast = take_seat(phone_context(phone_browser, PHONES[0], locale), server, token, "Claus")
    fast.goto(f"{server.phone_url}/g/{token}")
    fast_sold = fast.locator("form.action-sold")
    press(fast_sold.get_by_role("radio", name="Dieter"))
    fast_sold.locator("input[name=price]").fill("1")
    press(fast_sold.locator("button.main"))
    expect(fast.locator(".payment")).to_contain_text("Dieter")
    slow.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    press(sold.locator("button.main"))
    note = slow.get_by_role("status").filter(has_text=loose(yours))
    expect(note).to_contain_text(re.compile(r"Dieter"))
    in_sight(slow, "#live .note")
    shot(slow, f"phone-race-{language}")


# --- 3. the TV view ---------------------------------------------------------------------

TV_PARTS = (".payment-box p, .status p:first-child, .lot .card, .player h3, .player .cards, "
            ".player .forbidden, .unseen, .guide")


@pytest.mark.parametrize("live", [False, True], ids=["results", "live"])
@pytest.mark.parametrize("window", TVS, ids=size)
def test_the_tv_view_shows_a_game_of_five_on_one_screen(server, browser, window, live):
    """Round 11 of five: every player's name, cards by family and forbidden endings, the
    lot, the last payment and the round (in live auction mode, whose turn it is too) at
    once; the QR code is large while a seat is free and small once every seat is taken;
    then the sale's payment in large type, with every player still in sight."""
    client = server.app.test_client()
    token = late_game(client, live=live)
    act(client, token, "reveal", "purple 0", "purple 1")
    tv = open_page(browser.new_context(viewport=window), f"{server.url}/g/{token}/tv", [])
    expect(tv.locator(".player")).to_have_count(5)
    parts = TV_PARTS + (", .auction .turn" if live else "")
    in_sight(tv, f"{parts}, .join img, .join .code")
    large = tv.locator(".join img").bounding_box()["height"]
    seat_everyone(server.app, token)
    expect(tv.locator(".join")).not_to_have_class(re.compile("seats-open"))
    in_sight(tv, f"{parts}, .join img, .join .code")
    small = tv.locator(".join img").bounding_box()["height"]
    assert small < large / 1.5 and small <= window["height"] / 8, (small, large)
    if live:
        shot(tv, f"tv-live-{size(window)}")
        auction(client, token)  # the first who can opens, the others drop out: a sale
    else:
        act(client, token, "sold", "Claus", 6)
    expect(tv.locator(".payment")).to_be_visible()  # announced in large type
    in_sight(tv, TV_PARTS.replace(".lot .card, ", ""))
    if not live:
        shot(tv, f"tv-{size(window)}", docs="tv" if window["width"] == 1920 else None)


# --- 4. a phone that changes hands ------------------------------------------------------

def test_a_phone_that_changes_hands_hides_its_money_and_leaves_its_seat(
        server, phone_browser):
    """One tap hides Bert's coins and cards (money is secret, R12), and they stay hidden as
    the screen follows the game and after a reload; "Leave this seat", confirmed, frees the seat for another
    phone."""
    client = server.app.test_client()
    token = new_game(client)
    me = take_seat(phone_context(phone_browser, PHONES[0]), server, token, "Bert")
    play(client, token, [("reveal", "red 0", "yellow 5"), ("sold", "Anna", 3)])
    expect(me.locator(".payment")).to_contain_text("Anna pays 3")
    coins = me.get_by_text("13 coins", exact=True)
    expect(coins).to_be_visible()
    in_sight(me, ".payment, .me .coins, #hide-mine")
    shot(me, "phone-me", docs="phone")
    taps = Taps()
    taps(me.get_by_role("checkbox", name="Hide my coins and cards"))
    expect(coins).to_be_hidden()
    expect(me.get_by_text("Your coins and cards are hidden.")).to_be_visible()
    expect(me.get_by_role("textbox", name="Can I bid this amount?")).to_be_hidden()
    play(client, token, [("reveal", "red 1", "yellow 6")])
    expect(me.locator(".lot")).to_be_visible()  # a fresh live part
    expect(coins).to_be_hidden()
    expect(me.locator(".me .cards")).to_be_hidden()
    assert taps.count == 1
    shot(me, "phone-hidden")
    me.reload()  # hidden from the first paint, and the box still ticked
    expect(me.get_by_text("Your coins and cards are hidden.")).to_be_visible()
    expect(coins).to_be_hidden()
    press(me.get_by_role("checkbox", name="Hide my coins and cards"))
    expect(coins).to_be_visible()
    me.reload()
    expect(coins).to_be_visible()

    press(me.get_by_text("Leave this seat", exact=True))
    confirm = me.get_by_role("button", name="Leave Bert's seat")
    confirm.scroll_into_view_if_needed()
    shot(me, "phone-leave")
    press(confirm)
    expect(me).to_have_url(re.compile(r"/join$"))
    other = take_seat(phone_context(phone_browser, PHONES[0]), server, token, "Bert")
    expect(other.get_by_role("heading", name="Bert", exact=True)).to_be_visible()
    me.goto(f"{server.phone_url}/g/{token}/me")
    expect(me).to_have_url(re.compile(r"/join$"))  # it only watches now


# --- 5. forms that follow the chosen player ----------------------------------------------

def test_the_overbid_s_discard_list_holds_the_chosen_player_s_cards_only(server, browser):
    token = late_game(server.app.test_client())
    table = open_page(browser.new_context(viewport=LAPTOP), f"{server.url}/g/{token}", [])
    for card in ("purple 0", "purple 1"):
        press(table.get_by_label(card, exact=True))
    # the lot is revealed (the second card sends it) before the player opens the overbid
    expect(table.get_by_role("heading", name="Round 11: the auction")).to_be_visible()
    overbid = table.locator("form.action-overbid")
    table.locator("summary").filter(has_text="Overbid").click()
    overbid.get_by_label("Bid more than they hold").select_option(label="Bert")
    offered = overbid.get_by_label("Card they discard").evaluate(
        "select => [...select.options].filter(option => option.value).map(option => option.text)")
    assert sorted(offered) == sorted(["Bert: ♦ red 1", "Bert: ♦ red 3", "Bert: ♦ red 4",
                                      "Bert: ★ yellow 6"])
    check_screen(table)


def test_an_excluded_player_is_told_so(server, phone_browser):
    """Bert overbid (R5): his phone says he is out of this round's auction, not that he
    may bid any amount, and so does the table."""
    client = server.app.test_client()
    token = new_game(client)
    me = take_seat(phone_context(phone_browser, PHONES[0]), server, token, "Bert")
    play(client, token, [("reveal", "red 0", "yellow 5"), ("overbid", "Bert", None)])
    expect(me.get_by_text("You are out of this round's auction.")).to_be_visible()
    expect(me.locator(".me")).not_to_contain_text(re.compile("may bid any amount", re.I))
    expect(me.locator(".me")).not_to_contain_text("Highest bid")
    check_screen(me)
    table = open_page(me.context, f"{server.phone_url}/g/{token}", [])
    bert = table.locator(".player").filter(has_text="Bert")
    expect(bert).to_contain_text("out this round")
    expect(bert).not_to_contain_text(re.compile("may bid any amount", re.I))


def test_a_penalty_takes_two_taps_and_a_side_sale_five(server, phone_browser):
    """On a phone used as the table: the penalty's summary and the player; the side sale's
    summary, the card (its holder becomes the seller), the buyer, the price, the button."""
    client = server.app.test_client()
    token = new_game(client)
    play(client, token, [("reveal", "red 0", "yellow 5"), ("sold", "Anna", 3)])
    phone = take_seat(phone_context(phone_browser, PHONES[0]), server, token, "Bert")
    phone.goto(f"{server.phone_url}/g/{token}")

    taps = Taps()
    taps(phone.locator("summary").filter(has_text="Side sale"))
    sale = phone.locator("form.action-side_sale")
    taps(sale.get_by_role("radio", name="Anna: ♦ red 0"))
    expect(sale.get_by_role("group", name="Seller").get_by_role("radio", name="Anna")
           ).to_be_checked()
    taps(sale.get_by_role("group", name="Buyer").get_by_role("radio", name="Bert"))
    taps(sale.get_by_role("textbox", name="Price"))
    sale.get_by_role("textbox", name="Price").press_sequentially("2")
    check_screen(phone)
    taps(sale.get_by_role("button", name="Record the side sale"))
    expect(phone.locator(".payment")).to_contain_text("Bert pays Anna 2 for ♦ red 0")
    assert taps.count == 5

    press(phone.get_by_label("red 1", exact=True))
    press(phone.get_by_label("yellow 6", exact=True))
    expect(phone.locator("form.action-sold")).to_be_visible()
    taps = Taps()
    taps(phone.locator("summary").filter(has_text="Penalty"))
    taps(phone.get_by_role("group", name="Forbidden bid by").get_by_role("radio", name="Bert"))
    expect(phone.locator(".payment")).to_contain_text(
        "Bert puts 1 coin into the pot (forbidden bid)")
    assert taps.count == 2
    in_sight(phone, ".payment")


# --- 6. the history, the laptop's QR code, a French free lot -----------------------------

def test_the_history_s_correct_link_reads_as_a_sentence(server, browser):
    client = server.app.test_client()
    token = new_game(client)
    play(client, token, [("reveal", "red 0", "yellow 5")])
    history = open_page(browser.new_context(viewport=LAPTOP), f"{server.url}/g/{token}/history",
                        [])
    line = history.locator(".round li").first
    expect(line).to_have_text(re.compile(loose(
        "Revealed ♦ red 0 and ★ yellow 5 Recorded by the host's device at HH:MM. Correct",
        exact=True).pattern.replace("HH:MM", r"\d\d:\d\d")))
    expect(line.get_by_role("link", name="Correct", exact=True)).to_be_visible()
    check_screen(history)


def test_the_laptop_shows_how_to_join_on_its_first_screen_until_every_seat_is_taken(
        server, browser):
    client = server.app.test_client()
    token = late_game(client)
    table = open_page(browser.new_context(viewport=LAPTOP), f"{server.url}/g/{token}", [])
    in_sight(table, f".join img, .join .code, .player h3, {controls('form.action-reveal')}")
    for card in ("purple 0", "purple 1"):
        press(table.get_by_label(card, exact=True))
    expect(table.locator("form.action-sold")).to_be_visible()
    in_sight(table, f".join img, .join .code, .player h3, {controls('form.action-sold')}")
    shot(table, "laptop-join", docs="table")
    seat_everyone(server.app, token)
    expect(table.locator(".join")).not_to_have_class(re.compile("seats-open"))
    in_sight(table, f".player h3, {controls('form.action-reveal')}")


def test_a_french_free_lot_cites_the_same_rule_in_the_history_and_on_the_table(server, browser):
    """French rules, live auction: Anna opens at 0 and nobody raises (R9)."""
    client = server.app.test_client()
    token = new_game(client, edition="fr", live="on")
    play(client, token, [("reveal", "red 1", "yellow 6")])
    for step in (("bid", {"amount": "0"}), ("pass", {}), ("pass", {})):
        assert act(client, token, step[0], **step[1]).status_code == 303
    context = browser.new_context(viewport=LAPTOP)
    table = open_page(context, f"{server.url}/g/{token}", [])
    history = open_page(context, f"{server.url}/g/{token}/history", [])
    cited = [page.locator(f"{where} a.rule").all_inner_texts()
             for page, where in ((table, ".payment"), (history, ".round li"))]
    assert cited == [["R9"], ["R9"]], cited
