"""The browser fixtures of the payer's page (a phone's page, and a page at each of a
phone's and a desktop's width) serve the cabinet's browser tests too."""

import pytest

from forms_ui.tests.conftest import (  # noqa: F401
    CHROMIUM,
    browser,
    page,
    sync_database_calls_beside_playwright,
)
from forms_ui.tests.test_accessibility import wide_page  # noqa: F401

from .cabinet import make_cabinet


@pytest.fixture
def live_cab(live_server):
    """A trader's cabinet (traders/tests/cabinet.py) beside a live server at `.base`."""
    cabinet = make_cabinet()
    cabinet.base = live_server.url
    return cabinet
