"""What is still to come on a 360 px phone (issue 14): behind its summary, readable with no
sideways scroll, what each family would add to the phone's player, and still open when the
table records the next round. Its screenshot is docs/playing.md's docs/unseen.png."""
import json

import pytest

from tests.browser_helpers import NO_PLAYWRIGHT, PHONE, WAIT, check_screen, press, take_seat
from tests.helpers import FIXTURES
from tests.web_helpers import act, import_record

expect = pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT).expect


def round_6(client) -> str:
    """full-game-1 up to the reveal of round 6 (Bert, Claus, Anna), imported: its token."""
    record = json.loads((FIXTURES / "full-game-1.json").read_text(encoding="utf-8"))
    record["events"] = record["events"][:20]
    response = import_record(client, json.dumps(record).encode())
    assert response.status_code == 303
    return response.headers["Location"].rsplit("/", 1)[1]


def test_a_phone_shows_what_is_still_to_come_and_keeps_it_open(server, phone_browser):
    client = server.app.test_client()
    token = round_6(client)
    phone = take_seat(phone_browser.new_context(**PHONE), server, token, "Anna")
    summary = phone.locator("details.unseen summary")
    expect(summary).to_have_text("Still to come: 18 cards in 9 rounds")
    press(summary)
    blue = phone.locator("details.unseen tr", has_text="blue")
    expect(blue).to_contain_text("+1")  # Anna holds no blue card: a first one is 1 point
    summary.evaluate("element => element.scrollIntoView()")
    check_screen(phone, "unseen")
    # The table records round 6's sale and reveals round 7: the view follows, still open.
    assert act(client, token, "sold", winner="1", price="5").status_code == 303
    assert act(client, token, "reveal", "green 8", "blue 7").status_code == 303
    expect(summary).to_have_text("Still to come: 16 cards in 8 rounds", timeout=WAIT)
    expect(phone.locator("details.unseen")).to_have_attribute("open", "")
    expect(phone.locator("details.unseen table").first).to_be_visible()


def test_in_french_it_fits_a_phone_too(server, phone_browser):
    token = round_6(server.app.test_client())
    context = phone_browser.new_context(**PHONE)
    context.add_cookies([{"name": "lang", "value": "fr", "url": server.phone_url}])
    phone = take_seat(context, server, token, "Bert")
    summary = phone.locator("details.unseen summary")
    expect(summary).to_have_text("Encore à venir\u00a0: 18 cartes en 9 tours")
    press(summary)
    expect(phone.locator("details.unseen th", has_text="Points qu'une carte vous rapporte")
           ).to_be_visible()
    summary.evaluate("element => element.scrollIntoView()")
    check_screen(phone, "unseen-fr")
