"""The host's list of games: a page at a time, the newest first, each game shown from the
summary kept with it, which follows every change to the game (an action, the end of the
game, a setting, a hand edit of the database) and shows even when the disk refuses to
keep it."""
import json
import re

import pytest

from companion.rules.record import FORMAT
from companion.store import games
from companion.store.sql import StorageFault
from companion.store.sqlite import READ_ONLY
from tests.web_helpers import GAME, PLAYERS, body, hand_edit, play, refuse_writes, text
from tests.web_helpers import app, game, host  # noqa: F401 (fixtures)


def made(app, count: int) -> list[str]:
    """`count` new games, each with a player of its own ("Anna 1", ...): their tokens, the
    oldest first."""
    return [games.create(app.config["STORE"], {
        "format": FORMAT, "edition": "en", "players": [f"Anna {number}", "Bert", "Claus"],
        "events": []}, games.Options()) for number in range(1, count + 1)]


def listed(page) -> dict[str, str]:
    """Each game of the list in order: its token, and what its item says."""
    found = re.search(r'<ul class="games">(.*?)</ul>', body(page), re.S)
    items = re.findall(r"<li\b.*?</li>", found.group(1) if found else "", re.S)
    return {re.search(r'href="/g/([\w-]+)', item).group(1): text(item) for item in items}


def page_links(page) -> list[tuple[str, str]]:
    """The links to other pages of the list: (address, words) each."""
    return re.findall(r'<p class="pages"><a href="([^"]*)">([^<]*)</a>', body(page))


def kept(app, token) -> bool:
    """Whether the summary kept with the game is the one of the game as it is."""
    return hand_edit(app, "SELECT summary_stamp = stamp FROM games WHERE token = ?",
                     token)[0][0] in (1, True)


def test_45_games_take_3_pages_the_newest_first_each_game_once(app, host):
    tokens = made(app, 45)
    pages = [host.get(f"/?page={number}") for number in (1, 2, 3)]
    shown = [list(listed(page)) for page in pages]
    assert [len(games_shown) for games_shown in shown] == [20, 20, 5]
    assert [token for games_shown in shown for token in games_shown] == tokens[::-1]
    assert "Anna 45, Bert, Claus" in listed(pages[0])[tokens[-1]]
    assert [page_links(page) for page in pages] == [
        [("/?page=2", "Older games")],
        [("/?page=1", "Newer games"), ("/?page=3", "Older games")],
        [("/?page=2", "Newer games")]]


@pytest.mark.parametrize(("asked", "shown"), [("", 1), ("?page=0", 1), ("?page=abc", 1),
                                              ("?page=99", 3)])
def test_a_page_out_of_range_shows_the_nearest(app, host, asked, shown):
    tokens = made(app, 45)[::-1]
    assert list(listed(host.get(f"/{asked}"))) == tokens[(shown - 1) * 20:shown * 20]


def test_one_page_has_no_links_to_others_and_no_game_says_so(app, host):
    assert "No games yet." in text(host.get("/")) and not page_links(host.get("/"))
    made(app, 20)
    assert len(listed(host.get("/"))) == 20 and not page_links(host.get("/"))


def test_a_kept_summary_is_shown_without_reading_the_game(app, host, monkeypatch):
    tokens = made(app, 3)
    first = host.get("/")
    assert all(kept(app, token) for token in tokens)
    monkeypatch.setattr(app.config["STORE"], "game",
                        lambda token: pytest.fail(f"game {token} read again"))
    assert listed(host.get("/")) == listed(first)


def test_the_list_follows_the_table_to_the_end_of_the_game(app, host, game):
    assert "Round 1 of 15 · English rules · Results typed in" in listed(host.get("/"))[game]
    play(host, game, GAME[:2])
    assert "Round 2 of 15" in listed(host.get("/"))[game] and kept(app, game)
    play(host, game, GAME[2:])
    winners = games.load(app.config["STORE"], game).state.score().winners
    assert len(winners) == 1
    assert f"Winner: {winners[0]} · English rules" in listed(host.get("/"))[game]


def test_the_list_follows_a_setting(app, host, game):
    assert "Results typed in" in listed(host.get("/"))[game]
    store = app.config["STORE"]
    games.set_options(store, games.load(store, game), "host", live_auction=True)
    assert "Live auction" in listed(host.get("/"))[game]


def test_the_list_follows_a_hand_edit_of_the_database(app, host, game):
    play(host, game, GAME[:2])
    assert "English rules" in listed(host.get("/"))[game]
    header = {**app.config["STORE"].game(game).header, "edition": "fr"}
    hand_edit(app, "UPDATE games SET header = ? WHERE token = ?", json.dumps(header), game)
    assert "French rules" in listed(host.get("/"))[game]

    sold = '{"type": "sold", "winner": "Anna", "price": %d}'
    edit = "UPDATE events SET data = ? WHERE seq = 1"
    hand_edit(app, edit, sold % 999)
    assert "This game's log no longer replays: action 2:" in listed(host.get("/"))[game]
    hand_edit(app, edit, sold % 3)  # and mended
    assert "Round 2 of 15" in listed(host.get("/"))[game]


def refused_price(event: dict) -> dict:
    return {**event, "price": 999}


def seen_twice(event: dict) -> dict:
    return {"type": "reveal", "cards": [{"family": "red", "number": 0}] * 2}


def unknown_key(event: dict) -> dict:
    return {**event, "tip": 1}


def wrong_type(event: dict) -> dict:
    return {**event, "price": [1, "two"]}


@pytest.mark.parametrize("edit", [refused_price, seen_twice, unknown_key, wrong_type])
@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_damaged_game_is_listed_with_what_its_page_says_in_every_language(app, host, game,
                                                                           edit, language):
    """Why a game's log no longer replays, in the words of the game's page (read again each
    time: nothing about a damaged game is kept)."""
    play(host, game, GAME[:2])
    index = 0 if edit is seen_twice else 1
    event = app.config["STORE"].game(game).events[index]
    hand_edit(app, "UPDATE events SET data = ? WHERE seq = ?", json.dumps(edit(event)), index)
    host.set_cookie("lang", language)
    item = listed(host.get("/"))[game]
    assert not kept(app, game) and listed(host.get("/"))[game] == item
    reason = re.fullmatch(r".*?: (action \d+ ?: .*)\. Export.*", item).group(1)
    assert reason in text(host.get(f"/g/{game}"))


def test_the_list_shows_when_the_disk_refuses_to_keep_a_summary(app, host, game,
                                                                 monkeypatch):
    play(host, game, GAME[:2])
    store = app.config["STORE"]

    def refused(summaries):
        raise StorageFault(READ_ONLY)
    monkeypatch.setattr(store, "keep_summaries", refused)
    assert "Round 2 of 15" in listed(host.get("/"))[game] and not kept(app, game)
    monkeypatch.undo()
    assert "Round 2 of 15" in listed(host.get("/"))[game] and kept(app, game)


def test_the_list_shows_on_a_database_that_refuses_writes(app, host, game, monkeypatch):
    """The database itself refuses the write (SQLite's query_only, as a full or read-only
    disk would)."""
    play(host, game, GAME[:2])
    refuse_writes(monkeypatch, app.config["STORE"])
    page = host.get("/")
    assert page.status_code == 200 and not kept(app, game)
    assert f"{', '.join(PLAYERS)} Started" in listed(page)[game]
