"""A live part's stream (web/streams.py): each screen sent its live part, drawn for its
own device, at each change of its game, as server-sent events whose id is the game's new
stamp, on the table's waitress (htmx's sse extension swaps it in: `sse-swap="change"`)."""
import re
import subprocess
import sys

from companion.web import create_app, streams
from tests.served import Listener, change_elsewhere, events_of, new_game_poll, served, until
from tests.web_helpers import join, make_app, new_game, phone_client, play


def stream_of(port: int, poll: str, headers: str = "") -> Listener:
    """The stream of the game of the live part whose poll is `poll`, opened from the
    stamp that poll shows."""
    return Listener(("127.0.0.1", port), events_of(poll), headers)


def unsigned(part: str) -> str:
    """A part with its forms' CSRF token left out (each device's own)."""
    return re.sub(r'name="csrf_token" value="[^"]*"', 'name="csrf_token"', part)


def opened(app, count: int) -> None:
    until(lambda: app.extensions["changes"].open == count, f"{count} streams are open")


def test_a_stream_tells_each_change_of_its_game_and_the_live_part_shows_it(tmp_path):
    """The stream opens with the browser's retry time; a lot revealed by another device
    (R3) comes as a `change` event, its id the new stamp, its data the live part showing
    the lot, as the part's own route draws it; so does the next change."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    store, token = app.config["STORE"], poll.split("/")[2]
    with served(app) as (port, _):
        screen = stream_of(port, poll)
        assert screen.status == 200 and "content-type: text/event-stream" in screen.head
        assert "transfer-encoding: chunked" in screen.head and screen.chunk() == streams.RETRY
        opened(app, 1)
        change_elsewhere(store, token)
        stamp = str(store.stamp(token))
        part = app.test_client().get(poll, headers={"HX-Request": "true"}).text
        assert f'data-stamp="{stamp}"' in part and "red" in part
        shown, sent = screen.event()
        assert (shown, unsigned(sent)) == (stamp, unsigned(part))
        change_elsewhere(store, token, {"type": "free"})
        assert screen.event()[0] == str(store.stamp(token)) != stamp
        screen.close()


def test_a_stream_opened_behind_its_game_catches_up_at_once(tmp_path):
    """A screen that shows an older stamp (its page was drawn before a change, or its
    browser opens a lost stream again with the last event's id) is told at once; one
    that shows the latest hears nothing until the next change."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    store, token = app.config["STORE"], poll.split("/")[2]
    shown = store.stamp(token)
    change_elsewhere(store, token)
    with served(app) as (port, _):
        behind = stream_of(port, poll)
        behind.chunk()
        assert behind.event()[0] == str(store.stamp(token))
        again = stream_of(port, poll, f"Last-Event-ID: {store.stamp(token)}\r\n")
        again.chunk()
        opened(app, 2)
        change_elsewhere(store, token, {"type": "free"})
        assert again.event()[0] == behind.event()[0] == str(store.stamp(token)) != str(shown)
        behind.close()
        again.close()


def test_a_quiet_stream_beats_and_a_closed_one_frees_its_thread(tmp_path, monkeypatch):
    """With nothing new, a comment every BEAT (here 0.2 s; the table's 15 s) keeps the
    stream open; a screen that closes its stream frees its thread at the next beat."""
    monkeypatch.setattr(streams, "BEAT", 0.2)
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    with served(app) as (port, _):
        screen = stream_of(port, poll)
        screen.chunk()
        assert screen.chunk() == screen.chunk() == b": beat\n\n"
        screen.close()
        opened(app, 0)


def test_the_stream_of_a_removed_game_ends(tmp_path):
    """The host removes the game: its screens' streams end (their browsers open them again
    and are told there is no such game)."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    token = poll.split("/")[2]
    with served(app) as (port, _):
        screen = stream_of(port, poll)
        screen.chunk()
        opened(app, 1)
        app.config["STORE"].remove_game(token)
        assert screen.chunk() == b""
        assert stream_of(port, poll).status == 404
        opened(app, 0)


def test_past_the_streams_a_process_holds_a_screen_is_told_to_poll(tmp_path):
    """A process holds STREAMS_HELD streams (here 1), a thread each: the next is told 204,
    which closes a browser's EventSource (the screen polls, and htmx's extension tries
    again later); once one closes, there is room again."""
    app = create_app(tmp_path / "data")
    app.extensions["changes"].held = 1
    poll = new_game_poll(app)
    with served(app) as (port, _):
        first = stream_of(port, poll)
        first.chunk()
        assert stream_of(port, poll).status == 204
        first.close()
        change_elsewhere(app.config["STORE"], poll.split("/")[2])  # (a write: it ends)
        opened(app, 0)
        assert stream_of(port, poll).status == 200


def test_a_stream_ends_when_old_and_when_the_server_stops(tmp_path, monkeypatch):
    """A stream lasts MAX_AGE seconds (here 0.3; the table's 10 minutes), then ends: its
    browser opens it again a second later (the retry time). Stopping the server ends every
    stream at once, so that its threads stop."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    with served(app) as (port, _):
        monkeypatch.setattr(streams, "MAX_AGE", 0.3)
        old = stream_of(port, poll)
        old.chunk()
        while (data := old.chunk()) == b": beat\n\n":
            pass
        assert data == b""
        monkeypatch.setattr(streams, "MAX_AGE", 600)
        lasting = stream_of(port, poll)
        lasting.chunk()
        opened(app, 1)
        app.extensions["changes"].end_all()
        assert lasting.chunk() == b""
        opened(app, 0)


def test_a_change_made_by_another_process_reaches_the_stream(tmp_path):
    """Another process writes to the games (a second server process on the same data
    directory): the stream hears of it through the store's news (SQLite's data version)."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    token = poll.split("/")[2]
    with served(app) as (port, _):
        screen = stream_of(port, poll)
        screen.chunk()
        opened(app, 1)
        subprocess.run([sys.executable, "-c", (
            "import sys; from companion.rules.record import parse_event;"
            "from companion.store import games, open_store;"
            "store = open_store(sys.argv[1], None);"
            "game = games.load(store, sys.argv[2]);"
            "games.append(store, game, game.version, parse_event({'type': 'reveal', 'cards': "
            "[{'family': 'red', 'number': 1}, {'family': 'blue', 'number': 2}]}), 'host')"),
            str(tmp_path / "data"), token], check=True)
        assert screen.event()[0] == str(app.config["STORE"].stamp(token))
        screen.close()


def first_part(client, url: str) -> tuple[str, str]:
    """The first event of the stream `url` opened by `client` (Flask's test client), from a
    stamp that is none (so it comes at once): its id and data; the stream closed then."""
    answer = client.get(url.replace("?v=", "?v=x"))
    assert answer.status_code == 200
    chunks = iter(answer.response)
    assert next(chunks) == streams.RETRY
    ident, *data = next(chunks).decode().removesuffix("\n\n").split("\n")[1:]
    answer.close()
    return ident.removeprefix("id: "), "\n".join(line.removeprefix("data: ") for line in data)


def coins_in(html: str) -> set[str]:
    return set(re.findall(r"\b(\d+) coins\b", html))


def test_each_screen_s_stream_draws_its_part_for_its_own_device(tmp_path):
    """Money is secret (R12): after Anna buys a lot for 7 (nobody holds a 7: Bert and
    Claus share it, 3 each, 1 stays in the pot, R8), Anna's phone's stream brings her own
    coins, Bert's his, and neither the other's; a phone that holds no seat
    is told on its phone stream to choose its seat again, and on the table's stream sees no
    one's coins; an unknown game's stream is 404."""
    app = make_app(tmp_path / "data", streams=True)
    host = app.test_client()
    token = new_game(host)
    anna, bert, watcher = (phone_client(app, f"192.168.1.{n}") for n in (21, 22, 23))
    join(anna, token, "Anna")
    join(bert, token, "Bert")
    play(host, token, [("reveal", "red 1", "blue 2"), ("sold", "Anna", 7)])
    stamp = str(app.config["STORE"].stamp(token))
    mine = f"/g/{token}/me/live/events?v={stamp}"
    for phone, coins, others in ((anna, 5, 15), (bert, 15, 5)):
        shown, part = first_part(phone, mine)
        assert shown == stamp and f'class="coins big">{coins} coins<' in part
        assert str(others) not in coins_in(part) and f'data-stamp="{stamp}"' in part
    assert "Choose your seat again" in first_part(watcher, mine)[1]
    table = first_part(watcher, f"/g/{token}/live/events?v={stamp}")[1]
    assert not {"5", "15"} & coins_in(table) and 'id="live"' in table
    assert watcher.get("/g/nosuchgame/live/events").status_code == 404


def test_a_head_opens_no_stream_and_a_stream_never_read_gives_its_room_back(tmp_path):
    """A HEAD is told 204 (it has no body); a stream answered but never read (its
    connection closed at once) gives back its place among the STREAMS_HELD."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    client = app.test_client()
    assert client.head(events_of(poll)).status_code == 204
    answer = client.get(events_of(poll))
    assert answer.status_code == 200 and app.extensions["changes"].open == 1
    answer.close()
    assert app.extensions["changes"].open == 0
