"""What the operator of a server sets on the command line (`templari-companion --help`):
how much of an IPv6 address is one network (guards/networks.py), and the bounds of a
hosted server's games (screens/host.py). The command line gives them to the server, which
gives them to each app it makes; each app keeps them in its config (LIMITS)."""
from dataclasses import dataclass

from flask import current_app

LIMITS = "LIMITS"  # the app's config key


@dataclass(frozen=True)
class Limits:
    """The operator's numbers, with their defaults."""

    ipv6_prefix: int = 64  # leading bits of an IPv6 address that are one network
    starts_per_hour: int = 200  # games all networks together may start in an hour (hosted)
    max_games: int = 10_000  # games a hosted server keeps at most
    max_megabytes: int = 2_000  # megabytes its games may take in the database


def init(app, chosen: Limits) -> None:
    app.config[LIMITS] = chosen


def limits() -> Limits:
    """The limits of the app serving the request."""
    return current_app.config[LIMITS]
