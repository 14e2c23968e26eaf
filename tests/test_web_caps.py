"""What one game may hold, so that a spamming phone cannot slow the server: a change past
it is refused in words and writes nothing, an import past it too; the history is shown a
page of rounds and of undos and corrections at a time. The caps are lowered in the tests
(a real game may hold 2,000 actions), so that a few actions reach them."""
import re

import pytest

from companion.rules.events import Free, Penalty, Sold
from companion.store import games
from companion.web.render import history as history_module
from tests.helpers import all_rounds_free, reveal
from tests.web_helpers import (GAME, act, alerts, import_record, imported, join, play,
                               record_of, snapshot, stored, submit, text, undo)
from tests.web_helpers import app, game, host, phone  # noqa: F401 (fixtures)

FULL = ("This game already holds 3 actions, and one game may hold at most 3: no game of "
        "Templari needs so many, so look in the history for actions recorded by mistake.")
JOURNAL_FULL = ("This game's history already keeps 2 undos and corrections, and one game may "
                "keep at most 2: nothing more can be undone or corrected in it.")


def history(client, token, query="") -> str:
    return text(client.get(f"/g/{token}/history{query}"))


def headings(page: str) -> list[str]:
    return re.findall(r"Round \d+", page)


# --- the cap on actions --------------------------------------------------------------

@pytest.fixture
def full(monkeypatch, app, host, game):
    """A game holding the most a game may hold (lowered to 3 actions)."""
    monkeypatch.setattr(games, "MAX_EVENTS", 3)
    play(host, game, GAME[:3])  # reveal, sale, side sale
    return game


def test_an_action_past_the_most_a_game_may_hold_is_refused_and_nothing_written(app, host,
                                                                                  full):
    before = stored(app, full)
    response = act(host, full, *GAME[3])
    assert response.status_code == 422
    assert FULL in alerts(response)
    assert stored(app, full) == before


def test_a_seated_phone_is_refused_the_same_way(app, phone, full):
    join(phone, full, "Bert")
    before = stored(app, full)
    response = act(phone, full, *GAME[3])
    assert response.status_code == 422 and FULL in alerts(response)
    assert stored(app, full) == before


def test_a_full_game_can_still_be_undone_and_corrected(app, host, full):
    assert undo(host, full).status_code == 303
    assert len(stored(app, full)[1]) == 2
    play(host, full, [GAME[2]])  # the side sale again: the game is full once more
    response = submit(host, f"/g/{full}/history/1", "action-sold", winner="0", price="2")
    assert response.status_code == 303, alerts(response)


def test_an_import_past_the_most_a_game_may_hold_is_refused(monkeypatch, app, host):
    monkeypatch.setattr(games, "MAX_EVENTS", 3)
    response = import_record(host, record_of(reveal("red 0 yellow 5"), Sold("Anna", 3),
                                             reveal("red 1 yellow 6"), Free()))
    assert response.status_code == 422
    assert "The record holds 4 actions, and one game may hold at most 3." in alerts(response)
    assert snapshot(app) == []
    imported(host, reveal("red 0 yellow 5"), Sold("Anna", 3), reveal("red 1 yellow 6"))


# --- the cap on the journal ----------------------------------------------------------

def test_undos_and_corrections_past_the_most_a_game_may_keep_are_refused(monkeypatch, app,
                                                                         host, game):
    monkeypatch.setattr(games, "MAX_JOURNAL", 2)
    play(host, game, GAME[:2] + [("undo",), GAME[1], ("undo",), GAME[1]])
    before = stored(app, game)
    refused = [undo(host, game),
               submit(host, f"/g/{game}/history/1", "action-sold", winner="0", price="2")]
    for response in refused:
        assert response.status_code == 422
        assert JOURNAL_FULL in alerts(response)
    assert stored(app, game) == before
    assert len(app.config["STORE"].game(game).journal) == 2


def test_the_hosts_settings_are_noted_even_with_a_full_journal(monkeypatch, app, host, game):
    """Turning off recording from phones is how the host stops a spamming phone."""
    monkeypatch.setattr(games, "MAX_JOURNAL", 1)
    play(host, game, GAME[:2] + [("undo",)])
    assert submit(host, f"/g/{game}/settings", "settings",
                  phones_record=None).status_code == 303
    assert "the host's device turned off recording from phones" in history(host, game)


# --- the history, a page at a time -----------------------------------------------------

def test_the_history_shows_the_latest_rounds_with_a_link_to_earlier_ones(host):
    token = imported(host, *all_rounds_free())
    page = host.get(f"/g/{token}/history")
    assert headings(text(page)) == [f"Round {number}" for number in range(11, 16)]
    assert "Later rounds" not in text(page)
    earlier = host.get(_link(page, "Earlier rounds"))
    assert headings(text(earlier)) == [f"Round {number}" for number in range(6, 11)]
    first = host.get(_link(earlier, "Earlier rounds"))
    assert headings(text(first)) == [f"Round {number}" for number in range(1, 6)]
    assert "Earlier rounds" not in text(first)
    assert headings(text(host.get(_link(first, "Later rounds")))) == headings(text(earlier))


def _link(page, words: str) -> str:
    """The address of the link that says `words`."""
    found = re.search(rf'<a href="([^"]+)">{words}</a>', page.get_data(as_text=True))
    assert found, f"no link {words!r}"
    return found[1].replace("&amp;", "&")


@pytest.mark.parametrize("asked, shown", [
    ("0", 11), ("-1", 11), ("abc", 11), ("", 11), ("%00", 11), ("1e9", 11), ("9" * 40, 11),
    ("2", 6), ("3", 1), ("4", 1), ("999999", 1)])
def test_a_page_number_out_of_range_shows_the_first_or_the_last_page(host, asked, shown):
    token = imported(host, *all_rounds_free())
    page = history(host, token, f"?page={asked}&journal={asked}")
    assert headings(page)[0] == f"Round {shown}"


def test_a_round_longer_than_a_page_is_cut_across_pages(monkeypatch, host):
    monkeypatch.setattr(history_module, "ACTIONS_PER_PAGE", 4)
    token = imported(host, reveal("red 0 yellow 5"), Sold("Anna", 3),
                     reveal("red 1 yellow 6"), *[Penalty("Anna")] * 7, Free())
    latest = history(host, token)
    assert headings(latest) == ["Round 2"]
    assert latest.count("Anna made a forbidden bid") == 3 and "Nobody bid" in latest
    assert "Revealed" not in latest
    first = history(host, token, "?page=3")
    assert headings(first) == ["Round 1", "Round 2"]
    assert "red 1 and ★ yellow 6" in first and "forbidden bid" not in first


def test_the_journal_shows_the_latest_undos_with_a_link_to_earlier_ones(monkeypatch, host,
                                                                         game):
    monkeypatch.setattr(history_module, "ENTRIES_PER_PAGE", 2)
    play(host, game, [GAME[0], ("undo",), ("reveal", "red 1", "yellow 6"), ("undo",),
                      ("reveal", "red 2", "yellow 7"), ("undo",)])
    page = host.get(f"/g/{game}/history")
    assert re.findall(r"undid Revealed \W*(red \d)", text(page)) == ["red 2", "red 1"]
    assert "Later undos and corrections" not in text(page)
    earlier = host.get(_link(page, "Earlier undos and corrections"))
    assert re.findall(r"undid Revealed \W*(red \d)", text(earlier)) == ["red 0"]
    assert "Later undos and corrections" in text(earlier)
