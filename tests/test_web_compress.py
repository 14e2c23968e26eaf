"""gzip on the wire (issue 13): a table or phone page's first load, the page with its CSS,
app.js and htmx, fits in 40 KB; the static files are compressed once and kept a year."""
import gzip
import html
import re
from unittest import mock

import pytest

from companion.web.render import compress
from tests.web_helpers import GAME, join, new_game, play
from tests.web_helpers import app, game, host, phone  # noqa: F401 (fixtures)

GZIP = {"Accept-Encoding": "gzip, deflate, br"}  # as a phone's browser asks
FIRST_LOAD = 40 * 1024  # bytes on the wire


def first_load(client, page: str) -> list[str]:
    """A page and the files it loads (stylesheet and scripts), as it names them."""
    text = client.get(page).get_data(as_text=True)
    return [page] + [html.unescape(url) for url in
                     re.findall(r'<(?:link rel="stylesheet" href|script src)="([^"]+)"', text)]


@pytest.fixture
def screens(host, phone, game):
    """The table page and Anna's phone page in the middle of a game, a lot on the table,
    and the table page of a new game (the largest: every card of the reveal grid)."""
    join(phone, game, "Anna")
    play(host, game, GAME[:9])
    return {"table": (host, f"/g/{game}"), "phone": (phone, f"/g/{game}/me"),
            "new game": (host, f"/g/{new_game(host)}")}


@pytest.mark.parametrize("screen", ["new game", "table", "phone"])
def test_a_first_load_is_at_most_40_KB_on_the_wire_and_the_same_once_unzipped(screens, screen):
    client, page = screens[screen]
    urls = first_load(client, page)
    assert len(urls) == 5  # the page, app.css, htmx, its sse extension and app.js
    wire = 0
    for url in urls:
        plain, zipped = client.get(url), client.get(url, headers=GZIP)
        assert plain.status_code == zipped.status_code == 200
        assert zipped.headers["Content-Encoding"] == "gzip"
        assert "Content-Encoding" not in plain.headers
        assert int(zipped.headers["Content-Length"]) == len(zipped.data) < len(plain.data)
        assert gzip.decompress(zipped.data) == plain.data
        assert all("Accept-Encoding" in answer.headers["Vary"] for answer in (plain, zipped))
        wire += len(zipped.data)
    assert wire <= FIRST_LOAD


@pytest.mark.parametrize("asked", [{}, {"Accept-Encoding": "gzip;q=0"},
                                   {"Accept-Encoding": "identity"}, {"Accept-Encoding": "br"}])
def test_no_gzip_for_a_browser_that_does_not_take_it(screens, asked):
    client, page = screens["table"]
    for url in first_load(client, page):
        answer = client.get(url, headers=asked)
        assert "Content-Encoding" not in answer.headers
        assert int(answer.headers["Content-Length"]) == len(answer.data)
        assert answer.data == client.get(url).data


def test_static_files_are_kept_a_year_by_version_and_are_the_same_for_every_device(screens):
    client, page = screens["phone"]
    for url in first_load(client, page)[1:]:
        assert re.search(r"[?&]v=\w+$|/htmx-[\d.]+\.min\.js$", url), url
        answer = client.get(url, headers=GZIP)
        assert "max-age=31536000" in answer.headers["Cache-Control"]
        assert answer.headers["Vary"] == "Accept-Encoding"  # not Cookie nor Accept-Language
        revalidated = client.get(url, headers={**GZIP, "If-None-Match": answer.headers["ETag"]})
        assert revalidated.status_code == 304 and revalidated.data == b""
        assert "Content-Encoding" not in revalidated.headers
    assert "Cookie" in client.get(page, headers=GZIP).headers["Vary"]  # a page is a device's


def test_a_static_file_is_compressed_once(screens):
    client, page = screens["table"]
    urls = first_load(client, page)[1:]
    for url in urls:
        client.get(url, headers=GZIP)
    with mock.patch.object(compress.gzip, "compress", side_effect=AssertionError):
        for url in urls:
            assert client.get(url, headers=GZIP).headers["Content-Encoding"] == "gzip"


def test_a_range_of_a_static_file_is_sent_as_it_is(screens):
    client, page = screens["table"]
    css = first_load(client, page)[1]
    answer = client.get(css, headers={**GZIP, "Range": "bytes=0-99"})
    assert answer.status_code == 206 and "Content-Encoding" not in answer.headers
    assert answer.data == client.get(css).data[:100]


def test_a_poll_with_no_news_is_204_untouched(screens):
    for client, page in screens.values():
        shown = client.get(page).get_data(as_text=True)
        live = html.unescape(re.search(r'<div id="live" hx-get="([^"]+)"', shown).group(1))
        poll = client.get(live, headers=GZIP)
        assert poll.status_code == 204 and poll.data == b""
        assert "Content-Encoding" not in poll.headers


def test_a_screen_kept_for_every_device_reaches_each_zipped_with_its_own_token(app, host, game):
    """The host's table screen is kept once (rendered.py); two host devices, each with its
    own session, unzip it to the same page but for their own CSRF token, the one their
    session holds."""
    other = app.test_client()  # the server's own device too, in another browser
    pages = []
    for client in (host, other):
        zipped = client.get(f"/g/{game}", headers=GZIP)
        assert zipped.headers["Content-Encoding"] == "gzip"
        assert int(zipped.headers["Content-Length"]) == len(zipped.data)
        pages.append(gzip.decompress(zipped.data).decode())
    tokens = [set(re.findall(r'name="csrf_token" value="([^"]+)"', page)) for page in pages]
    assert [len(found) for found in tokens] == [1, 1] and tokens[0] != tokens[1]
    for client, page, (token,) in zip((host, other), pages, tokens):
        with client.session_transaction() as session:
            assert session["csrf_token"] == token
    assert pages[0].replace(*tokens[0], "T") == pages[1].replace(*tokens[1], "T")
