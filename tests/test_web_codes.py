"""Game codes that cannot be guessed (issue 26, item 3): 7 characters shown in two groups,
typed in any form; a budget of wrong codes for the whole server, past which typing a code
is refused for everyone in words and the host is told; older, shorter codes replaced at
start.

The odds, worked out from the code's own numbers: an attacker who types codes for HOURS
hours, from as many addresses as they like, against GAMES games running, types at most
WRONG_CODES_PER_HOUR wrong codes an hour in each server process (the budget is kept by
each process, and `--processes` allows at most 64), so at most n = 64 x 300 x 4 = 76,800
codes in all; each of the n different codes tried hits one of the GAMES codes among the
25^7 = 6,103,515,625 with odds at most GAMES / (25^7 - n), so all of them together with
odds under n x GAMES / (25^7 - n) = 0.0126% (0.0002% for the one process a server runs
by default). Before, 5 characters and 10 wrong codes a minute from each of 50 addresses:
120,000 codes of 25^5 = 9,765,625, about 12%.
"""
import argparse
import re
import sqlite3
from fractions import Fraction

import pytest

from companion import cli
from companion.store.sql import CODE_ALPHABET, CODE_LENGTH
from companion.web.screens.host import CODE_TRIES_PER_MINUTE, WRONG_CODES_PER_HOUR
from tests.web_helpers import (alerts, find_form, make_app, new_game, page_headers,
                               phone_client, submit, text)

HOURS, GAMES, ADDRESSES = 4, 10, 50  # the attack the issue names
MOST_PROCESSES = 64  # --processes (cli._count)
CODE = re.compile(f"[{CODE_ALPHABET}]{{3}}-[{CODE_ALPHABET}]{{4}}")


def odds(tries: int, codes: int, games: int = GAMES) -> Fraction:
    """At most the odds that `tries` different wrong guesses among `codes` possible ones
    find one of `games` codes: each finds one with odds at most games / (codes - tries)."""
    return Fraction(tries * games, codes - tries)


def test_the_odds_of_guessing_a_code_are_under_one_in_a_thousand():
    """The arithmetic of the module's docstring, with the numbers the code uses."""
    codes = len(CODE_ALPHABET) ** CODE_LENGTH
    tries = MOST_PROCESSES * WRONG_CODES_PER_HOUR * HOURS  # whatever the addresses
    assert codes == 6_103_515_625 and tries == 76_800
    assert odds(tries, codes) < Fraction(1, 1000)
    assert float(odds(tries, codes)) == pytest.approx(0.000126, rel=0.01)
    assert float(odds(WRONG_CODES_PER_HOUR * HOURS, codes)) == pytest.approx(0.000002, rel=0.02)
    # before: 5 characters, 10 a minute from each of 50 addresses, no budget for the server
    before = ADDRESSES * CODE_TRIES_PER_MINUTE * 60 * HOURS
    assert 0.11 < 1 - (1 - GAMES / 25 ** 5) ** before < 0.12


def test_the_odds_count_every_process_the_server_may_run():
    assert cli._count(str(MOST_PROCESSES)) == MOST_PROCESSES
    with pytest.raises(argparse.ArgumentTypeError):
        cli._count(str(MOST_PROCESSES + 1))


@pytest.fixture
def server(tmp_path):
    """(app, the server's own device, a game's token, its code as the table shows it)."""
    app = make_app(tmp_path / "data", lan_url="http://192.168.1.5:5000")
    host = app.test_client()
    token = new_game(host)
    shown = re.search(r'type the game code (\S+)', text(host.get(f"/g/{token}")))[1]
    return app, host, token, shown


def test_a_code_is_shown_in_two_easy_groups(server):
    _, _, _, shown = server
    assert CODE.fullmatch(shown), shown


@pytest.mark.parametrize("form", [str, str.lower, lambda code: code.replace("-", " "),
                                  lambda code: code.replace("-", ""),
                                  lambda code: " ".join(code.replace("-", "").lower())])
def test_a_grouped_code_is_accepted_typed_in_any_form(server, form):
    app, _, token, shown = server
    response = submit(phone_client(app), "/", "game-code", code=form(shown))
    assert response.status_code == 303 and response.headers["Location"] == f"/g/{token}/join"


def wrong_code(number: int) -> str:
    """A well-formed code no game has (the game's is drawn at random: one in 25^7)."""
    digits = [CODE_ALPHABET[(number // len(CODE_ALPHABET) ** place) % len(CODE_ALPHABET)]
              for place in range(CODE_LENGTH)]
    return "".join(digits)


def type_wrong_codes(app, count: int, skip: str) -> None:
    """`count` wrong codes, each address typing as many as it may in a minute into the
    code form of the page it opened."""
    for first in range(0, count, CODE_TRIES_PER_MINUTE):
        phone = phone_client(app, f"10.0.{first // CODE_TRIES_PER_MINUTE}.1")
        page = phone.get("/")
        form = find_form(page, "game-code")
        for number in range(first, min(first + CODE_TRIES_PER_MINUTE, count)):
            code = wrong_code(number) if wrong_code(number) != skip else wrong_code(count + number)
            response = phone.post(form.action, data={**form.fields, "code": code},
                                  headers=page_headers(page))
            assert response.status_code == 404, alerts(response)


def test_past_the_server_s_budget_typing_a_code_is_refused_for_everyone_in_words(server):
    app, host, token, shown = server
    type_wrong_codes(app, WRONG_CODES_PER_HOUR, shown.replace("-", ""))
    newcomer = phone_client(app, "192.168.1.77")
    refused = submit(newcomer, "/", "game-code", code=shown)  # even the right code
    assert refused.status_code == 429
    assert re.fullmatch(r"Too many wrong codes were typed on this server: typing a code is "
                        r"refused for everyone until \d\d:\d\d\. Scan the QR code on the "
                        r"table's screen instead\.", alerts(refused)[0]), alerts(refused)
    assert newcomer.get(f"/g/{token}/join").status_code == 200  # the QR code still opens it
    told = " ".join(alerts(host.get("/")))
    assert re.search(r"Many wrong game codes were typed on this server: someone may be "
                     r"guessing them\. Typing a code is refused for everyone until \d\d:\d\d; "
                     r"phones still join by scanning the QR code\.", told), told


def test_an_hour_later_codes_may_be_typed_again(server, monkeypatch):
    app, host, token, shown = server
    type_wrong_codes(app, WRONG_CODES_PER_HOUR, shown.replace("-", ""))
    budget = app.extensions["code_tries"].server
    later = budget.clock() + 3600
    monkeypatch.setattr(budget, "clock", lambda: later)
    response = submit(phone_client(app, "192.168.1.77"), "/", "game-code", code=shown)
    assert response.status_code == 303
    assert not alerts(host.get("/"))


def test_a_game_with_a_shorter_code_gets_a_new_one_at_start(tmp_path):
    app = make_app(tmp_path / "data", lan_url="http://192.168.1.5:5000")
    token = new_game(app.test_client())
    path = app.config["STORE"].path
    app.config["STORE"].close()
    with sqlite3.connect(path) as db:  # as a data directory of an older version keeps it
        db.execute("UPDATE games SET code = 'KXR4T'")
    app = make_app(tmp_path / "data", lan_url="http://192.168.1.5:5000")
    host = app.test_client()
    shown = re.search(r'type the game code (\S+)', text(host.get(f"/g/{token}")))[1]
    assert CODE.fullmatch(shown), shown
    phone = phone_client(app)
    assert submit(phone, "/", "game-code", code="KXR4T").status_code == 404
    assert submit(phone, "/", "game-code", code=shown).status_code == 303
