"""The rules in the app: one page in our own words with an anchor per rule (R1-R12 of
RULES.md), and every rule reference a player reads, "(R5)", a link to its paragraph.

The page is the same for every device: it is rendered once per language and edition
(the game's edition, highlighted; none for the page on its own) and kept. References
are linked in one place, `linking`, which the templates' text filters go through; the
same texts stay plain wherever they are not HTML (error answers in plain text, the
`replay` command, the game record). A linked reference never breaks across lines, nor
from the punctuation after it (`unbreakable`, also over the rules page's own links).
"""
import re

from flask import Blueprint, g, render_template, request, url_for
from jinja2 import pass_context
from markupsafe import Markup, escape

from companion.rules.setup import EDITIONS
from companion.store.games import Game
from companion.web.render.i18n import say, say_sentence

blueprint = Blueprint("rules", __name__)

# "(R5)", "(R8.6)", "(R5/R7)", "(R3, R9)": a reference in brackets, each of its rules linked.
_RULE = re.compile(r"R\d+(?:\.\d+)?")
_REFERENCE = re.compile(rf"\(({_RULE.pattern}(?:(?:/|, ?){_RULE.pattern})*)\)")
# The same once linked, with the punctuation right after it: '(<a …>R5</a>).', and in
# French, after a no-break space, '(<a …>R6</a>)&#160;:'.
_LINKED_RULE = rf"<a [^>]*>{_RULE.pattern}</a>"
_LINKED = re.compile(rf"\({_LINKED_RULE}(?:(?:/|,\s*){_LINKED_RULE})*\)"
                     r"(?:[.,;:!?]|(?:\u00a0|&#160;)[:;!?])?")


@blueprint.get("/rules")
def rules():
    """The rules page; `?edition=en|fr` highlights that edition's rules."""
    edition = _edition(request.args.get("edition"))
    return render_template("rules.html", edition=edition,
                           here=url_for("rules.rules", edition=edition))


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

    return unbreakable(_REFERENCE.sub(link, str(escape(text))))


def unbreakable(html) -> Markup:
    """`html` with each linked rule reference, its brackets and the punctuation after it
    kept on one line: '<span class="rule-ref">(<a …>R6</a>).</span>' (a link is a box of
    its own, and a line could break on either side of it)."""
    return Markup(_LINKED.sub(lambda reference: f'<span class="rule-ref">{reference.group(0)}'
                              "</span>", str(html)))


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
    may go (a button's label), `unbreakable` for the rules page's own links."""
    app.register_blueprint(blueprint)
    app.jinja_env.globals["rules_url"] = rules_url
    app.jinja_env.filters.update(say=linking(say_sentence), words=linking(say),
                                 ruled=linking(lambda text: text), plain=say_sentence,
                                 unbreakable=unbreakable)
