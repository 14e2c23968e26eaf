"""Pieces of HTML that screens draw many times over, each drawn once per look and kept: a
card (a table screen shows a hundred) and a cell of the reveal grid (sixty a grid). Each
is of a CardView, in the request's language, so a kept one is never shown in another."""
from functools import lru_cache

from flask import Flask, current_app
from markupsafe import Markup

CARDS_KEPT = 2048  # 60 cards a deck, a few decks and languages
CELLS_KEPT = 4096  # each card open or not, with or without its family's symbol
MARKS = {0: "first", 5: "again"}  # the cells of a row of the grid that show its symbol


def init(app: Flask) -> None:
    app.jinja_env.filters.update(card=card, cells=cells)


@lru_cache(maxsize=CARDS_KEPT)
def card(view) -> Markup:
    """A card (views.CardView) as templates/_card.html draws it."""
    return Markup(current_app.jinja_env.get_template("_card.html").render(c=view))


def cells(row, chosen) -> Markup:
    """A family's row of the reveal grid ((CardView, may be chosen) each): its cells, those
    in `chosen` (card values) checked, the family's symbol on the first and the sixth."""
    return Markup("\n").join(cell(view, open_, view.value in chosen, MARKS.get(index, ""))
                              for index, (view, open_) in enumerate(row))


@lru_cache(maxsize=CELLS_KEPT)
def cell(view, open_: bool, checked: bool, mark: str) -> Markup:
    """A card's cell of the reveal grid (templates/_cell.html): whether it may be chosen
    (R1), whether it is, and `mark`, where its row shows the family's symbol ("first" or
    "again", else "")."""
    return Markup(current_app.jinja_env.get_template("_cell.html").render(
        c=view, open=open_, checked=checked, mark=mark))
