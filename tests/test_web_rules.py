"""The rules in the app: a public page with an anchor per rule in English and French, the
game's edition highlighted, and every rule a message cites a link to its paragraph."""
import re

import pytest

from companion.web.rulebook import linked
from tests.web_helpers import act, alerts, body, join, new_game, phone_client, play, text
from tests.web_helpers import app, game, host, phone  # noqa: F401 (fixtures)

RULES = [f"R{number}" for number in range(1, 13)]


def anchors(page) -> set[str]:
    return set(re.findall(r'\sid="([^"]+)"', body(page)))


def rule_links(html: str) -> list[str]:
    """Where each rule cited in a message leads: '/rules?edition=en#R3'."""
    return re.findall(r'<a class="rule" href="([^"]+)">R[\d.]+</a>', html)


def alert_links(page) -> list[str]:
    """Where the rules cited in the page's alerts lead."""
    return rule_links("".join(re.findall(r'role="alert">(.*?)</p>', body(page), re.S)))


@pytest.mark.parametrize("language, heading", [("en", "R8. Payment: who gets the money"),
                                               ("fr", "R8. Répartition des pièces : qui "
                                                      "reçoit l’argent")])
def test_the_rules_page_has_a_paragraph_for_every_rule_in_both_languages(phone, language,
                                                                          heading):
    page = phone.get("/rules", headers={"Accept-Language": language})
    assert page.status_code == 200
    assert f'<html lang="{language}">' in body(page)
    assert set(RULES) | {f"R8.{point}" for point in range(1, 7)} <= anchors(page)
    assert heading in text(page)


def test_the_worked_payment_examples_are_on_the_page(phone):
    page = text(phone.get("/rules", headers={"Accept-Language": "fr"}))
    assert "Anna et Claus se partagent 9 + 1 = 10, 5 chacun." in page


def test_a_french_edition_game_links_to_the_rules_with_the_french_edition_highlighted(host):
    token = new_game(host, edition="fr")
    table = host.get(f"/g/{token}")
    assert '<a href="/rules?edition=fr"' in body(table)
    page = host.get("/rules?edition=fr")
    highlighted = " ".join(re.findall(r'class="[^"]*this-edition[^"]*">(.*?)<', body(page)))
    assert "French edition" in highlighted and "English edition" not in highlighted
    assert "This game is played with the French edition’s rules" in text(page)
    assert "this-edition" not in body(host.get("/rules"))


def test_every_game_screen_links_to_the_rules(app, host, game):
    anna = phone_client(app)
    join(anna, game, "Anna")
    for client, path in [(host, f"/g/{game}"), (host, f"/g/{game}/tv"), (anna, f"/g/{game}/me"),
                         (host, f"/g/{game}/score"), (host, f"/g/{game}/history"),
                         (host, f"/g/{game}/settings")]:
        assert '<a href="/rules?edition=en"' in body(client.get(path)), path


def test_a_refusal_on_the_table_links_to_its_rule(host, game):
    play(host, game, [("reveal", "red 0", "yellow 5"), ("sold", "Anna", 3),
                      ("reveal", "red 1", "yellow 6")])
    refused = act(host, game, "sold", "Anna", 10)
    assert "Anna holds a 0: a bid of 10 is forbidden (R3)." in alerts(refused)
    assert alert_links(refused) == ["/rules?edition=en#R3"]


def test_a_refusal_links_to_its_rule_in_french(host):
    token = new_game(host, edition="fr")
    host.set_cookie("lang", "fr")
    play(host, token, [("reveal", "red 0", "yellow 5"), ("sold", "Anna", 3),
                       ("reveal", "red 1", "yellow 6")])
    refused = act(host, token, "sold", "Anna", 10)
    assert "Anna détient un 0 : une enchère de 10 est interdite (R3)." in alerts(refused)
    assert alert_links(refused) == ["/rules?edition=fr#R3"]


def test_a_payment_links_its_rule_on_the_table_the_tv_a_phone_and_in_the_history(app, host,
                                                                                  game):
    anna = phone_client(app)
    join(anna, game, "Anna")
    play(host, game, [("reveal", "red 0", "yellow 5"), ("free",)])
    for client, path in [(host, f"/g/{game}"), (host, f"/g/{game}/tv"), (anna, f"/g/{game}/me"),
                         (host, f"/g/{game}/history")]:
        page = client.get(path)
        assert "No money moves: Anna takes the lot for free (R9)" in text(page), path
        assert "/rules?edition=en#R9" in rule_links(body(page)), path


def test_a_player_s_name_stays_escaped_beside_a_link(app, host):
    token = new_game(host, players=["<b>Anna</b>", "Bert", "Claus"])
    play(host, token, [("reveal", "red 0", "yellow 5"), ("sold", "Anna", 3),  # seat 0
                       ("reveal", "red 1", "yellow 6")])
    refused = body(act(host, token, "sold", "Anna", 10))
    assert ("&lt;b&gt;Anna&lt;/b&gt; holds a 0: a bid of 10 is forbidden "
            '(<a class="rule" href="/rules?edition=en#R3">R3</a>).') in refused
    assert "<b>Anna</b>" not in refused


@pytest.mark.parametrize("words, html", [
    ("a & b (R5/R7)", 'a &amp; b (<a class="rule" href="/r#R5">R5</a>/'
                      '<a class="rule" href="/r#R7">R7</a>)'),
    ("at 0 (R8.6), then (R3, R9)", 'at 0 (<a class="rule" href="/r#R8.6">R8.6</a>), then '
                                   '(<a class="rule" href="/r#R3">R3</a>, '
                                   '<a class="rule" href="/r#R9">R9</a>)'),
    ("R5 alone, (RX) and (R5 x)", "R5 alone, (RX) and (R5 x)")])
def test_only_rule_references_in_brackets_become_links(words, html):
    assert linked(words, "/r") == html


def test_the_rules_page_is_public_and_the_same_for_every_device(app, host, phone):
    first, second = phone.get("/rules?edition=en"), host.get("/rules?edition=en")
    assert first.status_code == second.status_code == 200
    assert re.sub(r"hx-headers='[^']*'", "", body(first)) == re.sub(
        r"hx-headers='[^']*'", "", body(second))


def test_a_button_s_label_keeps_its_rule_as_plain_text(host):
    """A link cannot sit inside a button: undoing a French free lot at 0 names its rule
    in words (R8)."""
    token = new_game(host, edition="fr", live="on")
    play(host, token, [("reveal", "red 0", "yellow 5")])
    for step in [("bid", {"amount": "0"}), ("pass", {}), ("pass", {})]:
        assert act(host, token, step[0], **step[1]).status_code == 303
    page = body(host.get(f"/g/{token}"))
    undo = re.search(r"<button>Undo: (.*?)</button>", page, re.S).group(1)
    assert undo == "Anna opened at 0 and nobody raised: the lot goes free (R8)"
