"""Every screen, in English and French, as axe-core (the accessibility engine) checks it
against WCAG 2.1 levels A and AA: the host's pages on the laptop, a seated phone's during
and after a game, the TV view, the rules and the standings."""
import json
from pathlib import Path

import pytest

from tests.browser_helpers import NO_PLAYWRIGHT, PHONE, TABLE, open_page, take_seat
from tests.web_helpers import import_record

pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT)
Axe = pytest.importorskip("axe_playwright_python.sync_playwright",
                          reason="axe-playwright-python is missing (pip install -e '.[test]')").Axe

FIXTURES = Path(__file__).parent / "fixtures"
WCAG21_AA = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
             "resultTypes": ["violations"]}
HOST_PAGES = ("/", "/standings", "/rules", "/g/{playing}", "/g/{playing}/history",
              "/g/{playing}/tv", "/g/{playing}/settings", "/g/{over}", "/g/{over}/score")


def imported(client, events=None) -> str:
    """full-game-1 imported (its first `events` only, if given): its token."""
    record = json.loads((FIXTURES / "full-game-1.json").read_text(encoding="utf-8"))
    if events is not None:
        record["events"] = record["events"][:events]
    response = import_record(client, json.dumps(record).encode())
    assert response.status_code == 303
    return response.headers["Location"].rsplit("/", 1)[1]


def violations(page) -> list[str]:
    """What axe-core finds against WCAG 2.1 A and AA on the page as it is: a line each."""
    found = Axe().run(page, options=WCAG21_AA).response["violations"]
    return [f"{page.url}: {rule['id']} ({rule['impact']}): {rule['help']}: "
            f"{[node['target'] for node in rule['nodes']][:3]}" for rule in found]


@pytest.mark.parametrize("locale", ["en-GB", "fr-FR"])
def test_every_screen_passes_axe_core_for_wcag_2_1_a_and_aa(server, browser, phone_browser,
                                                           locale):
    client = server.app.test_client()
    games = {"playing": imported(client, 20), "over": imported(client)}  # round 6; the end
    found, errors = [], []
    host = browser.new_context(**TABLE, locale=locale)
    page = open_page(host, server.url, errors)
    for path in HOST_PAGES:
        assert page.goto(server.url + path.format(**games)).status == 200, path
        found += violations(page)
    phone = phone_browser.new_context(**PHONE, locale=locale)
    for token in games.values():
        page = open_page(phone, f"{server.phone_url}/g/{token}/join", errors)
        found += violations(page)  # the join page, every seat free
        found += violations(take_seat(phone, server, token, "Anna", errors))
    assert found == [] and not errors
