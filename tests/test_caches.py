"""The caches change nothing a player sees: a game kept in memory and changed there is the
game read again from the database; a screen kept for one device is what another device
showing the same gets, with its own CSRF token; several servers on one data directory see
each other's changes."""
import threading
from concurrent.futures import Future

from hypothesis import HealthCheck, given, settings, strategies as st

from companion.rules.record import dump_record
from companion.store import cache as cache_module
from companion.store import games
from companion.web.render.rendered import Parts, Rendered
from tests.helpers import setup
from tests.strategies import games as legal_games
from tests.web_helpers import (FIRST_SALE, GAME, act, find_form, join, make_app, new_game,
                               page_headers, phone_client, play, stamp, text)
from tests.web_helpers import app, game, host, phone  # noqa: F401 (fixtures)

KEPT = ("version", "stamp", "events", "signatures", "journal", "moves", "seats", "options")


def same_game(kept: games.Game, read: games.Game) -> None:
    for name in KEPT:
        assert getattr(kept, name) == getattr(read, name), name
    assert kept.state == read.state and kept.states == read.states


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(game=legal_games(), data=st.data())
def test_a_game_changed_in_memory_is_the_game_read_again(tmp_path_factory, game, data):
    """Each action folds only its own event onto the kept state (R11: the state is the fold
    of the log); undos and corrections fold from where they change the log."""
    store = make_app(tmp_path_factory.mktemp("data")).config["STORE"]
    token = games.create(store, dump_record(game.setup, []), games.Options())
    kept = games.load(store, token)
    for event in game.events:
        kept = games.append(store, kept, kept.version, event, "host")
        if not kept.locked and data.draw(st.integers(0, 9)) == 0:  # an undo, then again
            kept = games.undo(store, kept, kept.version, "host")
            same_game(kept, games.load(store, token))
            kept = games.append(store, kept, kept.version, event, "host")
    same_game(kept, games.load(store, token))
    if kept.events and not kept.locked:
        index = data.draw(st.integers(0, len(kept.events) - 1))
        kept = games.correct(store, kept, kept.version, index, kept.events[index], "host")
        same_game(kept, games.load(store, token))


def test_a_kept_screen_carries_each_device_its_own_csrf_token(app, game):
    """Two host devices get the same table screen, each with the token its forms need."""
    first, second = app.test_client(), app.test_client()
    pages = [first.get(f"/g/{game}"), second.get(f"/g/{game}")]
    tokens = [page_headers(page)["X-CSRF-Token"] for page in pages]
    assert tokens[0] != tokens[1]
    assert [page.get_data(as_text=True).replace(token, "")
            for page, token in zip(pages, tokens)] == [
        pages[0].get_data(as_text=True).replace(tokens[0], "")] * 2
    for client in (first, second):  # each device's own form is taken
        play(client, game, GAME[:1])
        play(client, game, [("undo",)])


def test_a_kept_screen_is_never_shown_to_another_role_or_language(app, host, phone, game):
    join(phone, game, "Bert")
    viewer = phone_client(app, "198.18.0.9")
    french = app.test_client()
    french.set_cookie("lang", "fr")
    host.get(f"/g/{game}")  # kept for the host, in English
    assert find_form(host.get(f"/g/{game}"), "action-reveal")
    assert "take a seat to record" in text(viewer.get(f"/g/{game}"))
    assert "Bert" in text(phone.get(f"/g/{game}/me"))
    assert "Historique" in text(french.get(f"/g/{game}"))
    assert "Historique" not in text(host.get(f"/g/{game}"))


def test_two_servers_on_one_data_directory_see_each_others_changes(tmp_path):
    """Caches are keyed by the stamp read from the database, so a second server process
    never shows a game as it was before the first one changed it."""
    one, two = make_app(tmp_path / "data"), make_app(tmp_path / "data")
    host_one, host_two = one.test_client(), two.test_client()
    token = new_game(host_one)
    assert "Reveal" in text(host_two.get(f"/g/{token}"))  # kept by the second server
    play(host_one, token, GAME[:2])
    shown = text(host_two.get(f"/g/{token}"))
    assert all(words in shown for words in FIRST_SALE)
    assert host_two.get(f"/g/{token}/live?v={stamp(two, token)}").status_code == 204
    play(host_two, token, GAME[2:3])  # the second server records on from there
    assert stamp(one, token) == stamp(two, token)
    assert host_one.get(f"/g/{token}/live?v={stamp(two, token)}").status_code == 204


def test_a_seat_taken_or_freed_moves_the_stamp(app, host, phone, game):
    """Seats are not part of the game's version, but the screens show them."""
    before = stamp(app, game)
    join(phone, game, "Bert")
    taken = stamp(app, game)
    assert taken != before
    assert "Bert" in text(host.get(f"/g/{game}/live?v={before}", headers={"HX-Request": "true"}))
    act(host, game, "reveal", "red 1", "blue 5")
    assert stamp(app, game) != taken


def _screens(devices, token) -> list[bytes]:
    """Every screen of the game on each device: pages and live parts (htmx)."""
    live = {"HX-Request": "true"}
    shown = []
    for client, pages in devices:
        for page in pages:
            shown.append(client.get(f"/g/{token}{page}").data)
            shown.append(client.get(f"/g/{token}{page}/live?v=0", headers=live).data)
    return shown


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(game=legal_games())
def test_screens_drawn_from_kept_parts_are_the_screens_drawn_afresh(tmp_path_factory, game):
    """Parts kept from one change to the next (rendered.kept: the reveal grid, the action
    forms) show the same as if every screen were drawn anew, after every event of a game,
    on the host's screen, a watcher's, a French one and each seat's phone."""
    app = make_app(tmp_path_factory.mktemp("data"))
    store = app.config["STORE"]
    token = games.create(store, dump_record(game.setup, []), games.Options())
    french, watcher = app.test_client(), phone_client(app, "198.18.0.9")
    french.set_cookie("lang", "fr")
    devices = [(app.test_client(), ("", "/display")), (french, ("",)), (watcher, ("",))]
    for seat, name in enumerate(game.setup.players):
        player = phone_client(app, f"198.18.0.{seat + 10}")
        join(player, token, name, game.setup.players)
        devices.append((player, ("/me",)))
    kept = games.load(store, token)
    for event in game.events:
        kept = games.append(store, kept, kept.version, event, "host")
        shown = _screens(devices, token)
        caches = {name: app.config[name] for name in ("RENDERED", "PARTS")}
        app.config.update(RENDERED=Rendered(), PARTS=Parts())
        assert _screens(devices, token) == shown, event
        app.config.update(caches)  # the parts kept so far, kept on


def test_a_kept_form_sends_the_version_of_the_screen_it_is_in(host, game):
    """A lot's sale form is drawn once and kept while the lot is out (rendered.kept), but
    the game's version it sends is the one of each screen it is in: after two penalties
    (R4), each recorded from the page drawn after the one before, the sale is recorded from
    the page drawn then, not refused as made from an older game."""
    play(host, game, GAME[:4])  # Anna and Bert hold a card each; a lot is out
    before = find_form(host.get(f"/g/{game}"), "action-sold").fields["version"]
    play(host, game, [("penalty", "Anna"), ("penalty", "Bert")])
    page = host.get(f"/g/{game}")
    assert find_form(page, "action-sold").fields["version"] == [str(int(before[0]) + 2)]
    assert "version-" not in page.get_data(as_text=True)  # (no stand-in left in the page)
    play(host, game, [("sold", "Bert", 4)])


def test_a_game_that_moved_is_read_once_for_the_streams_that_ask_at_once(tmp_path,
                                                                           monkeypatch):
    """Four screens of a game another process changed ask for it at the same moment: one
    read of its log for them all, and each is shown the change."""
    store = make_app(tmp_path / "data").config["STORE"]
    token = games.create(store, dump_record(setup(), []), games.Options())
    waiting, every_one = threading.Condition(), 3

    class Watched(Future):
        def result(self, timeout=None):
            with waiting:
                waiting.waiters_in += 1
                waiting.notify_all()
            return super().result(timeout)

    reads = []

    def read(store, token):  # the first read holds on until the others wait for it (a
        # cache that does not share its reads: each read holds on 5 s, then each is counted)
        reads.append(token)
        with waiting:
            waiting.wait_for(lambda: waiting.waiters_in == every_one, timeout=5)
        return games.checked(store.game(token))

    waiting.waiters_in = 0
    monkeypatch.setattr(cache_module, "Future", Watched, raising=False)
    monkeypatch.setattr(cache_module.games, "load", read)
    kept, moved = cache_module.GameCache(store), store.stamp(token)
    found = []
    threads = [threading.Thread(target=lambda: found.append(kept.game(token, moved)))
               for _ in range(every_one + 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert reads == [token]
    assert [game.stamp for game in found] == [moved] * 4
