"""The links a screen draws, each built once and kept: a table screen links its game's
pages some twenty times, the same links from one change to the next, and werkzeug builds
each in some 13 µs."""
from flask import Flask, has_request_context, request

from .assets import VERSIONED

LINKS_KEPT = 16384  # a café's games' links, with room (all forgotten when full)
LONGEST_KEPT = 256  # characters: a longer link (one made of what a request sent) is not kept


class Linking(Flask):
    """Flask, its links within a request kept by what they are built from: the root the
    request came under (a proxy's prefix), the endpoint (and, for one relative to the
    request's blueprint, that blueprint) and the values, in order, with their types."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._links: dict[tuple, str] = {}

    def url_for(self, /, endpoint: str, *, _anchor=None, _method=None, _scheme=None,
                _external=None, **values) -> str:
        """Flask's link, kept when it is a plain one (no anchor, method, scheme or host)
        built in a request, short, and not of a file named by its version (assets.py)."""
        if (_anchor is None and _method is None and _scheme is None and _external is None
                and endpoint not in VERSIONED and has_request_context()):
            return self._kept(endpoint, values)
        return super().url_for(endpoint, _anchor=_anchor, _method=_method, _scheme=_scheme,
                               _external=_external, **values)

    def _kept(self, endpoint: str, values: dict) -> str:
        key = (request.script_root, endpoint[:1] == "." and request.blueprint, endpoint,
               *values.items(), *map(type, values.values()))
        try:
            return self._links[key]
        except KeyError:
            link = super().url_for(endpoint, **values)
        except TypeError:  # a value that cannot be a key (a list): built each time
            return super().url_for(endpoint, **values)
        if len(link) <= LONGEST_KEPT:  # (every value is in the link: the key is as short)
            if len(self._links) >= LINKS_KEPT:
                self._links.clear()
            self._links[key] = link
        return link
