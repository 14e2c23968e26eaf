"""Shared set-up of the browser tests: the app served by waitress in a thread, Debian's
Chromium driven by Playwright, phone and table screens, and the checks every screen
gets (no sideways scroll on a phone, every control named, a screenshot).

The fixtures `browser` and `server` are registered in tests/conftest.py. A test using
them skips when Chromium or Playwright is missing.
"""
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.web_helpers import PHONE_ADDRESS, make_app

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).parent / "artifacts"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT = 10_000  # ms: htmx polls every second; a loaded CI machine may lag
PHONE_WIDTH = 360
# A phone on the table's Wi-Fi: 360 x 740, touch. Its requests carry the address the
# server would see for it (applied by `server`), so the app treats it as a phone, not
# as the host's own device (which is whoever connects over the loopback).
ADDRESS_HEADER = "X-Test-Remote-Addr"
PHONE = dict(viewport={"width": PHONE_WIDTH, "height": 740}, is_mobile=True, has_touch=True,
             extra_http_headers={ADDRESS_HEADER: PHONE_ADDRESS})
TABLE = dict(viewport={"width": 1280, "height": 800})
# What a screen must name for assistive technology: every control a player can reach.
CONTROLS = "button, input:not([type=hidden]), select, summary"
TAP = 44  # px: the smallest tap target on a phone
BODY_TEXT = 16  # px: the smallest text on a phone


@dataclass
class Server:
    url: str
    app: object
    statuses: list = field(default_factory=list)


def _with_test_address(app):
    """WSGI middleware: a request with ADDRESS_HEADER comes from that address."""
    wsgi_app = app.wsgi_app

    def middleware(environ, start_response):
        address = environ.pop("HTTP_" + ADDRESS_HEADER.upper().replace("-", "_"), None)
        if address:
            environ["REMOTE_ADDR"] = address
        return wsgi_app(environ, start_response)

    app.wsgi_app = middleware


@pytest.fixture
def server(tmp_path):
    """The app served by waitress on a free port of 127.0.0.1; no request may fail with 5xx.

    Waitress's loop runs in short steps until the test ends, then stops before its sockets
    close (closing them under a running loop fails its select)."""
    from waitress import wasyncore
    from waitress.server import create_server
    app = make_app(tmp_path / "data")
    _with_test_address(app)
    served = Server("", app)
    app.after_request(lambda response: served.statuses.append(response.status_code) or response)
    sockets, stop = {}, threading.Event()
    srv = create_server(app, map=sockets, host="127.0.0.1", port=0)
    served.url = f"http://127.0.0.1:{srv.effective_port}"

    def serve():
        while not stop.is_set():
            wasyncore.loop(timeout=0.05, map=sockets, count=1)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield served
    stop.set()
    thread.join()
    srv.close()
    assert not app.extensions["test_errors"] and max(served.statuses, default=200) < 500


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the whole session; every test opens its own contexts."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (CI does)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


def open_page(context, url, errors):
    """A new tab of `context` at `url`; its script errors are collected in `errors`."""
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(error))
    page.goto(url)
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
