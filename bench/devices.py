"""Devices at a table as the benchmarks play them: a phone's or the table screen's
browser, each on one kept-alive HTTP/1.1 connection of its own (asyncio, raw, to keep
the client cheap), with its cookies; and what they read from the pages.
"""
import asyncio
import gzip
import html
import re
import secrets
import ssl
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from bench.faults import Answer, expect, forms

HOST = "127.0.0.1"
TIMEOUT = 10.0  # seconds: any one request
# What every request of a browser says besides its cookies: it takes compressed answers.
BROWSER = {"Accept-Encoding": "gzip"}
HTMX = {"HX-Request": "true"}  # what htmx adds to its requests (live parts, forms posted)
LIVE_TAG = re.compile(r'<[a-z]+\s[^>]*\bid="live"[^>]*>')
ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')


class Failed(Exception):
    """A request got no answer: a timeout, or the connection failed."""


class _Closed(ConnectionError):
    """The server closed a kept-alive connection before any byte of the answer."""


@dataclass(frozen=True)
class Live:
    """The live part of a page: the URL it asks for itself at (its hx-get), and the game's
    stamp it shows (its data-stamp)."""

    url: str
    stamp: int


def live(page: str) -> Live:
    """The live part of a page or fragment: the element with id="live"."""
    tag = LIVE_TAG.search(page)
    if tag is None:
        raise ValueError('the page has no element with id="live"')
    attributes = {name: html.unescape(value) for name, value in ATTRIBUTE.findall(tag.group())}
    return Live(attributes["hx-get"], int(attributes["data-stamp"]))


def stale(url: str) -> str:
    """A live URL as a page shown before any change would ask for it: its v set to 0."""
    parts = urlsplit(url)
    query = [(name, "0" if name == "v" else value)
             for name, value in parse_qsl(parts.query, keep_blank_values=True)]
    return urlunsplit(parts._replace(query=urlencode(query)))


class Device:
    """A browser: one kept-alive connection to the server at `host` (opened when first
    needed, and again if the server closed it while idle, from the address `source` if
    given: a phone's, not the host's loopback; over TLS with the context `tls` if given),
    and the cookies the server set."""

    def __init__(self, port: int, source: str | None = None, host: str = HOST,
                 tls: ssl.SSLContext | None = None):
        self.port, self.source, self.host, self.cookies = port, source, host, {}
        self.tls = tls
        self.reader = self.writer = None
        self.sent, self.reopened = 0, 0

    @property
    def cookie(self) -> str:
        """The Cookie header this browser sends."""
        return "; ".join(f"{name}={value}" for name, value in self.cookies.items())

    async def request(self, method: str, path: str, fields: dict | None = None,
                      files: dict | None = None, headers: dict | None = None,
                      timeout: float = TIMEOUT) -> Answer:
        """The answer (its body decompressed and decoded), or Failed. `fields` are sent as
        a form (with `files`, {name: (filename, bytes)}, as a multipart form)."""
        body, content_type = _encoded(fields, files or {}) if fields is not None else (b"", None)
        named = f"[{self.host}]" if ":" in self.host else self.host  # an IPv6 address
        head = {"Host": f"{named}:{self.port}", **BROWSER, **(headers or {})}
        if self.cookies:
            head["Cookie"] = self.cookie
        if content_type:
            head["Content-Type"] = content_type
        if body or method == "POST":
            head["Content-Length"] = str(len(body))
        message = (f"{method} {path} HTTP/1.1\r\n"
                   + "".join(f"{name}: {value}\r\n" for name, value in head.items())
                   + "\r\n").encode() + body
        try:
            async with asyncio.timeout(timeout):
                return await self._exchange(message)
        except (OSError, asyncio.IncompleteReadError, ValueError) as error:  # timeouts too
            self.close()
            raise Failed(f"{type(error).__name__} {error}".strip()) from None

    async def _exchange(self, message: bytes) -> Answer:
        """Send `message`; on a kept-alive connection the server closed before answering,
        once more on a new one (as a browser does)."""
        reused = await self._connect()
        try:
            return await self._send(message)
        except ConnectionError:
            if not reused:
                raise
        self.close()
        self.reopened += 1
        await self._connect()
        return await self._send(message)

    async def _connect(self) -> bool:
        """Whether the connection is one kept alive (else it was opened now)."""
        if self.writer is not None and not self.reader.at_eof():
            return True
        self.close()
        self.reader, self.writer = await connection(self.host, self.port, self.source,
                                                    self.tls)
        return False

    async def _send(self, message: bytes) -> Answer:
        """Send `message` on the open connection and read its answer; keep its cookies."""
        self.writer.write(message)
        self.sent += 1
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as error:
            if error.partial:
                raise
            raise _Closed() from None
        status, headers = _head(head)
        body = await self._body(status, headers)
        if headers.get("connection", "").lower() == "close":
            self.close()
        for cookie in headers.get("set-cookie", "").split("\n"):
            name, sep, value = cookie.split(";", 1)[0].strip().partition("=")
            if value:
                self.cookies[name] = value
            elif sep:  # the server removed it
                self.cookies.pop(name, None)
        if headers.get("content-encoding") == "gzip":
            body = gzip.decompress(body)
        return Answer(status, headers.get("location", ""), body.decode())

    async def _body(self, status: int, headers: dict) -> bytes:
        """The body of an answer, however its length is told."""
        if "content-length" in headers:
            return await self.reader.readexactly(int(headers["content-length"]))
        if status in (204, 304):
            return b""
        if headers.get("transfer-encoding", "").lower() == "chunked":
            return await self._chunks()
        body = await self.reader.read()  # the answer ends with the connection
        self.close()
        return body

    async def _chunks(self) -> bytes:
        """A body sent in chunks (Transfer-Encoding: chunked)."""
        body = b""
        while size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16):
            body += (await self.reader.readexactly(size + 2))[:-2]  # the chunk, then CRLF
        await self.reader.readuntil(b"\r\n")  # no trailers: the empty line after the last chunk
        return body

    def close(self) -> None:
        """Close the connection (the next request opens a new one)."""
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


def connection(host: str, port: int, source: str | None = None,
               tls: ssl.SSLContext | None = None):
    """asyncio's streams of a connection to `host`:`port`, from the address `source` if
    given, over TLS with the context `tls` if given."""
    return asyncio.open_connection(host, port, ssl=tls,
                                   local_addr=(source, 0) if source else None)


def _head(head: bytes) -> tuple[int, dict[str, str]]:
    """The status and the headers (names in lower case; repeated ones joined by lines)."""
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in filter(None, lines[1:]):
        name, _, value = line.partition(":")
        name = name.strip().lower()
        headers[name] = f"{headers[name]}\n{value.strip()}" if name in headers else value.strip()
    return status, headers


def _encoded(fields: dict, files: dict) -> tuple[bytes, str]:
    """A form's body and its Content-Type: url-encoded, or multipart with files."""
    pairs = [(name, value) for name, values in fields.items()
             for value in (values if isinstance(values, list) else [values])]
    if not files:
        return urlencode(pairs).encode(), "application/x-www-form-urlencoded"
    boundary = secrets.token_hex(16)
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
             f'{value}\r\n'.encode() for name, value in pairs]
    parts += [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
              f'filename="{filename}"\r\nContent-Type: application/json\r\n\r\n'.encode()
              + data + b"\r\n" for name, (filename, data) in files.items()]
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), \
        f"multipart/form-data; boundary={boundary}"


async def import_game(device: Device, record: bytes, timeout: float = TIMEOUT) -> str:
    """Import the game of `record` (a game record's JSON) through the home page's form, as
    a host's device does (on a hosted server, any device: it then hosts the game): the
    game's token."""
    home = expect(await device.request("GET", "/", timeout=timeout), 200, "the home page")
    form = next(form for form in forms(home.body) if form.action.endswith("/import"))
    answer = await device.request("POST", form.action, form.fields,
                                  {"record": ("game.json", record)}, timeout=timeout)
    return expect(answer, 303, "importing a game").location.rsplit("/", 1)[1]


async def take_seat(phone: Device, token: str, seat: int, timeout: float = TIMEOUT) -> str:
    """Take `seat` through the join page's form; the phone's page, opened then."""
    page = expect(await phone.request("GET", f"/g/{token}/join", timeout=timeout), 200,
                  "the join page")
    form = next(form for form in forms(page.body) if "seats" in form.classes)
    taken = await phone.request("POST", form.action, {**form.fields, "seat": [str(seat)]},
                                timeout=timeout)
    expect(taken, 303, "taking a seat")
    mine = await phone.request("GET", f"/g/{token}/me", timeout=timeout)
    return expect(mine, 200, "the phone's page").body


def next_change(page: str) -> tuple[str, dict]:
    """The table page's reveal (red 0, yellow 5), or its undo once revealed: the action
    and the fields of its form."""
    found = {kind: form for form in forms(page) for kind in form.classes}
    if "action-reveal" in found:
        return found["action-reveal"].action, {**found["action-reveal"].fields,
                                               "cards": ["0:0", "1:5"]}
    return found["undo"].action, found["undo"].fields


async def reveal_or_undo(device: "Device", token: str) -> float:
    """A reveal (red 0, yellow 5), or its undo once revealed, through the table page's
    forms: ms its POST took."""
    page = expect(await device.request("GET", f"/g/{token}"), 200, "the table page")
    action, fields = next_change(page.body)
    sent = time.monotonic()
    expect(await device.request("POST", action, fields), 303, "a reveal or an undo")
    return (time.monotonic() - sent) * 1000
