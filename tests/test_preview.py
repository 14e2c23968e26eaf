"""What a screen says before a bid or a sale is what the submission is told (issue 27, 7a):
the sale form's preview and a phone's 'Can I bid X?' ask the rules core the same question
as the submission, on random legal games of both editions (R3, R5, R8, R9, R12)."""
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules.bidding import lowest_allowed
from companion.rules.events import Bid, Pass, Sold
from companion.rules.refusal import Refusal
from companion.rules.state import apply
from companion.web.render.views import SHOWN, UNKNOWN, check_bid

from tests.strategies import games, pick
from tests.web_helpers import act, alerts, join, new_game, play, text
from tests.web_helpers import app, host, phone  # noqa: F401 (fixtures)

PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MOST_COINS = 60  # every coin of 5 players of 12 coins (R1)


def submitted(state, event) -> Refusal | None:
    """What recording `event` is told: the refusal, or None when it is recorded."""
    try:
        apply(state, event)
    except Refusal as refusal:
        return refusal
    return None


def said(refusal: Refusal | None) -> tuple | None:
    return refusal and (refusal.rule, refusal.text, refusal.params)


def preview(state, name: str, amount: int, purse: str, live: bool) -> Refusal | None:
    """The one reason the screen gives, or None when it allows the bid."""
    problems = check_bid(state, name, amount, purse, live).problems
    assert len(problems) <= 1
    return problems[0] if problems else None


def is_money(refusal: Refusal | None) -> bool:
    """Refused because the player cannot pay: what only their phone may tell first (R12)."""
    return refusal is not None and refusal.rule == "R5" and "coins" in refusal.params


def live_moves(draw, state):
    """`state` after a few bids and drop-outs of its lot's live auction, each chosen among
    the turn player's and kept only if the rules take it (R3)."""
    for _ in range(draw(st.integers(0, 4))):
        turn = state.auction.turn
        if state.auction.outcome()[0] != "open":
            break
        name = state.players[turn]
        move = pick(draw, [Pass(name), Bid(name, draw(st.integers(0, state.coins[turn])))])
        state = apply(state, move) if submitted(state, move) is None else state
    return state


def lot_states(game):
    """The states of `game` with a lot on the table, or the game over."""
    return [state for state in game.states() if state.lot or state.finished]


@PROPERTY
@given(games(), st.data())
def test_R9_R12_a_preview_allows_a_sale_or_a_bid_exactly_when_its_submission_is_recorded(
        game, data):
    """On the player's own phone (or with money open) the preview says allowed iff the
    submission is recorded, and otherwise gives its reason; on any other device it keeps
    the money secret (R12): it allows what only money refuses, and says anything else."""
    for state in lot_states(game):
        live = data.draw(st.booleans())
        if live and state.lot:
            state = live_moves(data.draw, state)
        name = data.draw(st.sampled_from(state.players))
        amount = data.draw(st.one_of(st.integers(0, 12), st.integers(0, MOST_COINS)))
        event = Bid(name, amount) if live else Sold(name, amount)
        told = submitted(state, event)
        assert said(preview(state, name, amount, SHOWN, live)) == said(told), event
        secret = preview(state, name, amount, UNKNOWN, live)
        assert not is_money(secret)
        if not is_money(told):
            assert said(secret) == said(told), event


@PROPERTY
@given(games())
def test_R3_R5_R9_a_player_can_bid_nothing_exactly_when_no_sale_to_them_would_be_recorded(game):
    """What the guide tells a player who can bid nothing (companion.rules.guide) is what the
    sale would be told at every amount they hold."""
    for state in game.states():
        if not state.lot:
            continue
        for seat, name in enumerate(state.players):
            if seat in state.excluded:
                continue
            # a French start player holding a 0 does not bid 0: their "sale" at 0 is the
            # lot going free when they cannot open (R8.6, R9)
            free = (state.setup.edition == "fr" and seat == state.start
                    and any(card.number == 0 for card in state.hands[seat]))
            recorded = any(submitted(state, Sold(name, amount)) is None
                           for amount in range(1 if free else 0, state.coins[seat] + 1))
            assert (lowest_allowed(state, seat) is not None) == recorded, (name, state.coins)


# French rules: Claus buys a 0 and a 1 and starts; he must open at 2, so anyone else wins
# only above 2 (R9).
CLAUS_OPENS_AT_2 = [("reveal", "red 2", "blue 5"), ("sold", "Anna", 3),
                    ("reveal", "red 3", "blue 6"), ("sold", "Bert", 4),
                    ("reveal", "red 0", "blue 1"), ("sold", "Claus", 4),
                    ("reveal", "green 4", "green 7")]
ABOVE_2 = ("French rules: the start player Claus must open at 2 or more, so Bert can win only "
           "above 2, not at 2 (R9)")


def test_R9_the_sale_preview_and_a_phone_refuse_a_french_sale_at_the_opening(host, phone):
    token = new_game(host, edition="fr")
    play(host, token, CLAUS_OPENS_AT_2)
    join(phone, token, "Bert")
    for answer in (host.get(f"/g/{token}/preview?winner=1&price=2"),
                   phone.get(f"/g/{token}/me/check?amount=2")):
        assert ABOVE_2 in text(answer) and "Allowed" not in text(answer)
    assert ABOVE_2 in " ".join(alerts(act(host, token, "sold", "Bert", 2)))
    assert "Allowed" in text(phone.get(f"/g/{token}/me/check?amount=4"))
