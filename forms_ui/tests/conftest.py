"""Chromium driven by Playwright against a live server, for the payment-page tests."""

import os
import shutil

import pytest

from conftest import load_demo

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def sync_database_calls_beside_playwright():
    # Playwright's sync API keeps an event loop in this thread; the test's own
    # database calls are plain synchronous ones and safe here.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)


@pytest.fixture(scope="module")
def browser(sync_database_calls_beside_playwright):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="ru-RU")
    page = context.new_page()
    page.set_default_timeout(15000)
    yield page
    context.close()


@pytest.fixture
def live(live_server, settings):
    settings.PUBLIC_BASE_URL = live_server.url
    settings.API_RATE_LIMIT = "1000000/min"
    return load_demo(), live_server.url
