"""The files every page loads, from static/: app.css, app.js, and htmx with its sse
extension as htmx publishes them (each file's name has its version; its licence beside
it). Their URLs name their version, so browsers keep them for a year (revalidating with
their ETag after that) and a new version bypasses the cache."""
from pathlib import Path

from flask import Blueprint, current_app, request

assets = Blueprint("assets", __name__)
ONE_YEAR = 365 * 24 * 3600


@assets.record_once
def _keep_static_files(state) -> None:
    """Flask's static files are kept a year, like htmx: their URLs name their version."""
    state.app.config["SEND_FILE_MAX_AGE_DEFAULT"] = ONE_YEAR


@assets.app_url_defaults
def _static_version(endpoint: str, values: dict) -> None:
    """/static/app.css?v=<its modification time>: a changed file gets a new URL."""
    if endpoint == "static":
        path = Path(current_app.static_folder) / values["filename"]
        values.setdefault("v", f"{path.stat().st_mtime_ns:x}")


def serves_asset(response) -> bool:
    """Whether `response` is one of these files (not an error page about one)."""
    return request.endpoint == "static" and response.status_code < 400
