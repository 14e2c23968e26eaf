"""The game's story on the score page (issue 14): facts from the log, checked by hand
against an example record, in English and in French (R4, R8, R9)."""
import json

from companion.rules.events import Free, Penalty, Sold
from companion.rules.record import load_setup, parse_event
from companion.rules.state import fold_all
from companion.rules.story import story

from tests.helpers import FIXTURES, reveal, setup, side_sale
from tests.web_helpers import app, host, import_record, text  # noqa: F401 (fixtures)

GAME_1 = FIXTURES / "full-game-1.json"


def story_of(events, game_setup=None):
    game_setup = game_setup or setup()
    return story(events, fold_all(game_setup, events))


def test_the_story_of_an_example_record_read_by_hand():
    record = json.loads(GAME_1.read_text(encoding="utf-8"))
    events = [parse_event(event) for event in record["events"]]
    told = story_of(events, load_setup({**record, "events": []}))
    # French rules: Bert's win at 0 in round 1 and his in round 10 are free lots (R8.6).
    assert told.free_rounds == (1, 10)
    # Prices 4 1 4 5 5 4 1 4 3 4 3 1 1, and 3 side sales at 1 (R6): Bert paid 5 in round 5
    # first; the lots of rounds 3, 8, 14 and 15 were bought for 1.
    assert str(told.biggest_payment) == "The biggest payment: Bert paid 5 for the lot of round 5."
    assert str(told.least_paid) == ("The lots bought for the least, at 1 each: Anna in round 3, "
                                    "Claus in round 8, Anna in round 14 and Anna in round 15.")
    # Round 14: the pot held 1 left over from round 13 and the penalty coins of Bert and
    # Claus; Anna paid 1 and Claus, with the only 1 (green 1, round 8), took 1 + 3 = 4.
    best = told.best_take
    assert (best.round, best.settlement.winner, tuple(told.takers), best.settlement.share) == (
        14, "Anna", ("Claus",), 4)
    # 14 penalties; Anna's in round 4 (event 13) found her with no coin, so 13 were paid.
    assert str(told.penalty_payers) == "Anna 5, Bert 4, Claus 4"
    assert told.penalty_coins == 13


def test_a_shared_take_no_penalty_and_no_sale():
    # Nobody holds a 4: Bert and Claus share Anna's 4, 2 each (R8.4).
    told = story_of([reveal("red 0 yellow 5"), Sold("Anna", 4), reveal("red 1 yellow 6"), Free()])
    assert (tuple(told.takers), told.best_take.settlement.share) == (("Bert", "Claus"), 2)
    assert told.penalties == {} and told.free_rounds == (2,)
    # A penalty paid by a player with no coin costs nothing (R4).
    nothing = story_of([reveal("red 0 yellow 5"), Free(), reveal("red 1 yellow 6"),
                        Penalty("Anna"), Free()], setup(start_coins=0))
    assert (nothing.sales, nothing.penalties, nothing.best_take) == ((), {}, None)
    assert (nothing.biggest_payment, nothing.least_paid) == (None, None)


def test_R6_a_side_sale_is_a_payment_and_may_be_the_biggest():
    """Bert pays Anna 9 for her red 0 before round 2's reveal; no lot costs as much."""
    told = story_of([reveal("red 0 yellow 5"), Sold("Anna", 4),
                     side_sale("Anna", "red 0", "Bert", 9), reveal("red 1 yellow 6"),
                     Sold("Claus", 3)])
    assert str(told.biggest_payment) == ("The biggest payment: Bert paid Anna 9 for the red 0 "
                                         "in a side sale of round 2 (R6).")
    assert str(told.least_paid) == "The lot bought for the least: Claus paid 3 in round 2."
    assert [sale.round for sale in told.sales] == [1, 2]  # a side sale sells no lot


def test_every_lot_tied_for_the_least_is_named():
    told = story_of([reveal("red 0 yellow 5"), Sold("Anna", 2), reveal("red 1 yellow 6"),
                     Sold("Bert", 3), reveal("red 2 yellow 7"), Sold("Claus", 2)])
    assert str(told.least_paid) == ("The lots bought for the least, at 2 each: Anna in round 1 "
                                    "and Claus in round 3.")
    assert str(told.biggest_payment) == "The biggest payment: Bert paid 3 for the lot of round 2."


def finished_game(host) -> str:
    response = import_record(host, GAME_1.read_bytes())
    assert response.status_code == 303
    return response.headers["Location"].rsplit("/", 1)[1]


def test_the_score_page_tells_the_story(host):
    page = text(host.get(f"/g/{finished_game(host)}/score"))
    for sentence in (
            "The game's story",
            "The biggest payment: Bert paid 5 for the lot of round 5.",
            "The most coins received from the sale of a lot: Claus took 4 when Anna bought the "
            "lot of "
            "round 14.",
            "Penalties: 13 coins went into the pot for forbidden bids (Anna 5, Bert 4, Claus 4).",
            "The lots bought for the least, at 1 each: Anna in round 3, Claus in round 8, "
            "Anna in round 14 and Anna in round 15.",
            "2 lots went free, in rounds 1 and 10."):
        assert sentence in page


def test_the_story_in_french(host):
    token = finished_game(host)
    host.set_cookie("lang", "fr")
    page = text(host.get(f"/g/{token}/score"))
    for sentence in (
            "L'histoire de la partie",
            "Le plus gros paiement : Bert a payé 5 pour le lot du tour 5.",
            "Le plus de pièces reçues de la vente d'un lot : Claus a pris 4 quand Anna a acheté "
            "le lot du tour 14.",
            "Pénalités de malédiction : 13 pièces sont allées au pot commun pour des "
            "enchères interdites (Anna 5, Bert 4, Claus 4).",
            "Les lots achetés le moins cher, à 1 chacun : Anna au tour 3, Claus au tour 8, "
            "Anna au tour 14 et Anna au tour 15.",
            "2 lots sont partis gratuitement, aux tours 1 et 10."):
        assert sentence in page


def test_no_story_before_the_end(host):
    record = json.loads(GAME_1.read_text(encoding="utf-8"))
    record["events"] = record["events"][:20]
    token = import_record(host, json.dumps(record).encode()).headers["Location"].rsplit("/", 1)[1]
    assert "The game's story" not in text(host.get(f"/g/{token}/score"))


def test_names_in_the_story_are_escaped(host):
    record = GAME_1.read_text(encoding="utf-8").replace('"Anna"', '"<i>Anna</i>"')
    response = import_record(host, record.encode())
    page = host.get(response.headers["Location"] + "/score").get_data(as_text=True)
    assert "forbidden bids (&lt;i&gt;Anna&lt;/i&gt; 5, Bert 4, Claus 4)" in page
    assert "<i>Anna" not in page
