"""A finished game as other places keep plays: BG Stats' create-play link, and every
finished game as CSV.

BG Stats documents the link ("push plays to BG Stats from other apps or websites" on its
support site): https://app.bgstatsapp.com/createPlay.html?data= followed by a play as
URL-encoded JSON, whose fields are used here as documented.
"""
import csv
import hashlib
import io
import json
import time
from urllib.parse import quote

from companion.rules.standings import results
from companion.store.games import Game
from companion.store.listing import Finished

BG_STATS = "https://app.bgstatsapp.com/createPlay.html?data="
SOURCE = "Templari Companion"
GAME = {"name": "Templari", "highestWins": True, "noPoints": False,
        "sourceGameId": "templari"}
CSV_COLUMNS = ("date", "game", "player", "seat", "points", "coins", "place", "winner")
# A cell a spreadsheet would read as a formula: written with a quote before it (OWASP).
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def play_id(token: str) -> str:
    """A stable id of the game's play, the same each time it is logged (so that logging it
    twice is recognised), that does not give away the game's token."""
    return hashlib.sha256(f"templari-play:{token}".encode()).hexdigest()[:20]


def local_time(moment: float, minutes_only: bool = False) -> str:
    """'2026-11-23 21:14:05' in this machine's time ('2026-11-23 21:14')."""
    return time.strftime("%Y-%m-%d %H:%M" if minutes_only else "%Y-%m-%d %H:%M:%S",
                         time.localtime(moment))


def bg_stats_play(game: Game) -> dict:
    """The play of a finished game as BG Stats reads it: the game, when it started and how
    long it took (unless the whole game came in a record), each player in seating order
    with their score, rank, whether they won and whether they were the first start player,
    the source's name and the play's id."""
    play = {"sourceName": SOURCE, "sourcePlayId": play_id(game.token), "game": GAME,
            "playDate": local_time(game.created),
            "players": [{"name": result.name, "score": result.points, "rank": result.place,
                         "winner": result.winner,
                         "startPlayer": result.name == game.setup.start_player}
                        for result in results(game.state.score())]}
    if not game.imported:
        play["durationMin"] = max(1, round((game.finished_at - game.created) / 60))
    return play


def bg_stats_url(game: Game) -> str:
    """The link that logs the finished game's play in BG Stats."""
    data = json.dumps(bg_stats_play(game), ensure_ascii=False, separators=(",", ":"))
    return BG_STATS + quote(data, safe="")


def plays_csv(finished: list[Finished]) -> str:
    """Every finished game as CSV, a row per player per game (in seating order, the games
    in the order they finished): when it started, the play's id, the player, their seat
    (1 = first listed), points, coins, place and whether they won."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for game in finished:
        for result in game.played.results:
            writer.writerow((local_time(game.created, minutes_only=True), play_id(game.token),
                             _cell(result.name), result.seat + 1, result.points, result.coins,
                             result.place, "yes" if result.winner else "no"))
    return out.getvalue()


def _cell(name: str) -> str:
    """A name as a spreadsheet shows it, never run as a formula."""
    return "'" + name if name.startswith(FORMULA) else name
