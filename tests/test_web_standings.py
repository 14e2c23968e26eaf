"""Beyond the evening (issue 43): the play logged in BG Stats from the score page, a rematch
in one tap and each phone following its player into it, the players offered on the new
game's form, standings across the games (all and tonight), every finished game as CSV,
and, on a hosted server, each device seeing only the games it hosts or sat in."""
import csv
import io
import json
import re
import time
from urllib.parse import unquote

import pytest

from tests.helpers import FIXTURES
from tests.web_helpers import (GAME, alerts, body, find_form, hand_edit, import_record, join,
                               make_app, new_game, page_headers, phone_client, play, rows,
                               submit, text)
from tests.web_helpers import app, game, host, phone  # noqa: F401 (fixtures)

BG_STATS = re.compile(r'href="https://app\.bgstatsapp\.com/createPlay\.html\?data=([^"]+)"')
# The example records: their players in seating order, first start player, winners and
# points (their .expected.json, R10).
EXAMPLES = {number: (json.loads((FIXTURES / f"full-game-{number}.json").read_text()),
                     json.loads((FIXTURES / f"full-game-{number}.expected.json").read_text()))
            for number in (1, 2, 3)}


def imported(client, number: int) -> str:
    response = import_record(client, (FIXTURES / f"full-game-{number}.json").read_bytes())
    assert response.status_code == 303, alerts(response)
    return response.headers["Location"].rsplit("/", 1)[1]


@pytest.fixture
def three(host) -> list[str]:
    """The three finished example games, imported by the host: their tokens."""
    return [imported(host, number) for number in (1, 2, 3)]


def bg_stats_play(page) -> dict:
    """The play the page's "Log this play in BG Stats" link carries."""
    return json.loads(unquote(BG_STATS.search(body(page))[1]))


def standings_rows(page) -> dict[str, list[str]]:
    """The rows of the page's first standings table by player: games, wins, average
    points, best score, average place."""
    table = re.search(r'<table class="score standings">.*?</table>', body(page), re.S)[0]
    return {cells[0]: cells[1:] for cells in rows(table)[1:]}


# --- the play logged in BG Stats -----------------------------------------------------

def test_the_score_page_logs_the_play_in_bg_stats_with_its_players_scores_and_winners(host, three):
    """BG Stats' documented create-play link: a play as URL-encoded JSON."""
    ids, plays = set(), []
    for number, token in zip((1, 2, 3), three):
        record, expected = EXAMPLES[number]
        play = bg_stats_play(host.get(f"/g/{token}/score"))
        assert [(player["name"], player["score"], player["winner"], player["startPlayer"])
                for player in play["players"]] == [
            (player["name"], player["points"], player["name"] in expected["winners"],
             player["name"] == record["start_player"]) for player in expected["players"]]
        assert [player["rank"] for player in play["players"]] == [
            1 + sum(other["points"] > player["points"] for other in expected["players"])
            for player in expected["players"]]
        assert play["game"]["name"] == "Templari" and play["sourceName"] == "Templari Companion"
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", play["playDate"])
        assert "durationMin" not in play  # the whole game came in a record
        ids.add(play["sourcePlayId"])
        plays.append(json.dumps(play))
        assert bg_stats_play(host.get(f"/g/{token}/score")) == play  # logged twice: the same id
    assert len(ids) == 3  # each play its id, which does not give its game's token away
    assert not any(token in logged for token in three for logged in plays)


def test_a_game_played_at_the_table_is_logged_with_its_duration_on_every_phone(host, game, phone):
    join(phone, game, "Bert")
    play(host, game, GAME)
    logged = bg_stats_play(phone.get(f"/g/{game}/me"))
    assert logged == bg_stats_play(host.get(f"/g/{game}/score"))
    assert logged["durationMin"] >= 1
    assert [player["startPlayer"] for player in logged["players"]] == [True, False, False]
    assert "Share the result" in text(phone.get(f"/g/{game}/me"))


# --- rematch -----------------------------------------------------------------------

def test_the_rematch_opens_a_new_game_with_the_same_players_and_no_events(app, host, three):
    """Full game 2: Bert, Anna, Claus with Claus the first start player: Bert (the next one
    clockwise) starts the rematch, with the same rules (English) and settings."""
    token = three[1]
    rematch = find_form(host.get(f"/g/{token}/score"), "rematch")
    assert rematch.fields["start"] == ["0"]
    response = submit(host, f"/g/{token}/score", "rematch")
    assert response.status_code == 303
    after = response.headers["Location"].rsplit("/", 1)[1]
    stored = app.config["STORE"].game(after)
    assert stored.events == [] and stored.header["players"] == ["Bert", "Anna", "Claus"]
    assert (stored.header["start_player"], stored.header["edition"]) == ("Bert", "en")
    assert "Round 1 of 15" in text(host.get(f"/g/{after}"))
    page = host.get(f"/g/{token}/score")  # a second tap, another host: the same next game
    assert f'href="/g/{after}"' in body(page) and 'class="rematch"' not in body(page).replace(
        '<section class="rematch"', "")
    again = host.post(f"/g/{token}/rematch", data={"start": "2"},
                      headers=page_headers(page))
    assert again.headers["Location"] == f"/g/{after}"


def test_the_rematch_s_first_start_player_is_chosen_on_the_form(app, host, three):
    response = submit(host, f"/g/{three[0]}/score", "rematch", start="2")
    after = response.headers["Location"].rsplit("/", 1)[1]
    assert app.config["STORE"].game(after).header["start_player"] == "Anna"


def test_a_game_not_over_has_no_rematch(host, game, phone):
    assert "rematch" not in body(host.get(f"/g/{game}/score"))
    refused = host.post(f"/g/{game}/rematch", headers=page_headers(host.get("/")))
    assert refused.status_code == 409
    assert "The game is not over yet: the table plays again once round 15 has settled (R2)." \
        in text(refused)
    join(phone, game, "Anna")
    assert phone.post(f"/g/{game}/rematch", headers=page_headers(phone.get(f"/g/{game}/me"))
                      ).status_code == 403


def test_each_phone_joins_the_next_game_in_one_tap_keeping_its_player(app, host, three):
    token = three[0]  # Bert, Claus, Anna
    anna, bert = phone_client(app), phone_client(app, "192.168.1.21")
    join(anna, token, "Anna", ("Bert", "Claus", "Anna"))
    join(bert, token, "Bert", ("Bert", "Claus", "Anna"))
    assert "Join the next game" not in text(anna.get(f"/g/{token}/me"))
    after = submit(host, f"/g/{token}/score", "rematch").headers["Location"].rsplit("/", 1)[1]
    assert "Join the next game as Anna" in text(anna.get(f"/g/{token}/me/live"))
    joined = submit(anna, f"/g/{token}/me", "next-game")
    assert joined.headers["Location"] == f"/g/{after}/me"
    assert "<h1>Anna</h1>" in body(anna.get(f"/g/{after}/me"))
    app.config["STORE"].claim_seat(after, 0)  # Bert's seat taken by another phone first
    assert submit(bert, f"/g/{token}/me", "next-game").headers["Location"] == f"/g/{after}/join"


# --- players remembered ------------------------------------------------------------

def test_the_new_game_form_offers_the_names_played_before_and_the_last_players(host, three):
    page = host.get("/")
    assert re.findall(r'name="pick" value="([^"]+)"', body(page)) == [
        "Claus", "李", "Eva", "Bert", "Anna"]  # the latest game's first
    assert "The same players as last time: Claus, 李, Eva" in text(page)
    same = find_form(host.get("/?same=1"), "new-game")
    assert same.fields["player"] == ["Claus", "李", "Eva", "", ""]
    assert same.fields["start"] == ["2"]  # after 李, the last game's first start player


def test_a_tap_on_a_name_seats_it_in_the_first_empty_seat_and_a_second_tap_frees_it(host, three):
    form = find_form(host.get("/"), "new-game")
    headers = {**page_headers(host.get("/")), "HX-Request": "true"}
    sent = {**form.fields, "player": ["Eva", "", "Bert", "", ""], "start": "2"}
    seated = host.post("/new/players", data={**sent, "pick": "Anna"}, headers=headers)
    assert find_form(f'<form action="x">{body(seated)}</form>', "x").fields["player"] == [
        "Eva", "Anna", "Bert", "", ""]
    assert 'value="Anna"\n        aria-pressed="true"' in body(seated)
    freed = host.post("/new/players", data={**sent, "pick": "Eva"}, headers=headers)
    fields = find_form(f'<form action="x">{body(freed)}</form>', "x").fields
    assert (fields["player"], fields["start"]) == (["", "", "Bert", "", ""], ["2"])


# --- standings and exports ----------------------------------------------------------

def test_the_standings_show_each_player_s_games_next_to_the_name(host, three):
    home = host.get("/")
    assert 'href="/standings"' in body(home)
    page = host.get("/standings")
    assert standings_rows(page) == {
        "Anna": ["2", "2", "24.5", "29", "1.0"], "李": ["1", "1", "27.0", "27", "1.0"],
        "Bert": ["2", "0", "18.0", "19", "2.0"], "Claus": ["3", "0", "9.0", "11", "2.7"],
        "Eva": ["1", "0", "9.0", "9", "3.0"]}
    assert "3 games finished." in text(page)


def test_tonight_is_the_games_finished_within_the_last_12_hours(app, host, three):
    long_ago = time.time() - 13 * 3600
    hand_edit(app, "UPDATE events SET at = ? WHERE game_id = (SELECT id FROM games WHERE "
                   "token = ?)", long_ago, three[0])
    page = body(host.get("/standings"))
    tonight, all_games = re.findall(r'<table class="score standings">.*?</table>', page, re.S)
    assert standings_rows(tonight)["Anna"][:2] == ["1", "1"]
    assert standings_rows(all_games)["Anna"][:2] == ["2", "2"]


def test_a_player_s_phone_shows_their_own_line_on_the_final_screen(app, host, three, phone):
    join(phone, three[1], "Anna", ("Bert", "Anna", "Claus"))
    assert 'hx-get="/g/{}/me/standing"'.format(three[1]) in body(phone.get(f"/g/{three[1]}/me"))
    line = phone.get(f"/g/{three[1]}/me/standing")
    # a phone counts the games it sat in: here, one
    assert "Your standings, Anna" in text(line)
    assert standings_rows(line) == {"All games": ["1", "1", "20.0", "20", "1.0"],
                                    "Tonight": ["1", "1", "20.0", "20", "1.0"]}
    assert phone.get(f"/g/{three[0]}/me/standing").status_code == 403  # no seat there


def test_the_csv_has_a_row_per_player_per_finished_game(host, three, game):
    response = host.get("/standings.csv")
    assert response.mimetype == "text/csv" and "attachment" in response.headers[
        "Content-Disposition"]
    table = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert table[0] == ["date", "game", "player", "seat", "points", "coins", "place", "winner"]
    expected = [[player["name"], str(seat + 1), str(player["points"]), str(player["coins"])]
                for number in (1, 2, 3)
                for seat, player in enumerate(EXAMPLES[number][1]["players"])]
    assert [row[2:6] for row in table[1:]] == expected  # the game not over has none
    assert [row[7] for row in table[1:4]] == ["no", "no", "yes"]
    assert len({row[1] for row in table[1:]}) == 3
    assert 'href="/standings.csv"' in body(host.get("/standings"))


def test_a_name_a_spreadsheet_would_run_is_written_as_text(host):
    new_game(host, players=("=SUM(A1)", "Bert", "Claus"))
    token = new_game(host, players=("=SUM(A1)", "Bert", "Claus"))
    play(host, token, GAME)
    rows_ = list(csv.reader(io.StringIO(host.get("/standings.csv").get_data(as_text=True))))
    assert rows_[1][2] == "'=SUM(A1)"


def test_the_standings_speak_french(host, three):
    host.set_cookie("lang", "fr")
    page = host.get("/standings")
    assert "Classement" in text(page) and standings_rows(page)["Anna"][2] == "24,5"


# --- privacy on a hosted server -------------------------------------------------------

def test_on_a_hosted_server_a_device_sees_only_the_games_it_hosts_or_sat_in(tmp_path):
    app = make_app(tmp_path / "hosted", hosted=True)
    maker, stranger = phone_client(app, "203.0.113.5"), phone_client(app, "198.51.100.7")
    tokens = [imported(maker, number) for number in (1, 2)]
    assert set(standings_rows(maker.get("/standings"))) == {"Anna", "Bert", "Claus"}
    assert "No game has finished yet." in text(stranger.get("/standings"))
    assert stranger.get("/standings.csv").get_data(as_text=True).count("\n") == 1
    assert 'name="pick"' not in body(stranger.get("/"))
    join(stranger, tokens[1], "Claus", ("Bert", "Anna", "Claus"))
    assert standings_rows(stranger.get("/standings"))["Claus"][0] == "1"
    assert re.findall(r'name="pick" value="([^"]+)"', body(stranger.get("/"))) == [
        "Bert", "Anna", "Claus"]
    assert len(stranger.get("/standings.csv").get_data(as_text=True).splitlines()) == 4
    assert stranger.post(f"/g/{tokens[1]}/rematch", headers=page_headers(
        stranger.get("/"))).status_code == 403  # a seat is no host's right
    after = submit(maker, f"/g/{tokens[1]}/score", "rematch").headers["Location"]
    assert maker.get(after).status_code == 200 and f'href="{after}"' in body(maker.get("/"))
