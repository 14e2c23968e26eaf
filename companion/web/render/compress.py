"""gzip on the wire: the first load of a table or phone page fits in 40 KB.

Text answers of more than MIN_SIZE bytes are compressed when the browser takes gzip
(Accept-Encoding, q=0 meaning no). Pages and parts are compressed as they are answered;
the static files (htmx among them) once per version of the file, kept in memory. Answers
with no body (204, 304), ranges (206) and streams are sent as they are. The standard
library's gzip: nothing native to build on a phone acting as host.
"""
import gzip

from flask import request

from .assets import serves_asset

TYPES = frozenset({"text/html", "text/css", "text/javascript", "application/javascript",
                   "image/svg+xml", "application/json"})
MIN_SIZE = 500  # bytes: below this, gzip's header and dictionary gain next to nothing
PAGE_LEVEL = 1  # compressed on every answer: the fastest (a page only 10% larger than at 6)
FILE_LEVEL = 9  # compressed once per version of the file: smallest
_files: dict[str, bytes] = {}  # a static file's gzip, by its ETag (made of path, mtime, size)


def init(app) -> None:
    """Registered after the other handlers, so it runs first: they only add headers."""
    app.after_request(compress)


def compress(response):
    """`response` in gzip if it gains from it and the browser takes gzip; a cache is told
    that the answer depends on Accept-Encoding either way."""
    if not _compressible(response):
        return response
    response.vary.add("Accept-Encoding")
    if request.accept_encodings["gzip"] > 0:
        if response.direct_passthrough:
            body = _file_gzip(response)
        else:
            body = gzip.compress(response.get_data(), PAGE_LEVEL, mtime=0)
        response.direct_passthrough = False
        response.set_data(body)  # sets Content-Length
        response.content_encoding = "gzip"
        response.headers.pop("Accept-Ranges", None)  # ranges are of the file as it is
    return response


def _compressible(response) -> bool:
    """A text answer of more than MIN_SIZE bytes, the whole of it at hand: a page or
    part, or a static file (a 200: not a range, not a 304)."""
    if (response.status_code in (204, 206, 304) or response.content_encoding
            or response.mimetype not in TYPES or (response.content_length or 0) <= MIN_SIZE):
        return False
    if response.direct_passthrough or response.is_streamed:
        return serves_asset(response) and response.status_code == 200
    return True


def _file_gzip(response) -> bytes:
    """A static file's gzip, made on its first answer only; the open file is closed. Its
    ETag turns weak: the bytes differ, and a revalidation still gets its 304."""
    etag, _ = response.get_etag()
    file = response.response
    try:
        if etag not in _files:
            _files[etag] = gzip.compress(b"".join(file), FILE_LEVEL, mtime=0)
    finally:
        file.close()
    response.set_etag(etag, weak=True)
    return _files[etag]
