"""The links screens draw are built once and kept (render/links.py): a kept link is the
link werkzeug builds, under the root the request came in under."""
import os
import shutil

from flask import Flask, url_for

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


def test_a_link_is_built_once_unless_it_is_long_or_its_values_cannot_be_kept(app, monkeypatch):
    built = []
    build = Flask.url_for
    monkeypatch.setattr(Flask, "url_for", lambda *args, **values: built.append(values)
                        or build(*args, **values))
    long = "x" * 300
    links = [({"token": "T", "v": 3}, "/g/T?v=3"), ({"token": "T", "v": True}, "/g/T?v=True"),
             ({"token": "T", "seen": [1, 2]}, "/g/T?seen=1&seen=2"),
             ({"token": long}, f"/g/{long}")]
    for _ in range(2):
        for values, link in links:
            assert _link(app, "table.table", **values) == link
    assert built == [values for values, _ in links] + [values for values, _ in links[2:]]


def test_a_static_file_s_link_names_the_version_it_has_now(app, tmp_path):
    """A changed app.css gets a new link (its browsers keep it a year: render/assets.py)."""
    shutil.copy(os.path.join(app.static_folder, "app.css"), tmp_path / "app.css")
    app.static_folder = str(tmp_path)
    before = _link(app, "static", filename="app.css")
    os.utime(tmp_path / "app.css", ns=(0, 10**18))
    assert _link(app, "static", filename="app.css") != before
