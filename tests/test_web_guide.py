"""Help for new players: what happens now, on the table screen and each phone, for every
step of a round in both rules editions, in English and in French; the setting's default
(the server's first game) and who may change it."""
import json
import re
from pathlib import Path

import pytest

from tests.web_helpers import (act, csrf_headers, find_form, import_record, join, new_game,
                               phone_client, play, submit, text)
from tests.web_helpers import app, host  # noqa: F401 (fixtures)

FIXTURES = Path(__file__).parent / "fixtures"


def guide(page) -> str | None:
    """The help box's words as a player reads them (no-break spaces read as spaces), or
    None when it is not shown."""
    found = re.search(r'<section class="guide".*?</section>', page.get_data(as_text=True), re.S)
    return text(found.group(0)) if found else None


def in_french(client):
    client.set_cookie("lang", "fr")
    return client


class Table:
    """A game with the help on: the table (host) and Anna's and Bert's phones, each in
    English and in French."""

    def __init__(self, app, host, **values):
        self.host = host
        self.token = new_game(host, guide="on", **values)
        self.phones = {}
        for number, name in enumerate(("Anna", "Bert")):
            phone = phone_client(app, f"198.18.0.{number + 2}")
            join(phone, self.token, name)
            self.phones[name] = phone

    def table(self, language="en") -> str:
        return self._read(self.host, f"/g/{self.token}", language)

    def phone(self, name, language="en") -> str:
        return self._read(self.phones[name], f"/g/{self.token}/me", language)

    def _read(self, client, url, language) -> str:
        client.set_cookie("lang", language)
        return guide(client.get(url))


ROUND_START = ("What happens now: Before the reveal, a player may put one of their cards up "
               "for auction among the others; the buyer pays the seller (R6). {start} is the "
               "start player: turn over the top 2 cards of the deck, the lot of round {round} "
               "(R2).")
ROUND_START_FR = ("Et maintenant : Avant de retourner le lot, un joueur peut mettre une de ses "
                  "cartes aux enchères entre les autres ; l'acheteur paie le vendeur (R6). "
                  "{start} est premier joueur : retournez les 2 cartes du dessus de la pioche, "
                  "le lot du tour {round} (R2).")
OPENING = {  # the table's first sentence after the reveal, by edition (R3, R9)
    "en": "{start} opens the bidding or passes; then, clockwise, each player bids higher or "
          "drops out (R3).",
    "fr": "{start} must open the bidding, at 0 or more; then, clockwise, each player bids "
          "higher or drops out (R9).",
}
OPENING_FR = {
    "en": "{start} ouvre l'enchère ou passe ; puis, dans le sens des aiguilles d'une montre, "
          "chacun surenchérit ou passe (R3).",
    "fr": "{start} doit ouvrir l'enchère, à 0 ou plus ; puis, dans le sens des aiguilles "
          "d'une montre, chacun surenchérit ou passe (R9).",
}
# What a player holding no card may bid, by edition: in French only the start player may
# bid 0 (R8).
ANY_AMOUNT = {"en": "You may bid any amount you can pay (R3).",
              "fr": "You may bid any amount from 1 that you can pay (R8)."}
RECORD = ("Nobody may bid an amount ending in the number of a card they hold; when one bidder "
          "is left, record the winner and the price (R3).")
RECORD_FR = ("Personne ne peut miser une somme dont l'unité correspond à l'une de ses cartes ; "
             "quand il ne reste qu'un joueur en lice, enregistrez le vainqueur et le prix (R3).")


@pytest.mark.parametrize("edition", ["en", "fr"])
def test_each_step_of_a_round_is_told_on_the_table_and_on_each_phone(app, host, edition):
    game = Table(app, host, edition=edition)
    # Before the first reveal nobody holds a card to sell (R6): the start player, the
    # reveal (R2).
    reveal = ("Anna is the start player: turn over the top 2 cards of the deck, the lot of "
              "round 1 (R2).")
    assert game.table() == game.phone("Bert") == f"What happens now: {reveal}"
    assert game.phone("Anna") == f"What happens now: {reveal}".replace(
        "Anna is the start player", "You are the start player")
    assert game.table("fr") == ("Et maintenant : Anna est premier joueur : retournez les 2 "
                                "cartes du dessus de la pioche, le lot du tour 1 (R2).")
    assert game.phone("Anna", "fr") == (
        "Et maintenant : Vous êtes premier joueur : retournez les 2 cartes du dessus de la "
        "pioche, le lot du tour 1 (R2).")

    # After the reveal: who opens (the French start player must, R9), what nobody may bid.
    play(host, game.token, [("reveal", "red 0", "yellow 5")])
    opening = OPENING[edition].format(start="Anna")
    assert game.table() == f"What happens now: {opening} {RECORD}"
    assert game.table("fr") == (f"Et maintenant : {OPENING_FR[edition].format(start='Anna')} "
                                f"{RECORD_FR}")
    # On a phone, what that player may bid.
    assert game.phone("Bert") == f"What happens now: {opening} {ANY_AMOUNT[edition]}"
    assert game.phone("Anna") == f"What happens now: {opening} {ANY_AMOUNT['en']}"
    assert game.phone("Bert", "fr").endswith({
        "en": "Vous pouvez miser n'importe quelle somme dans la limite de votre bourse (R3).",
        "fr": "Vous pouvez miser n'importe quelle somme à partir de 1, dans la limite de votre "
              "bourse (R8)."
    }[edition])

    # After the sale: the payment shown above (R8), then the next round's reveal.
    play(host, game.token, [("sold", "Anna", 3)])
    sold = "Anna bought the lot for 3: hand over the coins as shown above (R8)."
    assert game.table() == (f"What happens now: {sold} Anna is the start player: turn over the "
                            "top 2 cards of the deck, the lot of round 2 (R2).")
    assert game.phone("Anna") == (f"What happens now: {sold} You are the start player: turn "
                                  "over the top 2 cards of the deck, the lot of round 2 (R2).")
    assert game.phone("Bert", "fr") == (
        "Et maintenant : Anna a acheté le lot pour 3 : remettez les pièces comme indiqué "
        "ci-dessus (R8). Anna est premier joueur : retournez les 2 cartes du dessus de la "
        "pioche, le lot du tour 2 (R2).")

    # Anna holds a 0 and a 5: her forbidden endings, by name on her phone (R3); under French
    # rules she must open at 1 or more and buys the lot if nobody raises (R9).
    play(host, game.token, [("reveal", "red 1", "yellow 6")])
    assert game.phone("Anna").endswith("You may not bid amounts ending in 0 or 5 (R3).")
    assert game.phone("Anna", "fr").endswith(
        "Vous ne pouvez pas miser de somme se terminant par 0 ou 5 (R3).")
    if edition == "fr":
        assert game.table() == ("What happens now: Anna holds a 0, so must open at 1 or more, "
                                f"and buys the lot if nobody raises (R9). {RECORD}")
        assert game.table("fr").startswith(
            "Et maintenant : Anna détient un 0, doit donc ouvrir à 1 ou plus, et achète le lot "
            "si personne ne surenchérit (R9).")
    else:
        assert game.table() == f"What happens now: {OPENING['en'].format(start='Anna')} {RECORD}"

    # The free lot: the start player takes it, no money moves (R9).
    play(host, game.token, [("sold", "Bert", 4), ("reveal", "red 2", "yellow 7"), ("free",)])
    free = "The lot went free: Bert takes it and no money moves (R9)."
    assert game.table() == (f"What happens now: {free} Bert is the start player: turn over the "
                            "top 2 cards of the deck, the lot of round 4 (R2).")
    assert game.phone("Bert") == (f"What happens now: {free} You are the start player: turn "
                                  "over the top 2 cards of the deck, the lot of round 4 (R2).")
    assert game.table("fr").startswith(
        "Et maintenant : Le lot est gratuit : Bert le prend et aucune pièce ne change de main "
        "(R9).")

    # A side sale is not a round's result: the round start is told again (R6).
    play(host, game.token, [("side_sale", "Bert", "red 1", "Anna", 2)])
    assert game.table() == ROUND_START.format(start="Bert", round=4)
    assert game.table("fr") == ROUND_START_FR.format(start="Bert", round=4)


@pytest.mark.parametrize("record", ["full-game-1.json", "full-game-2.json"])
def test_the_end_of_the_game_is_told_with_how_the_score_counts(app, host, record):
    data = (FIXTURES / record).read_bytes()
    response = import_record(host, data, guide="on")
    token = response.headers["Location"].rsplit("/", 1)[1]
    words = ("What happens now: The game is over: each family held scores 1, 3, 6, 10 or 15 "
             "points for 1 to 5 cards, and the most coins 2 more (R10). Most points wins; a "
             "tie goes to the highest sum of card numbers (R10).")
    assert guide(host.get(f"/g/{token}")) == words
    phone = phone_client(app)
    join(phone, token, "Anna", players=tuple(json.loads(data)["players"]))
    assert guide(phone.get(f"/g/{token}/me")) == words
    assert guide(in_french(phone).get(f"/g/{token}/me")) == (
        "Et maintenant : La partie est terminée : chaque famille détenue rapporte 1, 3, 6, 10 "
        "ou 15 points pour 1 à 5 cartes, et le plus de pièces 2 points de plus (R10). Le plus "
        "de points l'emporte ; en cas d'égalité, la plus forte somme des numéros des cartes "
        "(R10).")


def bid(client, token, amount):
    return submit(client, f"/g/{token}", "action-bid", amount=str(amount))


@pytest.mark.parametrize("edition", ["en", "fr"])
def test_a_live_auction_tells_whose_turn_it_is_and_what_they_may_bid(app, host, edition):
    game = Table(app, host, edition=edition, live="on")
    act(host, game.token, "reveal", "red 0", "yellow 5")
    opening = OPENING[edition].format(start="Anna")
    assert game.table() == ("What happens now: "
                            f"{opening} Anna may bid any amount they can pay (R3).")
    anna = {"en": "It is your turn: open the bidding or drop out (R3).",
            "fr": "It is your turn: you must open the bidding, at 0 or more (R9)."}[edition]
    assert game.phone("Anna") == f"What happens now: {anna} {ANY_AMOUNT['en']}"
    assert game.phone("Anna", "fr").startswith({
        "en": "Et maintenant : C'est à vous : ouvrez l'enchère ou passez (R3).",
        "fr": "Et maintenant : C'est à vous : vous devez ouvrir l'enchère, à 0 ou plus (R9)."
    }[edition])

    assert bid(host, game.token, 2).status_code == 303
    turn = "It is Bert's turn: bid more than 2 or drop out (R3)."
    above = "You may bid any amount above 2 that you can pay (R3)."  # not from 0 or 1 now
    assert game.table() == ("What happens now: "
                            f"{turn} Bert may bid any amount above 2 that they can pay (R3).")
    assert game.phone("Bert") == ("What happens now: It is your turn: bid more than 2 or drop "
                                  f"out (R3). {above}")
    assert game.phone("Bert", "fr").startswith(
        "Et maintenant : C'est à vous : enchérissez plus de 2 ou passez (R3).")
    assert game.phone("Anna") == f"What happens now: {turn} {above}"
    assert game.phone("Anna", "fr").startswith(
        "Et maintenant : C'est à Bert d'enchérir plus de 2 ou de passer (R3).")


def test_the_help_is_on_for_the_server_s_first_game_and_off_after(host):
    assert "guide" in find_form(host.get("/"), "new-game").fields  # checked by default
    first = new_game(host)
    assert guide(host.get(f"/g/{first}")).startswith("What happens now:")
    assert "guide" not in find_form(host.get("/"), "new-game").fields
    second = new_game(host)
    assert guide(host.get(f"/g/{second}")) is None
    third = new_game(host, guide="on")  # the host may still turn it on
    assert guide(host.get(f"/g/{third}")).startswith("What happens now:")


def test_the_host_turns_the_help_on_and_off_for_every_screen(app, host):
    token = new_game(host, guide=None)
    phone = phone_client(app)
    join(phone, token, "Bert")
    viewer = phone_client(app, "198.18.0.9")
    screens = (host, f"/g/{token}"), (phone, f"/g/{token}/me"), (viewer, f"/g/{token}")
    assert [guide(client.get(url)) for client, url in screens] == [None] * 3

    assert submit(host, f"/g/{token}/settings", "settings", guide="on").status_code == 303
    shown = [guide(client.get(url)) for client, url in screens]
    assert all(words and "Anna is the start player" in words for words in shown), shown
    assert "turned on the help for new players" in text(host.get(f"/g/{token}/history"))
    # Recording from phones stays as it was.
    assert act(phone, token, "reveal", "red 0", "yellow 5").status_code == 303

    assert submit(host, f"/g/{token}/settings", "settings", guide=None).status_code == 303
    assert [guide(client.get(url)) for client, url in screens] == [None] * 3
    assert "turned off the help for new players" in text(host.get(f"/g/{token}/history"))


@pytest.mark.parametrize("who", ["seated phone", "viewer"])
def test_a_phone_cannot_change_the_help(app, host, who):
    token = new_game(host, guide=None)
    client = phone_client(app)
    if who == "seated phone":
        join(client, token, "Bert")
    before = app.config["STORE"].game(token)
    response = client.post(f"/g/{token}/settings", data={"guide": "on", "phones_record": "on"},
                           headers=csrf_headers(client, f"/g/{token}"))
    assert response.status_code == 403
    after = app.config["STORE"].game(token)
    assert (after.options, after.version) == (before.options, before.version)
    assert guide(client.get(f"/g/{token}")) is None
