"""Shared set-up of the browser tests: the app served by waitress in a thread, Debian's
Chromium driven by Playwright, phone and table screens, and the checks every screen
gets (no sideways scroll on a phone, every control named, a screenshot).

The server treats a loopback peer as the host, so a phone must really be another device:
`phone_net` makes a network namespace of this test process's own, joined to this machine
by a veth pair with addresses from 198.18.0.0/15, and `phone_browser` is a second
Chromium whose process (and so all its traffic) lives inside that namespace. The host's
table uses `browser` and `server.url` (127.0.0.1); phones use `phone_browser` and
`server.phone_url` (the veth's end on this machine). Test traffic goes only to loopback
or to that namespace.

The fixtures are registered in tests/conftest.py. A test using them skips when
Chromium or Playwright is missing, or when the namespace cannot be made (it takes root
and iproute2's `ip`; CI has both).
"""
import ipaddress
import os
import re
import shutil
import socket
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.served import InThread
from tests.web_helpers import make_app

# Debian's Chromium as a headless shell (package chromium-headless-shell, as Playwright's own
# headless Chromium is): it draws the same pages as the full browser for less than half the
# CPU time, and nothing here needs a window.
CHROMIUM = Path("/usr/bin/chromium-headless-shell")
ARTIFACTS = Path(__file__).parent / "artifacts"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT = 10_000  # ms: a screen hears of a change at once; a loaded CI machine may lag
PHONE_WIDTH = 360
# A phone on the table's Wi-Fi: 360 x 740, touch. Its contexts are opened from
# `phone_browser`, so its requests come from the phone network's address.
PHONE = dict(viewport={"width": PHONE_WIDTH, "height": 740}, is_mobile=True, has_touch=True)
TABLE = dict(viewport={"width": 1280, "height": 800})
# What a screen must name for assistive technology: every control a player can reach.
CONTROLS = "button, input:not([type=hidden]), select, summary"
TAP = 44  # px: the smallest tap target on a phone
BODY_TEXT = 16  # px: the smallest text on a phone
# Why a browser test skips: what this machine lacks, and how to get it.
NO_ROOT = "the phones' network namespace needs root: run the tests as root (CI does)"
NO_IP = "the phones' network namespace needs iproute2's `ip`: apt-get install iproute2"
NO_CHROMIUM = f"Chromium is missing ({CHROMIUM}): apt-get install chromium-headless-shell"
NO_PLAYWRIGHT = "Playwright is missing: pip install -c constraints.txt -e '.[test]'"
# The phones' network: a /30 of 198.18.0.0/15 (set aside for network tests, RFC 2544).
PHONE_NETWORKS = ipaddress.ip_network("198.18.0.0/15")


@dataclass
class Server:
    url: str  # on the loopback: the host's own device
    phone_url: str  # on the phone network's address of this machine: another device
    app: object
    statuses: list = field(default_factory=list)
    peers: set = field(default_factory=set)  # every REMOTE_ADDR the app was asked from
    waitress: object = None

    def stop(self) -> None:
        """The table server is gone: nothing listens on its port any more."""
        self.waitress.stop()

    def start(self, app=None) -> None:
        """The table server is back, on the same port and data; `app`: a server started
        anew, which keeps nothing from before."""
        if app is not None:
            self.app = self.waitress.app = app
        self.waitress.start()


class Waitress:
    """waitress serving an app in a thread on listening sockets (one port of several
    addresses), as the table server does (served.InThread); it can stop, and start again
    on the same port."""

    def __init__(self, app, listening):
        self.app = app
        self.addresses = [sock.getsockname()[0] for sock in listening]
        self.port = listening[0].getsockname()[1]
        self.running = InThread(app, sockets=listening)

    def start(self) -> None:
        self.running = InThread(self.app, sockets=_bound(self.addresses, self.port))

    def stop(self) -> None:
        self.running.stop()


def _bound(addresses, port: int) -> list[socket.socket]:
    """Listening sockets on `port` (0: a free one, the same for all) of each address."""
    listening = []
    try:
        for address in addresses:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listening.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((address, port))
            port = sock.getsockname()[1]
    except OSError:
        for sock in listening:
            sock.close()
        raise
    return listening


@dataclass(frozen=True)
class PhoneNet:
    """A network namespace joined to this machine by a veth pair."""

    namespace: str
    host_side: str  # the address of this machine's end of the pair
    phone_side: str  # the address of the end inside the namespace


def _ip(*args) -> None:
    result = subprocess.run(["ip", *args], capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"ip {' '.join(args)}: {result.stderr.strip()}")


def free_subnet(networks=PHONE_NETWORKS, stride: int = 1,
                length: int = 30) -> ipaddress.IPv4Network:
    """A subnet of `length` bits (a /30 by default) of `networks` that no interface of this
    machine uses, chosen from this process's id (times `stride`: a benchmark's another
    than a test run's) so that two runs at once get different ones."""
    used = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True,
                          text=True, check=True).stdout
    taken = [ipaddress.ip_interface(word).network for word in used.split()
             if re.fullmatch(r"[\d.]+/\d+", word)]
    size = 2 ** (32 - length)
    count = networks.num_addresses // size
    for step in range(count):
        index = (os.getpid() * stride + step) % count
        subnet = ipaddress.ip_network((int(networks.network_address) + size * index, length))
        if not any(subnet.overlaps(other) for other in taken):
            return subnet
    raise RuntimeError(f"no free /{length} left in {networks}")


@pytest.fixture(scope="session")
def phone_net():
    """The phones' network, for the whole session: a namespace named after this process,
    a veth pair (this machine's end 198.18.x.1/30, the namespace's end 198.18.x.2/30), both
    ends and the namespace's loopback up. All of it is deleted at the end of the session,
    whatever the tests did."""
    if os.geteuid() != 0:
        pytest.skip(NO_ROOT)
    if shutil.which("ip") is None:
        pytest.skip(NO_IP)
    pid = os.getpid()
    namespace, outside, inside = f"templari-{pid}", f"tph{pid}", f"tpn{pid}"  # names <= 15
    try:
        subnet = free_subnet()
    except (RuntimeError, subprocess.CalledProcessError) as error:
        pytest.skip(f"no address for the phones' network: {error}")
    try:
        with joined_namespace(namespace, outside, inside, subnet) as net:
            yield net
    except NamespaceRefused as error:
        pytest.skip(f"cannot make the phones' network namespace: {error}")


class NamespaceRefused(RuntimeError):
    """The system would not make the namespace or its veth pair."""


@contextmanager
def joined_namespace(namespace: str, outside: str, inside: str, subnet):
    """A network namespace joined to this machine by a veth pair (this machine's end
    `outside`, the first address of `subnet`; the namespace's end `inside`, the second;
    IPv4 or IPv6, usable at once), both ends and the namespace's loopback up; all of it
    deleted on leaving."""
    hosts = subnet.hosts()
    host_side, phone_side = str(next(hosts)), str(next(hosts))
    usable = ["nodad"] if subnet.version == 6 else []  # no duplicate detection to wait for
    made = []
    try:
        _ip("netns", "add", namespace)
        made.append(("netns", "delete", namespace))
        _ip("link", "add", outside, "type", "veth", "peer", "name", inside)
        made.append(("link", "delete", outside))  # deletes its peer too, wherever it is
        _ip("link", "set", inside, "netns", namespace)
        _ip("addr", "add", f"{host_side}/{subnet.prefixlen}", "dev", outside,
            *usable)
        _ip("link", "set", outside, "up")
        _ip("-n", namespace, "addr", "add", f"{phone_side}/{subnet.prefixlen}", "dev", inside,
            *usable)
        _ip("-n", namespace, "link", "set", inside, "up")
        _ip("-n", namespace, "link", "set", "lo", "up")
    except RuntimeError as error:
        _undo(made)
        raise NamespaceRefused(error) from None
    try:
        yield PhoneNet(namespace, host_side, phone_side)
    finally:
        _undo(made)


def _undo(made) -> None:
    """Delete what was made, last first; keep going if one step fails."""
    for args in reversed(made):
        subprocess.run(["ip", *args], capture_output=True)


@pytest.fixture
def server(tmp_path, phone_net):
    """The app served by waitress on one free port of both 127.0.0.1 (the host) and the
    phone network's address of this machine (phones); no request may fail with 5xx."""
    from flask import request
    served = Server("", "", None)

    def make(port: int):
        """The app, its every answer observed."""
        app = make_app(tmp_path / "data", lan_url=f"http://{phone_net.host_side}:{port}",
                       streams=True)

        @app.after_request
        def observe(response):
            served.statuses.append(response.status_code)
            served.peers.add(request.remote_addr)
            return response
        return app

    # Both sockets are bound before waitress starts: one port, and no race for it; the app
    # (whose join link names the port) is made after.
    listening = _bound(("127.0.0.1", phone_net.host_side), 0)
    port = listening[0].getsockname()[1]
    served.app = make(port)
    waitress = Waitress(served.app, listening)
    served.url = f"http://127.0.0.1:{port}"
    served.phone_url = f"http://{phone_net.host_side}:{port}"
    served.waitress = waitress
    yield served
    waitress.stop()
    assert not served.app.extensions["test_errors"] and max(served.statuses, default=200) < 500


@pytest.fixture(scope="session")
def playwright():
    """Playwright for the whole session (one per process: both browsers share it)."""
    if not CHROMIUM.exists():
        pytest.skip(NO_CHROMIUM)
    sync_api = pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT)
    with sync_api.sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(playwright):
    """One Chromium for the whole session, on this machine: the host's devices. Every test
    opens its own contexts."""
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def phone_browser(playwright, phone_net, tmp_path_factory):
    """One Chromium for the whole session inside the phones' network namespace: the
    phones. Playwright drives it over pipes, which cross namespaces; everything it fetches
    leaves from the namespace's address. Every test opens its own contexts."""
    wrapper = tmp_path_factory.mktemp("phone-chromium") / "chromium"
    wrapper.write_text("#!/bin/sh\n"
                       f"exec {shutil.which('ip')} netns exec {phone_net.namespace} "
                       f'{CHROMIUM} "$@"\n')
    wrapper.chmod(0o755)
    browser = playwright.chromium.launch(executable_path=str(wrapper), args=ARGS)
    yield browser
    browser.close()


def open_page(context, url, errors):
    """A new tab of `context` at `url`; its script errors are collected in `errors`."""
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(error))
    page.goto(url)
    return page


def take_seat(context, server, token: str, name: str, errors=None):
    """A tab of the phone `context` that opened the game's join page and took `name`'s
    seat: it shows the phone screen; its script errors go to `errors`, if given."""
    page = open_page(context, f"{server.phone_url}/g/{token}/join",
                     [] if errors is None else errors)
    press(page.get_by_role("button", name=name, exact=True))
    page.wait_for_url(re.compile(r"/me$"))
    return page


def loose(words: str, exact: bool = False) -> re.Pattern:
    """A pattern for text as a reader sees it: any run of spaces (French no-break spaces
    included) matches any other."""
    pattern = r"\s+".join(re.escape(word) for word in words.split())
    return re.compile(f"^{pattern}$" if exact else pattern)


# --- what every screen is checked for -------------------------------------------

def sideways_scroll(page) -> int:
    """How many CSS pixels the page is wider than the viewport (0: no sideways scroll)."""
    return page.evaluate("document.documentElement.scrollWidth") - page.viewport_size["width"]


_MARK_VISIBLE_CONTROLS = """selector => {
  document.querySelectorAll('[data-name-probe]').forEach(e => e.removeAttribute('data-name-probe'));
  const shown = [...document.querySelectorAll(selector)].filter(
      element => element.checkVisibility({visibilityProperty: true}));
  const html = shown.map(element => element.outerHTML.slice(0, 160));
  shown.forEach((element, index) => element.setAttribute('data-name-probe', index));
  return html;
}"""


def unnamed_controls(page) -> list[str]:
    """The visible buttons, inputs (bar hidden ones), selects and summaries that have no
    accessible name, as the start of their HTML.

    The names are Chromium's own, read from its accessibility tree over the DevTools
    protocol: what a screen reader is given, after aria-label, <label>, legend and
    content are all taken into account. "Visible" is the browser's checkVisibility():
    rendered, not visibility:hidden, not inside a closed <details>; the transparent
    checkboxes laid over the reveal grid's cells count, since they are what is tapped.
    """
    shown = page.evaluate(_MARK_VISIBLE_CONTROLS, CONTROLS)
    cdp = page.context.new_cdp_session(page)
    try:
        names = {node["backendDOMNodeId"]: "" if node.get("ignored") else
                 str(node.get("name", {}).get("value", "")).strip()
                 for node in cdp.send("Accessibility.getFullAXTree")["nodes"]
                 if "backendDOMNodeId" in node}
        probes = {}
        stack = [cdp.send("DOM.getDocument", {"depth": -1})["root"]]
        while stack:
            node = stack.pop()
            attributes = node.get("attributes", [])
            if "data-name-probe" in attributes[::2]:
                index = attributes[attributes.index("data-name-probe") + 1]
                probes[int(index)] = node["backendNodeId"]
            stack += node.get("children", [])
    finally:
        cdp.detach()
    assert sorted(probes) == list(range(len(shown))), "the page changed while it was checked"
    return [html for index, html in enumerate(shown) if not names.get(probes[index])]


_SMALL_ON_A_PHONE = """([selector, tap, text]) => {
  const small = [];
  for (const element of document.querySelectorAll(selector + ', a')) {
    if (!element.checkVisibility({visibilityProperty: true})) continue;
    const target = element.closest('label') || element;  // a label's whole box is tapped
    const box = target.getBoundingClientRect();
    if (box.width < tap || box.height < tap)
      small.push(`tap target ${Math.round(box.width)}x${Math.round(box.height)}: ` +
                 target.outerHTML.slice(0, 100));
  }
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!node.textContent.trim() || !parent.checkVisibility({visibilityProperty: true})) continue;
    const size = parseFloat(getComputedStyle(parent).fontSize);
    if (size < text) small.push(`text at ${size}px: ${node.textContent.trim().slice(0, 60)}`);
  }
  return small;
}"""


def too_small(page) -> list[str]:
    """What a thumb or an eye would struggle with on a phone: visible controls and links
    (or the label around them) under 44 x 44 px, and text under 16 px."""
    return page.evaluate(_SMALL_ON_A_PHONE, [CONTROLS, TAP, BODY_TEXT])


def press(locator) -> None:
    """Tap on a touch screen, click elsewhere."""
    if locator.page.viewport_size["width"] <= PHONE_WIDTH:
        locator.tap()
    else:
        locator.click()


def check_screen(page, shot: str | None = None) -> None:
    """What every screen visited must pass: on a phone no sideways scroll, tap targets of
    44 px and text of 16 px at least; every control named. Given a name, a screenshot goes to tests/artifacts/<shot>.png: on a phone what
    its 360 x 740 screen shows right now (a full-page capture would draw the sticky
    buttons over the text they scroll past), elsewhere the whole page, 1280 px wide."""
    phone = page.viewport_size["width"] <= PHONE_WIDTH
    if phone:
        assert sideways_scroll(page) <= 0, f"{page.url} scrolls sideways at {PHONE_WIDTH} px"
        assert too_small(page) == [], f"too small for a phone on {page.url}"
    assert unnamed_controls(page) == [], f"controls without a name on {page.url}"
    if shot:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=ARTIFACTS / f"{shot}.png", full_page=not phone)


def hears_nothing(page) -> None:
    """`page` hears of nothing new: its stream, then each of its polls, answered 204
    before they leave it (static/app.js polls when its stream is refused)."""
    page.route(re.compile(r"/live(/events)?\?"), lambda route: route.fulfill(status=204))
