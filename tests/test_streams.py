"""A screen's stream (issue 29): its live part sent anew at each change of its game, as
server-sent events on one connection the server keeps, on the table's waitress."""
import socket
import threading
from functools import partial

import pytest

from bench.changes import StreamConnection, opened
from companion.server import channel, streams
from companion.store.sql import StorageFault
from companion.web import create_app
from companion.web.guards import roles
from companion.web.pages import RETRY, poll_drawn
from tests.served import Listener, change_elsewhere, events_of, new_game_poll, served, until
from tests.web_helpers import (GAME, csrf_headers, host_link, join, make_app, new_game,
                               phone_client, play, stamp, submit)


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
        assert "transfer-encoding: chunked" in screen.head and screen.chunk() == RETRY
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
    screen catches up when it opens it again), and nothing is written after its end."""
    class Asleep:
        total_outbufs_len = streams.BACKLOG + 1
        written, close_when_flushed, awoken = [], False, 0
        outbuf_lock = threading.RLock()

        def write_soon(self, data):
            self.written.append(data)

        def awake(self):
            self.awoken += 1

    listening = streams.Streams(dispatch=None, draw=None)
    phone = Asleep()
    with socket.socket() as phone.socket:
        listening.open(phone, streams.Stream("token", {}), 3)
    listening.send(phone, b"id: 4\ndata: x\n\n")
    listening.send(phone, b"id: 5\ndata: y\n\n")
    assert phone.written == [streams.END] and phone.close_when_flushed and len(listening) == 0


def test_a_head_or_an_odd_stamp_opens_no_stream_of_its_own_and_a_stream_ends_when_old(
        tmp_path, monkeypatch):
    """A HEAD is told 204 (no stream: a HEAD has no body); a stamp that is not one (a
    Unicode digit, too many digits) counts as none: the screen gets the live part at
    once. A stream ends after MAX_AGE (here a second: a slow machine's first drawing
    comes well within it), and its browser opens it again."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    store, token = app.config["STORE"], poll.split("/")[2]
    monkeypatch.setattr(streams, "MAX_AGE", 1.0)
    with served(app, hold=0.3) as (port, _):
        head = socket.create_connection(("127.0.0.1", port), timeout=10)
        head.sendall(f"HEAD {events_of(poll)} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
                     .encode())
        assert head.recv(1000).startswith(b"HTTP/1.1 204")
        head.close()
        for odd in ("²", "9" * 5000):
            screen = stream_of(port, poll, f"Last-Event-ID: {odd}\r\n")
            assert screen.status == 200 and screen.chunk() == RETRY
            assert screen.event()[0] == str(store.stamp(token))
            while (data := screen.chunk()) == streams.HEARTBEAT:
                pass
            assert data == b""  # old: ended
            screen.close()


def test_a_request_sent_behind_a_stream_s_ends_it_and_is_answered(tmp_path):
    """No browser sends a request behind its stream's on the same connection; one that
    does gets the stream's answer ended (its last chunk), then its own answer."""
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    with served(app, hold=30) as (port, _):
        both = socket.create_connection(("127.0.0.1", port), timeout=10)
        both.sendall((f"GET {events_of(poll)} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
                      f"GET {poll}&now=1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").encode())
        received = b""
        while received.count(b"HTTP/1.1 ") < 2:
            more = both.recv(65536)
            assert more, received
            received += more
        assert b"0\r\n\r\nHTTP/1.1 204" in received
        assert len(app.extensions[channel.STREAMING]) == 0
        both.close()


def test_a_stream_s_connection_is_dropped_when_the_screen_stops_acknowledging():
    """A phone gone without a word (Wi-Fi lost): the system closes its stream's
    connection once what was sent waits UNACKED seconds for an acknowledgement, rather
    than keeping it some 15 minutes (Linux's TCP_USER_TIMEOUT; elsewhere, MAX_AGE)."""
    if not hasattr(socket, "TCP_USER_TIMEOUT"):
        pytest.skip("no TCP_USER_TIMEOUT on this system")
    class Phone:
        socket = socket.socket()

    listening = streams.Streams(dispatch=None, draw=None)
    listening.open(Phone, streams.Stream("token", {}), 3)
    waited = Phone.socket.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT)
    Phone.socket.close()
    assert waited == streams.UNACKED * 1000 and len(listening) == 1


def _listening(app) -> streams.Streams:
    """Streams of `app`'s games, drawn in process (no worker: see _redrawn)."""
    return streams.Streams(dispatch=None, draw=partial(poll_drawn, app))


def _redrawn(listening, app, token: str, streams_open: dict, shown: int) -> None:
    """The streams `streams_open` (name: connection), in that order, drawn at the game's
    stamp from `shown`, as the Watch has them drawn when the game moves."""
    streams.Redraw(listening, stamp(app, token),
                   [(connection, shown) for connection in streams_open.values()]).service()


def _polled(app, client, path: str, shown: int) -> bytes:
    """The event of the live part `client`'s poll of `path` from `shown` is answered, at
    its game's stamp now."""
    answer = client.get(f"{path}?v={shown}", headers={"HX-Request": "true"})
    return streams._event(stamp(app, path.split("/")[2]), answer.data)


def _last_event(connection: StreamConnection) -> bytes:
    return connection.written[-1].split(b"\r\n")[1]


def test_each_phone_s_stream_shows_what_its_own_poll_shows(tmp_path):
    """Money stays secret (R12): a stream is drawn as its phone's own poll, with its
    cookies and address, so each seated phone's event is its own seat's part, the same
    as it would poll, never another seat's."""
    app = make_app(tmp_path / "data")
    host = app.test_client()
    token = new_game(host)
    phones = {name: phone_client(app, f"192.168.1.{number}")
              for number, name in enumerate(("Bert", "Claus"), 21)}
    for name, phone in phones.items():
        join(phone, token, name)
    shown, path = stamp(app, token), f"/g/{token}/me/live"
    listening = _listening(app)
    streams_open = {name: opened(listening, app, phone, path, shown)
              for name, phone in phones.items()}
    play(host, token, GAME[:2])  # Anna buys the lot for 3 (R8)
    _redrawn(listening, app, token, streams_open, shown)
    for name, phone in phones.items():
        assert _last_event(streams_open[name]) == _polled(app, phone, path, shown)
    assert streams_open["Bert"].written != streams_open["Claus"].written
    for connection in streams_open.values():
        connection.socket.close()


def test_screens_of_one_view_share_its_drawing_each_with_its_own_form_token(tmp_path):
    """The table screens of watching phones show the same, and so do two windows of the
    table on the server's own device: once the first of a view is drawn, the others'
    streams take it kept, each with its own device's CSRF token in its forms, as its own
    poll would show it."""
    app = make_app(tmp_path / "data")
    host = app.test_client()
    token = new_game(host)
    path, listening, asked = f"/g/{token}/live", _listening(app), []
    screens = {"watcher": phone_client(app, "192.168.1.41"),
               "other watcher": phone_client(app, "192.168.1.42"),
               "window": host, "other window": app.test_client()}
    for client in screens.values():
        client.get(f"/g/{token}")  # a session, and so a CSRF token, of its own
    shown = stamp(app, token)
    streams_open = {name: opened(listening, app, client, path, shown)
              for name, client in screens.items()}
    listening.draw = _counted(listening.draw, asked)
    for step in GAME[:2]:
        shown = stamp(app, token)
        play(host, token, [step])
        _redrawn(listening, app, token, streams_open, shown)
        for name, client in screens.items():
            assert _last_event(streams_open[name]) == _polled(app, client, path, shown)
    assert asked == [path] * 6  # the second of each view was not drawn again
    windows = (_last_event(streams_open[name]) for name in ("window", "other window"))
    assert len(set(windows)) == 2  # each with its own token
    for connection in streams_open.values():
        connection.socket.close()


def _counted(draw, asked: list):
    """`draw` (a stream's poll drawn), noting the path of each poll it is asked."""
    def counted(environ):
        asked.append(environ["PATH_INFO"])
        return draw(environ)
    return counted


def test_a_stream_that_lost_its_host_rights_or_its_seat_is_drawn_as_what_it_is_now(
        tmp_path):
    """A device the host granted host rights, then revoked them, and a phone whose seat
    was freed and taken by another, get on their streams what their polls would show now
    (no host controls; no other seat's money, R12), even where the host's screen and the
    seat's new phone were drawn just before them."""
    app = make_app(tmp_path / "data")
    host = app.test_client()
    token = new_game(host)
    granted, lost, taker = (phone_client(app, f"192.168.1.{n}") for n in (30, 31, 32))
    key = app.config["STORE"].secret("host_key")
    submit(granted, f"/host/{key}", f"/host/{key}", label="Eva's tablet")
    join(lost, token, "Bert")
    shown, listening = stamp(app, token), _listening(app)
    table, phone = f"/g/{token}/live", f"/g/{token}/me/live"
    streams_open = {"host": opened(listening, app, host, table, shown),
                    "granted": opened(listening, app, granted, table, shown),
                    "lost": opened(listening, app, lost, phone, shown)}
    play(host, token, GAME[:1])
    _redrawn(listening, app, token, streams_open, shown)
    assert "Free Bert" in _last_event(streams_open["granted"]).decode()  # a host's screen
    assert submit(host, "/", "revoke").status_code == 303
    freed = host.post(f"/g/{token}/seats/1/free", headers=csrf_headers(host))
    assert freed.status_code == 303
    join(taker, token, "Bert")
    shown = stamp(app, token)
    streams_open = {"host": streams_open["host"], "granted": streams_open["granted"],
                    "taker": opened(listening, app, taker, phone, shown),
                    "lost": streams_open["lost"]}
    play(host, token, GAME[1:2])
    _redrawn(listening, app, token, streams_open, shown)
    for name, client, path in (("granted", granted, table), ("taker", taker, phone),
                               ("lost", lost, phone)):
        assert _last_event(streams_open[name]) == _polled(app, client, path, shown)
    assert "Free Bert" not in _last_event(streams_open["granted"]).decode()
    assert _last_event(streams_open["lost"]) != _last_event(streams_open["taker"])
    for connection in streams_open.values():
        connection.socket.close()


def test_a_game_s_streams_are_bounded_and_a_screen_past_them_polls(tmp_path, monkeypatch):
    """A game holds PER_GAME streams at most (here 1; a table has a dozen screens): the
    next screen is told 204 and polls; once a stream closes, a screen may open one."""
    monkeypatch.setattr(streams, "PER_GAME", 1)
    app = create_app(tmp_path / "data")
    poll = new_game_poll(app)
    with served(app, hold=30) as (port, _):
        first = stream_of(port, poll)
        assert first.status == 200 and first.chunk() == RETRY
        until(lambda: len(app.extensions[channel.STREAMING]) == 1, "the stream is open")
        assert stream_of(port, poll).status == 204
        other = stream_of(port, new_game_poll(app))  # another game's
        assert other.status == 200
        first.close()
        until(lambda: len(app.extensions[channel.STREAMING]) == 1, "the first is forgotten")
        assert stream_of(port, poll).status == 200
        other.close()


# The app's guards before a request, which a stream's poll does not pass again
# (pages.poll_drawn): each says of the poll what it said of its stream's request, which
# has the same address, Host and cookies (a live part's route is anyone's, below), or acts
# on POSTs only. A guard added to the app must be weighed for streams, and added here.
GUARDS = {"_known_keys", "_check_request", "_pace", "_check_csrf", "_only_with_a_key"}


def test_every_stream_s_poll_is_open_to_anyone_as_its_stream_is(tmp_path):
    """A stream's poll is drawn by its view alone (pages.poll_drawn), without the guards
    the stream's own request passed as it opened: so each stream's poll route must be one
    anyone may ask, as the stream's is (roles.ROUTES), and the app's guards the ones
    weighed for it (GUARDS)."""
    app = create_app(tmp_path / "data", hosted=True)  # (with the operator's guard)
    assert {guard.__name__ for guards in app.before_request_funcs.values()
            for guard in guards} == GUARDS
    endpoints = {rule.rule: rule.endpoint for rule in app.url_map.iter_rules()}
    streamed = {path: endpoint for path, endpoint in endpoints.items()
                if path.endswith("/events")}
    assert len(streamed) == 3  # the table, a phone, the TV view
    for path, endpoint in streamed.items():
        poll = endpoints[path.removesuffix("/events")]
        assert roles.ROUTES[endpoint] == roles.ROUTES[poll] == roles.ANYONE, poll


def test_on_a_hosted_server_a_watcher_that_becomes_a_host_is_drawn_as_one(tmp_path):
    """On a hosted server a device becomes a game's host by its host link with the cookie
    it had: its stream shows the host's screen at the next change (the record's form),
    even where another watcher's screen was drawn just before it."""
    app = make_app(tmp_path / "data", hosted=True)
    maker, watcher, partner = (phone_client(app, f"203.0.113.{n}") for n in (7, 8, 9))
    token = new_game(maker)
    new_game(partner)  # the partner's device has a token of its own already
    cookie = partner.get_cookie(app.config["SESSION_COOKIE_NAME"]).value
    shown, listening, table = stamp(app, token), _listening(app), f"/g/{token}/live"
    streams_open = {"watcher": opened(listening, app, watcher, table, shown),
                    "partner": opened(listening, app, partner, table, shown)}
    play(maker, token, GAME[:1])
    _redrawn(listening, app, token, streams_open, shown)
    assert "action-sold" not in _last_event(streams_open["partner"]).decode()  # (a watcher)
    link = host_link(maker, token)
    assert submit(partner, link, link, label="Bo's phone").status_code == 303
    assert partner.get_cookie(app.config["SESSION_COOKIE_NAME"]).value == cookie
    shown = stamp(app, token)
    play(maker, token, GAME[1:2])
    _redrawn(listening, app, token, streams_open, shown)
    assert _last_event(streams_open["partner"]) == _polled(app, partner, table, shown)
    assert "action-reveal" in _last_event(streams_open["partner"]).decode()
    assert "action-reveal" not in _last_event(streams_open["watcher"]).decode()
    for connection in streams_open.values():
        connection.socket.close()


def test_a_stream_whose_poll_the_server_cannot_draw_ends_and_says_nothing_of_it(tmp_path,
                                                                              monkeypatch):
    """The database refuses while a change is drawn (a StorageFault: the page says so in
    words when it asks again): the stream ends, with no word of the failure in it, and
    another game's streams are drawn as ever."""
    app = make_app(tmp_path / "data")
    host = app.test_client()
    token, other = new_game(host), new_game(host)
    listening, path = _listening(app), "/g/{}/live"
    shown = {game: stamp(app, game) for game in (token, other)}
    broken, fine = (opened(listening, app, host, path.format(game), shown[game])
                    for game in (token, other))
    for connection in (broken, fine):
        connection.close_when_flushed = False
    game = app.config["GAMES"].game

    def refused(asked, *args, **kwargs):
        if asked == token:
            raise StorageFault("the disk is full")
        return game(asked, *args, **kwargs)
    for played in (token, other):
        play(host, played, GAME[:1])
    monkeypatch.setattr(app.config["GAMES"], "game", refused)
    _redrawn(listening, app, token, {"broken": broken}, shown[token])
    _redrawn(listening, app, other, {"fine": fine}, shown[other])
    assert broken.written == [streams.END] and broken.close_when_flushed
    assert _last_event(fine).startswith(b"id: %d\n" % stamp(app, other))
    for connection in (broken, fine):
        connection.socket.close()
