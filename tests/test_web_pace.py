"""No device can buy the server's time with changes: past what a table does (a burst, then
one a second) a device's changes are refused in words and nothing is done, whatever
addresses it comes from; the devices of one network together have a ceiling that the ten
tables of a café behind one address never reach, and a device of another network is not
held back; the server's own device never is. The count is kept in the database: two
server processes count a device's changes together. The clock is the tests' own
(`pace.clock`), so that no refill comes from a slow machine."""
import pytest

from companion.web import create_app
from companion.web.guards import pace
from companion.web.guards.pace import DEVICE_PACE, NETWORK_PACE, PACE
from tests.web_helpers import (GAME, PLAYERS, CheckedClient, Clock, act, copy_session,
                               csrf_headers, join, new_game, phone_client, play, snapshot,
                               submit, text)

RATE, BURST = DEVICE_PACE
TOO_FAST = ("This device sends changes faster than a table plays: try again in a few "
            "seconds. Nothing was changed.")
NETWORK_TOO_FAST = ("The devices of this network send changes faster than ten tables play: "
                    "try again in a few seconds. Nothing was changed.")
CAFE = "198.51.100.20"  # the café's one public address (RFC 5737)


@pytest.fixture
def clock(monkeypatch) -> Clock:
    moved = Clock(1_000_000.0)
    monkeypatch.setattr(pace, "clock", moved)
    return moved


def paced_app(data_dir, hosted=False):
    """The app as the server runs it: its pace on (the tests' make_app turns it off)."""
    app = create_app(data_dir, hosted=hosted)
    app.test_client_class = CheckedClient
    app.extensions["test_errors"] = []
    return app


def in_network(network: int, device: int) -> str:
    """An IPv6 address of the /64 numbered `network` of one /48 (RFC 3849's)."""
    return f"2001:db8:7:{network:x}::{device:x}"


def test_a_device_sending_changes_faster_than_a_table_plays_is_refused_in_words(tmp_path,
                                                                                 clock):
    app = paced_app(tmp_path / "data")
    host = app.test_client()
    game = new_game(host)
    phone, other = phone_client(app), phone_client(app, "192.168.1.21")
    assert join(phone, game, "Anna").status_code == 303
    headers = csrf_headers(phone, f"/g/{game}")
    for _ in range(BURST - 1):  # a burst is fine: here, undos with nothing to undo
        assert phone.post(f"/g/{game}/undo", headers=headers).status_code != 429
    before = snapshot(app)
    refused = submit(phone, f"/g/{game}", "action-reveal", cards=["0:0", "1:5"])
    assert refused.status_code == 429
    assert TOO_FAST in text(refused)
    assert snapshot(app) == before
    assert join(other, game, "Bert").status_code == 303  # another device is not held back
    play(host, game, GAME)  # 41 changes at once: the server's own device is never held back


def test_a_device_hopping_its_addresses_for_ten_seconds_makes_at_most_forty_changes(
        tmp_path, clock):
    """A seated phone that takes a new address of its /64 (or of another) for each change,
    one every 50 ms for 10 s: its burst and one a second, no more."""
    app = paced_app(tmp_path / "data")
    game = new_game(app.test_client())
    phone = phone_client(app, in_network(1, 1))
    assert join(phone, game, "Anna").status_code == 303
    headers, answers = csrf_headers(phone, f"/g/{game}"), []
    for number in range(200):
        clock.now += 0.05
        phone.environ_base["REMOTE_ADDR"] = in_network(1 + number % 3, number + 2)
        answers.append(phone.post(f"/g/{game}/undo", headers=headers))
    taken = sum(answer.status_code != 429 for answer in answers)
    assert BURST + 10 * RATE - 2 <= taken <= BURST + 10 * RATE
    assert TOO_FAST in text(next(answer for answer in answers if answer.status_code == 429))


def test_devices_of_one_network_have_a_ceiling_and_another_network_is_not_held_back(
        tmp_path, clock):
    """Devices that each send a change once, as a device dropping its cookie would, from
    one /64: past the network's ceiling (here 40 at once) they are refused in words."""
    app = paced_app(tmp_path / "data")
    app.config[PACE] = (DEVICE_PACE, (NETWORK_PACE[0], 40))
    game = new_game(app.test_client())
    answers = []
    for number in range(50):
        device = phone_client(app, in_network(1, number + 1))
        answers.append(device.post(f"/g/{game}/undo", headers=csrf_headers(device)))
    assert [answer.status_code == 429 for answer in answers] == [False] * 40 + [True] * 10
    assert NETWORK_TOO_FAST in text(answers[-1])
    elsewhere = phone_client(app, in_network(2, 1))
    assert join(elsewhere, game, "Anna").status_code == 303


def test_the_ten_tables_of_a_cafe_behind_one_address_play_at_full_speed(tmp_path, clock):
    """A hosted server, and a café whose devices all come from its one address: ten
    tables start their games and two phones of each join at once, then each table records
    a change every 2 s (faster than a table plays) from its device: none is refused."""
    app = paced_app(tmp_path / "data", hosted=True)
    tables = [phone_client(app, CAFE) for _ in range(10)]
    games = [new_game(table) for table in tables]
    for game in games:
        for name in PLAYERS[1:]:
            assert join(phone_client(app, CAFE), game, name).status_code == 303
    for step in GAME[:6]:
        for table, game in zip(tables, games):
            clock.now += 0.2
            assert act(table, game, *step).status_code == 303, step


def test_two_server_processes_count_a_device_s_changes_together(tmp_path, clock):
    """Half the burst through each of two apps on one database (two processes, or two
    machines behind a load balancer): the next change is refused by either."""
    first, second = (paced_app(tmp_path / "data") for _ in range(2))
    game = new_game(first.test_client())
    phone, phone_there = phone_client(first), phone_client(second)
    assert join(phone, game, "Anna").status_code == 303
    copy_session(phone, phone_there)
    for client in (phone, phone_there):
        headers = csrf_headers(client, f"/g/{game}")
        for _ in range(BURST // 2 - 1):
            assert client.post(f"/g/{game}/undo", headers=headers).status_code != 429
    answers = [client.post(f"/g/{game}/undo", headers=csrf_headers(client, f"/g/{game}"))
               for client in (phone, phone_there)]
    assert answers[0].status_code != 429  # the 30th change: the burst's last
    assert answers[1].status_code == 429 and TOO_FAST in text(answers[1])


def test_a_hosted_server_paces_the_loopback_too(tmp_path, clock):
    """--hosted has no device of its own: the loopback is counted as any device is."""
    app = paced_app(tmp_path / "data", hosted=True)
    maker = app.test_client()
    game = new_game(maker)  # one change
    headers = csrf_headers(maker, f"/g/{game}")
    answers = [maker.post(f"/g/{game}/undo", headers=headers).status_code
               for _ in range(BURST)]
    assert answers.count(429) == 1 and answers[-1] == 429
