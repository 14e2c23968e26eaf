"""A client of a real server over HTTP, answering as Flask's test client does (`get`,
`post`, `status_code`, `headers`, `get_data`), so that the helpers of tests/web_helpers.py
(submit, new_game, act, play) drive a server started as a player starts it. It keeps its
cookies as a browser does and follows no redirect, as the test client does by default.

`started` runs `templari-companion` (or any command that starts it) and waits for the
line saying where this device opens it: no address is printed before the server listens.
"""
import http.cookiejar
import os
import re
import signal
import subprocess
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

# Where the server says this device opens it (a hosted server: where it serves).
LOCAL = re.compile(r"(?:On this device, the host, open|Serving on) (http://127\.0\.0\.1:\d+)")
READY = "Press Ctrl+C to stop the server."  # the start-up text's last line
WAIT = 60  # seconds a server may take to start on a loaded machine


@dataclass
class Answer:
    status_code: int
    headers: object
    data: bytes

    def get_data(self, as_text=False):
        return self.data.decode() if as_text else self.data

    @property
    def text(self) -> str:
        return self.data.decode()


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class RealClient:
    """One browser's requests to `base` (http://127.0.0.1:PORT, or https:// with the TLS
    context `tls`), cookies kept (in `jar`, if given: another client's, the same browser
    on another server of the same name)."""

    def __init__(self, base: str, timeout: float = 30, headers=None, jar=None, tls=None):
        self.base, self.timeout, self.headers = base.rstrip("/"), timeout, dict(headers or {})
        self.jar = http.cookiejar.CookieJar() if jar is None else jar
        self._opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), _NoRedirects(),
            urllib.request.HTTPSHandler(context=tls))

    def get(self, path: str, headers=None) -> Answer:
        return self.open("GET", path, None, headers)

    def post(self, path: str, data=None, headers=None) -> Answer:
        body = urllib.parse.urlencode(data or {}, doseq=True).encode()
        return self.open("POST", path, body, {
            "Content-Type": "application/x-www-form-urlencoded", **(headers or {})})

    def open(self, method: str, path: str, body=None, headers=None) -> Answer:
        url = path if path.startswith("http") else self.base + path
        request = urllib.request.Request(url, data=body, method=method,
                                         headers={**self.headers, **(headers or {})})
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                return Answer(response.status, response.headers, response.read())
        except urllib.error.HTTPError as error:
            return Answer(error.code, error.headers, error.read())


def started(command, cwd=None, env=None, timeout: float = WAIT):
    """Start the server with `command` and read its start-up text (up to its last line):
    (the process, the address to open on this device, the lines read)."""
    process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)  # stopped with whatever it started
    lines = []
    watchdog = threading.Timer(timeout, process.kill)  # a server that never says it listens
    watchdog.start()
    try:
        for line in process.stdout:  # the server prints it once it listens
            lines.append(line)
            if line.strip() == READY:
                return process, LOCAL.search("".join(lines)).group(1), lines
    finally:
        watchdog.cancel()
    process.wait(timeout)
    raise AssertionError("the server stopped before it listened:\n" + "".join(lines))


def stop(process) -> str:
    """Stop a server started by `started` and what it started (Ctrl+C, as a person
    would); what it printed after starting."""
    os.killpg(process.pid, signal.SIGINT)
    try:
        out, _ = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, _ = process.communicate()
    return out
