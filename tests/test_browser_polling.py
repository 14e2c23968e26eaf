"""How a screen asks for news, in Chromium (issues 13 and 29). The server holds a poll
that finds nothing new until the game moves, so a quiet screen asks once and waits, and a
change shows at once; a hidden page asks every 30 s, and at once when it shows again; where
the server answers at once, a screen asks at its game's pace. The page's clock is
Playwright's, paused: only the test moves it on, so every poll counted is one the page's
timers fired (or an answer, or its return to sight)."""
import pytest

from tests.browser_helpers import TABLE, WAIT, open_page
from tests.web_helpers import GAME, act, new_game, play, stamp

expect = pytest.importorskip("playwright.sync_api").expect
START = 1_800_000_000_000  # ms: the page's clock, paused a second after this
# What a browser does when its tab goes to the background (hidden) or comes back.
SET_HIDDEN = """hidden => {
  Object.defineProperty(document, "hidden", {value: hidden, configurable: true});
  Object.defineProperty(document, "visibilityState",
                        {value: hidden ? "hidden" : "visible", configurable: true});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def table_page(server, browser, token):
    """The table screen on a paused clock, and the polls it sends (URLs, in order)."""
    context = browser.new_context(**TABLE)
    context.clock.install(time=START)
    context.clock.pause_at(START + 1000)
    polls, errors = [], []
    context.on("request", lambda request: "/live?" in request.url and polls.append(request.url))
    page = open_page(context, f"{server.url}/g/{token}", errors)
    page.clock.run_for(1)  # htmx starts (its load event waits for a timer)
    return page, polls, errors


def waiting(page) -> None:
    """Let the page's timers due now run (htmx settles a new part after 20 ms), then wait
    until the live part's poll is out, held by the server."""
    page.clock.run_for(50)
    expect(page.locator("#live.htmx-request")).to_have_count(1, timeout=WAIT)


def shows_news(page, server, token) -> None:
    """Wait until the live part shows the game's latest stamp, and has settled (htmx
    settles a new part after 20 ms of the page's clock)."""
    expect(page.locator(f'#live[hx-get$="v={stamp(server.app, token)}"]')).to_have_count(1)
    page.clock.run_for(50)


def test_a_quiet_screen_asks_once_and_a_change_shows_at_once(server, browser):
    """A lot on the table (the pace of a server that cannot hold is a poll a second): the
    screen's poll is held, so a minute of the page's clock passes with that one request;
    another device's sale answers it with the payment, and the new part asks again."""
    host = server.app.test_client()
    token = new_game(host)
    play(host, token, GAME[:1])
    page, polls, errors = table_page(server, browser, token)
    expect(page.locator("#live")).to_have_attribute("data-poll", "1000")
    waiting(page)
    for _ in range(60):
        page.clock.run_for(1000)
    assert len(polls) == 1
    act(host, token, "sold", "Anna", 3)  # from another device: the host's own, over HTTP
    expect(page.locator(".payment")).to_contain_text("Anna pays 3")
    waiting(page)  # the new part's poll, with the new stamp
    assert len(polls) == 2 and polls[1] != polls[0] and not errors


def test_a_hidden_page_asks_every_30_s_and_at_once_when_shown_again(server, browser):
    host = server.app.test_client()
    token = new_game(host)
    page, polls, errors = table_page(server, browser, token)
    waiting(page)
    page.evaluate(SET_HIDDEN, True)
    play(host, token, GAME[:1])  # the held poll brings the lot to the hidden page
    shows_news(page, server, token)
    expect(page.locator("#live.htmx-request")).to_have_count(0, timeout=WAIT)
    assert len(polls) == 1
    for _ in range(29):
        page.clock.run_for(1000)
    assert len(polls) == 1  # hidden: the next question 30 s after the answer
    page.clock.run_for(1000)
    waiting(page)
    assert len(polls) == 2

    act(host, token, "sold", "Anna", 3)
    shows_news(page, server, token)
    expect(page.locator("#live.htmx-request")).to_have_count(0, timeout=WAIT)
    with page.expect_request(lambda request: "/live?" in request.url, timeout=WAIT):
        page.evaluate(SET_HIDDEN, False)  # the clock stands still: only the return asks
    assert len(polls) == 3 and not errors


def test_where_the_server_answers_at_once_a_screen_asks_at_its_game_s_pace(server, browser):
    """A server that holds no poll (POLL_HOLD 0: as one without channel.Gate) is asked
    once a second while a lot is on the table."""
    server.app.config["POLL_HOLD"] = 0
    server.waitress.stop()
    server.waitress.start()  # the hold is read when the server starts
    host = server.app.test_client()
    token = new_game(host)
    play(host, token, GAME[:1])
    page, polls, errors = table_page(server, browser, token)
    expect(page.locator("#live.htmx-request")).to_have_count(0, timeout=WAIT)
    assert len(polls) == 1
    for second in range(2, 5):
        page.clock.run_for(1000)
        expect(page.locator("#live.htmx-request")).to_have_count(0, timeout=WAIT)
        assert len(polls) == second
    assert not errors
