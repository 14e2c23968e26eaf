"""Who may do what: the host's devices, seated phones and viewers, for every route and
every change of a game's log.

This is the one place that decides it. A request must name this server in its
Host header (a loopback name or address, one of the server's own addresses, or a
name given on the command line), else it gets 400: a web page that rebinds its
DNS name to 127.0.0.1 learns nothing. Host rights need a loopback peer with such
a Host (the server's own device, the owner), or a grant the owner gave this device
(its own random token, revocable; never the host key itself). Only the owner shows
the host link, renews it and revokes grants, so that a granted device can neither
keep the key nor lock the owner's other devices out.

A hosted server (--hosted, on the internet) has no owner: a loopback peer is a device like
any other, any device may start a game, and the device that started one hosts that game
alone (its device token, kept in its session, is stored with the game).
"""
import ipaddress
import secrets
import socket
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from flask import abort, current_app, g, request, session

from companion.rules.events import Bid, Overbid, Pass, Penalty
from companion.rules.phrase import N_, Phrase
from companion.web.pages import URL_KEY, game_or_404, store

OWNER, HOST, CREATOR, RECORDER, SEATED, ANYONE = (
    "owner", "host", "creator", "recorder", "seated", "anyone")

# Who may use each route. OWNER: the server's own device alone. HOST: the host's
# devices (the owner and the devices it granted; on a hosted server, the devices that host
# the route's game). CREATOR: the host's devices; any device on a hosted server (limited by
# address where a game is made). RECORDER: the host's devices, and
# seated phones while the game lets players record from their phones. SEATED: a phone
# holding a seat (its own bids and drop-outs). A route missing here is the host's alone.
ROUTES = {
    "static": ANYONE, "i18n.switch": ANYONE,
    "host.home": ANYONE, "host.enter_code": ANYONE,
    "host.host_link": ANYONE, "host.grant": ANYONE,  # the host link's key is checked there
    "host.new_game": CREATOR, "host.import_game": CREATOR, "host.revoke": OWNER, "host.renew": OWNER,
    "host.pick_players": CREATOR,
    # each device sees the standings of the games it may see (`seen_games`)
    "standings.standings": ANYONE, "standings.export": ANYONE, "standings.mine": SEATED,
    "table.table": ANYONE, "table.live": ANYONE, "table.events": ANYONE,
    "table.history": ANYONE,
    "table.score": ANYONE, "table.export": ANYONE, "table.qr": ANYONE,
    "table.act": RECORDER, "table.undo": RECORDER, "table.edit": RECORDER,
    "table.correct": RECORDER, "table.remove": RECORDER, "table.preview": RECORDER,
    "table.bid_check": RECORDER, "table.rematch": HOST,
    "display.display": ANYONE, "display.live": ANYONE, "display.events": ANYONE,
    "rules.rules": ANYONE,
    "settings.settings": HOST, "settings.save_settings": HOST, "settings.confirm": HOST,
    "settings.unlock": HOST, "settings.lock": HOST, "settings.delete": HOST,
    "phones.show": HOST,
    "hosting.link": ANYONE, "hosting.grant": ANYONE,  # the key of the game's host link: checked there
    "hosting.revoke": HOST,
    # the operator's key is checked there:
    "operator.page": ANYONE, "operator.sign_in": ANYONE, "operator.remove": ANYONE,
    "player.join": ANYONE, "player.seats": ANYONE, "player.take_seat": ANYONE, "player.free_seat": HOST,
    "player.me": ANYONE, "player.me_live": ANYONE, "player.events": ANYONE,
    "player.check": SEATED,
    "player.act": SEATED,
    "player.leave": SEATED, "player.next_game": SEATED,
}
# In a live auction these name a bidder; a phone records them only for its own seat (R3-R5).
BIDDER_EVENTS = (Bid, Pass, Penalty, Overbid)

ONLY_HOST = Phrase(N_("Only the host's device can do this."))
ONLY_OWNER = Phrase(N_("Only the server's own device can do this: it alone shows the host "
                       "link and revokes host devices."))
ONLY_SEATED = Phrase(N_("This device holds no seat in this game: take a seat first."))
WATCHING = Phrase(N_("This device only watches the table: take a seat to record."))
PHONES_OFF = Phrase(N_("The host has turned off recording from phones: the host's device "
                       "records the table's actions."))


@dataclass(frozen=True)
class Device:
    """The device a request comes from, as one game sees it."""

    host: bool
    seat: int | None
    grant: int | None = None

    @property
    def signature(self) -> str:
        """Who did it, as the game's history keeps it."""
        if self.host:
            return "host" if self.grant is None else f"grant:{self.grant}"
        return f"seat:{self.seat}"


def init(app) -> None:
    app.before_request(_check_request)
    app.context_processor(lambda: {"is_host": is_host()})


def _check_request() -> None:
    """The Host header names this server, and this device may use the route."""
    if not host_header_ok():
        abort(400)
    if request.endpoint is None:
        return
    rule = ROUTES.get(request.endpoint, HOST)
    if rule == OWNER and not is_owner():
        abort(403, ONLY_OWNER)
    if rule == HOST and not is_host():
        abort(403, ONLY_HOST)
    if rule == CREATOR and not (hosted() or is_host()):
        abort(403, ONLY_HOST)
    if rule in (RECORDER, SEATED):
        game = game_or_404(request.view_args["token"])
        refusal = (why_not_record if rule == RECORDER else _why_not_seated)(game)
        if refusal:
            abort(403, refusal)


def access(game) -> dict:
    """What the templates need to know of this device in `game`: its role (`device`) and
    why it may not record the table's actions (`why_not`, None if it may)."""
    return {"device": device(game), "why_not": why_not_record(game)}


def why_not_record(game) -> Phrase | None:
    """Why this device may not record the table's actions in `game`, or None."""
    here = device(game)
    if here.host:
        return None
    if here.seat is None:
        return WATCHING
    return None if game.options.phones_record else PHONES_OFF


def _why_not_seated(game) -> Phrase | None:
    return None if device(game).seat is not None else ONLY_SEATED


def check_change(game, taken=(), put=None) -> None:
    """403 in words unless this device may take the events `taken` out of the game's log
    and put the event `put` in (None: none): every change of the log (an action, an undo,
    a correction, a removal) asks here. Whether the device may change the log at all is
    its route's rule (ROUTES)."""
    for event in (*taken, *([] if put is None else [put])):
        refusal = why_not_touch(game, event)
        if refusal:
            abort(403, refusal)


def why_not_touch(game, event) -> Phrase | None:
    """Why this device may not record, correct or remove `event`, or None: in a live
    auction a phone touches bids, drop-outs, penalties and overbids only of its own
    player (R3-R5)."""
    here = device(game)
    if (here.host or not game.options.live_auction or not isinstance(event, BIDDER_EVENTS)
            or game.setup.players[here.seat] == event.player):
        return None
    return Phrase(N_("In a live auction a phone records only its own player's bids, "
                     "drop-outs, penalties and overbids: {player}'s are recorded on the "
                     "host's device."), player=event.player)


def device(game) -> Device:
    """This request's device in `game`: host (and which grant), its seat."""
    grant = _grant()
    return Device(host=is_owner() or grant is not None or hosts_game(game.token),
                  seat=seat_of(game), grant=grant)


def seat_of(game) -> int | None:
    """The seat this device holds in the game, if the host has not freed it."""
    seat_token = session.get("seats", {}).get(game.token)
    for seat, token in game.seats.items():
        if token == seat_token:
            return seat
    return None


def is_host() -> bool:
    """The server's own device, one the host granted host rights, or (on a hosted server)
    a host of the game the request names."""
    return is_owner() or _grant() is not None or hosts_game(
        (request.view_args or {}).get("token"))


def is_owner() -> bool:
    """The server's own device, the owner: a loopback peer (the Host header was checked
    first); nobody on a hosted server."""
    return not hosted() and own_device(request.remote_addr or "")


@lru_cache(maxsize=4096)  # asked at every request
def own_device(address: str) -> bool:
    """Whether `address` is the server's own device: a loopback address (the host, R12's
    host device)."""
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def hosted() -> bool:
    """Whether this is a hosted server (--hosted): no owner, every device may start games."""
    return current_app.config["HOSTED"]


def hosts_game(token) -> bool:
    """Whether this device hosts the game `token` on a hosted server (it started it, or
    came by the game's host link)."""
    mine = own_device_token()
    if mine is None or not isinstance(token, str) or not URL_KEY.fullmatch(token) or g.get(
            "store_down"):
        return False
    hosting = g.setdefault("hosting", {})
    if token not in hosting:
        hosting[token] = store().hosts(token, mine)
    return hosting[token]


def own_device_token() -> str | None:
    """On a hosted server, the token this device's games are stored with, if it has one."""
    mine = session.get("device") if hosted() else None
    return mine if isinstance(mine, str) else None


def device_token() -> str:
    """This device's token on a hosted server, given it now if it has none."""
    if own_device_token() is None:
        session["device"] = secrets.token_urlsafe(18)
        session.permanent = True
    return session["device"]


# The games a device sat in that its standings count: those its session names (the most
# recent of them, should a session name more).
MOST_SAT_IN = 500


def seen_games() -> tuple[str | None, tuple[str, ...]] | None:
    """The games this device's standings, names offered and exports cover: every game on
    a host's device of a table's server (None); else (on a hosted server, or a phone) the
    games it hosts and those it sat in: (its device token or None, their tokens). Nothing
    lets one host see another's players."""
    if not hosted() and is_host():
        return None
    sat_in = [token for token in session.get("seats", {})
              if isinstance(token, str) and URL_KEY.fullmatch(token)]
    return own_device_token(), tuple(sat_in[-MOST_SAT_IN:])


def is_granted() -> bool:
    """A device the owner granted host rights, and has not revoked."""
    return not is_owner() and _grant() is not None


def _grant() -> int | None:
    """The id of this device's host grant, if it has one the host has not revoked (none on
    a hosted server: it has no host link)."""
    if "grant" not in g:
        token = session.get("grant")
        g.grant = store().granted(token) if isinstance(token, str) and not (
            hosted() or g.get("store_down")) else None
    return g.grant


def make_host(label: str) -> None:
    """Give this device host rights of its own (a grant, never the host key)."""
    session["grant"] = store().grant(label)
    session.permanent = True
    g.pop("grant", None)


def host_header_ok() -> bool:
    """The Host header is a loopback name or address, an address of this machine, or a
    name the server was given (--name, the LAN address it announces)."""
    return names_this_server(request.host, current_app.config["HOST_NAMES"])


@lru_cache(maxsize=256)  # a table's devices send one or two Host headers, each request
def names_this_server(host: str, names: frozenset) -> bool:
    """Whether `host` (a Host header) names this server, given the names it was given."""
    try:
        name = (urlsplit("//" + host).hostname or "").rstrip(".")
    except ValueError:  # "[::1", a port that is no number...
        return False
    if name == "localhost" or name.endswith(".localhost") or name in names:
        return True
    try:
        return _own_address(ipaddress.ip_address(name))
    except ValueError:
        return False


@lru_cache(maxsize=64)
def _own_address(address) -> bool:
    """Whether `address` belongs to this machine: a socket can be bound to it (nothing
    is sent)."""
    if address.is_loopback:
        return True
    if address.is_unspecified or address.is_multicast:
        return False
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as probe:
        try:
            probe.bind((str(address), 0))
        except OSError:
            return False
    return True
