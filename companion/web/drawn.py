"""Pieces of HTML that every screen draws many times over, each drawn once per look and
kept: a card (a table screen shows a hundred; each is a CardView, in the request's
language, so a kept one is never shown in another)."""
from functools import lru_cache

from flask import Flask, current_app
from markupsafe import Markup

CARDS_KEPT = 2048  # 60 cards a deck, a few decks and languages


def init(app: Flask) -> None:
    app.jinja_env.filters["card"] = card


@lru_cache(maxsize=CARDS_KEPT)
def card(view) -> Markup:
    """A card (views.CardView) as templates/_card.html draws it."""
    return Markup(current_app.jinja_env.get_template("_card.html").render(c=view))
