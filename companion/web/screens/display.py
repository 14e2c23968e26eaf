"""The TV view: a read-only screen of one game for a second screen, a projector or a tablet
in the middle of the table, in type readable from across the room; no forms."""
from flask import Blueprint

from companion.web.streams import stream
from companion.web.pages import game_or_404, live_or_204
from companion.web.render import views
from companion.web.render.rendered import screen
from .phones import joining

blueprint = Blueprint("display", __name__)


@blueprint.get("/g/<token>/tv")
def display(token):
    return screen(game_or_404(token), "display.html", _context)


@blueprint.get("/g/<token>/tv/live")
def live(token):
    return live_or_204(token, _live)


@blueprint.get("/g/<token>/tv/live/events")
def events(token):
    return stream(token, _live)


def _live(game):
    return screen(game, "_display_live.html", _context)


def _context(game) -> dict:
    return dict(**views.status(game), players=views.players(game), body_class="tv",
                auction=views.auction_view(game), **joining(game),
                seats_open=views.seats_open(game), to_come=views.ToCome(game),
                guide=views.guide(game))
