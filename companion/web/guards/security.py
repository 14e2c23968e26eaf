"""CSRF protection for every POST, and the security headers of every response (who may
do what is decided in `roles`)."""
import secrets

from flask import abort, request, session

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
# On every response, pages, fragments, errors and files alike: scripts, styles, images
# and requests from this server only, never inline (no script or style in the markup);
# never in a frame; no Referer, since game links carry their token.
HEADERS = {
    "Content-Security-Policy": "; ".join((
        "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self'",
        "connect-src 'self'", "form-action 'self'", "frame-ancestors 'none'",
        "base-uri 'none'", "object-src 'none'")),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


def init(app) -> None:
    app.before_request(_check_csrf)
    app.after_request(_add_headers)
    app.context_processor(lambda: {"csrf_token": csrf_token()})


def _add_headers(response):
    response.headers.update(HEADERS)
    return response


def csrf_token() -> str:
    """This browser's token; forms carry it back, cross-site posts cannot."""
    if CSRF_FIELD not in session:
        session[CSRF_FIELD] = secrets.token_urlsafe(32)
        session.permanent = True
    return session[CSRF_FIELD]


def _check_csrf() -> None:
    if request.method != "POST":
        return
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD, "")
    expected = session.get(CSRF_FIELD)
    if not expected or not secrets.compare_digest(sent.encode(), expected.encode()):
        abort(400)
