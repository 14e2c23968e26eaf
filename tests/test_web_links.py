"""The links screens draw are built once and kept (render/links.py): a kept link is the
link werkzeug builds, under the root the request came in under."""
from flask import url_for

from tests.web_helpers import app  # noqa: F401 (fixture)


def _link(app, endpoint, root="", path="/", **values) -> str:
    with app.test_request_context(path, base_url=f"http://localhost{root}/"):
        return url_for(endpoint, **values)


def test_a_kept_link_is_built_again_under_another_root(app):
    assert _link(app, "table.table", token="T") == "/g/T"
    assert _link(app, "table.table", token="T", root="/cafe") == "/cafe/g/T"
    assert _link(app, "table.table", token="T") == "/g/T"


def test_a_link_relative_to_a_blueprint_is_of_the_request_s_blueprint(app):
    assert _link(app, ".live", path="/g/T", token="T") == "/g/T/live"
    assert _link(app, ".live", path="/g/T/tv", token="T") == "/g/T/tv/live"


def test_links_with_values_that_cannot_be_kept_are_built_each_time(app):
    assert _link(app, "table.table", token="T", seen=[1, 2]) == "/g/T?seen=1&seen=2"
    assert _link(app, "table.table", token="T", v=3) == "/g/T?v=3"
