"""A whole game played through HTTP as the table would, then checked against the replay
of its own export; history, corrections, the score page, import."""
import json
import re

import pytest

from companion.rules.record import fold_record
from companion.rules.replay import replay_json
from companion.rules.scoring import SET_POINTS
from companion.web.render import drawn

from tests.web_helpers import (FIRST_SALE, GAME, PLAYERS, act, alerts, body, card, find_form,
                               import_record, join, new_game, page_headers, phone_client, play,
                               rows, seat, snapshot, stored, submit, text, undo)
from tests.web_helpers import app, game, host, phone  # noqa: F401 (fixtures)


@pytest.fixture
def played(host, game):
    """The token of GAME played to its end."""
    play(host, game, GAME)
    return game


def replayed(client, token) -> dict:
    """The replay contract of the game's exported record."""
    response = client.get(f"/g/{token}/record.json")
    assert response.status_code == 200 and "attachment" in response.headers["Content-Disposition"]
    return replay_json(fold_record(response.get_json()))


def test_payment_instructions_show_on_table_and_phone(host, phone, game):
    """After a sale (R8) the table and a seated phone both say who pays whom."""
    join(phone, game, "Bert")
    play(host, game, GAME[:2])
    for page in (host.get(f"/g/{game}"), phone.get(f"/g/{game}/me")):
        assert page.status_code == 200
        assert all(words in text(page) for words in FIRST_SALE)


def test_undo_takes_back_the_last_action(app, host, game):
    play(host, game, GAME[:2])
    events = stored(app, game)[1]
    assert "Undo: Anna bought the lot for 3" in text(host.get(f"/g/{game}"))
    assert undo(host, game).status_code == 303
    assert stored(app, game)[1] == events[:-1]
    assert "Round 1: the auction" in text(host.get(f"/g/{game}"))
    assert undo(host, game).status_code == 303
    assert "Round 1: reveal the lot" in text(host.get(f"/g/{game}"))


def test_whole_game_matches_the_replay_of_its_export(app, host, played):
    """15 rounds with a side sale, a penalty, an overbid, free lots and an undo."""
    expected = replayed(host, played)
    assert expected["finished"] and expected["winners"] == ["Bert"]
    assert [p["coins"] for p in expected["players"]] == [8, 15, 12] and expected["pot"] == 1
    assert len(stored(app, played)[1]) == len(GAME) - 2  # the undone reveal is gone
    table = text(host.get(f"/g/{played}"))
    assert "The game is over" in table and f"Pot {expected['pot']}" in table
    for player in expected["players"]:
        assert f"{player['coins']} coins" in table  # totals are public once the game is over
    score = host.get(f"/g/{played}/score")
    assert "Winner: Bert" in text(score)
    assert score_rows(score) == [expected_row(player) for player in expected["players"]]


def score_rows(page):
    return [row for row in rows(page) if row[0] in PLAYERS]


def expected_row(player) -> list[str]:
    """A score table row: name, each family 'n cards: points', coins, bonus, total, sum (R10)."""
    families = [card["family"] for card in player["cards"]]
    cells = [f"{n} card{'s' if n != 1 else ''}: {SET_POINTS[n]}"
             for n in (families.count(f) for f in ("red", "yellow", "green", "blue",
                                                   "purple", "black"))]
    return [player["name"], *cells, str(player["coins"]), str(player["coin_bonus"]),
            str(player["points"]), str(player["card_sum"])]


def test_score_page_after_round_15(host, played):
    """Points per family, coin bonus, total, card sum, the winner and a chart (R10)."""
    page = host.get(f"/g/{played}/score")
    assert "Final score" in text(page) and "Winner: Bert" in text(page)
    assert rows(page)[0] == ["Player", "red", "yellow", "green", "blue", "purple", "black",
                             "Coins", "Coin bonus", "Total", "Card sum"]
    bert = score_rows(page)[1]
    assert bert[1] == "5 cards: 15" and bert[-4:] == ["15", "2", "29", "55"]
    assert "<svg" in page.get_data(as_text=True)


def test_score_page_ranks_the_players_first(host, played):
    """A phone sees the totals first, best first (R10), before the wide table."""
    ranking = body(host.get(f"/g/{played}/score")).split('class="ranking"')[1].split("</ol>")[0]
    expected = replayed(host, played)["players"]
    order = sorted(expected, key=lambda player: (-player["points"], -player["card_sum"]))
    assert text(ranking).lstrip("> ").startswith(
        f"{order[0]['name']} · {order[0]['points']} points")
    assert [text(item).split(" · ")[0] for item in ranking.split("<li>")[1:]] == [
        player["name"] for player in order]


def test_the_chart_key_names_each_line_by_its_dashes_and_final_coins(host, played):
    """The lines differ by dash pattern as well as colour; the key needs no sideways scroll."""
    page = body(host.get(f"/g/{played}/score"))
    key = re.findall(r'<li class="p\d">(.*?)</li>', page, re.S)
    coins = [player["coins"] for player in replayed(host, played)["players"]]
    assert [text(item) for item in key] == [
        f"{name}: {count} coins" for name, count in zip(PLAYERS, coins)]
    dashes = re.findall(r'stroke-dasharray="([^"]+)"', page.split("<figcaption>")[0])
    assert len(set(dashes)) == len(PLAYERS)


def test_score_page_before_the_end(host, game):
    assert "The score appears when round 15 has settled" in text(host.get(f"/g/{game}/score"))


def test_history_lists_rounds_with_payments(host, played):
    page = " ".join(text(body(host.get(f"/g/{played}/history?page={number}"))
                         .split('<section class="journal">')[0])
                    for number in (3, 2, 1))  # 5 rounds a page, the latest first
    assert all(f"Round {n}" in page for n in range(1, 16)) and "Round 16" not in page
    for words in ["Anna bought the lot for 3", *FIRST_SALE, "sold ♦ red 0 to Bert for 2",
                  "Bert made a forbidden bid", "Claus bid more than they hold",
                  "Revealed ♣ green 2 and ● blue 8", "Bert takes 4"]:
        assert words in page, words
    assert "● blue 7" not in page.split("Round 7")[0]  # the undone reveal left no trace


def test_correction_rechecks_later_events(app, host, game):
    """Correcting round 1's price re-settles it; the later side sale still holds."""
    play(host, game, GAME[:3])
    assert "Now: Anna bought the lot for 3" in text(host.get(f"/g/{game}/history/1"))
    response = submit(host, f"/g/{game}/history/1", "action-sold", price="2")
    assert response.status_code == 303
    page = text(host.get(f"/g/{game}/history"))
    assert "Anna bought the lot for 2" in page and "Anna pays 2" in page
    assert "sold ♦ red 0 to Bert for 2" in page
    assert len(stored(app, game)[1]) == 3


def test_correction_refused_when_a_later_event_would_become_illegal(app, host, game):
    """Bert winning round 1 would leave Anna nothing to sell in round 2 (R6): refused."""
    play(host, game, GAME[:3])
    before = stored(app, game)
    response = submit(host, f"/g/{game}/history/1", "action-sold", winner="1")
    assert response.status_code == 422
    assert any("would make action 3 illegal" in alert and "Anna does not hold the red 0" in alert
               for alert in alerts(response))
    assert stored(app, game) == before


def test_import_of_an_export_creates_the_same_game(app, host, played):
    record = host.get(f"/g/{played}/record.json").get_data()
    response = import_record(host, record)
    assert response.status_code == 303
    copy = response.headers["Location"].rsplit("/", 1)[1]
    assert copy != played
    assert host.get(f"/g/{copy}/record.json").get_data() == record
    assert replayed(host, copy) == replayed(host, played)
    assert text(host.get(f"/g/{copy}/score")) == text(host.get(f"/g/{played}/score"))


def record_with(events, players=PLAYERS) -> bytes:
    return json.dumps({"format": "templari-game/1", "edition": "en",
                       "players": list(players), "events": events}).encode()


RED_0 = {"family": "red", "number": 0}
BROKEN = {
    "not JSON": (b"{this is not json", "That file is not a game record"),
    "card seen twice (R1)": (record_with([
        {"type": "reveal", "cards": [RED_0, {"family": "blue", "number": 5}]}, {"type": "free"},
        {"type": "reveal", "cards": [RED_0, {"family": "blue", "number": 6}]}]),
        "Action 3: the red 0 has already been seen"),
    "two players (R1)": (record_with([], players=["Anna", "Bert"]),
                         "Templari is for 3 to 5 players, not 2 (R1)"),
}


@pytest.mark.parametrize("name", BROKEN)
def test_import_of_a_broken_record_shows_the_refusal(app, host, name):
    data, message = BROKEN[name]
    response = import_record(host, data)
    assert response.status_code == 422
    assert any(message in alert for alert in alerts(response)), alerts(response)
    assert snapshot(app) == []


NOT_A_RECORD = "That file is not a game record: choose a JSON file exported by Templari Companion."
HEADER = record_with([])[:-len(b', "events": []}')]  # a record's text up to its events


DEEP_EVENT = "Action 1: an event must be an object, not [[[[...]]]]."


@pytest.mark.parametrize(("data", "messages"), [
    pytest.param(HEADER + b', "start_coins": ' + b"9" * 5000 + b', "events": []}',
                 ["'start_coins' must be from 0 to 1000."], id="a-number-of-5000-digits"),
    pytest.param(HEADER + b', "events": [' + b"[" * 800 + b"]" * 800 + b"]}", [DEEP_EVENT],
                 id="800-levels-deep"),
    # Too deep for json.loads below pytest's stack (not below waitress's): either refusal.
    pytest.param(HEADER + b', "events": ' + b"[" * 975 + b"]" * 975 + b"}",
                 [DEEP_EVENT, NOT_A_RECORD], id="975-levels-deep"),
])
def test_import_of_a_record_with_a_huge_number_or_deep_nesting_is_refused_in_words(
        app, host, data, messages):
    response = import_record(host, data)
    assert response.status_code == 422
    assert len(alerts(response)) == 1 and alerts(response)[0] in messages, alerts(response)
    assert snapshot(app) == []


def test_correction_refusal_keeps_money_secret(app, host, game):
    """R12: the later sale Anna could no longer pay is refused without her total."""
    play(host, game, [("reveal", "red 1", "blue 5"), ("sold", "Anna", 3),
                      ("reveal", "green 2", "yellow 6"), ("sold", "Anna", 9)])
    response = submit(host, f"/g/{game}/history/1", "action-sold", price="4")
    assert ("This change would make action 4 illegal: Anna cannot pay 9 (R5)."
            in " ".join(alerts(response)))
    assert "coins" not in " ".join(alerts(response))


def test_R4_a_penalty_with_no_coin_to_pay_says_so(host, game):
    """Anna spent her 12 coins; Bert bought a lot for 0 (English rules, R8.6), so each
    holds cards that can forbid a bid (R4)."""
    play(host, game, [("reveal", "red 1", "blue 5"), ("sold", "Anna", 12),
                      ("reveal", "green 2", "yellow 6"), ("sold", "Bert", 0),
                      ("reveal", "green 3", "yellow 7"), ("penalty", "Anna"),
                      ("penalty", "Bert")])
    page = text(host.get(f"/g/{game}/history"))
    assert "Anna made a forbidden bid, with no coin to pay" in page
    assert "Bert made a forbidden bid: 1 coin to the pot" in page


def test_a_refused_new_game_keeps_the_choices_made(host):
    response = new_game(host, players=["Anna", "Anna", "Bert"], expect=422, edition="fr",
                        exchange="on", side_sales=None, money="open", live="on")
    form = find_form(response, "new-game").fields
    assert (form["edition"], form["money"], form["live"], form["exchange"]) == (
        ["fr"], ["open"], ["on"], ["on"])
    assert "side_sales" not in form and form["player"][:3] == ["Anna", "Anna", "Bert"]


def test_a_refused_side_sale_keeps_the_players_and_the_card_chosen(app, host, game):
    """R5: Bert holds 13 coins, so cannot pay 20 for Anna's red 0; the form he sees again
    has the seller, the card, the buyer and the price as they were chosen, and the game
    is as it was."""
    play(host, game, GAME[:2])
    before = stored(app, game)
    response = act(host, game, "side_sale", "Anna", "red 0", "Bert", 20)
    assert response.status_code == 422 and stored(app, game) == before
    sale = find_form(response, "action-side_sale").fields
    assert (sale["seller"], sale["card"], sale["buyer"], sale["price"]) == (
        [seat("Anna")], [card("red 0")], [seat("Bert")], ["20"])


def test_a_refused_form_s_made_up_choices_are_not_kept(app, host, game):
    """Seller and card values no select offers, 100,000 characters long, are refused
    (a seller is a seat) and shown nowhere; the lists of players and of cards drawn for
    the answer are the ones kept for the page, not new ones holding those values."""
    play(host, game, GAME[:2])
    host.get(f"/g/{game}")
    kept = (drawn.optgroup.cache_info().currsize, drawn._player_options.cache_info().currsize)
    made_up = "9" * 100_000
    response = act(host, game, "side_sale", seller=made_up, card=made_up, buyer=seat("Bert"),
                   price="2")
    assert response.status_code == 422 and made_up not in body(response)
    assert (drawn.optgroup.cache_info().currsize,
            drawn._player_options.cache_info().currsize) == kept


def test_an_import_can_choose_live_auction_mode(app, host, played):
    record = host.get(f"/g/{played}/record.json").get_data()
    response = import_record(host, record, live="on")
    token = response.headers["Location"].rsplit("/", 1)[1]
    assert app.config["STORE"].game(token).options["live_auction"] is True


def test_a_side_sale_and_a_penalty_show_as_the_coins_to_hand_over(host, phone, game):
    """R6: the buyer pays the seller; R4: a penalty coin goes into the pot."""
    join(phone, game, "Bert")
    play(host, game, GAME[:3])
    for page in (host.get(f"/g/{game}"), phone.get(f"/g/{game}/me")):
        assert "Bert pays Anna 2 for ♦ red 0" in text(page)
    play(host, game, GAME[3:5])
    assert "Bert puts 1 coin into the pot (forbidden bid)" in text(host.get(f"/g/{game}"))


def test_the_host_holding_a_seat_can_still_free_seats(host, phone, game):
    """The host's own seat does not hide the seats page from it."""
    join(host, game, "Anna")
    join(phone, game, "Bert")
    page = host.get(f"/g/{game}/join")
    assert page.status_code == 200 and "Your seat: Anna, open your screen" in text(page)
    card = host.get(f"/g/{game}").get_data(as_text=True)
    # on Bert's card, folded away: a tap among the cards players read frees no seat
    assert re.search(r'<details class="free-seat"><summary>Bert\'s seat: taken by a '
                     r'phone</summary>\s*<form [^>]*action="/g/[^"]+/seats/1/free"', card)
    response = submit(host, f"/g/{game}", f"/g/{game}/seats/1/free")
    assert response.status_code == 303 and response.headers["Location"] == f"/g/{game}"
    table = text(host.get(f"/g/{game}"))
    assert "Free Bert's seat" not in table and "Free Anna's seat" in table
    assert "Bert (taken)" not in text(phone_client(host.application, "192.168.1.77").get(
        f"/g/{game}/join"))


@pytest.mark.parametrize(("values", "message"), [
    ({"start": "9"}, "Choose the first start player's seat (R1)."),
    ({"family": ["red", "yellow", "green", "blue", "purple", "x" * 21]},
     "A family name is 1 to 20 characters on one line (R1)."),
    ({"family": ["red", "yellow", "green", "blue", "purple", "bl\nack"]},
     "A family name is 1 to 20 characters on one line (R1)."),
])
def test_a_new_game_with_a_bad_start_seat_or_family_name_is_refused(app, host, values, message):
    response = new_game(host, expect=422, **values)
    assert message in alerts(response)
    assert snapshot(app) == []


def test_default_family_names_follow_each_reader_s_language(app, host):
    """A game set up on a French device keeps the six default names in the record's own
    words (English), so each phone reads them in its language (R1)."""
    french = {"Accept-Language": "fr"}
    host.set_cookie("lang", "fr")
    token = new_game(host, family=["rouge", "jaune", "vert", "bleu", "violet", "noir"])
    host.delete_cookie("lang")
    assert list(app.config["STORE"].game(token).header["families"]) == [
        "red", "yellow", "green", "blue", "purple", "black"]
    play(host, token, GAME[:1])
    assert "♦ red 0" in text(host.get(f"/g/{token}/history"))
    assert "♦ rouge 0" in text(host.get(f"/g/{token}/history", headers=french))


def test_an_import_accepts_a_file_that_starts_with_a_byte_order_mark(host, played):
    record = host.get(f"/g/{played}/record.json").get_data()
    assert import_record(host, b"\xef\xbb\xbf" + record).status_code == 303


def test_a_seat_taken_meanwhile_leaves_the_seats_to_choose_from(host, phone, app, game):
    """Two phones tap Bert: the second is told, and can still choose another seat."""
    other = phone_client(app, "192.168.1.21")
    page = other.get(f"/g/{game}/join")
    join(phone, game, "Bert")
    response = other.post(f"/g/{game}/join", data={"seat": seat("Bert")},
                          headers=page_headers(page))
    assert response.status_code == 409
    assert "That seat is already taken" in text(response) and "Your seat" not in text(response)
    assert find_form(response, "seats").action == f"/g/{game}/join"


def test_french_family_names_typed_twice_are_refused_in_french(app, host):
    host.set_cookie("lang", "fr")
    response = new_game(host, expect=422,
                        family=["vert", "jaune", "vert", "bleu", "violet", "noir"])
    assert "Deux familles s'appellent 'vert' (R1)." in " ".join(alerts(response))
    assert snapshot(app) == []
