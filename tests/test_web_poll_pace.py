"""How often each screen's live part polls (issue 13): the server sets the pace on it
(data-poll, ms) and static/app.js fires its "poll" trigger: every second while a lot is on
the table or a live auction runs, every 3 s between rounds, every 15 s once the game is
over (and every 30 s while the page is hidden: tests/test_browser_polling.py)."""
import re

from tests.web_helpers import GAME, join, new_game, play
from tests.web_helpers import app, game, host, phone  # noqa: F401 (fixtures)

LIVE = re.compile(r'<div id="live" hx-get="[^"]+"\s+hx-trigger="poll" data-poll="(\d+)"')
# Each screen: its page, and its live part as a poll that has news gets it.
SCREENS = {"table": ("", "/live"), "phone": ("/me", "/me/live"), "tv": ("/tv", "/tv/live")}


def paces(host, phone, token) -> dict[str, int]:
    """The pace on the live part of each screen's page and of its fresh live part (the
    phone is Anna's), e.g. {'table page': 1000, 'table live': 1000, ...}."""
    found = {}
    for screen, (page, live) in SCREENS.items():
        client = phone if screen == "phone" else host
        for kind, url in (("page", page), ("live", f"{live}?v=stale")):
            html = client.get(f"/g/{token}{url}", headers={"HX-Request": "true"} if
                              kind == "live" else {}).get_data(as_text=True)
            found[f"{screen} {kind}"] = [int(pace) for pace in LIVE.findall(html)]
    return {where: pace for where, (pace,) in found.items()}


def everywhere(pace: int) -> dict[str, int]:
    return {f"{screen} {kind}": pace for screen in SCREENS for kind in ("page", "live")}


def test_every_second_while_a_lot_is_on_the_table(host, phone, game):
    join(phone, game, "Anna")
    play(host, game, GAME[:1])
    assert paces(host, phone, game) == everywhere(1000)


def test_every_second_during_a_live_auction(host, phone):
    token = new_game(host, live="on")
    join(phone, token, "Anna")
    play(host, token, GAME[:1])
    assert "action-pass" in host.get(f"/g/{token}").get_data(as_text=True)  # bids are taken
    assert paces(host, phone, token) == everywhere(1000)


def test_every_3_seconds_between_rounds(host, phone, game):
    """Before the first lot is revealed, and once a lot is settled until the next one."""
    join(phone, game, "Anna")
    assert paces(host, phone, game) == everywhere(3000)
    play(host, game, GAME[:2])
    assert paces(host, phone, game) == everywhere(3000)


def test_every_15_seconds_once_the_game_is_over(host, phone, game):
    join(phone, game, "Anna")
    play(host, game, GAME)
    assert paces(host, phone, game) == everywhere(15000)
