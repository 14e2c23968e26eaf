"""The rules in the app (issue 14) in Chromium: a refusal's rule reference is a link, and
following it shows that rule's paragraph, in English on the laptop and in French on a
phone."""
import re
from dataclasses import dataclass

import pytest

from tests.browser_helpers import (ARTIFACTS, NO_PLAYWRIGHT, PHONE, TABLE, WAIT, check_screen,
                                   loose, open_page, press, take_seat)
from tests.web_helpers import new_game, play

expect = pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT).expect


@dataclass(frozen=True)
class Refused:
    """A sale refused by the curse, seen in one language: what it says, and the heading of
    the paragraph its link leads to."""

    locale: str
    edition: str
    refusal: str
    price: str
    sold: str
    heading: str


ENGLISH = Refused("en-GB", "en", "Anna holds a 0: a bid of 10 is forbidden (R3).", "Price",
                  "Sold", "R3. Bidding and the curse")
FRENCH = Refused("fr-FR", "fr", "Anna détient un 0 : une enchère de 10 est interdite (R3).",
                 "Prix", "Vendu", "R3. Les enchères et la malédiction")


def round_two(server, edition: str) -> str:
    """A game in round 2: Anna bought the red 0 (so holds a 0), the next lot revealed."""
    host = server.app.test_client()
    token = new_game(host, edition=edition)
    play(host, token, [("reveal", "red 0", "yellow 5"), ("sold", "Anna", 3),
                       ("reveal", "red 1", "yellow 6")])
    return token


def sell_to_anna_for_10(page, words: Refused) -> None:
    """The table's sale form: Anna, 10, Sold; the refusal is shown with its rule linked."""
    press(page.get_by_role("radio", name="Anna", exact=True))
    field = page.get_by_role("textbox", name=words.price, exact=True)
    press(field)
    field.press_sequentially("10")
    sold = page.get_by_role("button", name=words.sold, exact=True)
    sold.scroll_into_view_if_needed()
    press(sold)
    refusal = page.locator("form.action-sold .error")
    expect(refusal).to_have_text(loose(words.refusal, exact=True), timeout=WAIT)


def follow_the_rule(page, words: Refused) -> None:
    """Tap the refusal's 'R3': the rules page opens on rule R3's paragraph, in sight."""
    press(page.locator("form.action-sold .error").get_by_role("link", name="R3", exact=True))
    expect(page).to_have_url(re.compile(rf"/rules\?edition={words.edition}#R3$"))
    shown = page.locator("section:target")
    expect(shown).to_have_attribute("id", "R3")
    expect(shown.get_by_role("heading", level=2)).to_have_text(loose(words.heading, exact=True))
    expect(shown.get_by_role("heading", level=2)).to_be_in_viewport()
    expect(page.locator(".this-edition").first).to_be_visible()


def test_a_refusal_on_the_laptop_links_to_its_rule_in_english(server, browser):
    token = round_two(server, "en")
    table = open_page(browser.new_context(**TABLE, locale=ENGLISH.locale),
                      f"{server.url}/g/{token}", errors := [])
    sell_to_anna_for_10(table, ENGLISH)
    follow_the_rule(table, ENGLISH)
    check_screen(table)
    ARTIFACTS.mkdir(exist_ok=True)
    # What the window shows of the page, as docs/rules.png in docs/playing.md.
    table.screenshot(path=ARTIFACTS / "rules.png", clip=dict(x=0, y=0, width=840, height=800))
    assert errors == []


def test_a_refusal_on_a_phone_links_to_its_rule_in_french(server, phone_browser):
    token = round_two(server, "fr")
    phone = take_seat(phone_browser.new_context(**PHONE, locale=FRENCH.locale), server, token,
                      "Bert", errors := [])
    phone.goto(f"{server.phone_url}/g/{token}")
    sell_to_anna_for_10(phone, FRENCH)
    check_screen(phone, "rules-refusal-fr")
    follow_the_rule(phone, FRENCH)
    check_screen(phone, "rules-phone-fr")
    assert errors == []


# Each rule link in a reference, unless it is inside a nowrap span drawn on one line that
# starts with its '(' and ends with its ')' and any punctuation right after: what it says.
_LOOSE_REFERENCES = r"""() => [...document.querySelectorAll("a[href*='#R']")]
    .filter(link => /^R[\d.]+$/.test(link.textContent))
    .filter(link => {
        const kept = link.closest(".rule-ref");
        return !(kept && getComputedStyle(kept).whiteSpace === "nowrap"
                 && kept.getClientRects().length === 1
                 && /^\(.*\)(\u00a0?[.,;:!?])?$/s.test(kept.textContent));
    })
    .map(link => link.parentElement.textContent.trim().slice(0, 80))"""


@pytest.mark.parametrize("locale, language", [("en-GB", "en"), ("fr-FR", "fr")])
def test_a_rule_reference_never_breaks_from_its_brackets_on_a_narrow_screen(server, browser,
                                                                           locale, language):
    """Issue 27 (6): '(R6' and ').' on two lines no more; on the rules page, 320 px wide,
    every reference and the punctuation after it are drawn on one line."""
    page = open_page(browser.new_context(viewport={"width": 320, "height": 700},
                                         locale=locale),
                     f"{server.url}/rules?edition={language}", errors := [])
    expect(page.locator("html")).to_have_attribute("lang", language)
    assert page.locator(".rule-ref").count() > 20
    assert page.evaluate(_LOOSE_REFERENCES) == []
    assert errors == []


# Each rule link's text against the characters either side of it ('(' and ')', or '/' and
# ', ' between two rules): how far they overlap, in px (0 or less: they do not).
_OVERLAPS = """() => {
  const box = (node, start, end) => {
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, end);
    return range.getBoundingClientRect();
  };
  return [...document.querySelectorAll("a.rule")].filter(link => link.checkVisibility())
    .map(link => {
      const text = box(link.firstChild, 0, link.firstChild.length);
      const [before, after] = [link.previousSibling, link.nextSibling];
      return [link.textContent, before.textContent.slice(-1), after.textContent[0],
              Math.max(0, box(before, before.length - 1, before.length).right - text.left),
              Math.max(0, text.right - box(after, 0, 1).left)];
    });
}"""


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
def test_a_rule_link_leaves_its_brackets_where_they_are(server, browser, locale):
    """'(R12)': the link's 44 px box does not draw its text over its brackets, on the
    laptop (the sale's preview, R12) nor in the TV's large type (what happens now, R3)."""
    host = server.app.test_client()
    token = new_game(host)  # the server's first game: help for new players on
    play(host, token, [("reveal", "red 0", "yellow 5")])
    table = open_page(browser.new_context(**TABLE, locale=locale), f"{server.url}/g/{token}", [])
    press(table.locator("form.action-sold input[name=winner][value='0']"))
    table.locator("form.action-sold input[name=price]").press_sequentially("3")
    expect(table.locator(".preview a.rule")).to_have_text("R12", timeout=WAIT)
    tv = open_page(browser.new_context(viewport={"width": 1920, "height": 1080}, locale=locale),
                   f"{server.url}/g/{token}/tv", [])
    expect(tv.locator(".guide a.rule").first).to_be_visible()
    for page in (table, tv):
        links = page.evaluate(_OVERLAPS)
        assert {(before, after) for _, before, after, *_ in links} == {("(", ")")}
        assert [link for link in links if link[3] or link[4]] == [], page.url
