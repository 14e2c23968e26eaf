"""The files every page loads: app.css and app.js from static/, and htmx from its registry
package (django-js-lib-htmx). Their URLs name their version, so browsers keep them for a
year (revalidating with their ETag after that) and a new version bypasses the cache."""
import importlib.metadata
import importlib.util
from pathlib import Path

from flask import Blueprint, current_app, request, send_from_directory

assets = Blueprint("assets", __name__)
HTMX_DIR = Path(importlib.util.find_spec("js_lib_htmx").origin).parent / "static" / "htmx"
HTMX_VERSION = importlib.metadata.version("django-js-lib-htmx")
ONE_YEAR = 365 * 24 * 3600
ENDPOINTS = frozenset({"static", "assets.htmx"})
VERSIONED = frozenset({"static"})  # the endpoints whose links name their file's version


@assets.record_once
def _keep_static_files(state) -> None:
    """Flask's static files are kept a year, like htmx: their URLs name their version."""
    state.app.config["SEND_FILE_MAX_AGE_DEFAULT"] = ONE_YEAR


@assets.app_url_defaults
def _static_version(endpoint: str, values: dict) -> None:
    """/static/app.css?v=<its modification time>: a changed file gets a new URL."""
    if endpoint in VERSIONED:
        path = Path(current_app.static_folder) / values["filename"]
        values.setdefault("v", f"{path.stat().st_mtime_ns:x}")


@assets.app_context_processor
def htmx_url():
    return {"htmx_url": f"/vendor/htmx-{HTMX_VERSION}.min.js"}


@assets.get("/vendor/htmx-<version>.min.js")
def htmx(version):
    """The version in the URL lets a new htmx bypass the long cache."""
    return send_from_directory(HTMX_DIR, "htmx.min.js", max_age=ONE_YEAR)


def serves_asset(response) -> bool:
    """Whether `response` is one of these files (not an error page about one)."""
    return request.endpoint in ENDPOINTS and response.status_code < 400
