"""The rules in the app: one page in our own words with an anchor per rule (R1-R12 of
RULES.md), and every rule reference a player reads, "(R5)", a link to its paragraph.

The page is the same for every device: it is rendered once per language and edition
(the game's edition, highlighted; none for the page on its own) and kept. References
are linked in one place, `linking`, which the templates' text filters go through; the
same texts stay plain wherever they are not HTML (error answers in plain text, the
`replay` command, the game record).
"""
import re

from flask import Blueprint, current_app, g, render_template, request, url_for
from jinja2 import pass_context
from markupsafe import Markup, escape

from ..games import Game
from ..setup import EDITIONS
from .compress import Filled, Holed
from .i18n import current_language, say, say_sentence
from .rendered import PLACEHOLDER
from .security import csrf_token

blueprint = Blueprint("rules", __name__)

# "(R5)", "(R8.6)", "(R5/R7)", "(R3, R9)": a reference in brackets, each of its rules linked.
_REFERENCE = re.compile(r"\((R\d+(?:\.\d+)?(?:(?:/|, ?)R\d+(?:\.\d+)?)*)\)")
_RULE = re.compile(r"R\d+(?:\.\d+)?")


@blueprint.get("/rules")
def rules():
    """The rules page; `?edition=en|fr` highlights that edition's rules."""
    edition = _edition(request.args.get("edition"))
    kept = current_app.extensions.setdefault("rules_pages", {})
    key = (current_language(), edition)
    token = csrf_token()
    if key not in kept:
        kept[key] = Holed(render_template("rules.html", edition=edition, csrf_token=PLACEHOLDER,
                                          here=url_for("rules.rules", edition=edition)),
                          PLACEHOLDER, len(token))
    return Filled(kept[key], token)


def _edition(value) -> str | None:
    return value if value in EDITIONS else None


def rules_url(game=None) -> str:
    """The rules page, with `game`'s edition highlighted when there is a game."""
    edition = game.setup.edition if isinstance(game, Game) else None
    if "rules_urls" not in g:
        g.rules_urls = {}
    if edition not in g.rules_urls:
        g.rules_urls[edition] = url_for("rules.rules", edition=edition)
    return g.rules_urls[edition]


def linked(text, href: str) -> Markup:
    """`text` escaped (unless it is Markup already), with each rule it cites in brackets
    a link to that rule's paragraph at `href`: '(<a href="/rules#R5">R5</a>)'."""
    def link(reference) -> str:
        return "(" + _RULE.sub(lambda rule: f'<a class="rule" href="{href}#{rule.group(0)}">'
                               f"{rule.group(0)}</a>", reference.group(1)) + ")"

    return Markup(_REFERENCE.sub(link, str(escape(text))))


def linking(words):
    """A template filter: `words(value)` with its rule references linked to the rules page
    of the template's game (its edition highlighted)."""
    @pass_context
    def linked_words(context, value) -> Markup:
        return linked(words(value), escape(rules_url(context.get("game"))))
    return linked_words


def init(app) -> None:
    """The page, its link for every screen, and the templates' text filters: `say` for a
    text on its own, `words` for a text within a sentence of the template's, `ruled` for a
    template's own text that cites a rule, `plain` for a text on its own where no link
    may go (a button's label)."""
    app.register_blueprint(blueprint)
    app.jinja_env.globals["rules_url"] = rules_url
    app.jinja_env.filters.update(say=linking(say_sentence), words=linking(say),
                                 ruled=linking(lambda text: text), plain=say_sentence)
