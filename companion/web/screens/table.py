"""The table screen: the game in public, recording actions, history, score, export."""
import json
import re
import time
import unicodedata
from functools import cache
from urllib.parse import quote

from flask import (Blueprint, Response, abort, redirect, render_template,
                   request, url_for)

from qrcode.exceptions import DataOverflowError

from companion.rules.phrase import N_, Phrase
from companion.rules.cards import ROUNDS
from companion.rules.refusal import Refusal, public_message
from companion.rules.setup import next_clockwise
from companion.rules.story import story
from companion.store import games
from companion.store.sql import CODE_LENGTH, HOSTED_CODE_LENGTH, Bounded, Conflict
from companion.web.changes import change, device_labels, log_change, race_outcome
from companion.web.forms import form_dict, form_values, parse_action, parse_amount, whole
from companion.web.guards.roles import access, check_change, device, device_token, hosted, seat_of
from companion.web.streams import stream
from companion.web.pages import game_or_404, live_or_204, store
from companion.web.render import views
from companion.web.render.chart import chart_key, coins_chart
from companion.web.render.history import journal, rounds
from companion.web.render.plays import bg_stats_url
from companion.web.render.qr import qr_svg
from companion.web.render.rendered import screen
from .host import past_bound, start_bounds
from .phones import join_url, joining

blueprint = Blueprint("table", __name__)


@blueprint.get("/g/<token>")
def table(token):
    return screen(game_or_404(token), "table.html", _context)


@blueprint.get("/g/<token>/live")
def live(token):
    return live_or_204(token, _live)


@blueprint.get("/g/<token>/live/events")
def events(token):
    return stream(token, _live)


def _live(game):
    return screen(game, "_table_live.html", _context)


@blueprint.post("/g/<token>/act")
def act(token):
    game = game_or_404(token)
    event = _form_event(game)
    return _change(game, lambda version: games.append(
        store(), game, version, event(), device(game).signature), put=event)


def _form_event(game):
    """What reads the event the form describes (a Refusal if it describes none), once:
    the change checks it, then writes it."""
    return cache(lambda: parse_action(game.setup, request.form))


@blueprint.post("/g/<token>/undo")
def undo(token):
    game = game_or_404(token)
    return _change(game, lambda version: games.undo(store(), game, version,
                                                    device(game).signature),
                   kind="undo", taken=_undone(game))


def _undone(game) -> list:
    """The events an undo takes back: the last action, with the result live auction mode
    added after it (games.undo)."""
    last = len(game.events) - 1
    first = last - 1 if last > 0 and games.added_result(game, last) else last
    return game.events[max(first, 0):]


@blueprint.get("/g/<token>/preview")
def preview(token):
    """The live legality warning and payment preview of the sale form."""
    game = game_or_404(token)
    try:
        winner = game.setup.players[int(request.args.get("winner", ""))]
        amount = parse_amount(request.args.get("price", ""))
    except (ValueError, IndexError, Refusal):
        return render_template("_check.html", check=None)
    check = views.check_bid(game.state, winner, amount, _purse(game, winner))
    return render_template("_check.html", check=check, name=winner, game=game)


@blueprint.get("/g/<token>/bid-check")
def bid_check(token):
    """Live auction: warn about the bid being typed for the player whose turn it is."""
    game = game_or_404(token)
    auction = views.auction_view(game)
    try:
        amount = parse_amount(request.args.get("amount", ""))
    except Refusal:
        amount = None
    if auction is None or amount is None:
        return render_template("_bid_warning.html", warning=None)
    held = views.held_cards(game, game.state).owners[auction.seat:auction.seat + 1]
    return render_template("_bid_warning.html", game=game, auction=auction, held_by_turn=held,
                           warning=views.bid_warning(game, auction, amount,
                                                     _purse(game, auction.turn)))


def _purse(game, name: str) -> str:
    """What this device may learn of `name`'s money before a submission (R12): all with
    money open or on their own phone, nothing on any other device, the host's included."""
    if game.options.money_open or seat_of(game) == game.setup.seat(name):
        return views.SHOWN
    return views.UNKNOWN


@blueprint.get("/g/<token>/history")
def history(token):
    return _history_page(game_or_404(token))


def _history_page(game, note=None):
    """The page of rounds (`?page=`) and of the journal (`?journal=`) asked for; page 1 if
    the number is not one."""
    labels = device_labels()
    return render_template("history.html", **views.status(game), **access(game), note=note,
                           rounds=rounds(game, labels, whole(request.args.get("page")) or 1),
                           journal=journal(game, labels, whole(request.args.get("journal")) or 1))


@blueprint.get("/g/<token>/history/<number>")
def edit(token, number):
    """The correction page of an event this device may change."""
    game, index = _event_or_404(token, number)
    check_change(game, game.events[index:index + 1])
    return _edit_page(game, index, {})


@blueprint.post("/g/<token>/history/<number>")
def correct(token, number):
    game, index = game_or_404(token), _number_or_404(number)
    event = _form_event(game)
    return _rewrite(game, index, "correct", lambda version: games.correct(
        store(), game, version, index, event(), device(game).signature), put=event)


@blueprint.post("/g/<token>/history/<number>/remove")
def remove(token, number):
    game, index = game_or_404(token), _number_or_404(number)
    return _rewrite(game, index, "remove", lambda version: games.remove(
        store(), game, version, index, device(game).signature))


def _rewrite(game, index: int, kind: str, write, put=None):
    """Correct or remove event `index` (see changes.log_change); on a refusal, say why on
    the correction page; on a lost race (the event may be gone), what happened instead, on
    that page if the event is still there, else on the history."""
    try:
        log_change(game, write, game.events[index:index + 1], put)
    except Refusal as refusal:
        message = public_message(refusal, not game.options.money_open)
        if index >= len(game.events):
            return _history_page(game, message), 422
        return _edit_page(game, index, form_dict(request.form), message), 422
    except Conflict:
        latest = game_or_404(game.token, fresh=True)
        note, status = race_outcome(latest, kind, index)
        if status == 409 and index < len(latest.events):
            return _edit_page(latest, index, form_dict(request.form), note), 409
        return _history_page(latest, note), status
    return redirect(url_for("table.history", token=game.token), 303)


def _event_or_404(token: str, number: str):
    """The game and the index of its event written in the URL."""
    game = game_or_404(token)
    index = whole(number, len(game.events))
    if index is None:
        abort(404)
    return game, index


def _number_or_404(number: str) -> int:
    """The index of an event written in a URL (which may be gone when the form arrives)."""
    index = whole(number)
    if index is None:
        abort(404)
    return index


def _edit_page(game, index, values, message=None):
    before = game.state_at(index)
    event = game.events[index]
    return render_template("edit.html", game=game, index=index, event=event, values=values,
                           own=form_values(game.setup, event),
                           removable=not games.added_result(game, index),
                           words=views.describe(game, index),
                           kinds=views.kinds_at(game, index),
                           grid=views.reveal_grid(game, before),
                           held=views.held_cards(game, before),
                           free_lot=views.free_lot(before),
                           error=message and {"action": values.get("action") or event.kind,
                                              "message": message})


@blueprint.get("/g/<token>/score")
def score(token):
    return screen(game_or_404(token), "score.html", _score)


def _score(game) -> dict:
    finished = game.state.finished
    return dict(game=game, score=game.state.score(),
                story=story(game.events, game.states) if finished else None,
                chart=coins_chart(game) if finished else None,
                key=chart_key(game) if finished else None,
                bg_stats=bg_stats_url(game) if finished else None,
                next_start=next_clockwise(game.setup))


NOT_OVER = Phrase(N_("The game is not over yet: the table plays again once round {rounds} "
                     "has settled (R2)."), rounds=ROUNDS)


@blueprint.post("/g/<token>/rematch")
def rematch(token):
    """The same table plays again (a host's device): a new game with the same players in
    the same seats and the same settings, the first start player chosen on the form (by
    default the next one clockwise); the game started already if another tap made it."""
    game = game_or_404(token)
    if not game.state.finished:
        abort(409, NOT_OVER)
    start = whole(request.form.get("start"), len(game.setup.players))
    try:
        after = games.rematch(store(), game, next_clockwise(game.setup) if start is None
                              else start, device_token() if hosted() else None,
                              HOSTED_CODE_LENGTH if hosted() else CODE_LENGTH, start_bounds())
    except Conflict:  # removed meanwhile
        abort(404)
    except Bounded as bounded:
        abort(429, past_bound(bounded))
    return redirect(url_for("table.table", token=after), 303)


@blueprint.get("/g/<token>/record.json")
def export(token):
    """The game record to keep; for a game whose log no longer replays, as stored."""
    try:
        game = game_or_404(token)
        record, created = game.record(), game.created
    except games.Damaged as damaged:
        record, created = damaged.record, damaged.created
    body = json.dumps(record, indent=1, ensure_ascii=False)
    response = Response(body, mimetype="application/json")
    name = export_name(created, record.get("players"))
    response.headers["Content-Disposition"] = (
        f"attachment; filename={_ascii(name)}; filename*=UTF-8''{quote(name)}")
    return response


def export_name(created: float, players) -> str:
    """'templari-2026-11-23-2114-Anna-Bert-Claus.json': when the game started, and who played."""
    names = [name for name in players if isinstance(name, str)] if isinstance(players, list) else []
    words = "-".join(re.sub(r"[^\w]+", "", name) for name in names if re.sub(r"[^\w]+", "", name))
    started = time.strftime("%Y-%m-%d-%H%M", time.localtime(created))
    return f"templari-{started}{'-' + words if words else ''}.json"


def _ascii(name: str) -> str:
    """The file name for browsers that read only plain ASCII: accents dropped."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9.-]+", "", plain)


@blueprint.get("/g/<token>/qr.svg")
def qr(token):
    """The join link as a QR code; 404 when phones cannot reach this server."""
    url = join_url(game_or_404(token))
    if url is None:
        abort(404)
    try:
        svg = qr_svg(url)
    except DataOverflowError:
        abort(400)
    return Response(svg, mimetype="image/svg+xml")


def _context(game, error=None, note=None, values=None) -> dict:
    state = game.state
    stalled = views.stalled(game)
    if stalled and not values:  # the overbid to record is the high bidder's (R5)
        values = {"player": str(state.auction.leader)}
    auction, held = views.auction_view(game), views.held_cards(game, state)
    return dict(**views.status(game), **access(game), **joining(game),
                players=views.players(game),
                grid=None if state.lot else views.reveal_grid(game, state), held=held,
                free_lot=views.free_lot(state),
                to_come=views.ToCome(game), seats_open=views.seats_open(game),
                error=error, note=note, values=values or {},
                auction=auction, actions=views.table_actions(game),
                stalled=stalled, warning=views.refused_bid(error),
                held_by_turn=auction and held.owners[auction.seat:auction.seat + 1],
                last=views.describe(game, len(game.events) - 1) if game.events else None,
                guide=views.guide(game))


def _change(game, write, kind=None, taken=(), put=None):
    return change(game, write, "_table_live.html", _context,
                  url_for("table.table", token=game.token), kind, taken, put)
