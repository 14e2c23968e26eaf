"""Standings across finished games (companion/rules/standings.py): each game ranked by its
final score (R10), a shared win counting for each of its winners, "tonight" the games
finished within the last 12 hours."""
import json

from companion.rules.record import fold_record
from companion.rules.standings import TONIGHT, Line, Played, Result, line_of, results, standings
from tests.helpers import FIXTURES


def finished(number: int) -> tuple[Result, ...]:
    """How each player ended the example game `number` (tests/fixtures/full-game-N.json)."""
    return results(fold_record(json.loads((FIXTURES / f"full-game-{number}.json").read_text()))
                   .score())


def result(name, points, place, winner=False, seat=0, coins=0) -> Result:
    return Result(name, seat, points, coins, place, winner)


def test_a_game_s_results_follow_its_final_score_in_seating_order():
    """full-game-1: Bert 17, Claus 7, Anna 29 points (R10); Anna alone wins."""
    assert finished(1) == (Result("Bert", 0, 17, 2, 2, False), Result("Claus", 1, 7, 18, 3, False),
                           Result("Anna", 2, 29, 4, 1, True))


def test_a_line_counts_games_wins_average_and_best_points_and_average_place():
    lines = standings(Played(0, finished(number)) for number in (1, 2, 3))
    assert line_of(lines, "Anna") == Line("Anna", games=2, wins=2, points=49, best=29, places=2)
    assert line_of(lines, "Claus") == Line("Claus", games=3, wins=0, points=27, best=11, places=8)
    claus = line_of(lines, "Claus")
    assert (claus.average_points, round(claus.average_place, 2)) == (9, 2.67)
    assert line_of(lines, "Dora") is None


def test_a_shared_win_counts_as_a_win_for_each_of_its_winners():
    """R10: equal points and card sums share the win, and the place."""
    shared = Played(0, (result("Anna", 20, 1, True), result("Bert", 20, 1, True),
                        result("Claus", 9, 3)))
    lines = standings([shared])
    assert [(line.name, line.wins, line.places) for line in lines] == [
        ("Anna", 1, 1), ("Bert", 1, 1), ("Claus", 0, 3)]


def test_the_most_wins_come_first_then_the_best_average_place():
    games = [Played(0, (result("Anna", 10, 2), result("Bert", 12, 1, True))),
             Played(0, (result("Anna", 10, 1, True), result("Claus", 8, 2))),
             Played(0, (result("Dora", 14, 1, True), result("Claus", 3, 2)))]
    assert [line.name for line in standings(games)] == ["Dora", "Bert", "Anna", "Claus"]


def test_tonight_counts_the_games_finished_since_a_time_only():
    now = 100 * TONIGHT
    games = [Played(now - TONIGHT - 1, finished(1)), Played(now - TONIGHT, finished(2))]
    tonight = standings(games, since=now - TONIGHT)
    assert [(line.name, line.games) for line in tonight] == [("Anna", 1), ("Bert", 1), ("Claus", 1)]
    assert line_of(standings(games), "Anna").games == 2
    assert standings(games, since=now) == ()
