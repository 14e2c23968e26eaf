"""What `replay` prints: the state of a game as JSON or as a readable summary."""
from .cards import ROUNDS
from .record import dump_card
from .state import GameState


def replay_json(state: GameState) -> dict:
    """The replay contract of game-record.md."""
    result = state.score()
    return {
        "rounds_played": state.rounds_played,
        "finished": state.finished,
        "pot": state.pot,
        "start_player": state.start_player,
        "players": [
            {"name": player.name, "coins": player.coins,
             "cards": [dump_card(card) for card in hand],
             "set_points": player.set_points, "coin_bonus": player.coin_bonus,
             "points": player.points, "card_sum": player.card_sum}
            for player, hand in zip(result.players, state.hands)
        ],
        "winners": list(result.winners),
    }


def replay_text(state: GameState) -> str:
    """A readable summary: round, pot, start player, coins, cards by family, points."""
    result = state.score()
    lines = [_progress(state), f"Pot: {state.pot}    Start player: {state.start_player}", ""]
    for player, hand in zip(result.players, state.hands):
        lines.append(f"{player.name}: {_counted(player.coins, 'coin')}, "
                     f"{_counted(player.points, 'point')} "
                     f"({player.set_points} for cards + {player.coin_bonus} coin bonus), "
                     f"card sum {player.card_sum}")
        for family in state.setup.families:
            numbers = [str(card.number) for card in hand if card.family == family]
            if numbers:
                points = player.family_points(family)
                lines.append(f"    {family}: {' '.join(numbers)}  ({_counted(points, 'point')})")
    lines.append("")
    label = "Winner" if state.finished else "Leading"
    lines.append(f"{label}: {', '.join(result.winners)}")
    if result.tie_break:
        lines.append(f"Tie: {result.tie_break}")
    return "\n".join(lines)


def _progress(state: GameState) -> str:
    if state.finished:
        return f"Game over: all {ROUNDS} rounds played"
    text = f"Round {state.round_number} of {ROUNDS} ({state.rounds_played} played)"
    if state.lot:
        text += ", lot on the table: " + " and ".join(str(card) for card in state.lot)
    auction = state.auction
    if auction is not None and auction.touched and auction.turn is not None:
        high = "no bid yet" if auction.high is None else (
            f"{state.players[auction.leader]} bids {auction.high}")
        text += f"; auction: {high}, {state.players[auction.turn]} to bid or pass"
    return text


def _counted(count: int, word: str) -> str:
    """'1 coin', '2 coins'."""
    return f"{count} {word}" + ("" if count == 1 else "s")
