"""The answer to the request a café sends most: a screen's poll that finds nothing new.

Each screen asks every second or so whether its game's stamp is still the one it shows
(`GET /g/<token>/live?v=<stamp>`, likewise `/me/live` and `/tv/live`). Such a poll is
answered here, in front of Flask: the Host header checked as for every request (see
roles), one query on the thread's open connection, and a 204 with no body and the usual
security headers. Anything else, or any doubt, goes on to Flask, which answers it the
same way (`pages.live_or_204`) or draws the screen afresh; so does a poll whose game's
stamp the server's loop has read already (server/channel.py), with that stamp.
"""
import re
import sqlite3
from urllib.parse import parse_qsl

from werkzeug.sansio.utils import get_host

from companion.store.sql import StorageFault
from companion.web.guards.roles import names_this_server
from companion.web.guards.security import HEADERS
from .pages import STAMP_READ, URL_KEY, shows

POLLS = re.compile(rf"/g/({URL_KEY.pattern})/(?:me/|tv/)?live")
NOTHING_NEW = [*HEADERS.items(), ("Content-Length", "0")]


class QuietPolls:
    """WSGI middleware: 204 for a poll whose game has not changed, before Flask."""

    def __init__(self, app):
        self.app, self.flask = app, app.wsgi_app

    def __call__(self, environ, start_response):
        if STAMP_READ not in environ and self.unchanged(environ) is not None:
            start_response("204 NO CONTENT", list(NOTHING_NEW))
            return []
        return self.flask(environ, start_response)

    def unchanged(self, environ) -> tuple[str, int] | None:
        """The game's token and stamp if `environ` is a poll whose game's stamp is the one
        it shows; None for any other request, or any doubt (Flask answers it)."""
        if environ.get("REQUEST_METHOD") != "GET":
            return None
        polled = POLLS.fullmatch(environ.get("PATH_INFO", ""))
        if polled is None or "HTTP_HOST" not in environ:
            return None
        host = get_host(environ["wsgi.url_scheme"], environ["HTTP_HOST"])  # as request.host
        if not host or not names_this_server(host, self.app.config["HOST_NAMES"]):
            return None
        token = polled.group(1)
        try:
            stamp = self.app.config["STORE"].stamp(token)
        except (StorageFault, sqlite3.Error):
            return None  # Flask says so in words
        if stamp is None:
            return None  # Flask answers 404
        environ[STAMP_READ] = stamp  # Flask draws the screen at this stamp, not asking again
        if shows(stamp, dict(parse_qsl(environ.get("QUERY_STRING", ""))).get("v")):
            return token, stamp
        return None
