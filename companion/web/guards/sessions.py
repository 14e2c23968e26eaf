"""Flask's signed-cookie session, read only when a request asks for it: a poll that finds
nothing new never checks the cookie's signature nor decodes it (a fifth of its time)."""
import json
import threading
import time
from collections import OrderedDict

from flask import request
from flask.sessions import SecureCookieSessionInterface, SessionMixin

VERIFIED_FOR = 60  # seconds
COOKIES_KEPT = 4096  # a café's devices, with room to spare


class LazySession(SessionMixin):
    """The session, decoded from the cookie on first use."""

    def __init__(self, load):
        self._load = load
        self.loaded = None

    @property
    def _session(self):
        if self.loaded is None:
            self.loaded = self._load()
        return self.loaded

    @property
    def modified(self) -> bool:
        return self.loaded is not None and self.loaded.modified

    @property
    def accessed(self) -> bool:
        return self.loaded is not None and self.loaded.accessed

    @accessed.setter
    def accessed(self, value: bool) -> None:
        """Flask marks the session at each use; it is marked once it is read."""

    def __getitem__(self, key):
        return self._session[key]

    def __setitem__(self, key, value):
        self._session[key] = value

    def __delitem__(self, key):
        del self._session[key]

    def __iter__(self):
        return iter(self._session)

    def __len__(self):
        return len(self._session)


class LazySessions(SecureCookieSessionInterface):
    """Sessions opened lazily, saved only if they were opened. A cookie whose signature
    was checked is taken as it is for VERIFIED_FOR seconds (a phone sends the same one
    with every request), without checking it again."""

    def __init__(self):
        self._verified: OrderedDict[str, tuple[float, str]] = OrderedDict()
        self._lock = threading.Lock()

    def open_session(self, app, request) -> LazySession:
        return LazySession(lambda: self._open(app, request))

    def _open(self, app, request):
        cookie = request.cookies.get(self.get_cookie_name(app))
        with self._lock:
            until, data = self._verified.get(cookie, (0, None))
        if until > time.monotonic():
            return self.session_class(json.loads(data))
        found = super().open_session(app, request)
        if found is None:
            return self.make_null_session(app)
        if cookie and found:
            self._remember(cookie, json.dumps(found))
        return found

    def _remember(self, cookie: str, data: str) -> None:
        with self._lock:
            self._verified[cookie] = (time.monotonic() + VERIFIED_FOR, data)
            while len(self._verified) > COOKIES_KEPT:
                self._verified.popitem(last=False)

    def get_cookie_secure(self, app) -> bool:
        """Over HTTPS (behind a proxy that says so), the cookie goes over HTTPS only."""
        return super().get_cookie_secure(app) or request.is_secure

    def save_session(self, app, session, response) -> None:
        if session.loaded is not None:
            super().save_session(app, session.loaded, response)
