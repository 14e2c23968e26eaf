"""A whole game through the real table page in Chromium (issue 27: "the full game in the
browser tests still matches its record"), checked against an answer key the app never
wrote: the full example records of tests/fixtures/ and their `replay` contract
(game-record.md), full-game-N.expected.json.

The game is started on the host's laptop (1280 x 800) from the new-game form, or, for a
record whose header that form cannot give (8 start coins), from the import form with the
header alone. Then every event of the record is entered by tapping the table page's
forms: the reveal grid, the Sold form (winner, price, its preview, Sold), the free lot,
penalties, overbids (in the lot's auction and in a side sale's, before the reveal), side
sales and exchanges. Some rounds are recorded on a seated phone (360 x 740, touch) used as
the table, as the host's laptop follows.

After each event, what the players see is checked against the rules core's fold of the
record up to that event: the payment, side sale price, penalty coin, free lot or discard
announced, the pot, and (open money) every player's coins; each sale's preview says the
same before Sold is tapped. At the end, the score screen must show the answer key's
coins, bonus, points and card sums; the record exported from the score screen must hold
the fixture's events, in order, and replay to exactly the answer key.

Nothing waits on a clock: each step waits for the version of the game the page shows to
move on, then for what the screen must show (htmx polls every second).
"""
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from companion.rules.record import fold_record, load_setup
from companion.rules.replay import replay_json
from companion.store import games
from tests.browser_helpers import (NO_PLAYWRIGHT, PHONE, TABLE, WAIT, check_screen, loose,
                                   open_page, press, take_seat)

expect = pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT).expect
expect.set_options(timeout=WAIT)

FIXTURES = Path(__file__).parent / "fixtures"
SYMBOLS = "♦★♣●▲■"  # each family's symbol on every screen, by its place in the game's list


@dataclass(frozen=True)
class Played:
    """How one full example record is played through the browser."""

    fixture: str
    money: str  # "open" (every player's coins on the table, checked at each step) or "secret"
    phone: tuple = ()  # (player, first round, last round) recorded on that player's phone

    @property
    def record(self) -> dict:
        return json.loads((FIXTURES / f"{self.fixture}.json").read_text(encoding="utf-8"))

    @property
    def expected(self) -> dict:
        return json.loads((FIXTURES / f"{self.fixture}.expected.json").read_text(encoding="utf-8"))


PLAYED = [
    # English rules, side sales, 2 side-auction overbids, 9 penalties, 2 free lots; all on
    # the laptop, money open.
    Played("full-game-2", money="open"),
    # French rules, 8 start coins (imported header), 14 penalties, wins at 0; money secret,
    # rounds 11 to 15 on Anna's phone.
    Played("full-game-1", money="secret", phone=("Anna", 11, 15)),
    # French rules with the exchange variant (14 exchanges), a player named 李; money
    # secret, rounds 4 to 6 on 李's phone.
    Played("full-game-3", money="secret", phone=("李", 4, 6)),
]


# --- what the screens must say, from the rules core's fold of the record -------------

def card_words(record: dict, card: dict) -> str:
    """A card as a screen names it: '♦ red 0'."""
    return f"{SYMBOLS[record['families'].index(card['family'])]} {card['family']} {card['number']}"


def announced(record: dict, event: dict, before, after) -> str | None:
    """What the payment box must announce after `event`, which led from `before` to
    `after` (states of the rules core): None where it moves neither coins nor cards."""
    kind = event["type"]
    if kind == "sold":
        if record["edition"] == "fr" and event["price"] == 0:  # a free lot (R8.6)
            return "French rules: a win at 0 is a free lot, no money moves (R8)"
        return after.last_sale.instructions
    if kind == "free":
        return f"No money moves: {before.start_player} takes the lot for free (R9)"
    if kind == "penalty":
        return (f"{event['player']} puts 1 coin into the pot (forbidden bid)"
                if after.pot != before.pot else None)
    if kind == "side_sale":
        return (f"{event['buyer']} pays {event['seller']} {event['price']} for "
                f"{card_words(record, event['card'])}")
    if kind == "overbid":
        discarded = (f", discarded {card_words(record, event['discard'])}"
                     if event["discard"] else "")
        goes_on = ("the auction restarts" if before.lot else  # a side sale's (R5's ruling)
                   "the side sale's auction starts again without them")
        return f"{event['player']} bid more than they hold{discarded}; {goes_on}"
    return None


# --- the steps, tapped on the table page ---------------------------------------------

def version(page) -> int:
    """The version of the game the page's forms were drawn from."""
    return int(page.locator("#live input[name=version]").first.input_value())


def summary(page, title: str):
    """Open a folded-away form by its summary."""
    press(page.locator("#live summary").filter(has_text=loose(title)))


def chooser(form, label: str):
    """A select by its label (its accessible name goes on with the option chosen)."""
    return form.get_by_role("combobox", name=re.compile(rf"^{re.escape(label)}\b"))


def reveal(page, record, event) -> None:
    grid = page.locator("form.action-reveal")
    first, second = (grid.get_by_role("checkbox", name=f"{card['family']} {card['number']}",
                                      exact=True) for card in event["cards"])
    press(first)
    expect(first).to_be_checked()
    press(second)


def sold(page, record, event, shown: str) -> None:
    form = page.locator("form.action-sold")
    winner = form.get_by_role("group", name="Winner").get_by_role(
        "radio", name=event["winner"], exact=True)
    press(winner)
    expect(winner).to_be_checked()
    price = form.get_by_role("textbox", name="Price", exact=True)
    press(price)
    price.press_sequentially(str(event["price"]))
    # The preview says, before Sold, what the sale will bring.
    expect(form.locator(".preview .if-won")).to_have_text(
        loose(f"If won at this price: {shown}"))
    expect(form.locator(".preview .problems")).to_have_count(0)
    press(form.get_by_role("button", name="Sold", exact=True))


def free(page, record, event) -> None:
    """The free lot, in the edition's words: nobody bid, or (French rules) the start player
    opened at 0 and nobody raised, or did not open and nobody bid (R9)."""
    press(page.locator("form.action-free button"))


def penalty(page, record, event) -> None:
    summary(page, "Penalty (forbidden bid)")
    press(page.get_by_role("group", name="Forbidden bid by").get_by_role(
        "radio", name=event["player"], exact=True))  # the tap records it


def overbid(page, record, event) -> None:
    summary(page, "Overbid (more than they hold)")
    form = page.locator("form.action-overbid")
    chooser(form, "Bid more than they hold").select_option(label=event["player"])
    discard = chooser(form, "Card they discard")
    if event["discard"]:
        discard.select_option(label=f"{event['player']}: {card_words(record, event['discard'])}")
    else:
        discard.select_option(label="none (holds no card)")
    press(form.get_by_role("button", name="Record the overbid"))


def side_sale(page, record, event) -> None:
    summary(page, "Side sale (before the reveal)")
    form = page.locator("form.action-side_sale")
    # The card tapped first chooses its holder as the seller.
    press(form.get_by_role("group", name="Card sold").get_by_role(
        "radio", name=f"{event['seller']}: {card_words(record, event['card'])}", exact=True))
    expect(form.get_by_role("group", name="Seller").get_by_role(
        "radio", name=event["seller"], exact=True)).to_be_checked()
    press(form.get_by_role("group", name="Buyer").get_by_role(
        "radio", name=event["buyer"], exact=True))
    price = form.get_by_role("textbox", name="Price", exact=True)
    press(price)
    price.press_sequentially(str(event["price"]))
    press(form.get_by_role("button", name="Record the side sale"))


def exchange(page, record, event) -> None:
    summary(page, "Exchange (before the reveal)")
    form = page.locator("form.action-exchange")
    chooser(form, "Player").select_option(label=event["player"])
    chooser(form, "Card the player gives").select_option(
        label=f"{event['player']}: {card_words(record, event['gives'])}")
    chooser(form, "Opponent").select_option(label=event["opponent"])
    chooser(form, "Card the player gets").select_option(
        label=f"{event['opponent']}: {card_words(record, event['takes'])}")
    press(form.get_by_role("button", name="Record the exchange"))


STEPS = {"reveal": reveal, "free": free, "penalty": penalty, "overbid": overbid,
         "side_sale": side_sale, "exchange": exchange}


# --- setting up ----------------------------------------------------------------------

def start_on_the_form(page, record: dict, money: str) -> None:
    """The host fills in the new game form with the record's header."""
    form = page.locator("form.new-game")
    for seat, name in enumerate(record["players"], start=1):
        form.get_by_role("textbox", name=f"Seat {seat}", exact=True).fill(name)
    start = record["players"].index(record.get("start_player", record["players"][0]))
    form.get_by_label("First start player (seat)").select_option(label=f"Seat {start + 1}")
    form.get_by_role("radio", name={"en": "English rules", "fr": "French rules"}[
        record["edition"]]).check()
    variants = {"side_auctions": True, "exchange": False, **record.get("variants", {})}
    form.get_by_role("checkbox", name="Side sales").set_checked(variants["side_auctions"])
    form.get_by_role("checkbox", name="Exchange variant").set_checked(variants["exchange"])
    form.get_by_role("radio", name=re.compile("^Open" if money == "open" else "^Secret")).check()
    check_screen(page)
    press(form.get_by_role("button", name="Start the game"))


def start_by_import(page, record: dict, money: str, folder: Path) -> None:
    """The host imports the record's header alone (no event yet): the new game form has
    no field for the start coins."""
    header = folder / "header.json"
    header.write_text(json.dumps({**record, "events": []}), encoding="utf-8")
    form = page.locator("form[action$='/import']")
    form.get_by_label("Record (JSON)").set_input_files(header)
    form.get_by_role("radio", name=re.compile("^Open" if money == "open" else "^Secret")).check()
    press(form.get_by_role("button", name="Import"))


def round_of(index: int, events: list) -> int:
    """The round event `index` belongs to: side sales and the rest before a reveal count
    in the round of that reveal."""
    return 1 + sum(1 for event in events[:index] if event["type"] in ("sold", "free"))


# --- the game ------------------------------------------------------------------------

@pytest.mark.parametrize("played", PLAYED, ids=lambda played: played.fixture)
def test_a_whole_game_entered_on_the_table_page_matches_its_record(
        server, browser, phone_browser, tmp_path, played):
    record, expected, errors = played.record, played.expected, []
    events = record["events"]
    states = [fold_record({**record, "events": events[:count]})
              for count in range(len(events) + 1)]  # the answer at every step
    assert replay_json(states[-1]) == expected  # the key and the core agree before we start

    laptop = open_page(browser.new_context(**TABLE, locale="en-GB"), server.url + "/", errors)
    if record.get("start_coins", 12) == 12:
        start_on_the_form(laptop, record, played.money)
    else:
        start_by_import(laptop, record, played.money, tmp_path)
    expect(laptop).to_have_url(re.compile(r"/g/[\w-]{20,}$"))
    token = laptop.url.rsplit("/", 1)[1]
    store = server.app.config["STORE"]
    assert games.load(store, token).setup == load_setup(record)
    expect(laptop.get_by_role("heading", name="Round 1: reveal the lot")).to_be_visible()
    check_screen(laptop, f"{played.fixture}-start")

    phone = me = None
    if played.phone:
        holder, first_round, last_round = played.phone
        context = phone_browser.new_context(**PHONE, locale="en-GB")
        me = take_seat(context, server, token, holder, errors)
        phone = open_page(context, f"{server.phone_url}/g/{token}", errors)
        expect(phone.get_by_role("heading", name=re.compile(r"^Round 1: "))).to_be_visible()

    current = version(laptop)  # the version of the game: one more at each event
    seen = set()
    last_sale = None
    for index, event in enumerate(events):
        before, after = states[index], states[index + 1]
        number = round_of(index, events)
        on_phone = played.phone and first_round <= number <= last_round
        page = phone if on_phone else laptop
        kind = event["type"]
        shown = announced(record, event, before, after)
        # The screen to tap shows the game as it is now (one that did not record the last
        # event catches up by its poll).
        expect(page.locator("#live input[name=version]").first).to_have_value(str(current))
        if kind == "sold":
            sold(page, record, event, shown)
        else:
            STEPS[kind](page, record, event)

        # The change is on this screen: a new version of the game, or the game over.
        if after.finished:
            expect(page.locator("#live .record")).to_contain_text("The game is over.")
        else:
            expect(page.locator("#live input[name=version]").first).to_have_value(
                str(current + 1))
        current += 1
        if kind in ("sold", "free"):
            last_sale = after.last_sale.instructions if after.last_sale else last_sale
            if not after.finished:
                expect(page.get_by_role("heading", name=f"Round {number + 1}: reveal the lot")
                       ).to_be_visible()
        elif kind == "reveal":
            expect(page.get_by_role("heading", name=f"Round {number}: the auction")
                   ).to_be_visible()
        payment = page.locator("#payment .payment")
        if shown is None:
            expect(payment).to_have_count(0)
            if last_sale:
                expect(page.locator("#payment .last-payment")).to_have_text(
                    loose(f"Last payment: {last_sale}", exact=True))
        else:
            expect(payment).to_have_text(loose(shown, exact=True))
        # The status bar: round, start player, pot.
        expect(page.locator("#live .status p").first.locator("strong")).to_have_text(
            [str(after.round_number), after.start_player, str(after.pot)])
        if played.money == "open":
            expect(page.locator("#live .players .coins")).to_have_text(
                [coins_words(coins) for coins in after.coins])
        if on_phone and kind == "sold" and shown:
            # the laptop follows what the phone recorded
            expect(laptop.locator("#payment .payment")).to_have_text(loose(shown, exact=True))
        if (kind, page is phone) not in seen:
            seen.add((kind, page is phone))
            check_screen(page)

    # --- the score screen shows the answer key ----------------------------------------
    press(laptop.get_by_role("link", name="See the score"))
    expect(laptop.get_by_role("heading", name="Final score")).to_be_visible()
    winners = expected["winners"]
    expect(laptop.locator("main p.big").first).to_have_text(loose(
        f"Shared win: {', '.join(winners)}" if len(winners) > 1 else f"Winner: {winners[0]}",
        exact=True))
    rows = laptop.locator("table.score tbody tr")
    expect(rows).to_have_count(len(expected["players"]))
    for row, player in zip(rows.all(), expected["players"]):
        expect(row.locator("th")).to_have_text(player["name"])
        for label, key in (("Coins", "coins"), ("Coin bonus", "coin_bonus"),
                           ("Total", "points"), ("Card sum", "card_sum")):
            expect(row.locator(f"td[data-label='{label}']")).to_have_text(str(player[key]))
    check_screen(laptop, f"{played.fixture}-score")

    # --- the record exported from the score screen -------------------------------------
    with laptop.expect_download() as download:
        press(laptop.get_by_role("link", name="Export the game record"))
    exported = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert list(map(lot_as_set, exported["events"])) == list(map(lot_as_set, events))
    assert load_setup(exported) == load_setup(record)
    assert sorted_cards(replay_json(fold_record(exported))) == sorted_cards(expected)

    if me is not None:  # the phone's own screen: the game over, where its player finished
        mine = next(player for player in expected["players"] if player["name"] == holder)
        expect(me.locator(".game-over")).to_contain_text(loose(f"with {mine['points']} points"))
        expect(me.locator(".me .coins")).to_have_text(coins_words(mine["coins"]))
        check_screen(me)
    assert not errors


def coins_words(count: int) -> str:
    return f"{count} coin" if count == 1 else f"{count} coins"


def lot_as_set(event: dict) -> dict:
    """An event with a reveal's 2 cards in one order: a lot is a pair, not a sequence (R2),
    and the grid sends its cards in its own order, not in the order tapped."""
    if event["type"] != "reveal":
        return event
    return {**event, "cards": sorted(event["cards"], key=lambda card: (card["family"],
                                                                       card["number"]))}


def sorted_cards(replayed: dict) -> dict:
    """The replay with each player's cards in one order (the contract leaves it open)."""
    return {**replayed, "players": [
        {**player, "cards": sorted(player["cards"], key=lambda card: (card["family"],
                                                                       card["number"]))}
        for player in replayed["players"]]}
