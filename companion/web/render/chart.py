"""An SVG line chart of each player's coins after every round, drawn on the server."""
from flask_babel import gettext
from markupsafe import escape

WIDTH, HEIGHT, MARGIN, RIGHT = 640, 300, 40, 120
LABEL_GAP = 18  # the least distance between two end labels
# Each player's line has a dash pattern of its own as well as a colour.
DASHES = ("none", "10 5", "3 5", "14 4 3 4", "6 3")


def coins_chart(game) -> str:
    """One line per player: coins at the start and after each settled round."""
    series = _coins_per_round(game)
    rounds = len(series[0]) - 1
    top = max(max(line) for line in series) or 1
    x = lambda r: MARGIN + r * (WIDTH - MARGIN - RIGHT) / max(rounds, 1)
    y = lambda c: HEIGHT - MARGIN - c * (HEIGHT - 2 * MARGIN) / top
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
             f'role="img" aria-label="{escape(gettext("Coins of each player after each round"))}">',
             f'<line x1="{MARGIN}" y1="{y(0)}" x2="{x(rounds)}" y2="{y(0)}" stroke="currentColor"/>',
             *_round_labels(rounds, x, y(0)),
             f'<text x="4" y="{y(top) + 4}" fill="currentColor">{top}</text>']
    labels = _label_heights([y(line[-1]) for line in series])
    for seat, line in enumerate(series):
        points = " ".join(f"{x(r):.1f},{y(c):.1f}" for r, c in enumerate(line))
        name = escape(game.setup.players[seat])
        parts.append(f'<g class="p{seat}"><polyline fill="none" stroke="currentColor" '
                     f'stroke-width="3" stroke-dasharray="{DASHES[seat]}" points="{points}">'
                     f'<title>{name}</title></polyline>'
                     f'<text x="{x(rounds) + 6:.1f}" y="{labels[seat]:.1f}" '
                     f'fill="currentColor">{name} {line[-1]}</text></g>')
    parts.append("</svg>")
    return "\n".join(parts)


def chart_key(game) -> list[tuple[int, str, int, str]]:
    """What tells the lines apart, under the chart: (seat, name, final coins, dashes)."""
    return [(seat, name, coins, DASHES[seat])
            for seat, (name, coins) in enumerate(zip(game.setup.players, game.state.coins))]


def _label_heights(ends: list[float]) -> list[float]:
    """Where each end label goes: beside its line's end, pushed down off the one above."""
    heights = [0.0] * len(ends)
    lowest = float("-inf")
    for seat in sorted(range(len(ends)), key=ends.__getitem__):
        heights[seat] = lowest = max(ends[seat] + 5, lowest + LABEL_GAP)
    return heights


def _round_labels(rounds: int, x, axis: float) -> list[str]:
    """Each round's number under the axis, with the word for them; on a narrow screen only
    every fifth number shows (the others are 'minor')."""
    labels = [f'<text x="{x(number):.1f}" y="{axis + 22:.1f}" text-anchor="middle" '
              f'class="{"major" if number % 5 == 0 or number == rounds else "minor"}" '
              f'fill="currentColor">{number}</text>' for number in range(rounds + 1)]
    word = escape(gettext("Round"))
    return labels + [f'<text x="{x(rounds / 2):.1f}" y="{HEIGHT - 2}" text-anchor="middle" '
                     f'fill="currentColor">{word}</text>']


def _coins_per_round(game) -> list[list[int]]:
    """Per player, the coins at the start and at the end of each round."""
    ends = [game.states[0]] + [after for before, after in zip(game.states, game.states[1:])
                               if after.rounds_played > before.rounds_played]
    return [[state.coins[seat] for state in ends] for seat in range(len(game.setup.players))]
