"""One role check for every change of a game's log (issue 26, item 4): every route that
records, undoes, corrects or removes an action, for every kind of event, from every kind
of device, in live auction mode and not, is accepted as the host's own device's would be
or refused in words with nothing changed.

What each device may do (docs/playing.md, "Who may do what"): the host's devices everything; a
seated phone the table's actions while recording from phones is on, but in a live auction
it records, corrects, removes or undoes bids, drop-outs, penalties and overbids only of
its own player; with recording from phones off, only its own bids and drop-outs from its
own screen; a device without a seat nothing.
"""
import tempfile
from dataclasses import astuple, dataclass

import pytest

from companion.rules.events import EVENT_TYPES, Bid, Free, Pass, Penalty, Sold
from companion.rules.record import FORMAT, dump_event
from companion.store import games
from companion.web.forms import form_values
from tests.helpers import exchange, overbid, reveal, side_sale
from tests.web_helpers import PLAYERS, alerts, make_app, phone_client, text

CSRF = "the-csrf-token-of-this-device"
OWNER, GRANTED, NAMED, OTHER, PHONES_OFF, VIEWER = (
    "server's own device", "granted host device", "phone of the player the event names",
    "phone of another player", "phone of that player, recording from phones off",
    "viewer without a seat")
ROLES = (OWNER, GRANTED, NAMED, OTHER, PHONES_OFF, VIEWER)
BIDDER_KINDS = {"bid", "pass", "penalty", "overbid"}  # in a live auction, a player's own
WORDS = {
    VIEWER: "This device only watches the table: take a seat to record.",
    PHONES_OFF: "The host has turned off recording from phones: the host's device records "
                "the table's actions.",
    "no seat": "This device holds no seat in this game: take a seat first.",
    "not theirs": "In a live auction a phone records only its own player's bids, drop-outs, "
                  "penalties and overbids: {player}'s are recorded on the host's device.",
}

ROUND_1 = [reveal("red 0 yellow 5")]
ROUND_2 = reveal("red 1 yellow 6")
# Round 1 sold to Anna for 3, as each mode records it.
SOLD = {False: [*ROUND_1, Sold("Anna", 3)],
        True: [*ROUND_1, Bid("Anna", 3), Pass("Bert"), Pass("Claus"), Sold("Anna", 3)]}


@dataclass(frozen=True)
class Scene:
    """A game where the event `sent` can be recorded (after `before`), and where the log
    ends with it once `step` is recorded (in live auction mode a sale or a free lot is the
    result the app adds after the last drop-out)."""

    before: list
    sent: object
    step: object = None

    @property
    def log(self) -> list:
        return [*self.before, self.step or self.sent]


def scenes(live: bool) -> dict[str, Scene]:
    """One scene for each kind of event, in live auction mode or not."""
    sold = SOLD[live]
    both_bought = [*sold, ROUND_2, *([Pass("Anna"), Bid("Bert", 4), Pass("Claus")] if live
                                      else []), Sold("Bert", 4)]
    found = {
        "reveal": Scene([], ROUND_1[0]),
        "penalty": Scene([*sold, ROUND_2], Penalty("Anna")),
        "overbid": Scene([*sold, ROUND_2], overbid("Anna", "red 0")),
        "side_sale": Scene(sold, side_sale("Anna", "red 0", "Bert", 2)),
        "exchange": Scene(both_bought, exchange("Anna", "red 0", "Bert", "red 1")),
        "bid": Scene(ROUND_1, Bid("Anna", 2)),
        "pass": Scene(ROUND_1, Pass("Anna")),
    }
    if live:  # the app adds the result once the last player drops out
        found["sold"] = Scene([*ROUND_1, Bid("Anna", 3), Pass("Bert")], Sold("Anna", 3),
                              step=Pass("Claus"))
        found["free"] = Scene([*ROUND_1, Pass("Anna"), Pass("Bert")], Free(), step=Pass("Claus"))
    else:
        found["sold"] = Scene(ROUND_1, Sold("Anna", 3))
        found["free"] = Scene(ROUND_1, Free())
    return found


SCENES = {live: scenes(live) for live in (False, True)}
KINDS = [cls.kind for cls in EVENT_TYPES]


def nothing(game, event) -> dict:
    """No field: the URL says what the change is."""
    return {}


@dataclass(frozen=True)
class Route:
    """A route that changes the log (or shows the form of a change): its URL, whether the
    scene's log is recorded first (the change works on its last event), the form it is
    sent (`form(game, the scene's event)`), and whether it is a page."""

    url: str
    logged: bool
    form: object = nothing
    page: bool = False


ROUTES = {
    "record an action": Route("/g/{token}/act", False,
                              lambda game, event: form_values(game.setup, event)),
    "bid or drop out from the phone": Route(
        "/g/{token}/me/act", False,
        lambda game, event: {"action": event.kind, "amount": str(getattr(event, "amount", ""))}),
    "undo": Route("/g/{token}/undo", True),
    "correction page": Route("/g/{token}/history/{index}", True, page=True),
    "correct": Route("/g/{token}/history/{index}", True,
                     lambda game, event: form_values(game.setup, game.events[-1])),
    "remove": Route("/g/{token}/history/{index}/remove", True),
}
PHONE_ROUTE = "bid or drop out from the phone"


def cases():
    """(mode, kind, route, role): a bid or a drop-out is in a log only in live auction
    mode, and a phone's own screen sends only those."""
    for live in (False, True):
        for kind in KINDS:
            for route, shape in ROUTES.items():
                if (shape.logged and not live and kind in ("bid", "pass")
                        or route == PHONE_ROUTE and kind not in ("bid", "pass")):
                    continue
                for role in ROLES:
                    yield pytest.param(live, kind, route, role,
                                       id=f"{'live' if live else 'results'}-{kind}-{route}-{role}")


@pytest.fixture(scope="module")
def app():
    with tempfile.TemporaryDirectory() as data:
        app = make_app(data)
        app.extensions["grant"] = app.config["STORE"].grant("Eva's tablet")
        yield app


def named(event) -> list[str]:
    """The players an event names, in its fields' order."""
    return [value for value in astuple(event) if isinstance(value, str)]


def seated(role: str, event) -> str | None:
    """The player whose seat the device holds, if any."""
    names = named(event) or ["Anna"]
    if role in (NAMED, PHONES_OFF):
        return names[0]
    if role == OTHER:
        return next(name for name in PLAYERS if name not in names)
    return None


def new_game(app, live: bool, role: str, events: list) -> str:
    """A game of `events` (both variants on), with recording from phones off for
    PHONES_OFF: its token."""
    return games.create(app.config["STORE"], {
        "format": FORMAT, "edition": "en", "players": list(PLAYERS),
        "variants": {"side_auctions": True, "exchange": True},
        "events": [dump_event(event) for event in events]},
        games.Options(live_auction=live, phones_record=role != PHONES_OFF))


def device(app, role: str, token: str, player: str | None):
    """A client of `role`, holding `player`'s seat in the game if given."""
    client = app.test_client() if role == OWNER else phone_client(app, "192.168.1.40")
    store = app.config["STORE"]
    with client.session_transaction() as session:
        session["csrf_token"] = CSRF
        if player is not None:
            session["seats"] = {token: store.claim_seat(token, PLAYERS.index(player))}
        if role == GRANTED:
            session["grant"] = app.extensions["grant"]
    return client


@dataclass(frozen=True)
class Outcome:
    """What a player sees: the status, whether the game's log changed, and the page's
    words (its alerts, if any)."""

    status: int
    changed: bool
    words: str


def attempt(app, live, kind, route, role) -> Outcome:
    """Make the change (or open its page) as `role` in a new game of the scene."""
    scene, shape = SCENES[live][kind], ROUTES[route]
    token = new_game(app, live, role, scene.log if shape.logged else scene.before)
    client = device(app, role, token, seated(role, scene.sent))
    store = app.config["STORE"]
    game, before = games.load(store, token), store.game(token)
    url = shape.url.format(token=token, index=len(game.events) - 1)
    if shape.page:
        response = client.get(url)
    else:
        response = client.post(url, data={**shape.form(game, scene.sent),
                                          "version": str(game.version), "csrf_token": CSRF})
    after = store.game(token)
    return Outcome(response.status_code, (after.events, after.journal) != (
        before.events, before.journal), " ".join(alerts(response)) or text(response))


def touched(live: bool, kind: str, route: str) -> list:
    """The events the change records, takes away or puts back: the scene's event, and for
    an undo of the result the app added, the drop-out that brought it about too."""
    scene = SCENES[live][kind]
    if route == "undo" and scene.step:
        return [scene.step, scene.sent]
    return [scene.sent]


def refusal(live: bool, kind: str, route: str, role: str) -> str | None:
    """The words a device of `role` is refused with, None if it may (docs/playing.md's rule)."""
    if route == PHONE_ROUTE:
        return WORDS["no seat"] if role in (OWNER, GRANTED, VIEWER) else None
    if role in (VIEWER, PHONES_OFF):
        return WORDS[role]
    if not live or role not in (NAMED, OTHER):
        return None
    player = seated(role, SCENES[live][kind].sent)
    for event in touched(live, kind, route):
        if event.kind in BIDDER_KINDS and event.player != player:
            return WORDS["not theirs"].format(player=event.player)
    return None


OUTCOMES = {}  # (mode, kind, route): the outcome for the device that may do anything there


def allowed_outcome(app, live, kind, route) -> Outcome:
    """The outcome the rules give: for the server's own device, or, on a phone's own
    screen, for the phone of the player who bids."""
    key = (live, kind, route)
    if key not in OUTCOMES:
        OUTCOMES[key] = attempt(app, live, kind, route, NAMED if route == PHONE_ROUTE else OWNER)
    return OUTCOMES[key]


@pytest.mark.parametrize("live, kind, route, role", list(cases()))
def test_every_change_is_accepted_or_refused_in_words_by_role(app, live, kind, route, role):
    seen = attempt(app, live, kind, route, role)
    words = refusal(live, kind, route, role)
    if words is not None:
        assert (seen.status, seen.changed) == (403, False), seen
        assert words in seen.words, seen.words
        return
    expected = allowed_outcome(app, live, kind, route)
    if role == OTHER and route == PHONE_ROUTE:  # its own move, out of its turn
        expected = Outcome(422, False, "")
    assert (seen.status, seen.changed) == (expected.status, expected.changed), (seen, expected)
    if seen.status >= 400:
        assert seen.words and "Traceback" not in seen.words


# What the rules themselves refuse, whoever asks: a bid or a drop-out outside live auction
# mode (R3); a typed result while the live auction runs, or the removal of the result the
# app added from the bids (R3).
REFUSED_BY_THE_RULES = {(False, "bid", "record an action"), (False, "pass", "record an action"),
                        (False, "bid", PHONE_ROUTE), (False, "pass", PHONE_ROUTE),
                        (True, "sold", "record an action"), (True, "free", "record an action"),
                        (True, "sold", "remove"), (True, "free", "remove")}


def test_every_scene_is_one_the_rules_accept_but_for_those_they_refuse(app):
    """So that each refusal above is the role's, not the rules'."""
    for live, kind, route in {tuple(case.values[:3]) for case in cases()}:
        seen = allowed_outcome(app, live, kind, route)
        accepted = seen.status in (200, 303) and (seen.changed or ROUTES[route].page)
        assert accepted != ((live, kind, route) in REFUSED_BY_THE_RULES), (live, kind, route,
                                                                            seen)


def test_every_change_route_is_in_the_matrix(app):
    """Every route a form posts a change of the log to, from the app's URL map (the
    others change seats, settings, games or grants: tests/test_web_roles.py)."""
    log_changes = {"table.act", "table.undo", "table.correct", "table.remove", "player.act"}
    posts = {rule.endpoint for rule in app.url_map.iter_rules() if "POST" in rule.methods}
    others = {"host.enter_code", "host.grant", "host.revoke", "host.renew", "host.new_game",
              "host.import_game", "player.take_seat", "player.free_seat", "player.leave",
              "settings.save_settings", "settings.unlock", "settings.lock", "settings.delete",
              "phones.show", "host.pick_players", "table.rematch", "player.next_game"}
    assert posts - others == log_changes
    adapter = app.url_map.bind("localhost")
    matrix = {adapter.match(route.url.format(token="t", index="0"), method="GET" if route.page
                            else "POST")[0] for route in ROUTES.values()}
    assert matrix == log_changes | {"table.edit"}


def test_a_phone_cannot_turn_its_own_bid_into_another_player_s(app):
    """A correction puts in an event as well as taking one away: both are checked."""
    scene = SCENES[True]["bid"]
    token = new_game(app, True, NAMED, scene.log)
    anna = device(app, NAMED, token, "Anna")
    before = app.config["STORE"].game(token)
    response = anna.post(f"/g/{token}/history/{len(scene.log) - 1}",
                         data={"action": "bid", "player": "1", "amount": "2",
                               "version": str(before.version), "csrf_token": CSRF})
    assert response.status_code == 403
    assert WORDS["not theirs"].format(player="Bert") in text(response)
    assert app.config["STORE"].game(token).events == before.events


def test_the_history_offers_a_phone_no_correction_of_another_player_s_bid(app):
    scene = SCENES[True]["bid"]
    token = new_game(app, True, NAMED, scene.log)
    history = {role: device(app, role, token, player).get(f"/g/{token}/history")
               for role, player in ((NAMED, "Anna"), (OTHER, "Bert"))}
    link = f"/g/{token}/history/{len(scene.log) - 1}\""
    assert link in history[NAMED].get_data(as_text=True)
    assert link not in history[OTHER].get_data(as_text=True)

