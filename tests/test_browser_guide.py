"""Help for new players in Chromium: a phone in French follows what happens now as the
live auction's turn comes to it, and the box fits a 360 px screen."""

import pytest

from tests.browser_helpers import NO_PLAYWRIGHT, PHONE, WAIT, check_screen, loose, take_seat
from tests.web_helpers import act, new_game

expect = pytest.importorskip("playwright.sync_api", reason=NO_PLAYWRIGHT).expect


def test_a_phone_follows_what_happens_now_in_french(server, phone_browser):
    client = server.app.test_client()
    token = new_game(client, edition="fr", live="on")  # the server's first game: help on
    phone = take_seat(phone_browser.new_context(**PHONE), server, token, "Bert")
    phone.goto(f"{server.phone_url}/lang/fr?next=/g/{token}/me")
    box = phone.get_by_role("region", name="Et maintenant")
    expect(box).to_contain_text(loose("Anna est premier joueur : retournez les 2 cartes"))
    act(client, token, "reveal", "red 0", "yellow 5")
    expect(box).to_contain_text(loose("Anna doit ouvrir l'enchère, à 0 ou plus"), timeout=WAIT)
    act(client, token, "bid", amount="2")
    expect(box).to_contain_text(loose("C'est à vous : enchérissez plus de 2 ou passez (R3)."),
                                timeout=WAIT)
    check_screen(phone, "phone-guide-fr")  # no sideways scroll, 16 px text at 360 px
