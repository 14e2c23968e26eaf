"""Two full rounds in Chromium, three ways: on an English phone and on a French phone
(each records the rounds itself, on the table page opened from the phone), and in
live auction mode (the app referees bid by bid, the players bid from their phones).

The host's table runs in a 1280 x 800 window, the phones at 360 x 740 with touch.
Every screen visited is checked (no sideways scroll at 360 px, every control has an
accessible name: see browser_helpers.unnamed_controls) and the key ones are
photographed into tests/artifacts/. Nothing waits on a clock: each step waits for
what the screen must show next (htmx polls every second).
"""
import re
from dataclasses import dataclass

import pytest

from companion.rules.events import Bid, Pass
from companion.store import games
from tests.browser_helpers import (NO_PLAYWRIGHT, PHONE, TABLE, WAIT, check_screen, loose,
                                   open_page, press)
from tests.web_helpers import PLAYERS
from tests.web_helpers import new_game as new_game_over_http
from tests.web_helpers import play as play_over_http

expect = pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT).expect
expect.set_options(timeout=WAIT)


# --- what the pages say -------------------------------------------------------------

@dataclass(frozen=True)
class Words:
    """The texts of one language the tests look for (see messages.po for the French)."""

    code: str
    locale: str
    name: str  # the language switch's link
    families: dict  # the default family names of a new game, by their English name
    seat: str
    french_rules: str
    live: str
    start: str
    which_seat: str
    table: str
    history: str
    reveal_heading: str
    round_of: str
    pot: str
    reveal: str
    winner: str
    price: str
    allowed: str
    allowed_secret: str  # on a phone other than the winner's, with money secret (R12)
    if_won: str
    sold: str
    penalty: str
    penalty_by: str
    free: str
    coins: str
    last_payment: str


ENGLISH = Words(
    code="en", locale="en-GB", name="English", families={"red": "red", "yellow": "yellow"},
    seat="Seat {n}", french_rules="French rules", live="Live auction: the app referees bid by bid",
    start="Start the game", which_seat="Which seat is yours?", table="Table", history="History",
    reveal_heading="Round {n}: reveal the lot", round_of="Round {n} of 15", pot="Pot {n}",
    reveal="Reveal these 2 cards", winner="Winner", price="Price", allowed="Allowed.",
    allowed_secret="Allowed if {name} can pay: money is secret, so this device cannot tell (R12).",
    if_won="If won at this price:", sold="Sold", penalty="Penalty (forbidden bid)",
    penalty_by="Forbidden bid by",
    free="Nobody bid: the start player takes the lot", coins="{n} coins",
    last_payment="Last payment: {payment}")

FRENCH = Words(
    code="fr", locale="fr-FR", name="Français", families={"red": "rouge", "yellow": "jaune"},
    seat="Place {n}", french_rules="Règles françaises",
    live="Enchère en direct : l'application arbitre offre par offre",
    start="Commencer la partie", which_seat="Quelle est votre place ?", table="Table",
    history="Historique",
    reveal_heading="Tour {n} : révélez le lot", round_of="Tour {n} sur 15", pot="Pot commun {n}",
    reveal="Révéler ces 2 cartes", winner="Vainqueur", price="Prix", allowed="Autorisé.",
    allowed_secret="Autorisé si {name} peut payer : l'argent est secret, cet appareil ne peut pas "
                   "le savoir (R12).",
    if_won="Si l'enchère est remportée à ce prix :", sold="Vendu",
    penalty="Pénalité (offre interdite)", penalty_by="Offre interdite de",
    free="Le premier joueur a ouvert à 0 et personne n'a surenchéri : le lot est gratuit (R9)",
    coins="{n} pièces",
    last_payment="Dernier paiement : {payment}")

LANGUAGES = {words.code: words for words in (ENGLISH, FRENCH)}


def card_name(words: Words, card: str) -> str:
    """'red 1' as a game started in this language names it: 'rouge 1' in French."""
    family, number = card.split()
    return f"{words.families[family]} {number}"


# --- the steps a player takes ---------------------------------------------------------

def start_game(page, words: Words, edition="en", live=False) -> str:
    """The host fills in the new game form (players Anna, Bert, Claus); the game's token."""
    form = page.locator("form.new-game")
    for number, name in enumerate(PLAYERS, start=1):
        form.get_by_role("textbox", name=words.seat.format(n=number), exact=True).fill(name)
    if edition == "fr":
        form.get_by_role("radio", name=loose(words.french_rules)).check()
    if live:
        form.get_by_role("checkbox", name=loose(words.live)).check()
    check_screen(page)
    form.get_by_role("button", name=loose(words.start)).click()
    expect(page).to_have_url(re.compile(r"/g/[\w-]{20,}$"))
    check_screen(page)
    return page.url.rsplit("/", 1)[1]


def join(phone_browser, url, token, name, words: Words, errors, shot=None):
    """A phone scans the QR code (opens the join link at the phones' `url`) and takes
    `name`'s seat: its /me page."""
    phone = open_page(phone_browser.new_context(**PHONE, locale=words.locale),
                      f"{url}/g/{token}/join", errors)
    expect(phone.get_by_role("heading", name=loose(words.which_seat))).to_be_visible()
    check_screen(phone, shot)
    press(phone.get_by_role("button", name=name, exact=True))
    expect(phone).to_have_url(re.compile(r"/me$"))
    expect(phone.get_by_role("heading", name=name, exact=True)).to_be_visible()
    check_screen(phone)
    return phone


def reveal(page, words: Words, number: int, cards) -> None:
    """Tap the lot's two cells in the reveal grid: the second reveals them."""
    heading = page.get_by_role("heading", name=loose(words.reveal_heading.format(n=number)))
    expect(heading).to_be_visible()
    first, second = (page.get_by_role("checkbox", name=card_name(words, card), exact=True)
                     for card in cards)
    press(first)
    expect(first).to_be_checked()
    press(second)
    expect(heading).to_have_count(0)


def payment(page, text):
    """The payment to hand over, shown on its own (not inside a preview)."""
    return page.get_by_text(loose(text, exact=True))


# --- 1 and 2: two rounds recorded on a phone, in English and in French ----------------

@dataclass(frozen=True)
class Round:
    """One round recorded as a result. Cards are named in English ("red 1")."""

    cards: tuple
    sold: tuple | None = None  # (winner, price); None: a free lot
    penalty: str | None = None  # who made a forbidden bid, before the result
    pot_after_penalty: int | None = None
    payment: str | None = None  # what every screen must show after the sale
    bert_coins: int = 12  # what Bert's phone shows after the round


@dataclass(frozen=True)
class Recorded:
    words: Words
    edition: str  # the rules edition, a setting of the game and not of the language
    rounds: tuple
    shots: str


RECORDED = [
    Recorded(ENGLISH, "en", shots="en", rounds=(
        Round(("red 0", "yellow 5"), sold=("Anna", 3), bert_coins=13,
              payment="Anna pays 3: Bert takes 1, Claus takes 1, 1 stays in the pot"),
        Round(("red 1", "yellow 6"), penalty="Anna", pot_after_penalty=2, sold=("Bert", 4),
              bert_coins=9, payment="Bert pays 4 (+ 2 from the pot): Anna takes 3, Claus takes 3"),
    )),
    Recorded(FRENCH, "fr", shots="fr", rounds=(
        Round(("red 1", "yellow 5"), sold=("Anna", 3), bert_coins=13,
              payment="Anna paie 3 : Bert reçoit 1, Claus reçoit 1 ; "
                      "le reliquat de 1 reste dans le pot commun"),
        # A free lot (R9): Anna, the start player, holds no 0, so may open at 0.
        Round(("red 2", "yellow 6"), bert_coins=13),
    )),
]


def record_round(page, words: Words, number: int, played: Round, shot=None) -> None:
    """On Bert's phone, the table page: reveal, any penalty, then the sale (with its
    preview) or the free lot."""
    reveal(page, words, number, played.cards)
    if played.penalty:
        press(page.locator("summary").filter(has_text=loose(words.penalty)))
        check_screen(page)
        press(page.get_by_role("group", name=loose(words.penalty_by)).get_by_role(
            "radio", name=played.penalty, exact=True))  # the second tap records it
        expect(page.get_by_role("main")).to_contain_text(
            loose(words.pot.format(n=played.pot_after_penalty)))
    if played.sold is None:
        press(page.get_by_role("button", name=loose(words.free)))
        return
    winner, price = played.sold
    choice = page.get_by_role("radio", name=winner, exact=True)
    press(choice)
    expect(choice).to_be_checked()
    field = page.get_by_role("textbox", name=words.price, exact=True)
    expect(field).to_have_attribute("inputmode", "numeric")  # the phone shows its number pad
    press(field)
    field.press_sequentially(str(price))
    allowed = words.allowed if winner == "Bert" else words.allowed_secret.format(name=winner)
    expect(page.get_by_text(loose(allowed, exact=True))).to_be_visible()  # on Bert's phone
    expect(page.get_by_text(loose(words.if_won))).to_contain_text(loose(played.payment))
    sold = page.get_by_role("button", name=words.sold, exact=True)
    sold.scroll_into_view_if_needed()
    check_screen(page, shot)
    press(sold)


@pytest.mark.parametrize("game", RECORDED, ids=lambda game: game.shots)
def test_two_rounds_recorded_on_a_phone(server, browser, phone_browser, game):
    words, errors = game.words, []
    # The host may set up on a phone too: the new game form at 360 px, on the host's device.
    check_screen(open_page(browser.new_context(**PHONE, locale=words.locale),
                           server.url + "/", errors), f"{game.shots}-phone-new-game")
    table = open_page(browser.new_context(**TABLE, locale=words.locale), server.url + "/", errors)
    token = start_game(table, words, edition=game.edition)
    me = join(phone_browser, server.phone_url, token, "Bert", words, errors,
              shot=f"{game.shots}-phone-join")
    expect(me.locator("html")).to_have_attribute("lang", words.code)  # the browser's language

    # A second tab on the phone: the table page, from the link in the header.
    on_phone = open_page(me.context, me.url, errors)
    press(on_phone.get_by_role("link", name=words.table, exact=True))
    expect(on_phone).to_have_url(re.compile(rf"/g/{token}$"))
    check_screen(on_phone)

    for number, played in enumerate(game.rounds, start=1):
        record_round(on_phone, words, number, played,
                     shot=f"{game.shots}-phone-table" if number == 1 else None)
        # Every screen follows without a reload: the phone's table, its /me, the host's table.
        for page in (on_phone, me, table):
            expect(page.get_by_role("main")).to_contain_text(
                loose(words.round_of.format(n=number + 1)))
            if played.payment:
                expect(payment(page, played.payment)).to_be_visible()
            check_screen(page)
        expect(me.get_by_text(loose(words.coins.format(n=played.bert_coins), exact=True))
               ).to_be_visible()
        if number == 1:
            check_screen(me, f"{game.shots}-phone-me")
            check_screen(table, f"{game.shots}-table")
    if played.payment is None:  # a free lot moves no money: the last payment stays in sight
        last = words.last_payment.format(payment=game.rounds[0].payment)
        for page in (on_phone, me, table):
            expect(payment(page, last)).to_be_visible()

    # The switch in the header: the other language, remembered on this phone only.
    other = next(other for other in LANGUAGES.values() if other is not words)
    # (the name read aloud starts with the code shown: WCAG 2.5.3, Label in Name)
    press(me.get_by_role("link", name=f"{other.code.upper()} {other.name}", exact=True))
    expect(me.locator("html")).to_have_attribute("lang", other.code)
    for page in (me, on_phone):
        page.reload()
        expect(page.locator("html")).to_have_attribute("lang", other.code)
    expect(me.get_by_text(loose(other.coins.format(n=played.bert_coins), exact=True))
           ).to_be_visible()
    check_screen(me, f"{game.shots}-phone-switched")
    check_screen(on_phone)
    press(on_phone.get_by_role("link", name=other.history, exact=True))
    expect(on_phone.get_by_role("heading", name=other.history, exact=True)).to_be_visible()
    check_screen(on_phone, f"{game.shots}-phone-history")
    table.reload()
    expect(table.locator("html")).to_have_attribute("lang", words.code)
    assert games.load(server.app.config["STORE"], token).setup.edition == game.edition
    assert not errors


# --- 3: a live auction refereed by the app --------------------------------------------

@dataclass(frozen=True)
class LiveRound:
    """One round bid by bid. Each move is (player, where, amount): where is "table" or
    "phone"; amount None is dropping out; "warned" is a forbidden bid typed on the table,
    warned about and booked as a penalty (R4) with the warning's one-tap button."""

    cards: tuple
    moves: tuple
    sold: tuple  # (winner, price) the auction must end with
    payment: str
    warning: str = ""
    pot_after_warning: int = 0

    def as_results(self) -> list:
        """The same round entered as a result, as web_helpers.play takes it."""
        penalties = [("penalty", who) for who, where, _ in self.moves if where == "warned"]
        return [("reveal", *self.cards), *penalties, ("sold", *self.sold)]


LIVE_ROUNDS = (
    LiveRound(("red 0", "yellow 5"), sold=("Bert", 3),
              moves=(("Anna", "table", 2), ("Bert", "phone", 3), ("Claus", "table", None),
                     ("Anna", "table", None)),
              payment="Bert pays 3: Anna takes 1, Claus takes 1, 1 stays in the pot"),
    LiveRound(("red 1", "yellow 6"), sold=("Claus", 6),
              moves=(("Bert", "warned", 5), ("Bert", "phone", 4), ("Claus", "phone", 6),
                     ("Anna", "table", None), ("Bert", "phone", None)),
              warning="Bert holds a 5: a bid of 5 is forbidden (R3)", pot_after_warning=2,
              payment="Claus pays 6 (+ 2 from the pot): Anna takes 4, Bert takes 4"),
)
LIVE_END = dict(coins=(17, 12, 7), pot=0)  # R8: 36 coins in all (R1)


def await_turn(table, phones: dict, who: str) -> None:
    """The table says whose turn it is; that player's phone offers Bid and Drop out, and
    every other phone says whose turn it is."""
    expect(turn_line(table, who)).to_be_visible()
    for name, phone in phones.items():
        if name == who:
            expect(phone.get_by_role("button", name="Bid", exact=True)).to_be_visible()
            expect(phone.get_by_role("button", name="Drop out", exact=True)).to_be_visible()
        else:
            expect(turn_line(phone, who)).to_be_visible()


def turn_line(page, who: str):
    """The live auction's line that says whose turn it is (the help for new players, on
    for the server's first game, says it too, in a sentence of its own)."""
    return page.locator("p.turn", has_text=loose(f"{who}'s turn"))


def move(table, phones: dict, live: LiveRound, who: str, where: str, amount,
         shot=None) -> None:
    if where == "phone":
        phone = phones[who]
        check_screen(phone, shot)
        if amount is None:
            press(phone.get_by_role("button", name="Drop out", exact=True))
            return
        field = phone.get_by_role("textbox", name=loose("Your bid"))
        press(field)
        field.press_sequentially(str(amount))
        expect(phone.get_by_text("Allowed.", exact=True)).to_be_visible()
        press(phone.get_by_role("button", name="Bid", exact=True))
    elif amount is None:
        table.get_by_role("button", name=f"{who} drops out", exact=True).click()
    else:
        table.get_by_role("textbox", name=loose(f"Bid of {who}")).fill(str(amount))
        if where == "warned":
            expect(table.get_by_role("alert")).to_have_text(loose(live.warning))
            check_screen(table, "live-table-warning")
            table.get_by_role("button", name=f"{who} said it anyway: 1 coin to the pot (R4)",
                              exact=True).click()
            # The turn stays with them (R4); every phone must show the new pot before
            # anyone types: a refresh that lands while typing empties the field (see report).
            for page in (table, *phones.values()):
                expect(page.get_by_role("main")).to_contain_text(
                    loose(f"Pot {live.pot_after_warning}"))
        else:  # the table cannot tell whether they can pay before the bid is made (R12)
            expect(table.locator("#bid-check")).to_contain_text(loose(f"Allowed if {who} can pay"))
            table.get_by_role("button", name=f"{who} bids", exact=True).click()


def summary(state) -> dict:
    return dict(coins=state.coins, pot=state.pot, hands=state.hands, start=state.start,
                rounds=state.rounds_played)


def test_a_live_auction_pays_as_the_same_auction_entered_as_a_result(server, browser,
                                                                       phone_browser):
    errors = []
    table = open_page(browser.new_context(**TABLE), server.url + "/", errors)
    token = start_game(table, ENGLISH, live=True)
    phones = {name: join(phone_browser, server.phone_url, token, name, ENGLISH, errors)
              for name in ("Bert", "Claus")}
    # Claus also keeps the table open in a second tab of his phone.
    table_on_phone = open_page(phones["Claus"].context, f"{server.phone_url}/g/{token}",
                               errors)
    phone_shots = iter(["live-phone-turn"])
    for number, live in enumerate(LIVE_ROUNDS, start=1):
        reveal(table, ENGLISH, number, live.cards)
        for step, (who, where, amount) in enumerate(live.moves):
            await_turn(table, phones, who)
            if number == step + 1 == 1:
                check_screen(table, "live-table")
                check_screen(phones["Claus"], "live-phone-wait")
                expect(turn_line(table_on_phone, who)).to_be_visible()
                check_screen(table_on_phone, "live-phone-table")
            move(table, phones, live, who, where, amount,
                 shot=next(phone_shots, None) if where == "phone" else None)
        # The auction ends by itself: the sale and its payment are on every screen.
        expect(table.get_by_role("heading", name=loose(f"Round {number + 1}: reveal the lot"))
               ).to_be_visible()
        for page in (table, table_on_phone, *phones.values()):
            expect(payment(page, live.payment)).to_be_visible()
            check_screen(page)
    check_screen(phones["Bert"], "live-phone-me")
    check_screen(table, "live-table-sold")

    # The same two rounds entered as results, in a second game: the same book.
    host = server.app.test_client()
    entered = new_game_over_http(host)
    play_over_http(host, entered, [step for live in LIVE_ROUNDS for step in live.as_results()])
    store = server.app.config["STORE"]
    refereed, typed = games.load(store, token), games.load(store, entered)
    assert [event for event in refereed.events if not isinstance(event, (Bid, Pass))] == \
        typed.events
    assert summary(refereed.state) == summary(typed.state)
    assert (refereed.state.coins, refereed.state.pot) == (LIVE_END["coins"], LIVE_END["pot"])
    assert not errors
