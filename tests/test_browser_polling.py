"""How a screen hears of news, in Chromium. A game page opens its live part's stream
(htmx's sse extension), which brings the part at each change: a quiet screen asks only
every 30 s (htmx's `every` trigger, where the stream fails) and when it is shown again. Where the server holds no more streams, the part still follows
every 30 s. The page's clock is Playwright's, paused: only the test moves it on, so every
request counted is one the page's timers fired (or an event, or its return to sight)."""
import sqlite3
from contextlib import closing

import pytest

from tests.browser_helpers import TABLE, WAIT, open_page, press
from tests.web_helpers import GAME, act, make_app, new_game, play, stamp

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
    """The table screen on a paused clock, and the requests of its live part and stream
    (URLs, in order)."""
    context = browser.new_context(**TABLE)
    context.clock.install(time=START)
    context.clock.pause_at(START + 1000)
    asked, errors = [], []
    context.on("request", lambda request: ("/live" in request.url or "/events" in request.url)
               and asked.append(request.url))
    page = open_page(context, f"{server.url}/g/{token}", errors)
    page.clock.run_for(1)  # htmx starts (its load event waits for a timer)
    return page, asked, errors


def shows_news(page, server, token) -> None:
    """Wait until the live part shows the game's latest stamp, and has settled (htmx
    settles a new part after 20 ms of the page's clock)."""
    expect(page.locator(f'#live[data-stamp="{stamp(server.app, token)}"]')).to_have_count(1)
    page.clock.run_for(50)
    expect(page.locator("#live.htmx-request")).to_have_count(0, timeout=WAIT)


def test_a_screen_opens_one_stream_and_each_change_shows_at_once(server, browser):
    """A lot on the table: the screen opens its live part's stream and asks nothing through
    29 s of the page's clock; another device's sale shows at once, with the payment (R8),
    the part come on the stream (no request); hidden, the next change shows too; shown
    again, it asks once."""
    host = server.app.test_client()
    token = new_game(host)
    play(host, token, GAME[:1])
    page, asked, errors = table_page(server, browser, token)
    expect(page.locator("#offline")).to_be_hidden()
    for _ in range(29):
        page.clock.run_for(1000)
    assert [url.split(token)[1].split("?")[0] for url in asked] == ["/live/events"]
    act(host, token, "sold", "Anna", 3)
    expect(page.locator(".payment")).to_contain_text("Anna pays 3")
    shows_news(page, server, token)
    assert len(asked) == 1
    page.evaluate(SET_HIDDEN, True)
    play(host, token, [GAME[2]])  # a side sale (R6)
    shows_news(page, server, token)
    with page.expect_request(lambda request: "/live?" in request.url, timeout=WAIT):
        page.evaluate(SET_HIDDEN, False)
    assert not errors


def test_changes_that_follow_closely_each_show(server, browser):
    """A sale (R8) and then a side sale (R6), the second told before the first's part has
    settled (the page's clock stands still): each part comes in, the last one shown."""
    host = server.app.test_client()
    token = new_game(host)
    play(host, token, GAME[:1])
    page, asked, errors = table_page(server, browser, token)
    act(host, token, "sold", "Anna", 3)
    expect(page.locator("#live")).to_have_attribute("data-stamp", str(stamp(server.app, token)))
    play(host, token, [GAME[2]])
    expect(page.locator("#live")).to_have_attribute("data-stamp", str(stamp(server.app, token)))
    assert len(asked) == 1 and not errors


def test_a_quiet_screen_asks_every_30_s(server, browser):
    """With nothing new, the live part asks every 30 s of the page's clock (each answered
    204: nothing new), 2 a minute; its stream stays open."""
    host = server.app.test_client()
    token = new_game(host)
    page, asked, errors = table_page(server, browser, token)
    for _ in range(60):
        page.clock.run_for(1000)
    expect(page.locator("#live.htmx-request")).to_have_count(0, timeout=WAIT)
    assert sum("/live?" in url for url in asked) == 2 and not errors
    assert sum("/events?" in url for url in asked) == 1


def test_where_the_server_holds_no_more_streams_a_screen_follows_every_30_s(server, browser):
    """A process at its streams (here none): the stream is refused (204) without the
    banner, and the live part brings a change at its next 30 s."""
    server.app.extensions["changes"].held = 0
    host = server.app.test_client()
    token = new_game(host)
    page, asked, errors = table_page(server, browser, token)
    play(host, token, GAME[:1])
    for _ in range(30):
        page.clock.run_for(1000)
    shows_news(page, server, token)
    expect(page.locator("#offline")).to_be_hidden()
    assert not errors


def test_a_change_told_while_a_form_is_being_answered_still_shows(server, browser):
    """The host taps a lot on the table (R3); while its answer is out, another device
    records the sale, whose part comes on the stream: not swapped in over the form being
    answered (that answer would then put the older lot back), the part asks once more
    after the answer, so the payment (R8) shows."""
    host = server.app.test_client()
    token = new_game(host)
    context = browser.new_context(**TABLE)
    errors, held = [], []
    page = open_page(context, f"{server.url}/g/{token}", errors)
    page.evaluate("""() => { window.told = 0; document.addEventListener(
        "htmx:sseBeforeMessage", () => { window.told += 1; }); }""")

    def hold_answer(route):
        held.append(route.fetch())  # the lot revealed, as the server answers it now
        act(host, token, "sold", "Anna", 3)  # its part comes on the stream meanwhile
        page.wait_for_function("() => window.told > 0", timeout=WAIT)
        route.fulfill(response=held[0])
    page.route("**/act", hold_answer)
    for card in ("red 0", "yellow 5"):  # (the lot's sale form shows only for a moment)
        press(page.get_by_label(card, exact=True))
    expect(page.locator(".payment")).to_contain_text("Anna pays 3")
    expect(page.locator("#live")).to_have_attribute("data-stamp", str(stamp(server.app, token)))
    assert held and not errors


def copied(source, target) -> None:
    """SQLite's backup of the database `source` into `target`."""
    with closing(sqlite3.connect(source)) as read, closing(sqlite3.connect(target)) as written:
        read.backup(written)


def backed_up(server, tmp_path):
    """A backup of the server's database (docs/hosting.md), and a function that restores
    it as an operator does: the server stopped, the backup restored, the server started
    anew (`streams`: whether it holds the games' streams)."""
    database, backup = server.app.config["STORE"].path, tmp_path / "backup.sqlite"
    copied(database, backup)

    def restore(streams: bool) -> None:
        server.stop()
        copied(backup, database)
        server.start(make_app(database.parent, streams=streams))
    return restore


def test_a_screen_follows_a_game_restored_from_a_backup(server, browser, tmp_path):
    """The database restored from a backup taken before a sale (R8) and a side sale (R6):
    the game's stamps went back below the one the table screen, left open, shows; the sale
    recorded again by another device still shows there (the page loaded again), at the
    game's stamp."""
    host = server.app.test_client()
    token = new_game(host)
    play(host, token, GAME[:1])
    restore = backed_up(server, tmp_path)
    errors = []
    page = open_page(browser.new_context(**TABLE), f"{server.url}/g/{token}", errors)
    play(host, token, GAME[1:3])
    expect(page.locator("#live")).to_have_attribute("data-stamp", str(stamp(server.app, token)))
    restore(streams=True)
    play(server.app.test_client(), token, GAME[1:2])
    expect(page.locator("#live")).to_have_attribute("data-stamp", str(stamp(server.app, token)))
    assert not errors


def test_a_polling_screen_follows_a_game_restored_from_a_backup(server, browser, tmp_path):
    """The same where the server holds no streams: the 30 s poll brings a part older than
    the one it was asked from, and the page is loaded again, at the game's stamp."""
    server.app.extensions["changes"].held = 0
    host = server.app.test_client()
    token = new_game(host)
    play(host, token, GAME[:1])
    restore = backed_up(server, tmp_path)
    page, asked, errors = table_page(server, browser, token)
    play(host, token, GAME[1:3])
    page.clock.run_for(30_000)
    shows_news(page, server, token)
    restore(streams=False)
    play(server.app.test_client(), token, GAME[1:2])
    page.clock.run_for(30_000)
    expect(page.locator("#live")).to_have_attribute("data-stamp", str(stamp(server.app, token)))
    assert not errors
