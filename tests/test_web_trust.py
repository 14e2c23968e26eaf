"""What the table can trust: every action signed, undos and corrections kept in sight,
joining by a typed code, and a finished game locked against stray taps."""
import re
import time

import pytest

from companion.web import screens
from tests.helpers import all_rounds_free
from tests.web_helpers import (GAME, alerts, csrf_headers, imported, join, make_app, new_game,
                               phone_client, play, snapshot, submit, text, undo, version)
from tests.web_helpers import app, game, host, phone  # noqa: F401 (fixtures)

CLOCK = r"\d\d:\d\d"


def history(client, token) -> str:
    return text(client.get(f"/g/{token}/history"))


def test_every_action_says_which_device_recorded_it_and_when(host, phone, game):
    join(phone, game, "Bert")
    play(host, game, GAME[:1])
    play(phone, game, [GAME[1]])
    page = history(host, game)
    assert re.search(f"Revealed .* Recorded by the host's device at {CLOCK}", page)
    assert re.search(f"Anna bought the lot for 3 .* Recorded by Bert's phone at {CLOCK}", page)
    now = time.strftime("%H:%M")
    assert now in page or time.strftime("%H:%M", time.localtime(time.time() - 60)) in page


def test_an_undo_stays_in_the_history_with_who_did_it_and_the_coins_to_set_right(host, phone,
                                                                                  game):
    join(phone, game, "Claus")
    play(host, game, GAME[:2])
    assert undo(phone, game).status_code == 303
    page = history(host, game)
    assert re.search(f"Undone and corrected {CLOCK}: Claus's phone undid Anna bought the lot "
                     "for 3 Set the coins right: Anna gets 3, Bert gives 1, Claus gives 1, "
                     "1 comes out of the pot", page), page
    play(host, game, [GAME[1]])  # recorded again: the undo stays in the history
    assert "Claus's phone undid Anna bought the lot for 3" in history(host, game)


def test_a_correction_stays_in_the_history_with_what_it_was_and_what_it_is(host, game):
    play(host, game, GAME[:2])
    response = submit(host, f"/g/{game}/history/1", "action-sold", winner="0", price="2")
    assert response.status_code == 303, alerts(response)
    page = history(host, game)
    assert re.search(f"{CLOCK}: the host's device corrected action 2: Anna bought the lot for 3, "
                     "now Anna bought the lot for 2", page), page
    assert "Set the coins right: Anna gets 1" in page


def test_a_granted_device_signs_with_its_name(app, host, game):
    tablet = phone_client(app, "192.168.1.30")
    key = app.config["STORE"].secret("host_key")
    submit(tablet, f"/host/{key}", f"/host/{key}", label="Eva's tablet")
    play(tablet, game, GAME[:1])
    assert "Recorded by the host device Eva's tablet at" in history(host, game)


def test_signatures_are_not_part_of_the_game_record(host, game):
    play(host, game, GAME[:2])
    record = host.get(f"/g/{game}/record.json").get_json()
    assert record["events"] == [{"type": "reveal", "cards": [{"family": "red", "number": 0},
                                                               {"family": "yellow", "number": 5}]},
                                {"type": "sold", "winner": "Anna", "price": 3}]


# --- joining without a camera -------------------------------------------------------

def code_of(client, token) -> str:
    return re.search(r'class="code">([\w-]+)<',
                     client.get(f"/g/{token}").get_data(as_text=True))[1]


def test_the_table_shows_the_address_in_words_and_a_short_code(tmp_path):
    app = make_app(tmp_path / "data", lan_url="http://192.168.1.5:5000")
    host = app.test_client()
    token = new_game(host)
    page = text(host.get(f"/g/{token}"))
    code = code_of(host, token)
    assert f"No camera? Open http://192.168.1.5:5000 and type the game code {code}" in page
    assert re.fullmatch(r"[ACDEFGHJKMNPQRTUVWXY34679]{3}-[ACDEFGHJKMNPQRTUVWXY34679]{4}", code)
    assert host.get(f"/g/{token}/qr.svg").mimetype == "image/svg+xml"


def test_with_no_address_phones_can_reach_the_table_says_so(host, game):
    page = text(host.get(f"/g/{game}"))
    assert "Phones cannot reach this server: it listens only on this device" in page
    assert host.get(f"/g/{game}/qr.svg").status_code == 404


def test_codes_are_unique_among_the_server_s_games(host):
    codes = {code_of(host, new_game(host)) for _ in range(5)}
    assert len(codes) == 5


@pytest.mark.parametrize("typed", ["{code}", " {lower} ", "{plain}", "{spaced}", "{dashed}"])
def test_a_phone_joins_by_typing_the_code(host, phone, game, typed):
    code = code_of(host, game)
    plain = code.replace("-", "")
    typed = typed.format(code=code, lower=code.lower(), plain=plain, spaced=" ".join(plain),
                         dashed=plain[:4] + "\u2013" + plain[4:])  # an en dash, as phones type
    response = submit(phone, "/", "game-code", code=typed)
    assert response.status_code == 303 and response.headers["Location"] == f"/g/{game}/join"


def test_codes_are_limited_per_network_with_a_clear_message(app, host, game, monkeypatch):
    """CODES_PER_HOUR codes from one network (here 10), right or wrong: then even the right
    one waits, said in words; another network does not."""
    monkeypatch.setattr(screens.host, "CODES_PER_HOUR", 10)
    code = code_of(host, game)
    phone, other = phone_client(app, "192.168.1.20"), phone_client(app, "192.168.1.21")
    for _ in range(10):
        response = submit(phone, "/", "game-code", code="XXXXX")
        assert response.status_code == 404
        assert "There is no game with the code XXXXX on this server" in alerts(response)[0]
    blocked = submit(phone, "/", "game-code", code=code)
    assert blocked.status_code == 429
    assert alerts(blocked) == ["Too many game codes were typed from this network: try again "
                               "in 60 min, or scan the QR code on the table's screen."]
    assert submit(other, "/", "game-code", code=code).status_code == 303


# --- a finished game is locked ------------------------------------------------------

@pytest.fixture
def finished(host, phone):
    """A finished game (15 lots, each going free: R2), imported; Anna's phone seated."""
    token = imported(host, *all_rounds_free())
    join(phone, token, "Anna")
    return token


def test_R2_a_finished_game_is_locked_on_every_screen(host, phone, finished):
    for page in (host.get(f"/g/{finished}"), phone.get(f"/g/{finished}/me"),
                 host.get(f"/g/{finished}/history")):
        assert "The game is over and locked: nothing can be changed." in text(page)
    assert "Unlock to correct" in text(host.get(f"/g/{finished}"))
    assert "Unlock to correct" not in text(phone.get(f"/g/{finished}/me"))


def test_R2_undo_and_corrections_are_refused_until_the_host_unlocks(app, host, phone, finished):
    before = snapshot(app)
    refused = [host.post(f"/g/{finished}/undo", data={"version": str(version(app, finished))},
                         headers=_headers(host, finished)),
               host.post(f"/g/{finished}/history/1/remove",
                         data={"version": str(version(app, finished))},
                         headers=_headers(host, finished))]
    for response in refused:
        assert response.status_code == 422
        assert "The game is over and locked: the host can unlock it to correct it (R2)." in \
            " ".join(alerts(response))
    assert snapshot(app) == before
    assert phone.post(f"/g/{finished}/unlock", headers=_headers(phone, finished)).status_code == 403
    confirm = host.get(f"/g/{finished}/confirm/unlock")
    assert "Unlock the finished game?" in text(confirm)
    assert submit(host, f"/g/{finished}/confirm/unlock", "confirm-unlock").status_code == 303
    assert "The game is over but unlocked" in text(phone.get(f"/g/{finished}/me"))
    assert undo(host, finished).status_code == 303
    assert "unlocked the finished game to correct it" in history(host, finished)


def _headers(client, token):
    return csrf_headers(client, f"/g/{token}")
