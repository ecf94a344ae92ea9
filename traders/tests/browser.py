"""Helpers of the cabinet's browser tests: sign in through the form, find an order's
card, take a screenshot for docs/traders.md when TRADER_SCREENSHOTS_DIR is set."""

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = os.environ.get("TRADER_SCREENSHOTS_DIR")

browser_marks = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Debian's chromium is not installed"),
]


def shot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def sign_in(page, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/trader/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.get_by_test_id("sign-in").click()
    page.wait_for_url(f"{base}/trader/")


def card(page, order) -> object:
    return page.locator(f'[data-testid="trader-order"][data-order-id="{order.pk}"]')
