"""A player's phone: take a seat, see your own coins, check a bid before making it."""
from functools import partial

from flask import Blueprint, abort, redirect, render_template, request, session, url_for
from flask_babel import gettext

from companion.rules.phrase import N_

from companion.rules.bidding import highest_allowed
from companion.rules.events import Bid, Pass
from companion.rules.refusal import Refusal
from companion.store import games
from companion.store.sql import Conflict, SeatTaken
from companion.web.changes import change
from companion.web.forms import parse_amount, whole
from companion.web.guards.roles import access, device, is_host, seat_of, why_not_record
from companion.web.streams import stream
from companion.web.pages import game_or_404, live_or_204, store
from companion.web.render import views
from companion.web.render.plays import bg_stats_url
from companion.web.render.rendered import hiding, screen

blueprint = Blueprint("player", __name__)


@blueprint.get("/g/<token>/join")
def join(token):
    game = game_or_404(token)
    if seat_of(game) is not None and not is_host():
        return redirect(url_for("player.me", token=token))
    return render_template("join.html", game=game, note=None, mine=seat_of(game))


@blueprint.get("/g/<token>/join/seats")
def seats(token):
    """The join page's seats, fresh, or 204 if the same seats are still taken."""
    taken = store().seats_taken(token)
    if taken is None:
        abort(404)
    if ",".join(map(str, taken)) == request.args.get("taken"):
        return "", 204
    return render_template("_seats.html", game=game_or_404(token))


@blueprint.post("/g/<token>/join")
def take_seat(token):
    game = game_or_404(token)
    if seat_of(game) is not None:
        return redirect(url_for("player.me", token=token), 303)
    seat = whole(request.form.get("seat"), len(game.setup.players))
    if seat is None:
        return render_template("join.html", game=game, mine=None,
                               note=gettext("Choose your seat.")), 422
    try:
        _sit(game, seat)
    except (SeatTaken, Conflict):
        return render_template("join.html", game=game, mine=None, note=gettext(TAKEN)), 409
    return redirect(url_for("player.me", token=token), 303)


TAKEN = N_("That seat is already taken on another phone. Ask the host to free it if it is "
           "yours.")


def _sit(game, seat: int) -> None:
    """This device takes the seat `seat` of `game` (SeatTaken if another holds it)."""
    seat_token = store().claim_seat(game.token, seat)
    session["seats"] = {**session.get("seats", {}), game.token: seat_token}
    session.permanent = True


@blueprint.post("/g/<token>/me/next")
def next_game(token):
    """"Join the next game": this phone takes its player's seat in the game its table
    plays next (to that game's seats if another phone holds it already)."""
    game = game_or_404(token)
    if game.next_game is None:
        return redirect(url_for("player.me", token=token), 303)
    after = game_or_404(game.next_game)
    name = game.setup.players[seat_of(game)]
    if seat_of(after) is None and name in after.setup.players:
        try:
            _sit(after, after.setup.seat(name))
        except (SeatTaken, Conflict):
            return redirect(url_for("player.join", token=after.token), 303)
    return redirect(url_for("player.me", token=after.token), 303)


@blueprint.post("/g/<token>/seats/<seat>/free")
def free_seat(token, seat):
    number = whole(seat, len(game_or_404(token).setup.players))
    if number is None:
        abort(404)
    store().free_seat(token, number)
    return redirect(url_for("table.table", token=token), 303)


@blueprint.post("/g/<token>/me/leave")
def leave(token):
    """A phone that changes hands gives up its seat (confirmed on its screen): another
    phone may take it, and this one only watches."""
    seat = seat_of(game_or_404(token))  # a seated phone's alone (roles.ROUTES)
    store().free_seat(token, seat)
    session["seats"] = {game: held for game, held in session.get("seats", {}).items()
                        if game != token}
    return redirect(url_for("player.join", token=token), 303)


@blueprint.get("/g/<token>/me")
def me(token):
    game = game_or_404(token)
    if seat_of(game) is None:
        return redirect(url_for("player.join", token=token))
    return screen(game, "me.html", _context)


@blueprint.get("/g/<token>/me/live")
def me_live(token):
    return live_or_204(token, _me_live)


@blueprint.get("/g/<token>/me/live/events")
def events(token):
    return stream(token, _me_live)


def _me_live(game):
    if seat_of(game) is None:
        return render_template("_seat_lost.html", game=game)
    return screen(game, "_me_live.html", _context)


@blueprint.get("/g/<token>/me/check")
def check(token):
    """'Can I bid X?' and 'if I win at X, who is paid?', while typing."""
    game = game_or_404(token)
    seat = seat_of(game)
    try:
        amount = parse_amount(request.args.get("amount", ""))
    except Refusal:
        return render_template("_check.html", check=None)
    if seat is None:
        return render_template("_check.html", check=None)
    name = game.setup.players[seat]
    check = views.check_bid(game.state, name, amount, views.SHOWN,
                            live=games.auction_running(game))
    return render_template("_check.html", check=check, name=name, game=game)


@blueprint.post("/g/<token>/me/act")
def act(token):
    """Live auction: bid or drop out from your own phone, when it is your turn (R3)."""
    game = game_or_404(token)
    seat = seat_of(game)
    if seat is None:
        return redirect(url_for("player.join", token=token), 303)
    move = partial(_my_move, game.setup.players[seat])
    return change(game, lambda version: games.append(
        store(), game, version, move(), device(game).signature),
        "_me_live.html", _context, url_for("player.me", token=token),
        "pass" if request.form.get("action") == "pass" else "bid", put=move)


def _my_move(name: str):
    """The phone's own bid or pass; nobody else's."""
    if request.form.get("action") == "pass":
        return Pass(name)
    return Bid(name, parse_amount(request.form.get("amount", "")))


def _context(game, error=None, note=None, values=None) -> dict:
    seat = seat_of(game)
    state = game.state
    players = views.players(game, seat)
    auction = views.auction_view(game)
    warning = views.refused_bid(error) if why_not_record(game) is None else None
    hides = hiding()
    return dict(**views.status(game), **access(game), seat=seat, me=players[seat],
                best=highest_allowed(state, seat), players=players,
                standing=views.standing(state, seat), to_come=views.ToCome(game, seat),
                bg_stats=bg_stats_url(game) if state.finished else None,
                auction=auction, error=error, note=note, values=values or {},
                warning=warning, held_by_turn=views.held_cards(game, state).owners[seat:seat + 1],
                guide=views.guide(game, seat), hiding=hides,
                body_class="hiding" if hides else "")
