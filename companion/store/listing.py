"""What the host's list of games shows of each game, kept with the game so that a page of
the list replays no log: a summary worked out from the game, stored as JSON with the
stamp the game had then. A game's
stamp moves with every change to it, even a hand edit of the database, so a summary
whose stamp is no longer the game's is worked out again when the list shows it."""
from contextlib import suppress
from dataclasses import asdict, dataclass

from companion.rules.standings import Played, Result, results
from . import games
from .sql import SQLStore, StorageFault


def listed(store: SQLStore, offset: int, limit: int, host: str | None = None) -> list[dict]:
    """The summaries of up to `limit` games after the first `offset` (of those the device
    `host` hosts, if given), newest first, as the list shows them; those missing or out of date are worked out again and kept (if the
    disk refuses, they are shown all the same, and worked out again next time). A game
    whose log no longer replays is shown with why, read again each time (never kept)."""
    return _fresh(store, store.summaries(offset, limit, host))


def _fresh(store: SQLStore, kept) -> list[dict]:
    """The summaries of the games `kept` ((token, summary) each, as the store gives them),
    those missing or out of date worked out again and kept."""
    shown, worked_out = [], []
    for token, summary in kept:
        if not isinstance(summary, dict) or "results" not in summary:  # none, out of
            # date, not JSON (edited by hand), or from before the list showed results
            stored = store.game(token)
            if stored is None:  # removed since
                continue
            summary = summarize(games.game_or_damage(stored))
            if "reason" not in summary:
                worked_out.append((token, stored.stamp, summary))
        shown.append(summary)
    if worked_out:
        with suppress(StorageFault):
            store.keep_summaries(worked_out)
    return shown


def summarize(game: games.Game | games.Damaged) -> dict:
    """What the list shows of a game, as a JSON value: its players, when it started, the
    round or the winners, the rules edition and the auction mode; its first start player,
    and once it is over, when it finished and how each player ended it (the standings';
    `results` is None while it goes on); for a game whose log no longer replays, why (a
    text of the rules core, not JSON)."""
    if isinstance(game, games.Damaged):
        return {"token": game.token, "reason": game.reason}
    state = game.state
    finished = state.finished
    return {"token": game.token, "created": game.created, "players": list(game.setup.players),
            "start_player": game.setup.start_player, "round": state.round_number,
            "winners": list(state.score().winners) if finished else None,
            "edition": game.setup.edition, "live_auction": game.options.live_auction,
            "finished": game.finished_at if finished else None,
            "results": [asdict(result) for result in results(state.score())] if finished
            else None}


@dataclass(frozen=True)
class Finished:
    """A finished game as the standings and the exports see it: its token, when it
    started, and how it ended."""

    token: str
    created: float
    played: Played


def seen(store: SQLStore, scope, limit: int | None = None) -> list[dict]:
    """The summaries of the games a device may see (`scope`: None for every game, else
    (its device token or None, the tokens of the games it sat in)), newest first (the
    latest `limit`, if given); those whose log no longer replays left out."""
    kept = (store.seen_summaries(everyone=True, limit=limit) if scope is None
            else store.seen_summaries(*scope, limit=limit))
    return [summary for summary in _fresh(store, kept) if "reason" not in summary]


def finished(summaries: list[dict]) -> list[Finished]:
    """The finished games of `summaries`, oldest first."""
    return [Finished(summary["token"], summary["created"], Played(
        summary["finished"], tuple(Result(**result) for result in summary["results"])))
        for summary in reversed(summaries) if summary["results"] is not None]
