# The payment form's Playwright set-up (Chromium, a live server with the demo data).
from forms_ui.tests.conftest import (  # noqa: F401
    browser,
    live,
    sync_database_calls_beside_playwright,
)
