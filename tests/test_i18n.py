"""English and French: the catalog is complete and current, every template text is marked
for translation, the pages speak French to a French browser, and the switch remembers."""
import io
import re
import string
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po
from jinja2 import Environment

from companion.rules.cards import DEFAULT_FAMILIES
from companion.rules.events import Sold
from companion.rules.phrase import N_, Names, Phrase, article
from companion.rules.record import parse_event
from companion.rules.refusal import Refusal
from companion.rules.scoring import score
from companion.rules.state import apply, sale_preview
from companion.web.render import catalogs, i18n
from companion.web.render.i18n import say

from tests.helpers import cards, play as fold_play, reveal
from tests.web_helpers import (GAME, PLAYERS, act, alerts, body, join, make_app, new_game,
                               phone_client, play, submit, text)
from tests.web_helpers import app, game, host, phone  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = sorted((ROOT / "templates").glob("*.html"))
FRENCH = {"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.8"}
# Text that is the same in every language: the brand, each language's own name and code.
UNTRANSLATED = ("Templari Companion", "English", "Français", "EN", "FR")


# --- the catalog ---------------------------------------------------------------

@pytest.fixture(scope="module")
def extracted():
    return catalogs.extract()


@pytest.fixture(scope="module", params=catalogs.po_files(), ids=lambda path: path.parts[-3])
def po(request):
    return catalogs.read_catalog(request.param)


def test_there_is_a_french_catalog():
    assert [path.parts[-3] for path in catalogs.po_files()] == ["fr"]


def test_catalog_is_up_to_date_with_the_sources(extracted, po):
    """Every text of the code and the templates is in the .po, and nothing else is.

    To fix: `python -m companion.web.render.catalogs`, then translate what it reports.
    """
    wanted = {message.id if isinstance(message.id, str) else message.id[0]
              for message in extracted if message.id}
    present = {message.id if isinstance(message.id, str) else message.id[0]
               for message in po if message.id}
    assert sorted(wanted - present) == [], "texts missing from the .po"
    assert sorted(present - wanted) == [], "texts of the .po no longer in the sources"


def test_every_text_has_a_translation(po):
    missing = [message.id for message in po if message.id and (
        not all(message.string) if isinstance(message.string, tuple) else not message.string)]
    assert missing == []
    assert [message.id for message in po if message.fuzzy] == []
    assert not po.fuzzy and len(po.obsolete) == 0


def test_french_texts_keep_a_no_break_space_before_double_punctuation(po):
    """French typography: ':', ';', '?' and '!' follow a no-break space, never a plain one
    (which would let the sign wrap to the start of a line alone)."""
    def texts(message):
        return message.string if isinstance(message.string, tuple) else (message.string,)
    plain_space = [message.id for message in po if message.id
                   and any(re.search(r" [:;?!]", text) for text in texts(message))]
    assert plain_space == []


def brace_fields(text: str) -> list[tuple[str, str]]:
    return sorted((name, conversion or "") for _, name, _, conversion
                  in string.Formatter().parse(text) if name is not None)


def test_translations_keep_every_parameter(po):
    """A translation fills in the same {names} (and %(names)s) as its English text."""
    wrong = []
    for message in po:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if "python-brace-format" in message.flags:
            wrong += [(ids[0], text) for text in strings
                      if brace_fields(text) != brace_fields(ids[0])]
    wrong += [(message.id, [str(error) for error in errors]) for message, errors in po.check()]
    assert wrong == []


# --- every template text is marked for translation -------------------------------

GETTEXT_CALLS = {"_", "gettext", "ngettext", "pgettext", "npgettext"}
CHECKED_ATTRIBUTES = {"alt", "title", "aria-label", "placeholder", "label"}
PLAIN_LITERAL = re.compile(r"[a-z0-9_.:/-]*")  # field names, template names, URLs
ALLOWED_LITERALS = {"X-CSRF-Token"}


class _Visible(HTMLParser):
    """Text nodes and visible attribute values of a template's HTML skeleton, each as
    (where, text): ("", "Hello") or ("img[alt]", "A QR code")."""

    def __init__(self):
        super().__init__()
        self.found, self.hidden = [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "style"):
            self.hidden += 1
        for name, value in attrs.items():
            shown = name in CHECKED_ATTRIBUTES or (
                name == "value" and (tag == "button" or attrs.get("type") in
                                     ("submit", "button", "reset")))
            if shown and value:
                self.found.append((f"{tag}[{name}]", value))

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden:
            self.found.append(("", data))


def skeleton_and_literals(source: str) -> tuple[str, list[str]]:
    """The template's HTML with each {{ expression }} and {% trans %} block turned into a
    blank (NUL), and the string literals of its expressions that are not inside _() and
    look like words rather than names."""
    env = Environment(extensions=["jinja2.ext.i18n"])
    skeleton, literals, gettext_depths = [], [], []
    in_trans = in_expression = False
    depth, previous = 0, (None, None)
    for _, kind, value in env.lexer.tokenize(source):
        if kind == "name" and value == "trans" and previous[0] == "block_begin":
            in_trans = True
            skeleton.append("\x00")
        elif kind == "name" and value == "endtrans":
            in_trans = False
        elif kind in ("variable_begin", "block_begin"):
            in_expression = True
            if kind == "variable_begin" and not in_trans:
                skeleton.append("\x00")
        elif kind in ("variable_end", "block_end"):
            in_expression = False
        elif kind == "data" and not in_trans:
            skeleton.append(value)
        elif in_expression and kind == "lparen":
            depth += 1
            if previous[0] == "name" and previous[1] in GETTEXT_CALLS:
                gettext_depths.append(depth)
        elif in_expression and kind == "rparen":
            if gettext_depths and gettext_depths[-1] == depth:
                gettext_depths.pop()
            depth -= 1
        elif (in_expression and kind == "string" and not gettext_depths and has_letters(value)
              and not PLAIN_LITERAL.fullmatch(value) and value not in ALLOWED_LITERALS):
            literals.append(f"literal: {value!r}")
        previous = (kind, value)
    return "".join(skeleton), literals


def has_letters(text: str) -> bool:
    return re.search(r"[^\W\d_]", text) is not None


def unmarked(source: str) -> list[str]:
    """Visible texts with letters outside {% trans %} and _(), bar the allow-list."""
    skeleton, literals = skeleton_and_literals(source)
    parser = _Visible()
    parser.feed(skeleton)
    parser.close()
    texts = []
    for where, found in parser.found:
        words = found.replace("\x00", " ")
        for allowed in UNTRANSLATED:
            words = words.replace(allowed, " ")
        if has_letters(words):
            shown = " ".join(found.replace("\x00", "{…}").split())
            texts.append(f"{where}: {shown}" if where else shown)
    return texts + literals


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda path: path.name)
def test_template_texts_are_all_marked_for_translation(path):
    assert unmarked(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("source, found", [
    ("<p>Hello {{ name }}</p>", ["Hello {…}"]),
    ('<img alt="A QR code" src="{{ url }}">', ["img[alt]: A QR code"]),
    ('<button value="Go">{{ _("Go") }}</button>', ["button[value]: Go"]),
    ('{{ select("winner", "Winner") }}', ["literal: 'Winner'"]),
    ('<p>{% trans n=1 %}Round {{ n }}{% endtrans %} · {{ _("Pot") }}</p>', []),
    ('<p title="{{ _("Score") }}">{{ select("winner", _("Winner")) }}</p>', []),
    ("<title>{{ _('Table') }} · Templari Companion</title>", []),
])
def test_the_template_check_finds_unmarked_text(source, found):
    assert unmarked(source) == found


# --- the pages in French -----------------------------------------------------------

@pytest.fixture
def french(app):
    """The host's browser, set to French."""
    client = app.test_client()
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = FRENCH["Accept-Language"]
    return client


def test_without_a_preference_the_pages_are_english(host, game):
    page = host.get(f"/g/{game}")
    assert '<html lang="en">' in body(page) and "Round 1: reveal the lot" in text(page)


@pytest.mark.parametrize("header, lang", [
    ("fr", "fr"), ("fr-CA", "fr"), ("de-DE, fr;q=0.5", "fr"), ("de", "en"),
    ("en-GB, fr;q=0.8", "en"), ("FR-be", "fr"), ("fr;q=0, de", "en"), ("*", "en"),
    ("", "en"), ("fr;q=x;;,,=", "en")])
def test_the_language_follows_the_browser(host, game, header, lang):
    page = host.get(f"/g/{game}", headers={"Accept-Language": header})
    assert f'<html lang="{lang}">' in body(page)


def test_table_page_in_french(french, game):
    page = french.get(f"/g/{game}")
    assert '<html lang="fr">' in body(page)
    words = text(page)
    for expected in ("Tour 1 sur 15 · Premier joueur Anna · Pot commun 0",
                     "Tour 1 : révélez le lot", "Révéler ces 2 cartes",
                     "Enchère personnelle (avant la révélation)",
                     "Enchère trop élevée (plus que sa bourse)",
                     "Peut miser n'importe quelle somme",
                     "Historique", "Exporter la partie"):
        assert expected in words, expected
    assert 'EN<span class="visually-hidden"> English</span>' in body(page)
    assert 'FR<span class="visually-hidden"> Français</span>' in body(page)
    assert "Round" not in words and "reveal" not in words


def test_a_refused_forbidden_bid_in_french(french, game):
    play(french, game, GAME[:2] + GAME[3:4])
    response = act(french, game, "sold", "Anna", 15)
    assert response.status_code == 422
    assert alerts(response) == ["Anna détient un 5 : une enchère de 15 est interdite (R3)."]


def test_refusals_from_forms_and_secret_money_in_french(french, game):
    play(french, game, GAME[:1])
    assert "Tapez le montant en nombre entier de pièces" in " ".join(
        alerts(act(french, game, "sold", winner="0", price="abc")))
    assert "Choisissez un joueur pour « vainqueur »" in " ".join(
        alerts(act(french, game, "sold", price="3")))
    assert "Anna ne peut pas payer 13 (R5)." in alerts(act(french, game, "sold", "Anna", 13))


def test_payment_instructions_after_a_sale_in_french(french, phone, game):
    phone.environ_base["HTTP_ACCEPT_LANGUAGE"] = "fr"
    join(phone, game, "Bert")
    play(french, game, GAME[:2])
    payment = ("Anna paie 3 : Bert reçoit 1, Claus reçoit 1 ; "
               "le reliquat de 1 reste dans le pot commun")
    for page in (french.get(f"/g/{game}"), phone.get(f"/g/{game}/me")):
        assert payment in text(page)
    assert "Annuler : Anna a acheté le lot pour 3" in text(french.get(f"/g/{game}"))
    preview = french.get(f"/g/{game}/preview?winner=1&price=3")
    assert preview.status_code == 200 and "Si l'enchère est remportée à ce prix" in text(preview)


def test_phone_page_in_french(app, french, game):
    phone = phone_client(app)
    phone.environ_base["HTTP_ACCEPT_LANGUAGE"] = "fr"
    assert "Quelle est votre place ?" in text(phone.get(f"/g/{game}/join"))
    join(phone, game, "Anna")
    play(french, game, GAME[:2])
    page = phone.get(f"/g/{game}/me")
    assert '<html lang="fr">' in body(page)
    words = text(page)
    for expected in ("9 pièces", "Vous ne pouvez pas miser de somme se terminant par 0 ou 5",
                     "Votre plus forte offre possible : 9", "Puis-je miser"):
        assert expected in words, expected
    check = text(phone.get(f"/g/{game}/me/check?amount=5"))
    assert "Anna détient un 5 : une enchère de 5 est interdite (R3)" in check


def test_score_and_history_pages_in_french(french, game):
    play(french, game, GAME)
    page = french.get(f"/g/{game}/score")
    words = text(page)
    for expected in ("Score final", "Vainqueur : Bert", "Bonus de pièces", "Somme des cartes",
                     "5 cartes : 15", "0 carte : 0", "Les pièces au fil des tours"):
        assert expected in words, expected
    assert ">Tour</text>" in body(page)  # the chart's axis
    history = " ".join(text(french.get(f"/g/{game}/history?page={page}"))
                       for page in (1, 2, 3))  # 5 rounds a page
    for expected in ("Tour 15", "Cartes révélées : ♣ vert 2 et ● bleu 8",
                     "Bert a fait une offre interdite (malédiction)",
                     "Anna a vendu ♦ rouge 0 à Bert pour 2", "corriger"):
        assert expected in history, expected


def test_new_game_form_offers_french_family_names(french):
    page = french.get("/")
    assert all(f'value="{name}"' in body(page) for name in
               ("rouge", "jaune", "vert", "bleu", "violet", "noir"))
    assert "Règles anglaises" in text(page) and "Règles françaises" in text(page)


def test_the_rules_edition_is_a_game_setting_apart_from_the_language(french, host):
    """A French page starts an English-rules game unless told otherwise, and the other way."""
    english_rules = new_game(french)
    french_rules = new_game(host, edition="fr")
    assert french.get(f"/g/{english_rules}/record.json").get_json()["edition"] == "en"
    assert host.get(f"/g/{french_rules}/record.json").get_json()["edition"] == "fr"
    assert "Round 1" in text(host.get(f"/g/{french_rules}"))


def test_error_pages_in_french(french):
    page = french.get("/g/no-such-game")
    assert page.status_code == 404 and "Introuvable" in text(page)
    assert "Cette page ou cette partie n'existe pas ici" in text(page)


# --- the switch ---------------------------------------------------------------------

def test_the_switch_sets_a_cookie_that_overrides_the_browser(french, game):
    response = french.get(f"/lang/en?next=/g/{game}")
    assert response.status_code == 303 and response.headers["Location"] == f"/g/{game}"
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith("lang=en;") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Max-Age=31536000" in cookie
    page = french.get(f"/g/{game}")
    assert '<html lang="en">' in body(page) and "Round 1: reveal the lot" in text(page)
    french.get("/lang/fr?next=/")
    assert '<html lang="fr">' in body(french.get(f"/g/{game}", headers={"Accept-Language": "en"}))


def test_every_page_has_the_switch_back_to_itself(host, game):
    page = body(host.get(f"/g/{game}/history"))
    assert f'href="/lang/fr?next=/g/{game}/history"' in page
    assert f'href="/lang/en?next=/g/{game}/history"' in page and 'aria-current="true"' in page


@pytest.mark.parametrize("target, location", [
    ("https://evil.example/", "/"), ("//evil.example/x", "/"), ("/\\evil.example", "/"),
    ("/\t/evil.example", "/"), ("/\r\nLocation: https://evil.example", "/"),
    ("javascript:alert(1)", "/"), ("evil", "/"), ("", "/"),
    ("/g/abc/history?x=1", "/g/abc/history?x=1"),
    ("/%0d%0aSet-Cookie:x=1", "/%0d%0aSet-Cookie:x=1")])
def test_the_switch_only_goes_back_to_this_site(host, target, location):
    response = host.get("/lang/fr", query_string={"next": target})
    assert response.status_code == 303 and response.headers["Location"] == location


def test_unknown_language_is_404_and_a_bad_cookie_is_ignored(host, game):
    assert host.get("/lang/de?next=/").status_code == 404
    host.set_cookie("lang", "xx")
    page = host.get(f"/g/{game}", headers=FRENCH)
    assert '<html lang="fr">' in body(page)


def test_pages_vary_with_the_language(host, game):
    vary = host.get(f"/g/{game}").headers["Vary"]
    assert "Accept-Language" in vary and "Cookie" in vary


# --- the core's texts, translated by say() ------------------------------------------

def plain(words: str) -> str:
    """Spaces as a reader sees them: French puts no-break spaces before : and ;."""
    return " ".join(words.split())


@pytest.fixture
def in_french(app):
    with app.test_request_context("/", headers=FRENCH):
        yield


def test_core_words_and_nested_refusals_are_translated(in_french):
    with pytest.raises(Refusal) as info:
        apply(fold_play(), Sold("Anna", 3))
    assert plain(say(info.value)) == ("une vente demande un lot : "
                                      "révélez d'abord les 2 cartes du tour 1 (R2)")
    nested = Refusal("form", "this change would make action {number} illegal: {reason}",
                     number=3, reason=info.value)
    assert plain(say(nested)).startswith(
        "cette correction rendrait l'action 3 illégale : une vente")
    with pytest.raises(Refusal) as info:
        parse_event({"type": "sold", "winner": "Anna", "price": 3, "k": 1})
    assert plain(say(info.value)) == "clé inconnue 'k' dans un événement sold"
    with pytest.raises(Refusal) as info:
        parse_event({"type": "reveal", "cards": [{"family": "red", "number": "x"}] * 2})
    assert plain(say(info.value)) == "number doit être un nombre entier, pas 'x'"


def test_names_are_joined_with_the_language_s_and(in_french):
    assert say(Names(["Anna"])) == "Anna"
    assert say(Names(["Anna", "Bert", "Claus"])) == "Anna, Bert et Claus"
    assert str(Names(["Anna", "Bert", "Claus"])) == "Anna, Bert and Claus"


def test_settlement_and_tie_break_in_french(in_french):
    table = fold_play(reveal("black 0 black 5"),
                      hands={"Anna": "red 9 red 1", "Bert": "yellow 9 yellow 1"})
    sale = sale_preview(table, "Claus", 9)
    assert plain(say(sale.reason_phrase)) == ("Anna et Bert détiennent un 9 chacun : "
                                       "partage de 9, 4 chacun ; "
                                       "le reliquat de 1 reste dans le pot commun")
    tied = score(PLAYERS, [cards("red 1 red 2"), cards("blue 1 blue 2"), cards("green 5")],
                 [3, 3, 1])
    assert plain(say(tied.tie)) == ("Anna et Bert sont à égalité avec 5 points ; "
                             "somme des cartes : Anna 3, Bert 3 : toujours à égalité, "
                             "victoire partagée")
    assert tied.tie_break == ("Anna and Bert tie on 5 points; card sums: Anna 3, Bert 3: "
                              "still tied, a shared win")


def test_a_translation_that_does_not_fit_falls_back_to_english(in_french, monkeypatch):
    monkeypatch.setattr(i18n, "catalog", lambda: SimpleNamespace(ugettext=lambda text: "{nope} {"))
    assert say(Phrase(N_("{player} dropped out"), player="Anna")) == "Anna dropped out"


def test_english_is_unchanged_by_say(app):
    with app.test_request_context("/"):
        refusal = Refusal("R3", "{player} holds a {digit}: a bid of {amount} is forbidden",
                          player="Anna", digit=4, amount=14)
        assert say(refusal) == refusal.message == "Anna holds a 4: a bid of 14 is forbidden (R3)"


# --- English articles: 'an 8', never 'a 8' (issue 27, 7f) ---------------------------

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
         "fourteen fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def spoken(number: int) -> str:
    """0 to 100 in English words: 'eighty-one'."""
    if number == 100:
        return "one hundred"
    if number < 20:
        return _ONES[number]
    tens, ones = divmod(number, 10)
    return _TENS[tens] + (f"-{_ONES[ones]}" if ones else "")


@pytest.mark.parametrize("number", range(101))
def test_the_article_follows_the_number_as_spoken(number):
    """'an' before a vowel sound: eight, eleven, eighteen, eighty-...; 'one' starts with
    a 'w' sound, so 'a one'."""
    vowel = spoken(number)[0] in "aeiou" and not spoken(number).startswith("one")
    assert article(number) == ("an" if vowel else "a")


@pytest.mark.parametrize("number, expected", [(108, "a"), (180, "a"), (800, "an"),
                                              (888, "an"), (1100, "a"), (8000, "an"),
                                              (11_000, "an"), (18_500, "an"), (80_000, "an"),
                                              (-8, "a")])
def test_the_article_of_larger_numbers_follows_their_first_word(number, expected):
    assert article(number) == expected


def test_english_sentences_say_an_8(app):
    """The core's English (str), say in English, and a bool or a name left alone."""
    nobody = Phrase(N_("nobody holds a {digit}"), digit=8)
    assert str(nobody) == "nobody holds an 8"
    assert str(Phrase(N_("nobody holds a {digit}"), digit=7)) == "nobody holds a 7"
    assert str(Phrase("a {word} and A {number}", word="egg", number=11)) == "a egg and An 11"
    refusal = Refusal("R3", "{player} holds a {digit}: a bid of {amount} is forbidden",
                      player="Anna", digit=8, amount=18)
    with app.test_request_context("/"):
        assert say(nobody) == "nobody holds an 8"
        assert say(refusal) == "Anna holds an 8: a bid of 18 is forbidden (R3)"


def test_french_keeps_its_own_words_before_a_number(in_french):
    """'a' is French for 'has': '{player} a {coins} pièces' stays as it is."""
    refusal = Refusal("R5", "{player} holds {coins} coins: a bid of {amount} is more than that",
                      player="Anna", coins=8, amount=11)
    assert plain(say(refusal)).startswith("Anna a 8 pièces")
    assert plain(say(Phrase(N_("nobody holds a {digit}"), digit=8))) == "personne ne détient de 8"


def test_the_pages_say_an_8(host):
    """A refusal and a sale's preview on the table, as a player reads them."""
    token = new_game(host)
    play(host, token, [("reveal", "red 8", "yellow 5"), ("sold", "Anna", 3),
                       ("reveal", "red 1", "yellow 6")])
    assert alerts(act(host, token, "sold", "Anna", 18)) == [
        "Anna holds an 8: a bid of 18 is forbidden (R3)."]
    preview = text(host.get(f"/g/{token}/preview?winner=0&price=18"))
    assert "Bert takes 9, Claus takes 9, 1 stays in the pot (Nobody holds an 8)" in preview
    assert " a 8" not in preview and " A 8" not in preview


# --- French: a player's gender never guessed, the rulebook's verbs (issue 27, 7f) ------

# 'il' only as the impersonal subject: 'il n'y a', 'il manque', 'il ne reste'.
IMPERSONAL = re.compile(r"\b[Ii]l (?:n'y|y a|manque|ne reste|reste|faut)\b")


def french_texts(po):
    for message in po:
        if message.id:
            yield from (message.string if isinstance(message.string, tuple)
                        else (message.string,))


def test_french_never_calls_a_player_il(po):
    """A player is named or addressed as 'vous', never 'il' or 'ils', nor 'exclu': who
    plays may be a woman."""
    guessed = [words for words in french_texts(po)
               if re.search(r"\b[Ii]ls?\b", IMPERSONAL.sub("", words))
               or re.search(r"\best exclue?\b", words)]
    assert guessed == []


def test_french_bids_with_the_rulebook_s_verbs(po):
    """The French rulebook 'fait une offre' and 'mise une somme'; one does not 'enchérir
    un montant'."""
    assert [words for words in french_texts(po)
            if re.search(r"enchérir (?:un|tout|de|aucun) montant", words)] == []


# --- nothing shown untranslated: every page rendered in a marked pseudo-language ------

def pseudo_catalog(directory: Path) -> None:
    """A 'fr' catalog whose every text is its English wrapped in ⟦ ⟧."""
    catalog = Catalog(locale="fr", domain="messages")
    for message in catalogs.extract():
        if not message.id:
            continue
        wrapped = (tuple(f"⟦{text}⟧" for text in message.id) if isinstance(message.id, tuple)
                   else f"⟦{message.id}⟧")
        catalog.add(message.id, wrapped, flags=message.flags)
    target = directory / "fr" / "LC_MESSAGES"
    target.mkdir(parents=True)
    buffer = io.BytesIO()
    write_po(buffer, catalog)
    (target / "messages.po").write_bytes(buffer.getvalue())


def leftover(page, data) -> str:
    """The page's visible text less everything marked, the players' and families' names,
    numbers and the untranslated allow-list: letters left there were never translated."""
    words = text(page)
    while re.search(r"⟦[^⟦⟧]*⟧", words):
        words = re.sub(r"⟦[^⟦⟧]*⟧", " ", words)
    for allowed in (*UNTRANSLATED, *data):
        words = words.replace(allowed, " ")
    words = re.sub(r"\(R[\d/.]+\)", " ", words)  # the rule a refusal names
    words = re.sub(r"https?://\S+", " ", words)  # an address (the host link) is data
    return " ".join(re.findall(r"\S*[^\W\d_]\S*", words))


def test_every_page_shows_only_translated_text(tmp_path, monkeypatch):
    pseudo_catalog(tmp_path / "pseudo")
    monkeypatch.setattr(catalogs, "TRANSLATIONS", tmp_path / "pseudo")
    app = make_app(tmp_path / "data")
    host = app.test_client()
    token = new_game(host)  # in English: family names stay plain data
    host.environ_base["HTTP_ACCEPT_LANGUAGE"] = "fr"
    phone = phone_client(app)
    phone.environ_base["HTTP_ACCEPT_LANGUAGE"] = "fr"
    data = (*PLAYERS, *DEFAULT_FAMILIES)
    pages = [host.get("/"), phone.get("/"), phone.get(f"/g/{token}/join"),
             host.get(f"/g/{token}/score"), host.get(f"/g/{token}/history"),
             host.get("/g/nothing-here")]
    join(phone, token, "Anna")
    pages += [host.get(f"/g/{token}/join"), host.get(f"/g/{token}")]
    steps = 0
    for index, step in enumerate(GAME, start=1):
        play(host, token, [step])
        if index in (2, 3, 5, 10, 13, len(GAME)):
            pages += [host.get(f"/g/{token}"), phone.get(f"/g/{token}/me"),
                      host.get(f"/g/{token}/history")]
            steps += 1
        if index == 4:
            pages.append(act(host, token, "sold", "Anna", 15))
    pages += [host.get(f"/g/{token}/score"),
              host.get(f"/g/{token}/history/1"),
              submit(host, f"/g/{token}/history/1", "action-sold", winner="1"),
              phone.get(f"/g/{token}/me/check?amount=9")]
    assert steps == 6
    left = {leftover(page, data) for page in pages} - {""}
    assert left == set()
