"""English and French: each request's language, the switch, and the core's texts translated.

The language is the `lang` cookie set by the switch in every page's header, else
the browser's preferred one, else English. The rules core speaks English
templates with parameters (`Refusal`, `Phrase`, `Names`, `Series`); `say` is the
one place where they are translated and filled in. The rules edition a game is
played with is a game setting and has nothing to do with this.
"""
import re
from datetime import datetime
from functools import lru_cache
from urllib.parse import urlsplit

from babel.support import NullTranslations
from flask import Blueprint, abort, current_app, g, redirect, request
from flask.globals import request_ctx
from flask_babel import Babel, Domain, format_datetime, gettext
from jinja2 import pass_context
from markupsafe import Markup
from werkzeug.exceptions import HTTPException

from companion.rules.cards import DEFAULT_FAMILIES, Card
from companion.rules.phrase import (N_, PARAMETER, Either, Family, Names, Phrase, Series,
                                    with_articles)
from companion.rules.refusal import Refusal
from .assets import serves_asset

LANGUAGES = {"en": "English", "fr": "Français"}
DEFAULT = "en"
COOKIE = "lang"
ONE_YEAR = 365 * 24 * 3600
CATALOGS = "templari.catalogs"  # the app's translations by language (app.extensions)
ENGLISH = NullTranslations()  # the texts are written in English

blueprint = Blueprint("i18n", __name__)


def init(app) -> None:
    """Flask-Babel with this app's catalogs (compiled in memory), the switch and the
    template helpers (the text filters `say` and `words` are rulebook's: they link rules)."""
    from . import catalogs  # here: `python -m companion.web.render.catalogs` must not import it twice

    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT)
    _Babel(app, locale_selector=current_language)
    app.extensions[CATALOGS] = catalogs.compiled()
    app.jinja_env.policies["ext.i18n.trimmed"] = True
    app.jinja_env.globals.update(gettext=_template_gettext, _=_template_gettext,
                                 ngettext=_template_ngettext)
    app.jinja_env.filters["family"] = family_label
    app.jinja_env.filters["started"] = started
    app.register_blueprint(blueprint)
    app.context_processor(lambda: {"language": current_language(),
                                   "languages": LANGUAGES, "here": _here()})
    app.after_request(_vary)


def current_language() -> str:
    """The request's language, looked up once per request (a page says a hundred things);
    the code Flask-Babel's locale is made from, so that a screen kept from an earlier
    request is found without parsing a locale."""
    try:
        return g.language
    except AttributeError:
        g.language = language()
        return g.language


def catalog():
    """The translations of the request's language, looked up once per request."""
    try:
        return g.catalog
    except AttributeError:
        g.catalog = current_app.extensions[CATALOGS].get(current_language(), ENGLISH)
        return g.catalog


class _AppCatalogs(Domain):
    """Where Flask-Babel's gettext finds the texts: in the app's catalogs (`catalog`),
    not in .mo files."""

    def get_translations(self):
        return catalog()


class _Babel(Babel):
    """Flask-Babel answering from the catalogs the app compiled when it was created."""

    domain_instance = _AppCatalogs()


def language() -> str:
    """The switch's choice (cookie), else the browser's best match, else English."""
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    for accepted, quality in request.accept_languages:  # best first; 'en-GB' counts as 'en'
        primary = accepted.split("-")[0].split("_")[0].lower()
        if primary in LANGUAGES and quality > 0:
            return primary
    return DEFAULT


@blueprint.get("/lang/<code>")
def switch(code):
    """Remember the language on this device for a year, and go back to the page."""
    if code not in LANGUAGES:
        abort(404)
    response = redirect(local_path(request.args.get("next")), 303)
    response.set_cookie(COOKIE, code, max_age=ONE_YEAR, httponly=True, samesite="Lax",
                        secure=request.is_secure)
    return response


def local_path(target) -> str:
    """`target` if it is a path on this site ('/g/abc?x=1'), else '/'."""
    if (not isinstance(target, str) or not target.startswith("/") or target.startswith("//")
            or "\\" in target or any(ord(char) < 32 or ord(char) == 127 for char in target)):
        return "/"
    parts = urlsplit(target)
    return "/" if parts.scheme or parts.netloc else target


def _here() -> str:
    """Where the switch comes back to: this page, or for a form's answer the form's page,
    the nearest page up from the address the form posts to ('/g/<t>' for '/g/<t>/act',
    '/g/<t>/history/3' itself for a correction). Not the Referer: the pages tell browsers
    to send none (Referrer-Policy: no-referrer, see security.py)."""
    if request.method == "GET":
        return local_path(request.full_path.rstrip("?"))
    adapter, parts = request_ctx.url_adapter, request.path.split("/")
    while adapter is not None and len(parts) > 1:
        try:
            adapter.match("/".join(parts), method="GET")
            return local_path("/".join(parts))
        except HTTPException:  # not a page (405, 404), or a redirect
            parts.pop()
    return "/"


def _vary(response):
    """A page depends on the language chosen: no cache may give it to another device.
    The static files and htmx are the same in every language, for every device."""
    if not serves_asset(response):
        response.vary.update(("Accept-Language", "Cookie"))
    return response


def say_sentence(value) -> str:
    """A text shown on its own (the templates' `say`): a phrase starts with a capital, and
    a refusal is a whole sentence, its rule at the end: 'Choose a card (R2).'"""
    text = say(value)
    if isinstance(value, (Phrase, Refusal)):
        text = text[:1].upper() + text[1:]
    if _ends_in_refusal(value) and not text.endswith((".", "!", "?")):
        text += "."
    return text


def _ends_in_refusal(value) -> bool:
    """A refusal, or a phrase that ends with one ('action 3: {reason}')."""
    if isinstance(value, Phrase):
        last = re.search(r"\{(\w+)\}$", value.template)
        return bool(last) and _ends_in_refusal(value.params.get(last.group(1)))
    return isinstance(value, Refusal)


def say(value) -> str:
    """A text of the rules core (or of this shell) in the request's language.

    Refusals and phrases are translated, then filled in with their parameters,
    themselves translated; lists of names are joined with the language's 'and'.
    Anything else (a name, a number) is shown as it is.
    """
    if isinstance(value, Refusal):
        return value.with_rule(_fill(value.text, value.params))
    if isinstance(value, Phrase):
        return _fill(value.template, value.params)
    if isinstance(value, Names):
        return join_names(value)
    if isinstance(value, Either):
        return _joined(value, N_("{names} or {last}"))
    if isinstance(value, Series):
        return ", ".join(say(item) for item in value)
    if isinstance(value, Family):
        return family_label(value)
    return "" if value is None else str(value)


def join_names(names) -> str:
    """'Anna', 'Anna and Bert', 'Anna, Bert and Claus', in the request's language."""
    return _joined(names, N_("{names} and {last}"))


def _joined(items, template: str) -> str:
    """The items separated by commas and, before the last one, the language's word of
    `template` ('{names} and {last}', '{names} or {last}')."""
    texts = [say(item) for item in items]
    if len(texts) < 2:
        return "".join(texts)
    return _format(template, {"names": ", ".join(texts[:-1]), "last": texts[-1]})


def _fill(template: str, params: dict) -> str:
    return _format(template, {key: _param(key, value) for key, value in params.items()})


def _format(template: str, values: dict) -> str:
    """The translated template filled in; a translation that does not fit falls back to English."""
    try:
        return fitted(catalog().ugettext(template), values).format(**values)
    except (KeyError, IndexError, ValueError, AttributeError):
        return with_articles(template, values).format(**values)


def fitted(text: str, values: dict) -> str:
    """A text in the request's language fitted to the values that fill it in: English
    'an' before 8, 11 or 18 (`with_articles`), French elisions before a name (`elide`)."""
    if current_language() == "en":
        return with_articles(text, values)
    return elide(text, values)


# French elides de, que, le, la and je before a name that starts with a vowel: 'la place
# d'Anna', not 'de Anna'. A name beginning with h is left alone (aspirated or not, it cannot
# be told from the spelling).
_ELIDED = {"de": "d'", "que": "qu'", "le": "l'", "la": "l'", "je": "j'"}
_BEFORE_NAME = re.compile(r"\b(de|que|le|la|je) " + PARAMETER, re.IGNORECASE)
_VOWELS = set("aeiouyàâäéèêëîïôöùûüœæ")


def elide(template: str, values: dict) -> str:
    """In French, the template with each elidable word before a vowel-initial name
    (a parameter written {name} or %(name)s) elided."""
    if current_language() != "fr":
        return template

    def elided(match) -> str:
        value = values.get(match.group(3) or match.group(4))
        if not (isinstance(value, str) and value[:1].lower() in _VOWELS):
            return match.group(0)
        word = _ELIDED[match.group(1).lower()]
        return (word.capitalize() if match.group(1)[0].isupper() else word) + match.group(2)

    return _BEFORE_NAME.sub(elided, template)


@pass_context
def _template_gettext(context, string: str, **variables):
    """The templates' gettext (Jinja's newstyle, as Flask-Babel installs it), `fitted`."""
    text = fitted(catalog().ugettext(string), variables)
    return (Markup(text) if context.eval_ctx.autoescape else text) % variables


@pass_context
def _template_ngettext(context, singular: str, plural: str, number: int, **variables):
    variables.setdefault("num", number)
    text = fitted(catalog().ungettext(singular, plural, number), variables)
    return (Markup(text) if context.eval_ctx.autoescape else text) % variables


def started(moment: float) -> str:
    """When a game started, in the request's language and this machine's time: 'Mon 23
    Nov, 21:14' ('lun. 23 nov., 21:14')."""
    return format_datetime(datetime.fromtimestamp(moment), "EEE d MMM, HH:mm")


def family_label(name: str) -> str:
    """A family's name in the request's language: the six default names are translated
    (once per language: a page names every card), names the table chose are shown as they are."""
    return _family_labels(catalog()).get(name, name)


@lru_cache(maxsize=8)
def _family_labels(words) -> dict[str, str]:
    """The six default family names in the language of the translations `words`."""
    return {family: words.ugettext(family) for family in DEFAULT_FAMILIES}


def english_families(names) -> list[str]:
    """Family names from the new game form, the defaults as a record keeps them (in
    English) whatever language the form showed them in."""
    defaults = {gettext(default): default for default in DEFAULT_FAMILIES}
    return [defaults.get(name, name) for name in names]


def _param(key: str, value):
    if isinstance(value, (Refusal, Phrase, Names, Either, Series, Family)):
        return say(value)
    if isinstance(value, Card):
        return f"{family_label(value.family)} {value.number}"
    return value
