"""What the host's list of games shows of each game, kept with the game so that a page of
the list replays no log: a summary worked out from the game, stored as JSON with the
stamp the game had then. A game's
stamp moves with every change to it, even a hand edit of the database, so a summary
whose stamp is no longer the game's is worked out again when the list shows it."""
from contextlib import suppress

from . import games
from .sql import SQLStore, StorageFault


def listed(store: SQLStore, offset: int, limit: int, host: str | None = None) -> list[dict]:
    """The summaries of up to `limit` games after the first `offset` (of those the device
    `host` hosts, if given), newest first, as the list shows them; those missing or out of date are worked out again and kept (if the
    disk refuses, they are shown all the same, and worked out again next time). A game
    whose log no longer replays is shown with why, read again each time (never kept)."""
    shown, worked_out = [], []
    for token, summary in store.summaries(offset, limit, host):
        if not isinstance(summary, dict):  # none, out of date, or not JSON (edited by hand)
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
    round or the winners, the rules edition and the auction mode; for a game whose log no
    longer replays, why (a text of the rules core, not JSON)."""
    if isinstance(game, games.Damaged):
        return {"token": game.token, "reason": game.reason}
    state = game.state
    return {"token": game.token, "created": game.created, "players": list(game.setup.players),
            "round": state.round_number,
            "winners": list(state.score().winners) if state.finished else None,
            "edition": game.setup.edition, "live_auction": game.options.live_auction}
