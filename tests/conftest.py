"""Fixtures shared across test modules. The browser tests' `browser` is session-wide (one
Chromium for every test), so it is registered once here rather than imported into each
module (each import would make its own session fixture, and a second Playwright)."""
from tests.browser_helpers import browser, server  # noqa: F401 (fixtures)
