"""Game codes that cannot be guessed, with no lockout (issues 26 and 41): codes shown in
groups and typed in any form, 7 characters on a table's server and 12 on a hosted one;
each network may type CODES_PER_HOUR codes, right or wrong, so that no one can spend a
budget that shuts others out; shorter codes replaced at start.

The odds (docs/faults.md), worked out from the code's own numbers: an attacker who holds
a whole IPv6 /48 (65,536 networks of 64 bits) for a day types at most 65,536 x 100 x 24 =
157,286,400 codes; each of the n different codes tried hits one of the GAMES codes among
the 25^12 with odds at most GAMES / (25^12 - n), so all of them together with odds under
n x GAMES / (25^12 - n): 0.0026% for the 10,000 games a hosted server keeps at most by
default. On a table's server, an attacker on its Wi-Fi with 254 addresses (a whole /24)
for 4 hours against 10 games: 0.017%.
"""
import re
import sqlite3
from fractions import Fraction

import pytest

from companion.store.sql import CODE_ALPHABET, CODE_LENGTH, HOSTED_CODE_LENGTH
from companion.web.guards.limits import Limits
from companion.web.screens.host import CODES_PER_HOUR
from tests.web_helpers import (alerts, find_form, make_app, new_game, page_headers,
                               phone_client, submit, text)

NETWORKS_OF_A_48 = 2 ** (64 - 48)
CODE = re.compile(f"[{CODE_ALPHABET}]{{3}}-[{CODE_ALPHABET}]{{4}}")
HOSTED_CODE = re.compile(f"[{CODE_ALPHABET}]{{4}}-[{CODE_ALPHABET}]{{4}}-[{CODE_ALPHABET}]{{4}}")


def odds(tries: int, codes: int, games: int) -> Fraction:
    """At most the odds that `tries` different wrong guesses among `codes` possible ones
    find one of `games` codes: each finds one with odds at most games / (codes - tries)."""
    return Fraction(tries * games, codes - tries)


def test_the_odds_of_guessing_a_hosted_code_from_a_48_for_a_day_are_under_one_in_a_thousand():
    """The arithmetic of the module's docstring, with the numbers the code uses."""
    codes = len(CODE_ALPHABET) ** HOSTED_CODE_LENGTH
    tries = NETWORKS_OF_A_48 * CODES_PER_HOUR * 24
    assert codes == 59_604_644_775_390_625 and tries == 157_286_400
    chance = odds(tries, codes, Limits().max_games)
    assert chance < Fraction(1, 1000) and float(chance) == pytest.approx(0.0000264, rel=0.01)
    # a table's 7 characters would not do on the internet
    assert odds(tries, len(CODE_ALPHABET) ** CODE_LENGTH, 10) > 0.25


def test_the_odds_of_guessing_a_table_s_code_from_its_wi_fi_are_under_one_in_a_thousand():
    codes = len(CODE_ALPHABET) ** CODE_LENGTH
    chance = odds(254 * CODES_PER_HOUR * 4, codes, 10)
    assert codes == 6_103_515_625 and float(chance) == pytest.approx(0.000166, rel=0.01)


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


def in_network(network: int, device: int) -> str:
    """An IPv6 address of the /64 numbered `network` of one /48 (RFC 3849's)."""
    return f"2001:db8:7:{network:x}::{device:x}"


def type_codes(app, count: int, skip: str) -> list:
    """`count` wrong codes typed from one /64, each from another address of it, into the
    code form of the page it opened: the answers."""
    guesser = phone_client(app, in_network(1, 1))
    page = guesser.get("/")
    form = find_form(page, "game-code")
    answers = []
    for number in range(count):
        guesser.environ_base["REMOTE_ADDR"] = in_network(1, number + 2)
        code = wrong_code(number) if wrong_code(number) != skip else wrong_code(count + number)
        answers.append(guesser.post(form.action, data={**form.fields, "code": code},
                                    headers=page_headers(page)))
    return answers


def test_past_its_codes_a_network_waits_and_a_right_code_from_another_joins_at_once(server):
    """300 wrong codes from one /64, whatever its addresses: CODES_PER_HOUR of them are
    looked up, the others refused in words; the right code typed on another network
    joins at once, and on that /64 it waits with the others."""
    app, _, token, shown = server
    answers = type_codes(app, 300, shown.replace("-", ""))
    assert [answer.status_code for answer in answers] == [404] * CODES_PER_HOUR + [429] * (
        300 - CODES_PER_HOUR)
    assert alerts(answers[-1]) == ["Too many game codes were typed from this network: try "
                                   "again in 60 min, or scan the QR code on the table's "
                                   "screen."]
    elsewhere = submit(phone_client(app, in_network(2, 1)), "/", "game-code", code=shown)
    assert elsewhere.status_code == 303 and elsewhere.headers["Location"] == f"/g/{token}/join"
    assert submit(phone_client(app, "192.168.1.77"), "/", "game-code",
                  code=shown).status_code == 303
    assert submit(phone_client(app, in_network(1, 999)), "/", "game-code",
                  code=shown).status_code == 429
    assert phone_client(app, in_network(1, 999)).get(f"/g/{token}/join").status_code == 200


def test_an_hour_later_the_network_may_type_codes_again(server, monkeypatch):
    app, _, token, shown = server
    type_codes(app, CODES_PER_HOUR, shown.replace("-", ""))
    tries = app.extensions["throttles"]["code"]
    later = tries.clock() + 3600
    monkeypatch.setattr(tries, "clock", lambda: later)
    response = submit(phone_client(app, in_network(1, 999)), "/", "game-code", code=shown)
    assert response.status_code == 303


def test_a_hosted_server_s_codes_are_longer_and_typed_in_any_form(tmp_path):
    """12 characters in three groups, and a table's game given one at the start of a
    hosted server on its database."""
    data = tmp_path / "data"
    token = new_game(make_app(data).test_client())
    app = make_app(data, hosted=True)
    maker = app.test_client()
    hosted = new_game(maker)
    codes = [app.config["STORE"].game(game).code for game in (token, hosted)]
    assert all(HOSTED_CODE.fullmatch(code) for code in codes), codes
    phone = phone_client(app)
    for game, code in zip((token, hosted), codes):
        typed = " ".join(code.replace("-", "").lower())
        answer = submit(phone, "/", "game-code", code=typed)
        assert answer.status_code == 303 and answer.headers["Location"] == f"/g/{game}/join"
    assert HOSTED_CODE.search(text(maker.get(f"/g/{hosted}")))


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
