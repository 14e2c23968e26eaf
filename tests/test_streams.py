"""A screen's stream (issue 29): its live part sent anew at each change of its game, as
server-sent events on one connection the server keeps, on the table's waitress."""
import threading

from companion.server import channel, streams
from companion.web import create_app
from tests.served import Listener, change_elsewhere, events_of, new_game_poll, served, until


def stream_of(port: int, poll: str, headers: str = "") -> Listener:
    """The stream of the screen whose poll is `poll`, opened on this device."""
    return Listener(("127.0.0.1", port), events_of(poll), headers)


def test_a_stream_shows_each_change_of_its_game_as_it_is_made(tmp_path):
    """The table screen's stream opens with the browser's retry time and waits; a lot
    revealed by another device (R3) comes as an event, its id the new stamp and its data
    the live part a poll would bring, which names that stamp; so does the next change."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    store, token = app.config["STORE"], poll.split("/")[2]
    with served(app, hold=30) as (port, _):
        screen = stream_of(port, poll)
        assert screen.status == 200 and "content-type: text/event-stream" in screen.head
        assert "transfer-encoding: chunked" in screen.head and screen.chunk() == b"retry: 1000\n\n"
        until(lambda: len(app.extensions[channel.STREAMING]) == 1, "the stream is open")
        change_elsewhere(store, token)
        ident, part = screen.event()
        assert ident == str(store.stamp(token)) and "red" in part
        assert f'hx-get="/g/{token}/live?v={ident}"' in part and 'id="payment"' in part
        change_elsewhere(store, token, {"type": "free"})
        assert screen.event()[0] == str(store.stamp(token)) != ident
        screen.close()


def test_a_stream_opened_behind_its_game_catches_up_at_once(tmp_path):
    """A screen that shows an older stamp (its page was drawn before a change, or its
    browser opens a lost stream again with the last event's id) gets the live part at
    once; one that shows the latest gets nothing until the next change."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    store, token = app.config["STORE"], poll.split("/")[2]
    shown = store.stamp(token)
    change_elsewhere(store, token)
    with served(app, hold=30) as (port, _):
        behind = stream_of(port, poll)
        behind.chunk()
        assert behind.event()[0] == str(store.stamp(token))
        again = stream_of(port, poll, f"Last-Event-ID: {store.stamp(token)}\r\n")
        again.chunk()
        until(lambda: len(app.extensions[channel.STREAMING]) == 2, "both streams wait")
        change_elsewhere(store, token, {"type": "free"})
        assert again.event()[0] == behind.event()[0] == str(store.stamp(token)) != str(shown)
        behind.close()
        again.close()


def test_a_quiet_stream_is_told_so_and_a_closed_one_is_forgotten(tmp_path):
    """With nothing new, a comment every beat (here the hold, 0.3 s; the table's 10 s,
    before waitress closes an idle connection) keeps the stream open; a screen that
    closes its stream is forgotten; so is a screen that sends anything more on it, which
    a browser never does: its stream ends."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    with served(app, hold=0.3) as (port, _):
        listening = app.extensions[channel.STREAMING]
        screen = stream_of(port, poll)
        screen.chunk()
        assert screen.chunk() == streams.HEARTBEAT
        assert screen.chunk() == streams.HEARTBEAT
        screen.close()
        until(lambda: len(listening) == 0, "the stream is forgotten")
        odd = stream_of(port, poll)
        odd.chunk()
        until(lambda: len(listening) == 1, "the stream is open")
        odd.socket.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        while (data := odd.chunk()) == streams.HEARTBEAT:
            pass
        assert data == b"" and odd.socket.recv(100) == b""  # the last chunk, then closed
        until(lambda: len(listening) == 0, "the stream is forgotten")


def test_the_stream_of_a_removed_game_ends(tmp_path):
    """The host removes the game: its screens' streams end (their browsers open them again
    and are told there is no such game)."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    token = poll.split("/")[2]
    with served(app, hold=30) as (port, _):
        screen = stream_of(port, poll)
        screen.chunk()
        until(lambda: len(app.extensions[channel.STREAMING]) == 1, "the stream is open")
        app.config["STORE"].remove_game(token)
        assert screen.chunk() == b""
        assert stream_of(port, poll).status == 404


def test_where_no_stream_is_held_the_screen_is_told_to_poll(tmp_path):
    """Flask alone (no server loop), or a server that holds nothing (hold 0): 204, which
    closes a browser's EventSource; the screen then polls (static/app.js)."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    assert app.test_client().get(events_of(poll)).status_code == 204
    with served(app, hold=0) as (port, _):
        assert stream_of(port, poll).status == 204


def test_a_stream_whose_screen_does_not_read_ends_before_it_fills_memory():
    """A phone asleep reads nothing: past BACKLOG bytes waiting, its stream ends (the
    screen catches up when it opens it again) and no worker waits on it."""
    class Asleep:
        total_outbufs_len = streams.BACKLOG + 1
        written, close_when_flushed, awoken = [], False, 0
        outbuf_lock = threading.RLock()

        def write_soon(self, data):
            self.written.append(data)

        def awake(self):
            self.awoken += 1

    listening = streams.Streams(dispatch=None)
    phone = Asleep()
    listening.listen(phone, streams.Stream("token", {}), 3)
    listening.send(phone, b"id: 4\ndata: x\n\n")
    assert phone.written == [streams.END] and phone.close_when_flushed and len(listening) == 0
