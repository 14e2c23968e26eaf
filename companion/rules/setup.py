"""The settings a game is played with: players, edition, variants (R1)."""
from dataclasses import dataclass, field

from .cards import DEFAULT_FAMILIES, DEFAULT_START_COINS
from .refusal import Refusal

EDITIONS = ("en", "fr")
MIN_PLAYERS, MAX_PLAYERS = 3, 5
MAX_NAME_LENGTH = 40
MAX_FAMILY_LENGTH = 20


@dataclass(frozen=True)
class Setup:
    """Everything fixed before the first card is revealed."""

    players: tuple[str, ...]
    edition: str = "en"
    side_sales: bool = True
    exchange: bool = False
    start_coins: int = DEFAULT_START_COINS
    families: tuple[str, ...] = DEFAULT_FAMILIES
    start_player: str | None = None
    _seats: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        check_players(self.players)
        check_families(self.families)
        if self.edition not in EDITIONS:
            raise Refusal("record", "the edition must be 'en' or 'fr', not {edition!r}",
                          edition=self.edition)
        if self.start_coins < 0:
            raise Refusal("R1", "players cannot start with {coins} coins", coins=self.start_coins)
        object.__setattr__(self, "_seats", {name: seat for seat, name in enumerate(self.players)})
        if self.start_player is None:
            object.__setattr__(self, "start_player", self.players[0])
        self.seat(self.start_player)

    def seat(self, name: str) -> int:
        """The seat (0 = first listed) of a player, refused if unknown."""
        try:
            return self._seats[name]
        except (KeyError, TypeError):
            raise Refusal("R1", "{name!r} is not a player of this game", name=name) from None


def next_clockwise(setup: Setup) -> int:
    """The seat after the first start player's, clockwise: the next game's first start
    player, when the same table plays again (R1)."""
    return (setup.seat(setup.start_player) + 1) % len(setup.players)


def clean_name(name) -> str:
    """A player's name, trimmed and checked: non-empty, at most 40 characters."""
    if not isinstance(name, str) or not name.strip():
        raise Refusal("R1", "a player needs a non-empty name")
    name = name.strip()
    if not name.isprintable():
        raise Refusal("R1", "the name {name!r} contains a line break or control character",
                      name=name)
    if len(name) > MAX_NAME_LENGTH:
        raise Refusal("R1", "the name {name!r} is longer than {limit} characters",
                      name=name, limit=MAX_NAME_LENGTH)
    return name


def clean_family(name: str) -> str:
    """A family name as the table types it when setting up a game: 1 to 20 characters on
    one line (R1; a record may name its families as it likes)."""
    name = name.strip()
    if not 0 < len(name) <= MAX_FAMILY_LENGTH or not name.isprintable():
        raise Refusal("R1", "a family name is 1 to {limit} characters on one line",
                      limit=MAX_FAMILY_LENGTH)
    return name


def check_families(families) -> None:
    """Six distinct, non-empty family names (R1)."""
    if len(families) != len(DEFAULT_FAMILIES):
        raise Refusal("R1", "the deck has 6 families, not {count}", count=len(families))
    for family in families:
        if not isinstance(family, str) or not family.strip():
            raise Refusal("R1", "a family needs a non-empty name")
        if families.count(family) > 1:
            raise Refusal("R1", "two families are called {family!r}", family=family)
        if not _writable(family):  # (JSON may hold half of a character: no page could show it)
            raise Refusal("R1", "the family name {family!r} holds a broken character",
                          family=family)


def _writable(text: str) -> bool:
    """Whether `text` is whole characters, that a page can be written with."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def check_players(players) -> None:
    """3 to 5 unique names (R1)."""
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise Refusal("R1", "Templari is for 3 to 5 players, not {count}", count=len(players))
    for name in players:
        if clean_name(name) != name:
            raise Refusal("R1", "the name {name!r} has spaces around it", name=name)
        if players.count(name) > 1:
            raise Refusal("R1", "two players are called {name!r}", name=name)
