"""What every backend of the store must do, the same tests on SQLite and on PostgreSQL
(tests/postgres.py's `database`): a game read back as it was written, every change from
a version the game is still at and the race between two of them, seats, stamps, the
host's list, hosts and grants, codes, removal, the server's secrets, settings, marks and
buckets, its use, a database that refuses writes, the news of a change. `opened()` opens
another store on the same database, as another server process would.

The web tests run on SQLite alone: what they ask of the store is asked here of both."""
import importlib
import itertools
import threading
import time
from dataclasses import asdict, replace
from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules.events import Bid, Pass, Penalty, SideSale, Sold
from companion.rules.record import FORMAT, dump_event
from companion.store import games, open_store
from companion.store.news import News
from companion.store.sql import (BATCH, CODE_SHAPE, HOSTED_CODE_LENGTH, Bounded, Bounds,
                                  Conflict, SeatTaken, StorageFault, Unreadable)
from companion.web.forms import device_label
from tests.helpers import card, reveal
from tests.web_helpers import by_hand, refuse_writes

PLAYERS = ["Anna", "Bert", "Claus", "Dora"]
# Round 2's lot is out and Bert paid a penalty (R4).
BASE = [reveal("red 0 yellow 5"), Sold("Anna", 3), SideSale("Anna", card("red 0"), "Bert", 2),
        reveal("red 1 yellow 6"), Penalty("Bert")]
LAST = len(BASE) - 1
DAY = 86400
# The changes a device makes to a game, each from the game as it loaded it.
CHANGES = {
    "action": lambda store, game: games.append(store, game, game.version, Sold("Bert", 4),
                                               "host"),
    "undo": lambda store, game: games.undo(store, game, game.version, "host"),
    "correction": lambda store, game: games.correct(store, game, game.version, LAST,
                                                    Penalty("Anna"), "host"),
    "removal": lambda store, game: games.remove(store, game, game.version, LAST, "host"),
}


def record(events) -> dict:
    return {"format": FORMAT, "edition": "en", "players": PLAYERS,
            "variants": {"side_auctions": True},
            "events": [dump_event(event) for event in events]}


def new(store, events=(), host=None) -> str:
    """A game of `events` (imported), hosted by the device `host` if given: its token."""
    return games.create(store, record(events), games.Options(), host)


@pytest.fixture
def opened(tmp_path, database):
    """Opens a store on the test's backend: each call another store on the same database."""
    made = []

    def open_another():
        made.append(open_store(tmp_path / "data", database))
        return made[-1]
    yield open_another
    for store in made:
        store.close()


@pytest.fixture
def store(opened):
    return opened()


def at_once(*calls) -> list:
    """Each call, (store, function, *arguments), in a thread of its own, all started
    together: what each returned, or the exception it raised."""
    start, results = threading.Barrier(len(calls), timeout=30), [None] * len(calls)

    def run(index):
        store, function, *arguments = calls[index]
        start.wait()
        try:
            results[index] = function(*arguments)
        except Exception as error:  # noqa: BLE001 (the outcome the test looks at)
            results[index] = error
        finally:
            store.close()  # the thread's connection
    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def row_count(store, table: str, game_id: int) -> int:
    return by_hand(store, f"SELECT COUNT(*) FROM {table} WHERE game_id = ?", game_id)[0][0]


# --- a game as it was written --------------------------------------------------------

def test_a_game_is_read_back_as_it_was_written_by_any_process(opened):
    store = opened()
    before = time.time()
    token = new(store, BASE[:2])
    stored = store.game(token)
    assert stored.header == {key: value for key, value in record([]).items() if key != "events"}
    assert (stored.options, stored.version, stored.seats, stored.moves, stored.journal) == (
        asdict(games.Options()), 0, {}, None, [])
    assert stored.events == [dump_event(event) for event in BASE[:2]]
    assert [by for by, _ in stored.signatures] == ["import", "import"]
    assert before <= stored.created <= time.time() and CODE_SHAPE.fullmatch(stored.code)
    assert opened().game(token) == stored  # another process, or the server started again
    asked = [f"no such game {number}" for number in range(2 * BATCH)] + [token]  # in batches
    assert store.stamps(asked) == {token: store.stamp(token)}
    for absent in (store.game, store.stamp, store.seats_taken):
        assert absent("no such game") is None


def test_the_games_are_listed_newest_first(store):
    tokens = [new(store) for _ in range(3)]
    assert [stored.token for stored in store.games()] == tokens[::-1]
    assert store.game_count() == 3


def test_a_value_edited_by_hand_into_no_json_is_kept_as_it_was_written(store):
    token = new(store, BASE[:2])
    by_hand(store, "UPDATE events SET data = ? WHERE seq = 1", '{"type": "sold"')
    stored = store.game(token)
    assert stored.events[1] == '{"type": "sold"' and isinstance(stored.events[1], Unreadable)
    with pytest.raises(games.Damaged):
        games.load(store, token)


@settings(max_examples=20, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(words=st.text(max_size=30))
def test_any_text_typed_at_a_table_is_kept_as_typed(store, words):
    """Names, notes and a device's label, whatever their characters (PostgreSQL holds no
    NUL byte in a text: the JSON values carry it escaped, a label is kept as the form
    reads it)."""
    label = device_label({"label": words})
    token = store.create_game({"players": [words]}, {"note": words},
                              [({"type": "free", "note": words}, "host", 1.0)])
    store.add_host(token, "device", label)
    granted = store.grant(label)
    stored = store.game(token)
    assert (stored.header, stored.options, stored.events) == (
        {"players": [words]}, {"note": words}, [{"type": "free", "note": words}])
    assert [host.label for host in store.game_hosts(token, "")] == [label]
    assert {grant.id: grant.label for grant in store.grants()}[store.granted(granted)] == label


# --- changes -------------------------------------------------------------------------

def same_game(changed: games.Game, read: games.Game) -> None:
    """The game a change returned is the game read again."""
    for name in ("version", "stamp", "events", "signatures", "journal", "moves", "seats",
                 "options"):
        assert getattr(changed, name) == getattr(read, name), name


def test_each_change_moves_the_version_on_and_is_signed_and_noted(opened):
    store = opened()
    token = new(store, BASE[:1])
    game = games.append(store, games.load(store, token), 0, BASE[1], "seat:0")
    game = games.append(store, game, 1, BASE[2], "host")
    same_game(game, games.load(store, token))
    game = games.undo(store, game, 2, "grant:7")
    game = games.correct(store, game, 3, 1, Sold("Bert", 3), "host")
    same_game(game, games.load(store, token))
    games.set_options(store, game, "host", money_open=True)
    stored = opened().game(token)
    assert stored.version == 5 and stored.options["money_open"] is True
    assert stored.events == [dump_event(BASE[0]), dump_event(Sold("Bert", 3))]
    assert [by for by, _ in stored.signatures] == ["import", "host"]
    assert [(by, entry["kind"]) for _, by, entry in stored.journal] == [
        ("grant:7", "undo"), ("host", "correct"), ("host", "settings")]
    assert stored.moves == stored.journal[1][2]["moves"] is not None  # the correction's
    games.append(store, games.load(store, token), 5, BASE[3], "host")
    assert store.game(token).moves is None  # an action moves no coins back


def test_a_correction_keeps_the_actions_after_it_in_their_places(store):
    token = new(store, BASE)
    game = games.load(store, token)
    corrected = games.correct(store, game, 0, 1, Sold("Anna", 4), "seat:0")
    assert store.game(token).events == [dump_event(event) for event in
                                        (BASE[0], Sold("Anna", 4), *BASE[2:])]
    assert store.game(token).signatures == [game.signatures[0], corrected.signatures[1],
                                            *game.signatures[2:]]
    same_game(corrected, games.load(store, token))


def test_a_removal_moves_the_actions_after_it_up_with_their_signatures(store):
    token = new(store, BASE)
    game = games.load(store, token)
    removed = games.remove(store, game, 0, 3, "host")  # the second lot's reveal
    assert store.game(token).events == [dump_event(event) for event in (*BASE[:3], BASE[4])]
    assert store.game(token).signatures == [*game.signatures[:3], game.signatures[4]]
    same_game(removed, games.load(store, token))


def test_a_live_auction_s_result_is_written_with_its_last_bid_and_undone_with_it(store):
    """R3: the last drop-out ends the auction; the sale it comes to is added in the same
    change, and an undo takes back both."""
    token = games.create(store, record(BASE[:1]), games.Options(live_auction=True))
    game = games.load(store, token)
    for event in (Pass("Anna"), Bid("Bert", 3), Pass("Claus"), Pass("Dora")):
        game = games.append(store, game, game.version, event, "host")
    assert store.game(token).events[-2:] == [dump_event(Pass("Dora")),
                                             dump_event(Sold("Bert", 3))]
    same_game(game, games.load(store, token))
    game = games.undo(store, game, game.version, "host")
    assert store.game(token).events == [dump_event(event) for event in (
        BASE[0], Pass("Anna"), Bid("Bert", 3), Pass("Claus"))]
    same_game(game, games.load(store, token))


def test_a_change_from_a_version_the_game_left_changes_nothing(store):
    token = new(store, BASE)
    stale = games.load(store, token)
    games.undo(store, stale, 0, "host")
    before = store.game(token)
    for change in CHANGES.values():
        with pytest.raises(Conflict):
            change(store, stale)
    assert store.game(token) == before


@pytest.mark.parametrize("pair", list(itertools.combinations_with_replacement(CHANGES, 2)),
                         ids=" + ".join)
def test_of_two_changes_from_one_version_at_once_exactly_one_applies(opened, pair):
    """Two devices, through two server processes, change the game from the version both
    read: one change applies, the other is refused (Conflict), and the game is what the
    one that applied makes of it."""
    stores = opened(), opened()
    token = new(stores[0], BASE)
    read = [games.load(store, token) for store in stores]
    results = at_once(*((store, CHANGES[name], store, game)
                        for name, store, game in zip(pair, stores, read)))
    refused = [isinstance(result, Conflict) for result in results]
    assert sorted(refused) == [False, True], results
    alone = CHANGES[pair[refused.index(False)]](stores[0], games.load(stores[0], new(stores[0],
                                                                                   BASE)))
    game = games.load(stores[1], token)
    assert (game.version, game.events) == (read[0].version + 1, alone.events)


# --- seats ---------------------------------------------------------------------------

def test_a_seat_is_held_by_one_device_until_freed(store):
    token, other = new(store, BASE[:2]), new(store)
    version = store.game(token).version
    held = store.claim_seat(token, 1)
    with pytest.raises(SeatTaken):
        store.claim_seat(token, 1)
    first = store.claim_seat(token, 0)
    assert store.seats_taken(token) == [0, 1] and store.game(token).seats == {0: first, 1: held}
    store.free_seat(token, 1)
    again = store.claim_seat(token, 1)
    assert again not in (held, first) and store.game(token).seats == {0: first, 1: again}
    assert store.game(token).version == version  # a seat is no change of the game's log
    assert store.seats_taken(other) == [] and store.claim_seat(other, 1)
    with pytest.raises(Conflict):
        store.claim_seat("no such game", 0)


def test_of_two_devices_taking_one_seat_at_once_exactly_one_holds_it(opened):
    stores = opened(), opened()
    token = new(stores[0])
    results = at_once(*((store, store.claim_seat, token, 1) for store in stores))
    held = [result for result in results if isinstance(result, str)]
    assert len(held) == 1 and any(isinstance(result, SeatTaken) for result in results), results
    assert stores[1].game(token).seats == {1: held[0]}


def test_a_seat_taken_while_an_action_is_recorded_is_in_the_game_it_returns(store):
    """A seat moves the stamp, not the version: an action sent from the game as it was
    before still counts, and the game it returns holds the seat (read again)."""
    token = new(store)
    before = games.load(store, token)
    store.claim_seat(token, 1)
    after = games.append(store, before, before.version, BASE[0], "host")
    same_game(after, games.load(store, token))
    assert 1 in after.seats


# --- stamps and the host's list --------------------------------------------------------

def test_the_stamp_moves_with_every_change_to_what_the_screens_show(store):
    """Whoever makes the change: this server, another process, or someone editing the
    database by hand (the database's triggers move it)."""
    token, other = new(store, BASE[:1]), new(store)
    game_id = by_hand(store, "SELECT id FROM games WHERE token = ?", token)[0][0]

    def edit(sql):
        return lambda: by_hand(store, sql, game_id)
    changes = {
        "an action": lambda: games.append(store, games.load(store, token), 0, BASE[1], "host"),
        "an undo": lambda: games.undo(store, games.load(store, token), 1, "host"),
        "a setting": lambda: games.set_options(store, games.load(store, token), "host",
                                               guide=True),
        "a seat taken": lambda: store.claim_seat(token, 0),
        "a seat freed": lambda: store.free_seat(token, 0),
        "the address phones are shown": lambda: store.show_everywhere("phones", "http://x"),
        "a hand edit of the header": edit("UPDATE games SET header = header WHERE id = ?"),
        "of the options": edit("UPDATE games SET options = options WHERE id = ?"),
        "of the code": edit("UPDATE games SET code = code WHERE id = ?"),
        "of an event": edit("UPDATE events SET at = 0 WHERE game_id = ?"),
        "a seat added by hand": edit("INSERT INTO seats VALUES (?, 3, 'by hand')"),
        "of a seat": edit("UPDATE seats SET token = 'edited' WHERE game_id = ?"),
        "a seat removed by hand": edit("DELETE FROM seats WHERE game_id = ?"),
        "of the journal": edit("UPDATE journal SET by = 'someone' WHERE game_id = ?"),
        "an event removed by hand": edit("DELETE FROM events WHERE game_id = ?"),
    }
    for what, change in changes.items():
        before = store.stamp(token)
        change()
        assert store.stamp(token) > before, what
    unmoved = store.stamp(token)
    store.keep_summaries([(token, unmoved, {"kept": True})])
    games.append(store, games.load(store, other), 0, BASE[0], "host")
    store.claim_seat(other, 0)
    assert store.stamp(token) == unmoved


def test_a_summary_kept_with_a_game_is_given_until_the_game_moves(store):
    """The host's list, a page at a time, newest first; on a hosted server, the games a
    device hosts."""
    hosted, other = new(store, host="maker"), new(store)
    assert store.summaries(0, 10) == [(other, None), (hosted, None)]
    store.keep_summaries([(token, store.stamp(token), {"of": token}) for token in (hosted, other)])
    assert store.summaries(0, 10) == [(other, {"of": other}), (hosted, {"of": hosted})]
    assert store.summaries(0, 1) == [(other, {"of": other})]
    assert store.summaries(1, 10) == [(hosted, {"of": hosted})]
    assert store.summaries(0, 10, host="maker") == [(hosted, {"of": hosted})]
    assert (store.game_count(), store.game_count("maker"), store.game_count("nobody")) == (2, 1, 0)
    store.claim_seat(other, 0)
    store.keep_summaries([(hosted, store.stamp(hosted) - 1, {"of": "an older game"})])
    assert store.summaries(0, 10) == [(other, None), (hosted, None)]


def test_the_games_a_device_hosts_or_sat_in_with_their_summaries(store):
    """The standings, the names offered and the exports of a device on a hosted server:
    the games it hosts and those whose tokens it holds a seat of, newest first."""
    mine, sat_in, other = new(store, host="maker"), new(store, host="someone"), new(store)
    store.keep_summaries([(mine, store.stamp(mine), {"of": mine})])
    assert store.seen_summaries("maker", [sat_in]) == [(sat_in, None), (mine, {"of": mine})]
    assert store.seen_summaries("maker") == [(mine, {"of": mine})]
    assert store.seen_summaries(None, [other, sat_in]) == [(other, None), (sat_in, None)]
    assert store.seen_summaries(None) == []
    assert [token for token, _ in store.seen_summaries(everyone=True)] == [other, sat_in, mine]
    assert [token for token, _ in store.seen_summaries(everyone=True, limit=2)] == [other, sat_in]


def test_a_rematch_is_started_once_and_named_by_the_game_before_it(opened):
    """Two host devices tapping "rematch" at once start one game, with no events, hosted
    by the device given; the game before names it (its stamp moves: its screens offer it)
    until that game is removed."""
    store, first, second = opened(), opened(), opened()
    token = new(store, BASE)
    header = {key: value for key, value in record([]).items() if key != "events"}
    before = store.stamp(token)
    made = at_once((first, first.rematch, token, header, {"guide": True}, "maker"),
                   (second, second.rematch, token, header, {"guide": True}, "maker"))
    assert made[0] == made[1] and store.game(token).next_game == made[0]
    after = store.game(made[0])
    assert (after.header, after.options, after.events) == (header, {"guide": True}, [])
    assert store.hosts(made[0], "maker") and store.stamp(token) > before
    moved = store.stamp(token)
    store.remove_game(made[0])
    assert store.game(token).next_game is None and store.stamp(token) > moved
    with pytest.raises(Conflict):
        store.rematch(made[0], header, {})


# --- hosts, grants, codes --------------------------------------------------------------

def test_the_devices_hosting_a_game_and_its_host_link(opened):
    store = opened()
    token, other = new(store, host="maker"), new(store, host="maker")
    assert store.hosts(token, "maker") and not store.hosts(token, "partner")
    key = store.host_key(token)
    assert opened().host_key(token) == key != store.host_key(other)
    store.add_host(token, "partner", "Bo's phone")
    store.add_host(token, "partner", "Bo's phone again")  # once, whatever it asks
    (partner,) = store.game_hosts(token, "maker")
    (maker,) = store.game_hosts(token, "partner")
    assert (partner.label, maker.label) == ("Bo's phone", "")
    assert not store.hosts(other, "partner")
    for host_id, game in ((maker.id, token), (424242, token), (partner.id, other)):
        assert not store.revoke_host(game, host_id, "maker")  # itself, no one, another game's
    assert store.host_key(token) == key and store.hosts(token, "partner")
    assert store.revoke_host(token, partner.id, "maker")
    assert not store.hosts(token, "partner") and store.host_key(token) != key
    with pytest.raises(Conflict):
        store.add_host("no such game", "partner", "")


def test_a_grant_holds_until_revoked(opened):
    store = opened()
    eva, bo = store.grant("Eva's tablet"), store.grant("Bo's phone")
    grants = store.grants()
    assert [grant.label for grant in grants] == ["Eva's tablet", "Bo's phone"]
    assert opened().granted(eva) == grants[0].id and store.granted("forged") is None
    assert store.revoke(grants[0].id) and not store.revoke(grants[0].id)
    assert store.granted(eva) is None and store.granted(bo) == grants[1].id


def test_every_game_has_a_code_of_its_own_that_finds_it(store):
    tokens = [new(store) for _ in range(20)]
    codes = [store.game(token).code for token in tokens]
    assert len(set(codes)) == len(codes) and all(CODE_SHAPE.fullmatch(code) for code in codes)
    assert [store.token_of_code(code) for code in codes] == tokens
    assert store.token_of_code("AAA-AAAA") is None
    with pytest.raises(Exception, match="(?i)unique"):  # nor may a hand edit make one twice
        by_hand(store, "UPDATE games SET code = ? WHERE token = ?", codes[0], tokens[1])


def test_a_hosted_server_s_longer_codes_and_a_table_s_games_given_one(opened):
    store = opened()
    table = new(store)
    hosted = games.create(store, record([]), games.Options(), "maker", HOSTED_CODE_LENGTH)
    code = store.game(hosted).code
    assert len(code) == 14 and CODE_SHAPE.fullmatch(code) and store.token_of_code(code) == hosted
    before = store.stamp(table)
    assert store.lengthen_codes(HOSTED_CODE_LENGTH) == 1
    lengthened = store.game(table).code
    assert len(lengthened) == 14 and CODE_SHAPE.fullmatch(lengthened)
    assert store.token_of_code(lengthened) == table and store.stamp(table) > before
    assert store.game(hosted).code == code and store.lengthen_codes(HOSTED_CODE_LENGTH) == 0
    assert opened().game(table).code == lengthened  # a table's server keeps longer codes


# --- a hosted server's bounds ------------------------------------------------------------

def bounds(network="n", per_network=99, per_hour=99, kept=99, size=2 ** 40) -> Bounds:
    return Bounds(network, per_network, per_hour, kept, size)


def start(store, within: Bounds) -> str:
    return games.create(store, record([]), games.Options(), "maker", bounds=within)


@pytest.mark.parametrize("bound", ["network", "hour", "games", "bytes"])
def test_a_start_past_a_bound_is_refused_and_stores_nothing(store, bound):
    """Each bound, reached: the look before a record is checked and the start itself are
    refused alike."""
    within = {"network": bounds(per_network=1), "hour": bounds(per_hour=2),
              "games": bounds(kept=2), "bytes": bounds()}[bound]
    made = [start(store, within), start(store, replace(within, network="m"))]
    if bound == "bytes":  # the games take more than a byte
        within = replace(within, size=1)
    with pytest.raises(Bounded) as looked:
        store.check_bounds(within)
    with pytest.raises(Bounded) as started:
        start(store, within)
    assert (looked.value.bound, looked.value.limit) == (bound, {"network": 1, "bytes": 1}.get(
        bound, 2))
    assert (started.value.bound, started.value.limit) == (looked.value.bound, looked.value.limit)
    assert store.game_count() == 2 and [store.game(token).code for token in made]


def test_a_start_waits_for_the_hour_s_first_start_to_be_an_hour_old(store):
    first = time.time()
    start(store, bounds(per_network=1))
    with pytest.raises(Bounded) as refused:
        start(store, bounds(per_network=1))
    assert refused.value.bound == "network" and refused.value.limit == 1
    assert 3600 - (time.time() - first) - 1 < refused.value.wait <= 3600
    by_hand(store, "UPDATE marks SET at = at - 3600")
    assert start(store, bounds(per_network=1)) and start(store, bounds(network="m", per_network=1))


@pytest.mark.parametrize("bound", ["network", "hour", "games"])
def test_starts_at_once_never_pass_a_bound_however_many_processes_race(opened, bound):
    """12 processes each start a game at once, against a bound of 5 (from one network, or
    from each its own)."""
    within = {"network": bounds(per_network=5), "hour": bounds(per_hour=5),
              "games": bounds(kept=5)}[bound]
    stores = [opened() for _ in range(12)]
    results = at_once(*[(store, start, store,
                         replace(within, network="n" if bound == "network" else str(number)))
                        for number, store in enumerate(stores)])
    assert sum(isinstance(result, str) for result in results) == 5, results
    assert all(isinstance(result, str) or (isinstance(result, Bounded) and result.bound == bound)
               for result in results), results
    assert opened().game_count() == 5


# --- removal ---------------------------------------------------------------------------

def test_a_removed_game_goes_with_all_it_holds(store):
    token, kept = new(store, BASE, host="maker"), new(store, BASE, host="maker")
    for game in (token, kept):
        store.claim_seat(game, 0)
        games.undo(store, games.load(store, game), 0, "host")
    game_id = by_hand(store, "SELECT id FROM games WHERE token = ?", token)[0][0]
    code, left = store.game(token).code, store.game(kept)
    stale = games.load(store, token)
    store.remove_game(token)
    assert (store.game(token), store.stamp(token), store.token_of_code(code)) == (None,) * 3
    assert [row_count(store, table, game_id) for table in ("events", "seats", "journal",
                                                           "hosts")] == [0, 0, 0, 0]
    assert store.game(kept) == left and store.game_count() == 1
    with pytest.raises(Conflict):
        CHANGES["undo"](store, stale)
    with pytest.raises(Conflict):
        store.claim_seat(token, 1)


def test_the_games_no_one_changed_since_a_time_are_removed(store):
    """A hosted server's sweep (--keep-days): a game started before that time, with no
    action and no setting since, goes with all it holds; a seat taken is no change."""
    idle, played, set_ = new(store), new(store), new(store)
    by_hand(store, "UPDATE games SET created = ?", time.time() - 3 * DAY)
    store.claim_seat(idle, 0)
    games.append(store, games.load(store, played), 0, BASE[0], "host")
    games.set_options(store, games.load(store, set_), "host", guide=True)
    assert store.remove_idle(time.time() - DAY) == 1
    assert {stored.token for stored in store.games()} == {played, set_}
    assert by_hand(store, "SELECT COUNT(*) FROM seats")[0][0] == 0
    assert store.remove_idle(time.time() - DAY) == 0


# --- the server's own: secrets, settings, marks, buckets, use ---------------------------

def test_the_server_s_secrets_and_settings_are_the_same_in_every_process(opened):
    store, other = opened(), opened()
    first = at_once((store, store.secret, "host_key"), (other, other.secret, "host_key"))
    assert first[0] == first[1] and len(first[0]) == 64  # made once, though asked at once
    renewed = other.renew_secret("host_key")
    assert store.secret("host_key") == renewed != first[0]
    token = new(store)
    assert store.setting("phones") is None
    before = store.stamp(token)
    store.show_everywhere("phones", "http://10.8.0.2:8421")
    assert other.setting("phones") == "http://10.8.0.2:8421" and store.stamp(token) > before
    shown = store.stamp(token)
    other.show_everywhere("phones", None)
    assert store.setting("phones") is None and store.stamp(token) > shown
    forgotten = store.stamp(token)
    store.show_everywhere("phones", None)  # nothing to forget: no screen is drawn again
    assert store.stamp(token) == forgotten


def test_a_mark_is_kept_within_its_limit_and_the_old_ones_forgotten(opened):
    store, other = opened(), opened()
    assert [store.mark_within("code", "k", at, 30, 2) for at in (10.0, 20.0, 30.0)] == [
        0.0, 0.0, pytest.approx(10.0)]  # the third waits for the first to be 30 s old
    assert other.mark_within("code", "another key", 30.0, 30, 2) == 0.0
    assert other.mark_within("key", "k", 30.0, 30, 1) == 0.0  # another kind
    assert other.mark_within("code", "k", 41.0, 30, 2) == 0.0  # the first forgotten
    assert store.mark_within("code", "k", 45.0, 30, 2) == pytest.approx(5.0)
    assert by_hand(store, "SELECT at FROM marks WHERE kind = 'code' AND key = 'k' "
                          "ORDER BY at") == [(20.0,), (41.0,)]


def test_marks_at_once_never_pass_their_limit_however_many_processes_race(opened):
    stores = [opened() for _ in range(12)]
    waits = at_once(*[(store, store.mark_within, "code", "k", 100.0, 60, 5) for store in stores])
    assert sorted(waits)[:6] == [0.0] * 5 + [pytest.approx(60.0)], waits
    assert by_hand(stores[0], "SELECT COUNT(*) FROM marks")[0][0] == 5


def taken(store, key, now, rate=1.0, burst=3) -> bool:
    return store.take([(key, rate, burst)], now) is None


def test_a_bucket_gives_a_burst_then_refills_at_its_rate(store):
    """The pace of a device's changes: a burst, then one a second, full again after a
    pause (and then forgotten)."""
    takes = [taken(store, "device", now) for now in (0, 0, 0, 0, 0.5, 1.0, 1.2, 2.1)]
    assert takes == [True, True, True, False, False, True, False, True]
    assert [taken(store, "device", 100) for _ in range(4)] == [True, True, True, False]
    assert taken(store, "another", 100)


def test_buckets_taken_together_are_taken_from_all_or_none(store):
    """A device's change counts for its network too; refused by its network's ceiling, it
    costs the device nothing: the first empty bucket is named."""
    assert taken(store, "network", 0, burst=1)
    assert store.take([("device", 1.0, 3), ("network", 1.0, 1)], 0) == 1
    assert [taken(store, "device", 0) for _ in range(4)] == [True, True, True, False]
    assert store.take([("device", 1.0, 3), ("network", 1.0, 1)], 0) == 0


def test_every_process_takes_from_a_device_s_one_bucket(opened):
    first, second = opened(), opened()
    assert [taken(store, "device", 100) for store in (first, second, first)] == [True] * 3
    assert not taken(second, "device", 100) and taken(second, "device", 101)


def test_the_use_counts_the_games_and_the_actions_recorded_at_tables(store):
    """What the operator's page reads: imported actions are not recorded at a table."""
    old = new(store, BASE[:2])
    by_hand(store, "UPDATE games SET created = ? WHERE token = ?", time.time() - 2 * DAY, old)
    token = new(store)
    game = games.append(store, games.load(store, token), 0, BASE[0], "host")
    games.append(store, game, 1, BASE[1], "seat:0")
    counted = {"games": 2, "started": 1, "played": 1, "actions_day": 2, "actions_hour": 2}
    assert store.usage(time.time()) == counted
    assert store.usage(time.time() + 2 * 3600) == {**counted, "actions_hour": 0}


# --- faults and news -------------------------------------------------------------------

def test_a_database_that_refuses_writes_changes_nothing_and_says_why(store, monkeypatch):
    """A full or read-only disk, a standby server: every write refused in the backend's
    words, nothing changed, everything still read."""
    token = new(store, BASE, host="maker")
    store.claim_seat(token, 0)
    store.grant("Eva")
    key = store.secret("host_key")
    before = store.games(), store.grants(), store.summaries(0, 10)
    refuse_writes(monkeypatch, store)
    game = games.load(store, token)
    writes = [partial(change, store, game) for change in CHANGES.values()] + [
        partial(games.set_options, store, game, "host", guide=True),
        partial(new, store), partial(store.claim_seat, token, 1),
        partial(store.free_seat, token, 0), partial(store.remove_game, token),
        partial(store.remove_idle, time.time() + 1), partial(store.add_host, token, "x", ""),
        partial(store.grant, "Bo"), partial(store.revoke, store.grants()[0].id),
        partial(store.renew_secret, "host_key"), partial(store.show_everywhere, "phones", "x"),
        partial(store.keep_summaries, [(token, game.stamp, {})]),
        partial(store.mark_within, "code", "k", 1.0, 60, 5),
        partial(store.take, [("device", 1.0, 3)], 0), partial(store.lengthen_codes, 12)]
    said = importlib.import_module(type(store).__module__).READ_ONLY  # the backend's words
    for write in writes:
        with pytest.raises(StorageFault) as refused:
            write()
        assert refused.value.text == said, write
    assert (store.games(), store.grants(), store.summaries(0, 10)) == before
    assert store.secret("host_key") == key and games.load(store, token).events == game.events


def test_a_change_through_another_process_is_news(opened):
    """What the screens waiting on a game hear: the game that moved, or that any may have
    (SQLite's data version), soon after another process changed it."""
    store, other = opened(), opened()
    token = new(other)
    news = store.news()
    news.wait(0)  # what was before it listened
    assert news.wait(0.05) == News()
    other.claim_seat(token, 0)
    deadline, heard = time.monotonic() + 10, News()
    while not (token in heard.games or heard.anywhere) and time.monotonic() < deadline:
        heard = news.wait(0.05)
    assert token in heard.games or heard.anywhere
