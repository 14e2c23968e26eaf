"""Pieces of HTML that screens draw many times over, each drawn once per look and kept: a
card (a table screen shows a hundred), a cell of the reveal grid (sixty a grid), a
player's cards in a card select and the players in a player select (a table screen has
up to four of each). Each is of CardViews and words in the request's language, or of
names, so a kept one is never shown in another language."""
from functools import lru_cache

from flask import Flask, current_app
from markupsafe import Markup

CARDS_KEPT = 2048  # 60 cards a deck, a few decks and languages
CELLS_KEPT = 4096  # each card open or not, with or without its family's symbol
GROUPS_KEPT = 1024  # each player's hand as it grows, in each language
PLAYERS_KEPT = 1024  # the players of a busy server's tables, none or one of them chosen
MARKS = {0: "first", 5: "again"}  # the cells of a row of the grid that show its symbol


def init(app: Flask) -> None:
    app.jinja_env.filters.update(card=card, cells=cells, optgroups=optgroups,
                                  player_options=player_options)


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


def optgroups(owners, chosen) -> Markup:
    """The cards of a card select (views.Held's owners: name, seat, cards with their
    words), a group for each player who holds any; the card whose value is `chosen`
    selected. Only the group that holds it is drawn with it: a value a form was sent with
    (of any length) is never kept."""
    return Markup("\n").join(optgroup(name, seat, cards, chosen if _holds(cards, chosen) else None)
                              for name, seat, cards in owners if cards)


def _holds(cards, value) -> bool:
    return value is not None and any(view.value == value for view, _ in cards)


@lru_cache(maxsize=GROUPS_KEPT)
def optgroup(owner: str, seat: int, cards, chosen) -> Markup:
    """One player's cards in a card select (templates/_optgroup.html)."""
    return Markup(current_app.jinja_env.get_template("_optgroup.html").render(
        owner=owner, seat=seat, cards=cards, chosen=chosen))


def player_options(players: tuple[str, ...], chosen) -> Markup:
    """The players of a player select, by seat; the seat `chosen` (a form's text)
    selected, if it is one."""
    return _player_options(players, chosen if chosen in map(str, range(len(players))) else None)


@lru_cache(maxsize=PLAYERS_KEPT)
def _player_options(players: tuple[str, ...], chosen: str | None) -> Markup:
    """(templates/_player_options.html)"""
    return Markup(current_app.jinja_env.get_template("_player_options.html").render(
        players=players, chosen=chosen))
