"""What is still to come (issue 14): the cards not yet seen, checked against the example
records after every event of each, and as the table and a phone show them (R1, R2, R10)."""
import json
import re
from collections import Counter

import pytest

from companion.rules.cards import FAMILY_SIZE, LOT_SIZE, NUMBER_COPIES, NUMBERS, ROUNDS
from companion.rules.events import Reveal
from companion.rules.record import load_setup, parse_event
from companion.rules.state import fold_all
from companion.rules.unseen import unseen, worth

from tests.helpers import FIXTURES, RECORDS, card
from tests.web_helpers import body, import_record, join, phone_client, text
from tests.web_helpers import app, host  # noqa: F401 (fixtures)

EACH_RECORD = pytest.mark.parametrize("path", RECORDS, ids=lambda path: path.stem)
GAME_1 = FIXTURES / "full-game-1.json"
# full-game-1's events 0-19: the reveals of rounds 1 to 6, the lot of round 6 on the table.
ROUND_6 = 20


def replayed(path, count=None):
    """The setup, events and states (before each event and after the last) of a record,
    or of its first `count` events."""
    record = json.loads(path.read_text(encoding="utf-8"))
    setup = load_setup({**record, "events": []})
    events = [parse_event(event) for event in record["events"]][:count]
    return setup, events, fold_all(setup, events)


@EACH_RECORD
def test_after_every_event_unseen_and_seen_cards_make_the_deck(path):
    setup, events, states = replayed(path)
    revealed = [card for event in events if isinstance(event, Reveal) for card in event.cards]
    for index, state in enumerate(states):
        shown = sum(len(event.cards) for event in events[:index] if isinstance(event, Reveal))
        seen, to_come = set(revealed[:shown]), revealed[shown:]
        still = unseen(state)
        families = Counter(card.family for card in seen)
        numbers = Counter(card.number for card in seen)
        assert all(still.families[family] + families[family] == FAMILY_SIZE
                   for family in setup.families)
        assert all(still.numbers[number] + numbers[number] == NUMBER_COPIES for number in NUMBERS)
        assert still.count + len(seen) == len(setup.families) * FAMILY_SIZE
        assert still.count == LOT_SIZE * still.rounds_left
        assert still.rounds_left == ROUNDS - sum(isinstance(event, Reveal)
                                                 for event in events[:index])
        assert not seen & set(still.possible)  # no card both seen and still to come
        assert set(to_come) <= set(still.possible)  # every card the record shows later
    assert (unseen(states[-1]).count == 0) == states[-1].finished


def test_the_counts_are_those_of_the_record_read_by_hand():
    # Rounds 1-6 revealed blue 3 red 6, black 2 green 0, red 5 purple 6, blue 0 yellow 4,
    # purple 7 red 2, green 4 black 3: 12 cards seen, 18 to come in rounds 7 to 15.
    _, _, states = replayed(GAME_1, ROUND_6)
    still = unseen(states[-1])
    assert still.rounds_left == 9 and still.count == 18
    assert still.families == {"red": 2, "yellow": 4, "green": 3, "blue": 3, "purple": 3,
                              "black": 3}
    assert list(still.numbers.values()) == [1, 3, 1, 1, 1, 2, 1, 2, 3, 3]
    # Red showed 2, 5 and 6; no number has all 3 of its cards out yet.
    assert still.numbers_in("red") == (0, 1, 3, 4, 7, 8, 9)


def test_a_card_is_worth_what_it_adds_to_the_player_s_sets():
    # Anna holds black 2, green 0, purple 6 (round 2 and 3's lots, red 5 discarded), red 6
    # and yellow 4 (side sales): one card of five families, none blue. A blue card would
    # make her a first blue (1 point); any other a pair (1 -> 3 points: 2 more).
    _, _, states = replayed(GAME_1, ROUND_6)
    state = states[-1]
    assert sorted(state.hand_of("Anna")) == sorted(
        card(words) for words in ("black 2", "green 0", "purple 6", "red 6", "yellow 4"))
    assert worth(state, "Anna", unseen(state)) == {
        "red": 2, "yellow": 2, "green": 2, "blue": 1, "purple": 2, "black": 2}


def imported(host, count=None) -> str:
    """full-game-1 (or its first `count` events) imported by the host: its token."""
    record = json.loads(GAME_1.read_text(encoding="utf-8"))
    record["events"] = record["events"][:count]
    response = import_record(host, json.dumps(record).encode())
    assert response.status_code == 303
    return response.headers["Location"].rsplit("/", 1)[1]


def family_rows(page) -> list[list[str]]:
    """The rows of the families still to come, as text: family, to come, numbers(, points)."""
    grid = re.search(r'<table class="unseen-grid">(.*?)</table>', body(page), re.S).group(1)
    return [[text(cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
            for row in re.findall(r'<tr class="fam-\d[^"]*">(.*?)</tr>', grid, re.S)]


def test_the_table_shows_what_is_still_to_come(app, host):
    token = imported(host, ROUND_6)
    page = host.get(f"/g/{token}")
    assert "Still to come: 18 cards in 9 rounds" in text(page)
    assert family_rows(page)[0] == ["♦ red", "2", "0 1 3 4 7 8 9"]
    assert "Number 0 1 2 3 4 5 6 7 8 9 To come 1 3 1 1 1 2 1 2 3 3" in text(page)
    assert "Points a card adds for you" not in text(page)  # the table's screen is public
    tv = host.get(f"/g/{token}/tv")
    assert "Still to come: 18 cards in 9 rounds" in text(tv)


def test_a_phone_shows_what_each_family_to_come_is_worth_to_its_player(app, host):
    token = imported(host, ROUND_6)
    players = ("Bert", "Claus", "Anna")
    anna, bert = phone_client(app, "198.18.0.2"), phone_client(app, "198.18.0.3")
    join(anna, token, "Anna", players)
    join(bert, token, "Bert", players)
    rows = family_rows(anna.get(f"/g/{token}/me"))
    assert [(row[0], row[-1]) for row in rows] == [
        ("♦ red", "+2"), ("★ yellow", "+2"), ("♣ green", "+2"), ("● blue", "+1"),
        ("▲ purple", "+2"), ("■ black", "+2")]
    # Bert holds red 2, blue 3 and purple 7 (rounds 1 and 5, red 6 sold to Anna): a second
    # red, blue or purple is worth 2, a first of the others 1.
    rows = family_rows(bert.get(f"/g/{token}/me"))
    assert [row[-1] for row in rows] == ["+2", "+1", "+1", "+2", "+2", "+1"]


def test_in_french_and_once_the_deck_is_out(app, host):
    token = imported(host, ROUND_6)
    host.set_cookie("lang", "fr")
    assert "Encore à venir : 18 cartes en 9 tours" in text(host.get(f"/g/{token}"))
    finished = imported(host)
    assert "Encore à venir" not in text(host.get(f"/g/{finished}"))


@pytest.mark.parametrize("count", [22, 35, 43])
def test_the_reveal_grid_offers_exactly_the_cards_that_may_still_turn_up(app, host, count):
    # Before the reveals of rounds 7, 12 and 14 of full-game-1: by then no number, then 3
    # and then 7 numbers have all 3 of their cards out, and no family, then 2 and then 4
    # all 5 (R1); a card seen is never offered again.
    record = json.loads(GAME_1.read_text(encoding="utf-8"))
    families = record["families"]
    seen = [(card["family"], card["number"]) for event in record["events"][:count]
            if event["type"] == "reveal" for card in event["cards"]]
    out_families = Counter(family for family, _ in seen)
    out_numbers = Counter(number for _, number in seen)
    expected = {f"{families.index(family)}:{number}" for family in families
                for number in NUMBERS if (family, number) not in seen
                and out_families[family] < FAMILY_SIZE and out_numbers[number] < NUMBER_COPIES}
    if count == 43:  # yellow's last 3 cards must be 0, 1 and 3: no red 0 nor red 3 (R1)
        expected -= {"0:0", "0:3"}
    page = body(host.get(f"/g/{imported(host, count)}"))
    cells = re.findall(r'<input type="checkbox" name="cards" value="([^"]+)"\s*(disabled)?', page)
    assert len(cells) == len(families) * len(NUMBERS)
    assert {value for value, disabled in cells if not disabled} == expected
    assert len(expected) == {22: 48, 35: 22, 43: 4}[count]  # 60 cells less those used up


def test_in_the_last_round_one_round_is_still_to_come_not_one_rounds(app, host):
    """The heading's plural follows the rounds, not the cards (round 15's lot on the
    table: 2 cards in 1 round)."""
    events = json.loads(GAME_1.read_text(encoding="utf-8"))["events"]
    last = max(index for index, event in enumerate(events) if event["type"] == "reveal")
    token = imported(host, last)  # everything before round 15's reveal
    assert "Still to come: 2 cards in 1 round" in text(host.get(f"/g/{token}/tv"))
    assert "1 rounds" not in text(host.get(f"/g/{token}"))
