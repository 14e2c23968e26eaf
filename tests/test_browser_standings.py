"""Beyond the evening (issue 43) in Chromium, on the host's phone: a name played before
seated with one tap (htmx), the standings, the score page's ways to keep the play, and
the rematch in one tap."""
import re

import pytest

from tests.browser_helpers import NO_PLAYWRIGHT, PHONE, WAIT, check_screen, open_page, press
from tests.helpers import FIXTURES
from tests.web_helpers import import_record

expect = pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT).expect


def test_a_table_of_regulars_seats_its_players_reads_its_standings_and_plays_again(server, browser):
    client = server.app.test_client()
    tokens = [import_record(client, (FIXTURES / f"full-game-{number}.json").read_bytes())
              .headers["Location"].rsplit("/", 1)[1] for number in (1, 2)]
    errors = []
    page = open_page(browser.new_context(**PHONE), f"{server.url}/", errors)
    anna = page.get_by_role("button", name="Anna", exact=True)
    press(anna)
    expect(page.get_by_role("combobox", name="Seat 1")).to_have_value("Anna", timeout=WAIT)
    expect(anna).to_have_attribute("aria-pressed", "true")
    expect(anna).to_be_focused()  # the swap keeps the reader where they were
    check_screen(page, "new-game-names")

    page.goto(f"{server.url}/standings")
    first = page.locator("table.standings").last.locator("tbody tr").first  # all games
    expect(first.locator("th")).to_have_text("Anna")
    expect(first.locator("td").first).to_have_text("2")  # games, next to the name
    check_screen(page, "standings")

    page.goto(f"{server.url}/g/{tokens[0]}/score")
    expect(page.get_by_role("link", name="Log this play in BG Stats")).to_have_attribute(
        "href", re.compile(r"^https://app\.bgstatsapp\.com/createPlay\.html\?data=%7B"))
    expect(page.get_by_role("button", name=re.compile("^(Share|Copy) the result$"))).to_be_visible()
    check_screen(page, "score-play-again")
    press(page.get_by_role("button", name="Rematch: the same players in the same seats"))
    page.wait_for_url(re.compile(r"/g/[\w-]+$"))
    expect(page.get_by_text("Round 1 of 15")).to_be_visible()
    assert page.url != f"{server.url}/g/{tokens[0]}" and errors == []
