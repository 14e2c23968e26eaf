"""Texts the rules core hands to a shell: English templates with named parameters.

The core never translates. It builds a `Phrase` (or a `Refusal`) from an English
`str.format` template and its parameters; `str()` gives the English text, its 'a'
made 'an' before 8, 11, 18 or 80 (`with_articles`), and a shell may instead look the
template up in a catalog and fill in the same parameters, which may themselves be
phrases or lists of names. `N_` marks a template for extraction (`pybabel extract -k
N_`) and returns it unchanged.
"""
import re
from functools import lru_cache

# A parameter in a template: {name} (str.format) or %(name)s (the templates' gettext).
PARAMETER = r"(\{(\w+)\}|%\((\w+)\)s)"
_A_BEFORE = re.compile(r"\b([Aa]) " + PARAMETER)


def N_(template: str) -> str:
    """Mark an English template for the message catalog; it is returned as it is."""
    return template


class Phrase:
    """An English template and the parameters that fill it in."""

    __slots__ = ("template", "params")

    def __init__(self, template: str, **params):
        self.template = template
        self.params = params

    def __str__(self) -> str:
        return with_articles(self.template, self.params).format(**self.params)

    def __eq__(self, other) -> bool:
        return (isinstance(other, Phrase) and self.template == other.template
                and self.params == other.params)

    __hash__ = None

    def __repr__(self) -> str:
        return f"Phrase({self.template!r}, **{self.params!r})"


class Family(str):
    """A family's name as the rules core says it: a shell may show the six default names
    in its own language."""

    __slots__ = ()


class Names(tuple):
    """Names joined with 'and': 'Anna', 'Anna and Bert', 'Anna, Bert and Claus'.

    Kept as a list so that a shell can join them with its own word for 'and'.
    """

    def __str__(self) -> str:
        return join(self, " and ")


class Either(tuple):
    """Items joined with 'or': '3', '3 or 7', '0, 3 or 7'; a shell joins them with its own
    word for 'or'."""

    def __str__(self) -> str:
        return join(self, " or ")


class Series(tuple):
    """Items joined with commas only: 'Bert takes 1, Claus takes 1'."""

    def __str__(self) -> str:
        return ", ".join(str(item) for item in self)


def join(items, last: str) -> str:
    """Items as text, separated by commas and, before the last one, by `last`."""
    texts = [str(item) for item in items]
    if len(texts) < 2:
        return "".join(texts)
    return ", ".join(texts[:-1]) + last + texts[-1]


def article(number: int) -> str:
    """'an' before a number spoken with a vowel first (eight, eleven, eighteen, eighty,
    eight hundred, eleven thousand...), else 'a'."""
    leading = number
    while leading >= 1000:  # the number's first group: 18 of 18,500
        leading //= 1000
    return "an" if leading in (11, 18) or str(leading).startswith("8") else "a"


def with_articles(template: str, values: dict) -> str:
    """An English template with 'a' before a number parameter made 'an' where the number
    calls for it: 'nobody holds a {digit}' with 8 gives 'nobody holds an {digit}'."""
    if not _has_article(template):
        return template
    return _A_BEFORE.sub(lambda match: _article_for(match, values), template)


def _article_for(match, values: dict) -> str:
    """The 'a' and parameter of `match`, with 'an' if the parameter's value is a number
    (not a bool, not a name) that calls for it."""
    value = values.get(match.group(3) or match.group(4))
    if type(value) is not int or article(value) == "a":
        return match.group(0)
    return f"{match.group(1)}n {match.group(2)}"


@lru_cache(maxsize=1024)
def _has_article(template: str) -> bool:
    """Whether a parameter of `template` follows 'a' (kept: the templates are few, and a
    page says a hundred things)."""
    return bool(_A_BEFORE.search(template))
