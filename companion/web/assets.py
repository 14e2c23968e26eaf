"""htmx, served from its registry package (django-js-lib-htmx) with a long cache life."""
import importlib.metadata
import importlib.util
from pathlib import Path

from flask import Blueprint, send_from_directory

assets = Blueprint("assets", __name__)
HTMX_DIR = Path(importlib.util.find_spec("js_lib_htmx").origin).parent / "static" / "htmx"
HTMX_VERSION = importlib.metadata.version("django-js-lib-htmx")
ONE_YEAR = 365 * 24 * 3600


@assets.app_context_processor
def htmx_url():
    return {"htmx_url": f"/vendor/htmx-{HTMX_VERSION}.min.js"}


@assets.get("/vendor/htmx-<version>.min.js")
def htmx(version):
    """The version in the URL lets a new htmx bypass the long cache."""
    return send_from_directory(HTMX_DIR, "htmx.min.js", max_age=ONE_YEAR)
