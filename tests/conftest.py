"""Fixtures shared across test modules. The browser tests' fixtures are session-wide (one
Playwright, one Chromium for the host's devices and one inside the phones' network
namespace), so they are registered once here rather than imported into each module (each
import would make its own session fixtures, and a second Playwright)."""
from tests.browser_helpers import (browser, phone_browser, phone_net, playwright,  # noqa: F401
                                   server)
from tests.postgres import database, module_database, postgres_server  # noqa: F401,E402
