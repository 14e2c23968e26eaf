"""How a screen hears of news, in Chromium (issues 13 and 29). A screen opens one stream
(server-sent events) and the server sends each change on it as it happens: a quiet screen
sends nothing more, hidden or not. Without EventSource, it polls: the server holds a poll
that finds nothing new until the game moves, so a quiet screen asks once and waits, and a
change shows at once; a hidden page asks every 30 s, and at once when it shows again.
Where the server holds neither, a screen asks at its game's pace. The page's clock is
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


def table_page(server, browser, token, streams: bool = True):
    """The table screen on a paused clock (in a browser without EventSource unless
    `streams`), and the polls and streams it asks for (URLs, in order)."""
    context = browser.new_context(**TABLE)
    if not streams:
        context.add_init_script("delete window.EventSource;")
    context.clock.install(time=START)
    context.clock.pause_at(START + 1000)
    polls, errors = [], []
    context.on("request", lambda request: "/live" in request.url and polls.append(request.url))
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


def test_a_screen_opens_one_stream_and_each_change_shows_on_it(server, browser):
    """A lot on the table: the screen opens its stream and asks nothing more through 20 s
    of the page's clock (less than a silent stream's 25: the server's beats come every 10 s
    of the real clock), shown or hidden; another device's sale shows at once, with the
    payment (R8), and so does the next change, with no new request."""
    host = server.app.test_client()
    token = new_game(host)
    play(host, token, GAME[:1])
    page, asked, errors = table_page(server, browser, token)
    expect(page.locator("#live")).to_have_attribute("data-poll", "1000")
    for _ in range(20):
        page.clock.run_for(1000)
    act(host, token, "sold", "Anna", 3)
    expect(page.locator(".payment")).to_contain_text("Anna pays 3")
    shows_news(page, server, token)
    page.evaluate(SET_HIDDEN, True)
    play(host, token, [GAME[2]])  # a side sale (R6)
    shows_news(page, server, token)
    for _ in range(20):
        page.clock.run_for(1000)
    page.evaluate(SET_HIDDEN, False)
    assert len(asked) == 1 and "/live/events?" in asked[0] and not errors
    expect(page.locator("#offline")).to_be_hidden()


def test_a_silent_stream_is_opened_again_from_the_part_shown(server, browser):
    """A stream that says nothing for 25 s of the page's clock (not even the server's
    beat: a connection lost without a word) is opened again, from the stamp the page
    shows; the next change shows on the new one."""
    host = server.app.test_client()
    token = new_game(host)
    play(host, token, GAME[:1])
    page, asked, errors = table_page(server, browser, token)
    shown = stamp(server.app, token)
    with page.expect_request(lambda request: "/live/events?" in request.url, timeout=WAIT):
        page.clock.run_for(26000)
    act(host, token, "sold", "Anna", 3)
    expect(page.locator(".payment")).to_contain_text("Anna pays 3")
    assert [url.split("/live")[1] for url in asked] == [f"/events?v={shown}"] * 2
    assert not errors


def test_without_event_source_a_quiet_screen_asks_once_and_a_change_shows_at_once(
        server, browser):
    """A lot on the table (the pace of a server that cannot hold is a poll a second): the
    screen's poll is held, so a minute of the page's clock passes with that one request;
    another device's sale answers it with the payment, and the new part asks again."""
    host = server.app.test_client()
    token = new_game(host)
    play(host, token, GAME[:1])
    page, polls, errors = table_page(server, browser, token, streams=False)
    expect(page.locator("#live")).to_have_attribute("data-poll", "1000")
    waiting(page)
    for _ in range(60):
        page.clock.run_for(1000)
    assert len(polls) == 1
    act(host, token, "sold", "Anna", 3)  # from another device: the host's own, over HTTP
    expect(page.locator(".payment")).to_contain_text("Anna pays 3")
    waiting(page)  # the new part's poll, with the new stamp
    assert len(polls) == 2 and polls[1] != polls[0] and not errors


def test_without_event_source_a_hidden_page_asks_every_30_s_and_at_once_when_shown_again(
        server, browser):
    host = server.app.test_client()
    token = new_game(host)
    page, polls, errors = table_page(server, browser, token, streams=False)
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
    """A server that holds no poll and no stream (POLL_HOLD 0: as one without
    channel.Gate) refuses the stream (204), then is asked once a second while a lot is on
    the table."""
    server.app.config["POLL_HOLD"] = 0
    server.waitress.stop()
    server.waitress.start()  # the hold is read when the server starts
    host = server.app.test_client()
    token = new_game(host)
    play(host, token, GAME[:1])
    page, asked, errors = table_page(server, browser, token)
    page.wait_for_function("() => stream !== null && stream.refused")  # (static/app.js)
    page.clock.run_for(1)
    expect(page.locator("#live.htmx-request")).to_have_count(0, timeout=WAIT)
    assert len(asked) == 2 and "/live/events?" in asked[0] and "/live?" in asked[1]
    for second in range(2, 5):
        page.clock.run_for(1000)
        expect(page.locator("#live.htmx-request")).to_have_count(0, timeout=WAIT)
        assert len(asked) == second + 1
    assert not errors
