"""The rules in the app: a public page with an anchor per rule in English and French, the
game's edition highlighted, and every rule a message cites a link to its paragraph."""
import re
from pathlib import Path

import pytest

from companion.web.screens.rulebook import linked
from tests.web_helpers import (act, alerts, body, join, new_game, phone_client, play, rows,
                               text)
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
            '<span class="rule-ref">(<a class="rule" href="/rules?edition=en#R3">R3</a>).'
            "</span>") in refused
    assert "<b>Anna</b>" not in refused


@pytest.mark.parametrize("words, html", [
    ("a & b (R5/R7)", 'a &amp; b <span class="rule-ref">(<a class="rule" href="/r#R5">R5</a>/'
                      '<a class="rule" href="/r#R7">R7</a>)</span>'),
    ("at 0 (R8.6), then (R3, R9)", 'at 0 <span class="rule-ref">(<a class="rule" href="/r#R8.6">'
                                   'R8.6</a>),</span> then <span class="rule-ref">'
                                   '(<a class="rule" href="/r#R3">R3</a>, '
                                   '<a class="rule" href="/r#R9">R9</a>)</span>'),
    ("ouvrir (R9)\u00a0: puis", 'ouvrir <span class="rule-ref">(<a class="rule" href="/r#R9">'
                                'R9</a>)\u00a0:</span> puis'),
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
    in words (R9)."""
    token = new_game(host, edition="fr", live="on")
    play(host, token, [("reveal", "red 0", "yellow 5")])
    for step in [("bid", {"amount": "0"}), ("pass", {}), ("pass", {})]:
        assert act(host, token, step[0], **step[1]).status_code == 303
    page = body(host.get(f"/g/{token}"))
    undo = re.search(r'aria-label="Undo: (.*?)"', page, re.S).group(1)  # its whole name
    assert undo == "Anna opened at 0 and nobody raised: the lot goes free (R9)"


# --- the two editions, each told apart where they differ (issue 27, 7e) -------------

# Where the editions differ: per rule, what each edition's paragraph says, in each language.
EDITION_TEXTS = {
    "en": {
        "R1": ("the players choose the first start player.",
               "the first start player is whoever has the most coins in their own purse"),
        "R3": ("the start player may open at any legal amount, 0 included, or pass.",
               "the start player must open, and may open at 0."),
        "R4": ("the penalty is due even if the bidder corrects themselves at once.",
               "the penalty is due when the other players notice the forbidden bid;"),
        "R6": ("a player who runs into financial difficulty may sell one of their cards. "
               "Side sales are always part of the game.",
               "any player may sell one of their cards, short of money or not, for whatever "
               "reason. A variant plays without side sales"),
        "R8": ("a sale like any other, shared as above with 0 as the deciding number",
               "only the start player may open at 0, so only they can win at 0"),
        "R9": ("the lot goes free when nobody bids at all (the start player may pass).",
               "the start player must open, so the lot goes free only when they open at 0"),
        "R12": ("each player’s coins “may be kept hidden”: the table chooses.",
                "each player’s fortune must remain secret for the whole game."),
    },
    "fr": {
        "R1": ("les joueurs choisissent le premier joueur.",
               "le premier joueur est celui qui possède le plus de pièces dans son "
               "porte-monnaie"),
        "R3": ("le premier joueur peut ouvrir à n’importe quelle somme permise, 0 compris, "
               "ou passer.", "le premier joueur doit faire une offre, qui peut être de 0."),
        "R4": ("la pénalité est due même si le joueur se reprend aussitôt.",
               "la pénalité est due si les autres joueurs remarquent l’offre interdite ;"),
        "R6": ("un joueur en difficulté financière peut vendre l’une de ses cartes. Les "
               "enchères personnelles font toujours partie du jeu.",
               "tout joueur peut vendre l’une de ses cartes, par manque d’argent ou pour "
               "s’en débarrasser, pour n’importe quelle raison. Une variante se joue sans "
               "enchères personnelles."),
        "R8": ("une vente comme une autre, répartie comme ci-dessus avec 0 pour nombre décisif",
               "seul le premier joueur peut offrir 0, donc lui seul peut l’emporter à 0"),
        "R9": ("le lot est gratuit quand personne n’enchérit (le premier joueur peut passer).",
               "le premier joueur doit faire une offre, donc le lot n’est gratuit que s’il "
               "offre 0"),
        "R12": ("les pièces de chaque joueur « peuvent rester cachées » (« may be kept "
                "hidden ») : la table choisit.",
                "la fortune de chaque joueur doit rester secrète tout au long de la partie."),
    },
}
EDITION_LABELS = {"en": ("English edition:", "French edition:"),
                  "fr": ("Édition anglaise :", "Édition française :")}
# The differences table, row by row: the point, the English edition, the French edition.
EDITION_ROWS = {
    "en": [["First start player (R1)", "The players choose.",
            "Whoever has the most coins in their own purse."],
           ["Opening (R3)", "The start player may pass.",
            "The start player must open, 0 allowed."],
           ["Penalty (R4)", "Due even if the bidder corrects themselves at once.",
            "Due when the other players notice."],
           ["Who may sell (R6)", "A player in financial difficulty.",
            "Any player, for whatever reason."],
           ["Side sales (R6)", "Always played.", "A variant plays without them."],
           ["A price of 0 (R8.6)", "A sale: the pot is shared with 0 as the deciding number.",
            "Only the start player can win at 0: a free lot."],
           ["Free lot (R9)", "When nobody bids.",
            "When the start player opens at 0 and nobody raises."],
           ["Money (R12)", "May be kept hidden: the table chooses.",
            "Must remain secret all game."]],
    "fr": [["Premier joueur de la partie (R1)", "Les joueurs le choisissent.",
            "Celui qui possède le plus de pièces dans son porte-monnaie."],
           ["Ouverture (R3)", "Le premier joueur peut passer.",
            "Le premier joueur doit faire une offre, 0 permis."],
           ["Pénalité (R4)", "Due même si le joueur se reprend aussitôt.",
            "Due si les autres joueurs remarquent l’erreur."],
           ["Qui peut vendre (R6)", "Un joueur en difficulté financière.",
            "Tout joueur, pour n’importe quelle raison."],
           ["Enchères personnelles (R6)", "Toujours jouées.",
            "Une variante se joue sans elles."],
           ["Une somme de 0 (R8.6)",
            "Une vente : le pot commun est réparti avec 0 pour nombre décisif.",
            "Seul le premier joueur peut l’emporter à 0 : lot gratuit."],
           ["Lot gratuit (R9)", "Quand personne ne fait d’offre.",
            "Quand le premier joueur offre 0 et que personne ne surenchérit."],
           ["Fortune (R12)", "Peut rester cachée : la table choisit.",
            "Doit rester secrète toute la partie."]],
}


def unlinked(page) -> str:
    """The page's HTML with each rule link down to its words: '(R3)' reads as it shows."""
    return re.sub(r'<a [^>]*>(R[\d.]+)</a>', r"\1", body(page))


def sections(page) -> dict[str, str]:
    """Each section of the rules page, by its id, as text."""
    return {name: text(html) for name, html
            in re.findall(r'<section id="([^"]+)">(.*?)</section>', unlinked(page), re.S)}


def editions_table(page) -> str:
    return re.search(r'<table class="editions">.*?</table>', body(page), re.S).group(0)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_where_the_editions_differ_each_says_its_own_rule(phone, language):
    """R1, R3, R4, R6, R8.6, R9, R12: one paragraph per edition, none merged (issue 27)."""
    page = phone.get("/rules", headers={"Accept-Language": language})
    english, french = EDITION_LABELS[language]
    told = sections(page)
    for rule, (in_english, in_french) in EDITION_TEXTS[language].items():
        assert f"{english} {in_english}" in told[rule], rule
        assert f"{french} {in_french}" in told[rule], rule


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_differences_table_lists_every_difference(phone, language):
    """The table has a row for every rule told per edition, and no other."""
    page = phone.get("/rules", headers={"Accept-Language": language})
    table = editions_table(page)
    assert rows(unlinked(table))[1:] == EDITION_ROWS[language]
    listed = {rule.split(".")[0] for rule in re.findall(r'href="#(R[\d.]+)"', table)}
    english = EDITION_LABELS[language][0]
    told = {rule for rule, words in sections(page).items() if english in words}
    assert listed == told == set(EDITION_TEXTS[language])


@pytest.mark.parametrize("language, merged", [
    ("en", ["a player short of money (or keen to be rid of a card)",
            "Both editions keep each player’s coins hidden", "even if they correct"]),
    ("fr", ["un joueur à court d’argent (ou qui veut se débarrasser d’une carte)",
            "Les deux éditions cachent les pièces"])])
def test_no_rule_merges_the_two_editions(phone, language, merged):
    page = text(phone.get("/rules", headers={"Accept-Language": language}))
    assert [words for words in merged if words in page] == []


def test_the_french_page_says_tout_autre_joueur(phone):
    page = text(phone.get("/rules", headers={"Accept-Language": "fr"}))
    assert "Tout autre joueur qui achète le lot a donc offert plus" in page
    assert "Quiconque d’autre" not in page


# --- a rule reference stays on one line with its brackets and punctuation (issue 27, 6) ---

LINK = r'<a [^>]*href="[^"]*#R[\d.]+"[^>]*>R[\d.]+</a>'
PUNCTUATION = r"(?:[.,;:!?]|(?:\u00a0|&#160;)[:;!?])"  # French: after a no-break space
KEPT = re.compile(rf'<span class="rule-ref">\({LINK}(?:(?:/|,\s*){LINK})*\){PUNCTUATION}?'
                  rf"</span>(?!{PUNCTUATION})")


def loose_references(html: str) -> list[str]:
    """Each rule link (with a little of its surroundings) not inside a span that holds
    its '(', its ')' and any punctuation right after them."""
    return re.findall(rf".{{0,30}}{LINK}.{{0,10}}", KEPT.sub("", html))


def test_the_stylesheet_keeps_a_rule_reference_on_one_line():
    css = (Path(__file__).resolve().parents[1] / "static" / "app.css").read_text()
    assert re.search(r"\.rule-ref\s*\{\s*white-space:\s*nowrap;\s*\}", css)


def test_a_refusal_keeps_its_rule_reference_and_full_stop_together(host, game):
    play(host, game, [("reveal", "red 0", "yellow 5"), ("sold", "Anna", 3),
                      ("reveal", "red 1", "yellow 6")])
    refused = body(act(host, game, "sold", "Anna", 10))
    assert ('forbidden <span class="rule-ref">(<a class="rule" href="/rules?edition=en#R3">R3'
            "</a>).</span>") in refused
    assert loose_references(refused) == []


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_reference_on_the_rules_page_is_kept_together(phone, language):
    page = body(phone.get("/rules?edition=fr", headers={"Accept-Language": language}))
    assert page.count('<span class="rule-ref">') > 20
    assert loose_references(page) == []


# R1 and R11 (RULES.md): a reveal after which no real deck holds every card seen is refused.
MISREAD = {
    "en": ("A reveal after which no real deck holds every card seen is refused: one of its "
           "cards was misread.",
           "a reveal that no real deck allows, one of its cards misread (R1);"),
    "fr": ("Une révélation après laquelle aucun vrai paquet ne contient toutes les cartes vues "
           "est refusée : l’une de ses cartes a été mal lue.",
           "une révélation qu’aucun vrai paquet ne permet, l’une de ses cartes mal lue (R1) ;"),
}


@pytest.mark.parametrize("language", MISREAD)
def test_the_rules_page_says_a_misread_card_no_real_deck_allows_is_refused(phone, language):
    told = sections(phone.get("/rules", headers={"Accept-Language": language}))
    set_up, refused = MISREAD[language]
    assert set_up in told["R1"] and refused in told["R11"]
