"""An SVG line chart of each player's coins after every round, drawn on the server."""
from flask_babel import gettext
from markupsafe import escape

PLAYER_COLOURS = ("#d32f2f", "#1976d2", "#388e3c", "#f57c00", "#7b1fa2")
WIDTH, HEIGHT, MARGIN = 640, 300, 40


def coins_chart(game) -> str:
    """One line per player: coins at the start and after each settled round."""
    series = _coins_per_round(game)
    rounds = len(series[0]) - 1
    top = max(max(line) for line in series) or 1
    x = lambda r: MARGIN + r * (WIDTH - 2 * MARGIN) / max(rounds, 1)
    y = lambda c: HEIGHT - MARGIN - c * (HEIGHT - 2 * MARGIN) / top
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
             f'role="img" aria-label="{escape(gettext("Coins of each player after each round"))}">',
             f'<line x1="{MARGIN}" y1="{y(0)}" x2="{WIDTH - MARGIN}" y2="{y(0)}" stroke="currentColor"/>',
             f'<text x="{MARGIN}" y="{HEIGHT - 12}" fill="currentColor">{_round(0)}</text>',
             f'<text x="{WIDTH - MARGIN}" y="{HEIGHT - 12}" text-anchor="end" '
             f'fill="currentColor">{_round(rounds)}</text>',
             f'<text x="4" y="{y(top) + 4}" fill="currentColor">{top}</text>']
    for seat, line in enumerate(series):
        colour = PLAYER_COLOURS[seat]
        points = " ".join(f"{x(r):.1f},{y(c):.1f}" for r, c in enumerate(line))
        name = escape(game.setup.players[seat])
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="3" '
                     f'points="{points}"><title>{name}</title></polyline>')
        parts.append(f'<text x="{x(rounds) + 4:.1f}" y="{y(line[-1]) + 4:.1f}" '
                     f'fill="{colour}" font-size="13">{name} {line[-1]}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _round(number: int) -> str:
    return escape(gettext("round %(number)s", number=number))


def _coins_per_round(game) -> list[list[int]]:
    """Per player, the coins at the start and at the end of each round."""
    ends = [game.states[0]] + [after for before, after in zip(game.states, game.states[1:])
                               if after.rounds_played > before.rounds_played]
    return [[state.coins[seat] for state in ends] for seat in range(len(game.setup.players))]
