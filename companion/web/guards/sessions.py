"""Flask's signed-cookie session, its cookie Secure whenever the request came over HTTPS
(behind a reverse proxy that says so: guards/proxy.py)."""
from flask import request
from flask.sessions import SecureCookieSessionInterface


class Sessions(SecureCookieSessionInterface):
    """Flask's sessions, the cookie Secure over HTTPS."""

    def get_cookie_secure(self, app) -> bool:
        return super().get_cookie_secure(app) or request.is_secure
