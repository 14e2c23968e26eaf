"""Polling in Chromium (issue 13): a screen polls at its game's pace while it is shown,
every 30 s while it is hidden, and at once when it shows again. The page's clock is
Playwright's, paused: only the test moves it on, so every poll counted is one the page's
timers fired (or its return to sight)."""
import pytest

from tests.browser_helpers import TABLE, WAIT, open_page
from tests.web_helpers import GAME, new_game, play

expect = pytest.importorskip("playwright.sync_api").expect
START = 1_800_000_000_000  # ms: the page's clock, paused a second after this
# What a browser does when its tab goes to the background (hidden) or comes back.
SET_HIDDEN = """hidden => {
  Object.defineProperty(document, "hidden", {value: hidden, configurable: true});
  Object.defineProperty(document, "visibilityState",
                        {value: hidden ? "hidden" : "visible", configurable: true});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_a_hidden_page_polls_every_30_s_and_at_once_when_shown_again(server, browser):
    host = server.app.test_client()
    token = new_game(host)
    play(host, token, GAME[:1])  # a lot on the table: a poll every second while shown
    context = browser.new_context(**TABLE)
    context.clock.install(time=START)
    context.clock.pause_at(START + 1000)
    polls, errors = [], []
    context.on("request", lambda request: "/live?" in request.url and polls.append(request.url))
    page = open_page(context, f"{server.url}/g/{token}", errors)
    expect(page.locator("#live")).to_have_attribute("data-poll", "1000")

    def run_for(ms: int) -> None:
        """Move the page's clock on, then wait for the poll it fired, if any, to be answered."""
        page.clock.run_for(ms)
        expect(page.locator("#live.htmx-request")).to_have_count(0, timeout=WAIT)

    run_for(1)  # htmx starts (its load event waits for a timer): the first poll is due in 1 s
    for second in range(1, 4):
        run_for(1000)
        assert len(polls) == second

    page.evaluate(SET_HIDDEN, True)
    for _ in range(29):
        run_for(1000)
    assert len(polls) == 4  # the poll already due, then none for 29 s
    run_for(2000)
    assert len(polls) == 5  # 30 s after the last

    with page.expect_request(lambda request: "/live?" in request.url, timeout=WAIT):
        page.evaluate(SET_HIDDEN, False)  # the clock stands still: only the return polls
    assert len(polls) == 6 and not errors
