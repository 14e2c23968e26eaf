"""Texts the rules core hands to a shell: English templates with named parameters.

The core never translates. It builds a `Phrase` (or a `Refusal`) from an English
`str.format` template and its parameters; `str()` gives the English text, and a
shell may instead look the template up in a catalog and fill in the same
parameters, which may themselves be phrases or lists of names. `N_` marks a
template for extraction (`pybabel extract -k N_`) and returns it unchanged.
"""


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
        return self.template.format(**self.params)

    def __eq__(self, other) -> bool:
        return (isinstance(other, Phrase) and self.template == other.template
                and self.params == other.params)

    __hash__ = None

    def __repr__(self) -> str:
        return f"Phrase({self.template!r}, **{self.params!r})"


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
