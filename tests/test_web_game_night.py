"""Game night (issue 12) over HTTP: phones to the very end of the game, the TV view."""
import re

from companion.store import games
from tests.web_helpers import (GAME, PLAYERS, act, forms, join, new_game, phone_client, play,
                               submit, text)
from tests.web_helpers import app, game, host  # noqa: F401 (fixtures)


def test_every_phone_shows_the_game_is_over_with_its_place_and_points(app, host, game):
    phones = {}
    for name in PLAYERS:
        phones[name] = phone_client(app, f"192.168.1.{20 + len(phones)}")
        join(phones[name], game, name)
    play(host, game, GAME)
    score = games.load(app.config["STORE"], game).state.score()
    places = {player.name: (score.place(player.name), player.points) for player in score.players}
    assert sorted(place for place, _ in places.values()) == [1, 2, 3]
    for name, phone in phones.items():
        page = phone.get(f"/g/{game}/me")
        words = text(page)
        place, points = places[name]
        expected = (f"You won, with {points} points." if place == 1
                    else f"Place {place} of 3, with {points} points.")
        assert "The game is over" in words and expected in words, (name, words)
        assert "Highest bid you can make" not in words and "You cannot bid" not in words
        assert f'href="/g/{game}/score"' in page.text
        live = phone.get(f"/g/{game}/me/live")
        assert expected in text(live) and "action-bid" not in live.text


def test_the_tv_view_shows_the_table_in_public_with_no_form(app, host, game):
    play(host, game, GAME[:4])  # a sale, a side sale, the next lot on the table
    viewer = phone_client(app)  # any device with the link: nothing on it records
    page = viewer.get(f"/g/{game}/tv")
    words = text(page)
    assert page.status_code == 200 and forms(page) == []
    assert "Round 2 of 15 · Start player Anna · Pot 1" in words
    assert "Lot:" in words and "Anna pays 3" in words
    assert ("Bert ♦ 0 red Cannot bid amounts ending in 0 Claus no cards May bid any amount"
            in words)
    assert "Game code:" in words and 'src="/g/' not in page.text  # no LAN address: no QR
    assert f'href="/g/{game}/tv"' in host.get(f"/g/{game}").text  # linked from the table


def test_the_tv_view_follows_changes(app, host, game):
    page = host.get(f"/g/{game}/tv")
    poll = re.search(r'hx-get="([^"]*/tv/live[^"]*)"', page.text).group(1).replace("&amp;", "&")
    assert host.get(poll).status_code == 204  # nothing new
    play(host, game, GAME[:1])
    fresh = host.get(poll)
    assert fresh.status_code == 200 and "Lot:" in text(fresh)


def test_the_join_page_follows_seats_and_says_to_ask_the_host_when_all_are_taken(app, host, game):
    phone = phone_client(app)
    page = phone.get(f"/g/{game}/join")
    poll = re.search(r'hx-get="([^"]*/join/seats[^"]*)"', page.text).group(1).replace("&amp;", "&")
    assert phone.get(poll).status_code == 204  # no seat taken or freed since
    for number, name in enumerate(PLAYERS):
        join(phone_client(app, f"192.168.1.{30 + number}"), game, name)
    fresh = phone.get(poll)
    assert fresh.status_code == 200 and "Anna (taken)" in text(fresh)
    assert "All seats are taken. If one of them is yours, ask the host to free it" in text(fresh)
    submit(host, f"/g/{game}", f"/g/{game}/seats/0/free")
    freed = text(phone.get(poll))
    assert "Anna (taken)" not in freed and "All seats are taken" not in freed


def test_the_host_list_tells_games_apart_and_removes_one_after_asking(app, host, game):
    other = new_game(host, players=("Dora", "Emil", "Fritz"), live="on", edition="fr")
    play(host, game, GAME)
    home = text(host.get("/"))
    winners = ", ".join(games.load(app.config["STORE"], game).state.score().winners)
    assert re.search(r"Anna, Bert, Claus Started \w{3} \d{1,2} \w{3}, \d\d:\d\d · "
                     rf"Winner: {winners} · English rules · Results typed in · "
                     r"Remove the game of Anna, Bert, Claus", home), home
    assert "Dora, Emil, Fritz Started" in home and "Round 1 of 15 · French rules · Live auction" in home
    confirm = host.get(f"/g/{other}/confirm/delete")
    assert "Remove this game?" in text(confirm)
    assert submit(host, f"/g/{other}/confirm/delete", "confirm-delete").status_code == 303
    assert "Dora" not in text(host.get("/")) and host.get(f"/g/{other}").status_code == 404


def test_an_export_is_named_from_its_date_and_players(app, host):
    token = new_game(host, players=("Zoé", "Bert", "Jean Luc"))
    response = host.get(f"/g/{token}/record.json")
    disposition = response.headers["Content-Disposition"]
    assert re.fullmatch(r"attachment; filename=templari-\d{4}-\d\d-\d\d-\d{4}-Zoe-Bert-JeanLuc"
                        r"\.json; filename\*=UTF-8''templari-[\d-]+-Zo%C3%A9-Bert-JeanLuc\.json",
                        disposition), disposition


def live(host, token, *amounts) -> None:
    """Bids recorded on the table in turn: an amount, or None for a drop-out."""
    for amount in amounts:
        response = (act(host, token, "pass") if amount is None
                    else act(host, token, "bid", amount=amount))
        assert response.status_code == 303


def test_R9_a_french_start_player_holding_a_0_is_told_to_open_at_their_lowest_legal_bid(app, host):
    token = new_game(host, live="on", edition="fr")
    play(host, token, [("reveal", "red 0", "yellow 5")])
    live(host, token, "0", None, None)  # Anna opens at 0, nobody raises: a free lot
    assert "Anna opened at 0 and nobody raised: the lot goes free (R9)" in text(
        host.get(f"/g/{token}/history"))
    anna = phone_client(app)
    join(anna, token, "Anna")  # she holds the red 0 now, and starts round 2 (R9)
    play(host, token, [("reveal", "red 1", "yellow 6")])
    page = text(anna.get(f"/g/{token}/me"))
    assert "Your turn: you open the bidding (R9)." in page
    assert "Your bid (at least 1)" in page and "at least 0" not in page
    assert "Drop out" not in page
    assert "French rules: the start player opens the bidding and may not drop out (R9)." in page


def test_R3_the_lowest_bid_offered_skips_the_endings_the_bidder_holds(host):
    token = new_game(host, live="on")
    play(host, token, [("reveal", "red 2", "yellow 5")])
    live(host, token, "0", None, None)  # Anna buys red 2 and yellow 5 at 0
    play(host, token, [("reveal", "red 3", "yellow 6")])
    assert "Bid of Anna (at least 0)" in text(host.get(f"/g/{token}"))
    live(host, token, "0", "1", None)  # Anna 0, Bert 1, Claus drops out
    assert "Bid of Anna (at least 3)" in text(host.get(f"/g/{token}"))  # she holds a 2 (R3)


def test_french_elides_before_a_name_that_starts_with_a_vowel(app, host, game):
    """'la place d'Anna', never 'de Anna'; 'de Bert' stays."""
    for name, address in (("Anna", "192.168.1.40"), ("Bert", "192.168.1.41")):
        join(phone_client(app, address), game, name)
    host.set_cookie("lang", "fr")
    page = text(host.get(f"/g/{game}"))
    assert "Libérer la place d'Anna" in page and "Libérer la place de Bert" in page
    assert "de Anna" not in page
