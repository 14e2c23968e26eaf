"""The links a screen draws, each built once and kept: a table screen links its game's
pages some thirty times, the same links from one change to the next, and werkzeug
builds each in some 15 µs."""
from flask import Flask, has_request_context, request

LINKS_KEPT = 16384  # a café's games' links, with room (all forgotten when full)
UNKEPT = frozenset({"static"})  # a static file's link names its version (render/assets.py)


class Linking(Flask):
    """Flask, its links within a request kept by what they are built from: the root the
    request came under (a proxy's prefix), the endpoint (and, for one relative to the
    request's blueprint, that blueprint) and the values, in order."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._links: dict[tuple, str] = {}

    def url_for(self, /, endpoint: str, *, _anchor=None, _method=None, _scheme=None,
                _external=None, **values) -> str:
        if (_anchor is None and _method is None and _scheme is None and _external is None
                and endpoint not in UNKEPT and has_request_context()):
            key = (request.script_root, endpoint[:1] == "." and request.blueprint, endpoint,
                   *values.items())
            try:
                return self._links[key]
            except KeyError:
                link = super().url_for(endpoint, **values)
            except TypeError:  # a value that cannot be a key (a list): built each time
                return super().url_for(endpoint, **values)
            if len(self._links) >= LINKS_KEPT:
                self._links.clear()
            self._links[key] = link
            return link
        return super().url_for(endpoint, _anchor=_anchor, _method=_method, _scheme=_scheme,
                               _external=_external, **values)
