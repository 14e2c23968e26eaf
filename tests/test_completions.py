"""What may still turn up is exact (issue 27, item 7b): the cards still to come must fit a
real deck (R1), so late in a game some cards the counts allow can no longer turn up, and a
reveal after which no real deck holds the cards seen is refused.

The reference here is a max flow (families to numbers), apart from the core's own check."""
import json
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.rules.cards import DEFAULT_FAMILIES, FAMILY_SIZE, NUMBER_COPIES, NUMBERS, Card
from companion.rules.events import Free, Reveal
from companion.rules.record import fold_record, load_setup, parse_event
from companion.rules.refusal import Refusal
from companion.rules.state import apply, fold
from companion.rules.unseen import shortfall, unseen

from tests.helpers import FIXTURES, card, full_deck, refused, reveal, setup
from tests.strategies import FRENCH_FAMILIES
from tests.web_helpers import alerts, body, import_record
from tests.web_helpers import app, host  # noqa: F401 (fixtures)

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GAME_1 = FIXTURES / "full-game-1.json"
# full-game-1's events 0-42: rounds 1-13 settled, before the reveal of round 14. Red has one
# card to come and yellow three; of the numbers yellow has not shown, only 0, 1 and 3 have a
# card left (RULES.md R1's own example).
ROUND_14 = 43
NO_DECK = ("no real deck holds the {card} and the {other} with the cards seen before: the "
           "cards to come have room for only {room} of the {need} that {families} must still "
           "show, as a family shows each number once")


# --- the reference: a completion found by a max flow -----------------------------------

def completes(families, seen) -> bool:
    """Whether some real deck holds the cards `seen`: a flow from each family (its cards to
    come) through the numbers it has not shown to each number (its cards to come) that
    carries every card to come."""
    needs = Counter({family: FAMILY_SIZE for family in families})
    needs.subtract(card.family for card in seen)
    left = Counter({number: NUMBER_COPIES for number in NUMBERS})
    left.subtract(card.number for card in seen)
    if min(needs.values()) < 0 or min(left.values()) < 0:
        return False
    taken: dict[int, list[str]] = {number: [] for number in NUMBERS}  # the flow, by number
    for family in families:
        for _ in range(needs[family]):
            if not _augment(family, seen, left, taken, set()):
                return False
    return True


def _augment(family, seen, left, taken, visited) -> bool:
    """One more card to come for `family`: a number it lacks with a card free, or one that
    another family can give up for a number of its own (an augmenting path)."""
    for number in NUMBERS:
        if number in visited or Card(family, number) in seen or family in taken[number]:
            continue
        visited.add(number)
        if len(taken[number]) < left[number]:
            taken[number].append(family)
            return True
        for other in list(taken[number]):
            taken[number].remove(other)
            if _augment(other, seen, left, taken, visited):
                taken[number].append(family)
                return True
            taken[number].append(other)
    return False


def turning_up(families, seen) -> set[Card]:
    """The unseen cards that some real deck holding the cards seen still has to come."""
    cards = {Card(family, number) for family in families for number in NUMBERS}
    return {card for card in cards - seen if completes(families, seen | {card})}


# --- positions made by hand ---------------------------------------------------------

def game_1(count):
    """The state of full-game-1 after its first `count` events."""
    record = json.loads(GAME_1.read_text(encoding="utf-8"))
    events = [parse_event(event) for event in record["events"]][:count]
    return fold(load_setup({**record, "events": []}), events)


def test_the_last_red_card_cannot_be_a_0_or_a_3_when_yellow_needs_0_1_and_3():
    state = game_1(ROUND_14)
    still = unseen(state)
    assert still.families["red"] == 1 and still.families["yellow"] == 3
    assert still.numbers == {0: 1, 1: 2, 2: 0, 3: 1, 4: 0, 5: 0, 6: 0, 7: 0, 8: 0, 9: 0}
    assert still.numbers_in("yellow") == (0, 1, 3)
    assert still.numbers_in("red") == (1,)  # the counts alone would offer 0, 1 and 3
    assert still.may_turn_up == {card("red 1"), card("yellow 0"), card("yellow 1"),
                                 card("yellow 3")}


def test_a_reveal_that_leaves_no_real_deck_is_refused_with_the_cards_and_why():
    state = game_1(ROUND_14)
    refusal = refused(state, reveal("yellow 3 red 0"))
    assert (refusal.rule, refusal.text) == ("R1", NO_DECK)
    assert refusal.message == (
        "no real deck holds the yellow 3 and the red 0 with the cards seen before: the cards "
        "to come have room for only 1 of the 2 that yellow must still show, as a family shows "
        "each number once (R1)")
    apply(state, reveal("yellow 3 red 1"))  # what the real deck shows instead
    assert refused(state, reveal("red 0 red 3")).message == (  # the counts are checked first
        "this would be card 6 of the red family, which has 5 (R1)")


# Rounds 1-8: green, blue, purple and black show 0 to 4 three times and 5 once, red and
# yellow nothing. Red and yellow must show 10 cards between them, of 5 to 9 only and each
# number once a family: both 5s left are theirs, and no other family may take one.
ROUND_9 = [reveal("green 0 green 1"), Free(), reveal("green 2 green 3"), Free(),
           reveal("blue 0 blue 1"), Free(), reveal("blue 2 blue 4"), Free(),
           reveal("blue 5 purple 0"), Free(), reveal("purple 1 purple 3"), Free(),
           reveal("purple 4 black 2"), Free(), reveal("black 3 black 4"), Free()]


def test_two_families_can_run_out_of_room_together_as_early_as_round_9():
    state = fold(setup(), ROUND_9)
    fives = {Card(family, 5) for family in DEFAULT_FAMILIES}
    assert unseen(state).may_turn_up & fives == {card("red 5"), card("yellow 5")}
    assert unseen(state).numbers_in("green") == (6, 7, 8, 9)  # counts alone: 5 to 9
    refusal = refused(state, reveal("green 5 black 6"))
    assert refusal.params["families"] == ("red", "yellow")
    assert refusal.message == (
        "no real deck holds the green 5 and the black 6 with the cards seen before: the cards "
        "to come have room for only 9 of the 10 that red and yellow must still show, as a "
        "family shows each number once (R1)")


# --- random decks: a 0/1 matrix, 5 numbers a family and 3 families a number ------------

def real_deck(families, rng) -> frozenset[Card]:
    """A random real deck: a legal one with its numbers renamed, then many 2x2 swaps (a
    family's n for another's m, where neither has the other's), which reach every deck
    of these counts (Ryser's interchanges)."""
    rename = rng.sample(NUMBERS, len(NUMBERS))
    deck = {Card(c.family, rename[c.number]) for c in full_deck(families)}
    for _ in range(200):
        first, second = rng.sample(families, 2)
        number, other = rng.sample(NUMBERS, 2)
        swapped = {Card(first, other), Card(second, number)}
        if {Card(first, number), Card(second, other)} <= deck and not swapped & deck:
            deck = deck - {Card(first, number), Card(second, other)} | swapped
    return frozenset(deck)


@st.composite
def partial_games(draw):
    """A setup, a random real deck, its cards in a random order, and how many lots of it
    have been revealed: any number up to 14, more often 11 or more (what may turn up
    narrows late in a game)."""
    families = draw(st.sampled_from((DEFAULT_FAMILIES, FRENCH_FAMILIES)))
    rng = draw(st.randoms(use_true_random=True))
    deck = real_deck(families, rng)
    order = rng.sample(sorted(deck), len(deck))
    return setup(families=families), deck, order, draw(st.integers(0, 14) | st.integers(11, 14))


def revealed(game_setup, order, lots):
    """The state after the first `lots` lots of `order`, each going free (R9)."""
    events = [event for index in range(lots)
              for event in (Reveal(tuple(order[2 * index:2 * index + 2])), Free())]
    return fold(game_setup, events)


def counts_allow(state, cards) -> bool:
    """Whether the counts alone let `cards` be seen next (R1): unseen, 5 a family, 3 a number."""
    return (not set(cards) & state.seen and len(set(cards)) == len(cards)
            and fits_counts([*state.seen, *cards]))


@PROPERTY
@given(partial_games())
def test_what_may_turn_up_is_what_some_real_deck_allows_and_the_rest_is_refused(game):
    game_setup, deck, order, lots = game
    state = revealed(game_setup, order, lots)
    offered = unseen(state).may_turn_up
    assert offered == turning_up(game_setup.families, state.seen)
    assert deck - state.seen <= offered  # the deck really dealt is always one completion
    unseen_cards = sorted(Card(f, n) for f in game_setup.families for n in NUMBERS
                          if Card(f, n) not in state.seen)
    for misread in unseen_cards:
        if misread in offered or not counts_allow(state, [misread]):
            continue
        partner = next((other for other in unseen_cards
                        if counts_allow(state, [misread, other])), None)
        if partner is not None:
            refusal = refused(state, Reveal((misread, partner)))
            assert (refusal.rule, refusal.text) == ("R1", NO_DECK)


@st.composite
def seen_cards(draw):
    """Cards a table may have entered, each one the counts allowed (R1), not always of one
    real deck: any number of them, more often 22 to 29, where no real deck may be left."""
    families = draw(st.sampled_from((DEFAULT_FAMILIES, FRENCH_FAMILIES)))
    rng = draw(st.randoms(use_true_random=True))
    cells = {Card(family, number) for family in families for number in NUMBERS}
    seen = set()
    for _ in range(draw(st.integers(0, 30) | st.integers(22, 29))):
        allowed = [card for card in sorted(cells - seen) if fits_counts(seen | {card})]
        if allowed:
            seen.add(rng.choice(allowed))
    return families, frozenset(seen)


def fits_counts(cards) -> bool:
    """At most 5 cards of a family and 3 of a number (R1)."""
    return (max(Counter(c.family for c in cards).values(), default=0) <= FAMILY_SIZE
            and max(Counter(c.number for c in cards).values(), default=0) <= NUMBER_COPIES)


@PROPERTY
@given(seen_cards())
def test_a_shortfall_is_found_exactly_when_no_real_deck_holds_the_cards_seen(position):
    families, seen = position
    family_counts = tuple(sum(c.family == family for c in seen) for family in families)
    number_counts = tuple(sum(c.number == number for c in seen) for number in NUMBERS)
    short = shortfall(families, seen, family_counts, number_counts)
    assert (short is None) == completes(families, seen)
    if short is not None:  # what it says is so: those families need more than fits
        shown = {family: {c.number for c in seen if c.family == family} for family in families}
        left = {number: NUMBER_COPIES - number_counts[number] for number in NUMBERS}
        assert short.need == sum(FAMILY_SIZE - family_counts[families.index(family)]
                                 for family in short.families)
        assert short.room == sum(
            min(left[number], sum(number not in shown[family] for family in short.families))
            for number in NUMBERS)
        assert short.room < short.need


# --- a record's replay, the command and the import ------------------------------------

def misread_record() -> dict:
    """full-game-1 with yellow 0 misread as red 0 in round 14's lot (event 43)."""
    record = json.loads(GAME_1.read_text(encoding="utf-8"))
    assert record["events"][ROUND_14]["cards"] == [{"family": "yellow", "number": 3},
                                                   {"family": "yellow", "number": 0}]
    record["events"][ROUND_14]["cards"][1]["family"] = "red"
    return record


MISREAD = ("no real deck holds the yellow 3 and the red 0 with the cards seen before: the "
           "cards to come have room for only 1 of the 2 that yellow must still show, as a "
           "family shows each number once (R1)")


def test_the_replay_of_a_record_is_refused_at_the_misread_reveal(tmp_path, capsys):
    with pytest.raises(Refusal) as info:
        fold_record(misread_record())
    assert f"{info.value.where}: {info.value.message}" == f"event {ROUND_14}: {MISREAD}"
    path = tmp_path / "record.json"
    path.write_text(json.dumps(misread_record()), encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    assert capsys.readouterr() == ("", f"event {ROUND_14}: {MISREAD}\n")


def test_the_import_of_such_a_record_is_refused_in_the_same_words(app, host):
    response = import_record(host, json.dumps(misread_record()).encode())
    assert response.status_code == 422
    assert any(MISREAD[:-len(" (R1)")] in alert for alert in alerts(response)), alerts(response)


def test_the_reveal_grid_offers_only_what_some_real_deck_allows(app, host):
    record = json.loads(GAME_1.read_text(encoding="utf-8"))
    record["events"] = record["events"][:ROUND_14]
    token = import_record(host, json.dumps(record).encode()).headers["Location"].rsplit("/", 1)[1]
    page = body(host.get(f"/g/{token}"))
    cells = re.findall(r'<input type="checkbox" name="cards" value="([^"]+)"\s*(disabled)?', page)
    # red is family 0, yellow 1: red 1, yellow 0, yellow 1 and yellow 3; not red 0 or red 3
    assert {value for value, disabled in cells if not disabled} == {"0:1", "1:0", "1:1", "1:3"}


def test_the_refusal_names_the_families_in_the_language_of_the_screen(app, host):
    """R1's refusal in French names the cards and the families in French, not 'yellow'."""
    host.environ_base["HTTP_ACCEPT_LANGUAGE"] = "fr-FR,fr;q=0.9"
    response = import_record(host, json.dumps(misread_record()).encode())
    assert response.status_code == 422
    told = " ".join(alerts(response))
    assert ("aucun vrai jeu ne contient la carte jaune 3 et la carte rouge 0 avec les cartes "
            "déjà vues : les cartes à venir n'ont de place que pour 1 des 2 numéros encore "
            "attendus en jaune") in told, told
    assert "yellow" not in told
