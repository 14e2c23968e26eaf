"""Standings across the games kept on this server, for all games and for tonight; every
finished game as CSV; a seated phone's own line once its game is over. Each device sees
the games it may see (roles.seen_games): on a hosted server, those it hosts or sat in."""
import time

from flask import Blueprint, Response, render_template
from flask_babel import format_decimal

from companion.rules.standings import TONIGHT, line_of, standings as lines
from companion.store import listing
from companion.web.guards.roles import seen_games, seat_of
from companion.web.pages import game_or_404, store
from companion.web.render.plays import local_time, plays_csv

blueprint = Blueprint("standings", __name__)


@blueprint.get("/standings")
def standings():
    played = [game.played for game in _finished()]
    return render_template("standings.html", finished=len(played),
                           everyone=seen_games() is None, **_lines(played))


@blueprint.get("/standings.csv")
def export():
    """Every finished game this device may see, a row per player per game."""
    response = Response(plays_csv(_finished()), mimetype="text/csv")
    name = f"templari-plays-{local_time(time.time(), minutes_only=True)[:10]}.csv"
    response.headers["Content-Disposition"] = f"attachment; filename={name}"
    return response


@blueprint.get("/g/<token>/me/standing")
def mine(token):
    """A seated phone's own line, for all games and tonight (its final screen asks)."""
    game = game_or_404(token)
    name = game.setup.players[seat_of(game)]
    found = _lines([finished.played for finished in _finished()])
    return render_template("_my_standing.html", name=name,
                           all_games=line_of(found["all_games"], name),
                           tonight=line_of(found["tonight"], name))


@blueprint.app_template_filter("average")
def average(value: float) -> str:
    """An average as the reader's language writes it, to one decimal: '2.5' ('2,5')."""
    return format_decimal(value, format="0.0")


def _finished() -> list[listing.Finished]:
    """The finished games this device may see, oldest first."""
    return listing.finished(listing.seen(store(), seen_games()))


def _lines(played) -> dict:
    return {"all_games": lines(played), "tonight": lines(played, time.time() - TONIGHT)}
