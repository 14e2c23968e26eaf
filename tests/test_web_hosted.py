"""A hosted server (`--hosted`, issue 30): a server on the internet, not on a table. No
device is the server's own, loopback included; any device may start a game, and the one
that started it hosts that game alone; its list shows only its own games. Each test runs
on SQLite and on PostgreSQL (tests/postgres.py)."""
import re
import secrets
import tempfile
import threading
import time
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.web import create_app

from companion.web.guards.limits import LIMITS, Limits
from companion.web.screens.host import STARTS_PER_NETWORK, SWEEP_EVERY
from companion.web.screens.operator import KEYS_PER_HOUR
from tests.web_helpers import (FIRST_SALE, GAME, PLAYERS, act, alerts, card, csrf_headers,
                               find_form, hand_edit, host_link, join, make_app, new_game,
                               phone_client, play, submit, text)

STRANGER = "203.0.113.7"  # another household's phone, on the internet (RFC 5737)


@pytest.fixture
def app(tmp_path, database):
    return make_app(tmp_path / "data", database=database, hosted=True)


def test_the_device_that_starts_a_game_hosts_it_and_another_device_only_watches(app):
    """The loopback device is a device like any other: the stranger it is to another
    device's game is refused in words (R12: the host's device records), and sees the
    payments all the same."""
    maker, other = app.test_client(), phone_client(app, STRANGER)
    token = new_game(maker)
    play(maker, token, GAME[:2])
    assert "action-reveal" not in other.get(f"/g/{token}").get_data(as_text=True)
    form = find_form(maker.get(f"/g/{token}"), "action-reveal")
    headers = csrf_headers(other, f"/g/{token}")
    refused = other.post(form.action, headers=headers, data={
        **form.fields, "csrf_token": headers["X-CSRF-Token"],
        "cards": [card("red 1"), card("yellow 6")]})
    assert refused.status_code == 403
    assert "This device only watches the table: take a seat to record." in text(refused)
    settings = other.get(f"/g/{token}/settings")
    assert settings.status_code == 403
    assert "Only the host's device can do this." in text(settings)
    assert all(words in text(other.get(f"/g/{token}")) for words in FIRST_SALE)
    assert "Round 2: reveal the lot" in text(maker.get(f"/g/{token}"))  # nothing recorded
    assert "No camera? Open http://localhost and type the game code" in text(
        maker.get(f"/g/{token}"))  # the address this device opened, in words and QR code
    assert "Settings" in text(maker.get(f"/g/{token}"))
    assert "Settings" not in text(other.get(f"/g/{token}"))


def test_a_device_s_list_shows_its_own_games_and_no_host_link(app):
    first, second = app.test_client(), phone_client(app, STRANGER)
    mine = new_game(first, players=("Ada", "Bo", "Cy"))
    theirs = new_game(second, players=("Dee", "Eve", "Fay"))
    for client, shown, hidden in ((first, mine, theirs), (second, theirs, mine)):
        home = client.get("/").get_data(as_text=True)
        assert f"/g/{shown}" in home and f"/g/{hidden}" not in home
        assert "/host/" not in home and "Host link" not in home
    key = app.config["STORE"].secret("host_key")  # a LAN server's link, on the same database
    assert first.get(f"/host/{key}").status_code == 404
    newcomer = phone_client(app, "203.0.113.8").get("/")
    assert "New game" in text(newcomer) and "/g/" not in newcomer.get_data(as_text=True)
    assert "Game code" in text(newcomer)  # to join a game started elsewhere


def test_a_player_joins_the_hosted_game_and_records_from_the_phone(app):
    maker, player = app.test_client(), phone_client(app, STRANGER)
    token = new_game(maker)
    assert join(player, token, "Anna").status_code == 303
    assert act(player, token, "reveal", "red 0", "yellow 5").status_code == 303
    assert "Round 1: the auction" in text(maker.get(f"/g/{token}"))


def in_network(network: int, device: int) -> str:
    """An IPv6 address of the /64 numbered `network` of one /48 (RFC 3849's)."""
    return f"2001:db8:7:{network:x}::{device:x}"


def test_one_network_starts_at_most_so_many_games_an_hour(app):
    """Past STARTS_PER_NETWORK from one /64 within the hour, whatever its addresses (a
    device may take a new one for each try), a new game is refused in words and nothing
    is stored; another /64 still starts one, and the games started stay playable."""
    busy = [phone_client(app, in_network(1, number + 1))
            for number in range(STARTS_PER_NETWORK + 1)]
    tokens = [new_game(device) for device in busy[:-1]]
    refused = new_game(busy[-1], expect=429)
    assert (f"This network has started as many games within the hour as one network may "
            f"({STARTS_PER_NETWORK}): start another in 60 min, or go on with one of "
            "yours.") in alerts(refused)
    assert app.config["STORE"].game_count() == STARTS_PER_NETWORK
    assert new_game(phone_client(app, in_network(2, 1)))
    assert act(busy[0], tokens[0], "reveal", "red 0", "yellow 5").status_code == 303


def test_sixty_starts_at_once_from_one_address_make_at_most_so_many_games(app):
    """The bounds are looked at and the start counted in one step, however many starts
    race: each start is a game made or a refusal in words, never both, never more."""
    devices = [phone_client(app, STRANGER) for _ in range(60)]
    forms = [(device, find_form(device.get("/"), "new-game")) for device in devices]
    start, answers = threading.Barrier(len(forms), timeout=30), []

    def send(device, form):
        start.wait()
        answers.append(device.post(form.action, headers=csrf_headers(device), data={
            **form.fields, "player": list(PLAYERS)}))
    threads = [threading.Thread(target=send, args=pair) for pair in forms]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    made = [answer for answer in answers if answer.status_code == 303]
    assert len(answers) == 60 and len(made) == STARTS_PER_NETWORK
    assert all(answer.status_code in (303, 429) for answer in answers)
    assert app.config["STORE"].game_count() == STARTS_PER_NETWORK


BOUNDS = {  # a bound of the server, the numbers that reach it, and its words
    "hour": (Limits(starts_per_hour=2), (
        "This server has started as many games within the hour as its operator allows (2): "
        "start another in 60 min. The games under way play on.",
        "Ce serveur a lancé dans l'heure autant de parties que son opérateur le permet "
        "(2) : lancez-en une autre dans 60 min. Les parties en cours continuent.")),
    "games": (Limits(max_games=2), (
        "This server keeps as many games as its operator allows (2): a new one can be "
        "started once older ones are removed. The games under way play on.",
        "Ce serveur garde autant de parties que son opérateur le permet (2) : une "
        "nouvelle pourra être lancée quand des plus anciennes auront été supprimées. Les "
        "parties en cours continuent.")),
    "bytes": (Limits(max_megabytes=1), (
        "This server's games take as much room as its operator allows (1 MB): a new one "
        "can be started once older ones are removed. The games under way play on.",
        "Les parties de ce serveur occupent autant de place que son opérateur le permet "
        "(1 Mo) : une nouvelle pourra être lancée quand des plus anciennes auront "
        "été supprimées. Les parties en cours continuent.")),
}


@pytest.mark.parametrize("bound", BOUNDS)
def test_past_a_bound_of_the_server_a_start_is_refused_in_words_and_games_play_on(app, bound):
    """The operator's bounds (--starts-per-hour, --max-games, --max-megabytes), each
    reached from networks of their own: a start is refused in English and French, nothing
    is stored, and the games started play on."""
    limits, (english, french) = BOUNDS[bound]
    app.config[LIMITS] = limits
    first = phone_client(app, in_network(1, 1))
    token = new_game(first)
    new_game(phone_client(app, in_network(2, 1)))
    if bound == "bytes":  # the database grows past a megabyte (as random as a game's bytes)
        hand_edit(app, "INSERT INTO meta VALUES ('ballast', ?)", secrets.token_hex(1_000_000))
    refused = new_game(phone_client(app, in_network(3, 1)), expect=429)
    assert english in alerts(refused)
    reader = phone_client(app, in_network(4, 1))
    reader.environ_base["HTTP_ACCEPT_LANGUAGE"] = "fr"
    assert french in alerts(new_game(reader, expect=429))
    assert app.config["STORE"].game_count() == 2
    assert act(first, token, "reveal", "red 0", "yellow 5").status_code == 303


def test_a_server_on_a_table_keeps_its_owner(tmp_path):
    """Without --hosted, the loopback device is the host of every game, and a phone is
    not asked to start one."""
    app = make_app(tmp_path / "data")
    token = new_game(app.test_client(), players=PLAYERS)
    assert "New game" not in text(phone_client(app).get("/"))
    phone = phone_client(app)
    headers = csrf_headers(phone)
    refused = phone.post("/new", headers=headers, data={
        "csrf_token": headers["X-CSRF-Token"], "player": ["Ada", "Bo", "Cy"]})
    assert refused.status_code == 403 and "Only the host's device can do this." in text(refused)
    assert f"/g/{token}" in app.test_client().get("/").get_data(as_text=True)


def test_a_game_no_one_changed_for_the_days_kept_is_removed(app):
    """--keep-days (30 by default): a game idle that long goes with all it holds when a
    game is next started (at most once an hour); its record could be exported until then;
    a game changed since stays."""
    maker = app.test_client()
    idle, played = new_game(maker), new_game(maker)
    hand_edit(app, "UPDATE games SET created = ?", time.time() - 31 * 86400)
    play(maker, played, GAME[:1])
    assert maker.get(f"/g/{idle}/record.json").status_code == 200
    new_game(maker)  # within the hour of the last look (at start): nothing removed
    assert maker.get(f"/g/{idle}").status_code == 200
    app.extensions["swept"] -= SWEEP_EVERY  # an hour later
    new_game(maker)
    assert maker.get(f"/g/{idle}").status_code == 404
    assert maker.get(f"/g/{idle}/record.json").status_code == 404
    assert "Round 1: the auction" in text(maker.get(f"/g/{played}"))
    assert app.config["STORE"].game_count() == 3  # the one played and the two started


def test_the_game_s_host_link_makes_another_device_its_host_until_revoked(app):
    """A second phone of the host's household hosts the game through its link, for this
    game alone; revoked by the first, it only watches, and the old link is dead."""
    maker, partner = app.test_client(), phone_client(app, STRANGER)
    token, other_game = new_game(maker), new_game(maker)
    link = host_link(maker, token)
    asked = partner.get(link)
    assert "Host this game on this device" in text(asked)
    assert submit(partner, link, link, label="Bo's phone").status_code == 303
    assert act(partner, token, "reveal", "red 0", "yellow 5").status_code == 303
    assert partner.get(f"/g/{other_game}/settings").status_code == 403  # this game alone
    assert f"/g/{token}" in partner.get("/").get_data(as_text=True)  # in its list now
    settings = maker.get(f"/g/{token}/settings")
    assert "Revoke Bo's phone" in text(settings)
    assert "Revoke the device that started the game" in text(partner.get(
        f"/g/{token}/settings"))
    assert submit(maker, f"/g/{token}/settings", "revoke").status_code == 303
    assert partner.get(f"/g/{token}/settings").status_code == 403
    assert "action-sold" not in partner.get(f"/g/{token}").get_data(as_text=True)
    assert partner.get(link).status_code == 404  # the link changed
    assert host_link(maker, token) != link
    assert "Round 1: the auction" in text(maker.get(f"/g/{token}"))


def test_a_wrong_host_link_is_no_page_and_a_host_cannot_revoke_itself(app):
    maker = app.test_client()
    token = new_game(maker)
    link = host_link(maker, token)
    stranger = phone_client(app, STRANGER)
    assert stranger.get(link[:-2] + "xx").status_code == 404
    assert stranger.get(f"/g/{token}/host/").status_code == 404
    own = app.config["STORE"].game_hosts(token, "")[0].id  # the device that started it
    headers = csrf_headers(maker, f"/g/{token}/settings")
    for host_id in (own, 424242):  # itself, or no host of the game: nothing changes
        answer = maker.post(f"/g/{token}/hosts/{host_id}/revoke", headers=headers,
                            data={"csrf_token": headers["X-CSRF-Token"]})
        assert answer.status_code == 404
    assert maker.get(f"/g/{token}/settings").status_code == 200  # still its host
    assert host_link(maker, token) == link  # the link is the same


def hosted_only_posts() -> list[str]:
    """The routes a form posts to on a hosted server alone (the game's host link, a
    revocation), from the apps' URL maps."""
    with tempfile.TemporaryDirectory() as data:
        def posts(hosted):
            rules = create_app(f"{data}/{hosted}", hosted=hosted).url_map.iter_rules()
            return {rule.endpoint for rule in rules if "POST" in rule.methods}
        return sorted(posts(True) - posts(False))


def world(app) -> tuple:
    """What a hosted server keeps of games and hosts: unchanged by a refused post."""
    return app.config["STORE"].games(), hand_edit(
        app, "SELECT game_id, device, label, host_key FROM hosts JOIN games ON "
             "games.id = hosts.game_id ORDER BY hosts.id")


@pytest.mark.parametrize("endpoint", hosted_only_posts())
@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_anything_posted_to_a_hosted_route_is_applied_or_refused_in_words(app, endpoint,
                                                                           data):
    """As tests/test_web_fuzz.py does for every other route: any URL part, any label,
    the CSRF token right, wrong or missing, from the game's host or a stranger."""
    maker = app.test_client()
    token = new_game(maker)
    key = re.search(r"/host/([^/]+)$", host_link(maker, token))[1]
    real = {"token": token, "key": key, "host_id": str(app.config["STORE"].game_hosts(
        token, "")[0].id)}
    rule = next(rule for rule in app.url_map.iter_rules(endpoint) if "POST" in rule.methods)
    parts = {name: data.draw(st.just(real[name]) | st.text(max_size=30), label=name)
             for name in rule.arguments}
    client = data.draw(st.sampled_from((maker, phone_client(app, STRANGER))), label="who")
    headers = csrf_headers(client)
    token_sent = data.draw(st.sampled_from((headers["X-CSRF-Token"], "", "forged")),
                           label="csrf")
    form = {"csrf_token": token_sent,
            "label": data.draw(st.text(max_size=200), label="label")}
    url = re.sub(r"<(?:[^<>:]+:)?([^<>]+)>",
                 lambda part: quote(parts[part.group(1)], safe=""), rule.rule)
    before = world(app)
    answer = client.post(url, data=form)  # the checked client fails on a 5xx
    if answer.status_code >= 400:
        assert text(answer) and "Traceback" not in answer.get_data(as_text=True)
    if answer.status_code != 303:
        assert world(app) == before, answer.status_code


OPERATOR_KEY = "Xq7-mB2vR9kL_pW4sT8nY1cZ"  # (as --new-operator-key makes one)


def test_the_operator_reads_the_use_and_removes_a_game_with_the_key(app, monkeypatch):
    monkeypatch.setenv("TEMPLARI_OPERATOR_KEY", OPERATOR_KEY)
    maker, operator = app.test_client(), phone_client(app, "203.0.113.9")
    token, other = new_game(maker), new_game(maker)
    play(maker, token, GAME[:2])
    assert "The operator's key" in text(operator.get("/operator"))
    wrong = submit(operator, "/operator", "operator-key", key="guess")
    assert wrong.status_code == 403 and "That is not the operator's key." in text(wrong)
    assert submit(operator, "/operator", "operator-key", key=OPERATOR_KEY).status_code == 303
    page = text(operator.get("/operator"))
    assert "2 games kept" in page and "2 games started within the day" in page
    assert "1 game played within the day" in page
    assert "Actions recorded at the tables: 2 within the day, 2 within the hour" in page
    code = app.config["STORE"].game(token).code
    removed = submit(operator, "/operator", "operator-remove", code=code.lower())
    assert f"The game {code} was removed." in text(removed)
    assert maker.get(f"/g/{token}").status_code == 404
    assert maker.get(f"/g/{other}").status_code == 200
    assert "1 game kept" in text(operator.get("/operator"))
    assert maker.post("/operator/remove", data={"code": code}).status_code in (400, 403)


def test_the_operator_s_page_needs_a_key_and_stops_guessers(app, monkeypatch):
    """No key in the environment (or one that could be guessed: the server does not start
    with it, tests/test_serve.py): no page at all. With one, a /64 that typed KEYS_PER_HOUR
    keys within the hour, from as many addresses, has no more tried, even the right one;
    another network signs in at once."""
    assert app.test_client().get("/operator").status_code == 404
    monkeypatch.setenv("TEMPLARI_OPERATOR_KEY", "short")
    assert app.test_client().get("/operator").status_code == 404
    monkeypatch.setenv("TEMPLARI_OPERATOR_KEY", OPERATOR_KEY)
    answers = [submit(phone_client(app, in_network(1, number + 1)), "/operator",
                      "operator-key", key=f"guess {number}") for number in range(30)]
    assert [answer.status_code for answer in answers] == [403] * KEYS_PER_HOUR + [429] * (
        30 - KEYS_PER_HOUR)
    stopped = submit(phone_client(app, in_network(1, 99)), "/operator", "operator-key",
                     key=OPERATOR_KEY)
    assert stopped.status_code == 429 and alerts(stopped) == [
        "Too many keys were typed from this network: try again in 60 min."]
    operator = phone_client(app, in_network(2, 1))
    assert submit(operator, "/operator", "operator-key", key=OPERATOR_KEY).status_code == 303
    assert "games kept" in text(operator.get("/operator"))


def test_a_token_the_server_cannot_have_made_is_no_page_on_either_database(app):
    """A NUL byte (which PostgreSQL holds in no text) or a stranger character in a game's
    token, on a page that asks who hosts it: no such page, in words."""
    maker = app.test_client()
    new_game(maker)
    for token in ("%00", "abc%00def", "é", "x" * 65):
        for page in (f"/g/{token}", f"/g/{token}/settings", f"/g/{token}/host/key"):
            answer = maker.get(page)
            assert answer.status_code == 404, (page, answer.status_code)
            assert "There is no such page or game here." in text(answer)
