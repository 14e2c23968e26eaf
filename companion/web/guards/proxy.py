"""A server behind a reverse proxy (`--proxy ADDRESS`): each device's own address and the
scheme it used, as the proxy forwards them (X-Forwarded-For, X-Forwarded-Proto), believed
from that address only (werkzeug's ProxyFix), so that the limits and roles see devices,
not the proxy. Under HTTPS, every cookie is sent over HTTPS only and browsers are told to
come back over HTTPS only (HSTS). The public name the proxy serves is one of the names
this server answers to (`--name`, see roles)."""
from flask import request
from werkzeug.middleware.proxy_fix import ProxyFix

PROXY = "PROXY"  # the app's config key: the proxy's address, or None
HSTS = "max-age=31536000"  # a year


class TrustedProxy:
    """WSGI middleware: ProxyFix for the requests that come from `proxy`, none else."""

    def __init__(self, app, proxy: str):
        self.app, self.proxy = app, proxy
        self.forwarded = ProxyFix(app, x_for=1, x_proto=1)

    def __call__(self, environ, start_response):
        if environ.get("REMOTE_ADDR") == self.proxy:
            return self.forwarded(environ, start_response)
        return self.app(environ, start_response)


def init(app, proxy: str | None) -> None:
    app.config[PROXY] = proxy
    if proxy:
        app.wsgi_app = TrustedProxy(app.wsgi_app, proxy)
        app.after_request(_https_only)


def _https_only(response):
    if request.is_secure:
        response.headers["Strict-Transport-Security"] = HSTS
    return response
