"""Fixtures shared across test modules. The browser tests' fixtures are session-wide (one
Playwright, one Chromium for the host's devices and one inside the phones' network
namespace), so they are registered once here rather than imported into each module (each
import would make its own session fixtures, and a second Playwright).

Each test is marked with what it needs beyond the virtual environment, found from the
fixtures it uses (the markers are pyproject.toml's): `-m "not browser and not postgres
and not root"` runs the tests that need none of it."""
import pytest

from tests.browser_helpers import (browser, phone_browser, phone_net, playwright,  # noqa: F401
                                   server)
from tests.postgres import database, postgres_server  # noqa: F401,E402
from tests.web_helpers import OPENED


@pytest.fixture(autouse=True)
def closed_stores():
    """The PostgreSQL stores of the apps a test made are closed after it (their pools), so
    that the tests' server is never short of connections."""
    yield
    while OPENED:
        OPENED.pop().close()


# The modules whose tests take longest, sent to the test processes first (pytest-xdist
# hands out tests in the order collected): none of them is left to run alone at the end.
FIRST = ("test_browser_full_game", "test_install", "test_faults", "test_readme",
         "test_browser_rounds", "test_caches")

# Each marker, and the fixtures whose tests it marks.
NEEDS = {"browser": {"playwright"}, "postgres": {"postgres_server"},
         "root": {"phone_net", "laptop", "disk", "behind_haproxy"}}


def pytest_collection_modifyitems(items) -> None:
    """Mark each test with what its fixtures need (PostgreSQL: also `database`'s second
    backend); the longest first."""
    items.sort(key=lambda item: item.module.__name__.rsplit(".", 1)[-1] not in FIRST)
    for item in items:
        used = set(item.fixturenames)
        called = getattr(item, "callspec", None)
        if called and called.params.get("database") == "postgresql":
            used.add("postgres_server")
        for marker, fixtures in NEEDS.items():
            if used & fixtures:
                item.add_marker(marker)
