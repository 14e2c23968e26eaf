"""CSRF protection for every POST, and who counts as the host."""
import ipaddress
import secrets

from flask import abort, current_app, request, session

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"


def init(app) -> None:
    app.before_request(_check_csrf)
    app.context_processor(lambda: {"csrf_token": csrf_token(), "is_host": is_host()})


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


def is_host() -> bool:
    """The device running the server, or one that opened the host link."""
    if session.get("host") == current_app.config["HOST_KEY"]:
        return True
    try:
        return ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False


def make_host() -> None:
    session["host"] = current_app.config["HOST_KEY"]
    session.permanent = True


def require_host() -> None:
    if not is_host():
        abort(403)
