"""gzip on the wire: the first load of a table or phone page fits in 40 KB.

Text answers of more than MIN_SIZE bytes are compressed when the browser takes gzip
(Accept-Encoding, q=0 meaning no). Pages and parts are compressed as they are answered;
the static files and htmx once per version of the file, kept in memory; a screen kept for
every device (rendered.py) once, but for each device's own words in it (see Holed).
Answers with no body (204, 304), ranges (206) and other streams are sent as they are. The
standard library's gzip and zlib: nothing native to build on a phone acting as host.
"""
import gzip
import struct
import zlib

from flask import Response, request

from .assets import serves_asset

TYPES = frozenset({"text/html", "text/css", "text/javascript", "application/javascript",
                   "image/svg+xml", "application/json"})
MIN_SIZE = 500  # bytes: below this, gzip's header and dictionary gain next to nothing
PAGE_LEVEL = 1  # compressed on every answer: the fastest (a page only 10% larger than at 6)
FILE_LEVEL = 9  # compressed once per version of the file: smallest
WINDOW = 32 * 1024  # bytes a deflate block may refer back to (RFC 1951)
# zlib's memory level for a kept screen's pieces: at 4 a compressor is made in 2 µs rather
# than 34 µs at the default 8 (a screen has a piece per form), for under 1% more bytes.
MEMORY_LEVEL = 4
_files: dict[str, bytes] = {}  # a static file's gzip, by its ETag (made of path, mtime, size)
# A gzip member's header (RFC 1952: deflate, no name, no time, unknown system) and the
# last, empty block that ends its deflate data (RFC 1951).
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
_LAST_BLOCK = zlib.compressobj(PAGE_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS).flush()


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
        if isinstance(response, Filled):
            body = response.holed.gzip(response.words)
        elif response.direct_passthrough:
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


class Holed:
    """A text kept for many devices, the same for all but for holes where each puts its
    own words of a known length (its CSRF token). The first two devices' answers are
    compressed as any answer; from the third on, the pieces between the holes are
    deflated once, each ending on a byte boundary (RFC 1951), and a device's gzip is those
    pieces with its own words between them, and the checksum of the whole. A piece may
    refer back to the pieces before it (they are its dictionary), never to a hole: the
    holes stand in the dictionary as NUL bytes, which no HTML holds, and as long as the
    words."""

    def __init__(self, text: str, hole: str, words_length: int):
        self.pieces = [piece.encode() for piece in text.split(hole)]
        self.words_length = words_length
        # bytes of text kept (once a third device asks, the pieces deflated add a third)
        self.size = sum(map(len, self.pieces))
        self._asked = 0  # devices that had it compressed whole
        self._deflated: list[bytes] | None = None

    def filled(self, words: str) -> bytes:
        """The text with `words` in every hole."""
        return words.encode().join(self.pieces)

    def gzip(self, words: str) -> bytes:
        """The gzip of `filled(words)`: compressed whole for the first two devices (and
        for words not of the holes' length), else made of the pieces deflated once."""
        filler = words.encode()
        if len(filler) != self.words_length or not self._shared():
            return gzip.compress(self.filled(words), PAGE_LEVEL, mtime=0)
        between, crc = _stored(filler), 0
        out = [_GZIP_HEADER]
        for index, (piece, deflated) in enumerate(zip(self.pieces, self._deflated)):
            if index:
                out.append(between)
                crc = zlib.crc32(filler, crc)
            out.append(deflated)
            crc = zlib.crc32(piece, crc)
        size = self.size + len(filler) * (len(self.pieces) - 1)
        out += [_LAST_BLOCK, struct.pack("<II", crc, size & 0xFFFFFFFF)]
        return b"".join(out)

    def _shared(self) -> bool:
        """Whether the pieces are deflated: at the third device's gzip, since deflating
        them costs twice what compressing one answer does (a screen shown on one phone, or
        on a table's screen and once more to answer its own poll, is never deflated in
        pieces). Two threads may both deflate them: the same bytes."""
        if self._deflated is None:
            if self._asked < 2:
                self._asked += 1
                return False
            # a piece's NUL could otherwise refer into a hole
            referable = b"\0" not in b"".join(self.pieces)
            before, deflated = b"", []
            for piece in self.pieces:
                deflated.append(_deflated(piece, before[-WINDOW:]))
                before += (piece + b"\0" * self.words_length) if referable else b""
            self._deflated = deflated
        return True


class Filled(Response):
    """A kept screen with this device's words in its holes, as an HTML answer; `compress`
    sends the gzip made of the pieces deflated once."""

    def __init__(self, holed: Holed, words: str):
        super().__init__(holed.filled(words), mimetype="text/html")
        self.holed, self.words = holed, words


def _deflated(data: bytes, before: bytes = b"") -> bytes:
    """`data` as deflate blocks that refer to nothing but themselves and `before` (what
    precedes them, at most a window), ending on a byte boundary, so that such blocks can
    be joined."""
    compressor = zlib.compressobj(PAGE_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS, MEMORY_LEVEL,
                                  **({"zdict": before} if before else {}))
    return compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)


def _stored(data: bytes) -> bytes:
    """`data` as one stored (uncompressed) deflate block, not the last (RFC 1951 3.2.4):
    a device's token, random, would not shrink, and costs no compressor this way."""
    return b"\x00" + struct.pack("<HH", len(data), len(data) ^ 0xFFFF) + data
