"""The payment form's tests: a world of their own (a terminal with its form on, its
payment buttons, four bank SBP methods held by traders) for the API and page tests;
Chromium driven by Playwright against a live server with the demo data for the browser
tests."""

import os
import shutil

import pytest

from conftest import load_demo
from core.testing import ApiClient
from finance.models import IntegrationType
from orders.tests.world import World

# The demo's H2H shop's buttons; its order-with-form shop has VTBPay on VTB SBP too.
BUTTONS = {"SberPay": "Sberbank SBP", "TPay": "T-Bank SBP", "AlfaPay": "Alfa-Bank SBP"}


def form_world(**extra) -> World:
    """An H2H terminal with its payment form on, 100000.00 deposited and the SberPay,
    TPay and AlfaPay buttons; two requisites on each of the four bank SBP methods and the
    bank card, one on MTS Bank SBP, none on Ozon Bank SBP; the aggregate SBP and the
    inactive Legacy card."""
    return World.build(
        {
            "SBP": 0,
            "Sberbank SBP": 2,
            "T-Bank SBP": 2,
            "Alfa-Bank SBP": 2,
            "VTB SBP": 2,
            "MTS Bank SBP": 1,
            "Bank card": 2,
            "Ozon Bank SBP": 0,
            "Legacy card": 0,
        },
        available="100000.00",
        form_activated=True,
        buttons=BUTTONS,
        **extra,
    )


@pytest.fixture
def world(db) -> World:
    return form_world()


@pytest.fixture
def form_shop(world) -> ApiClient:
    """A terminal of the order-with-form integration: every Buy gets a payment page."""
    return world.other_terminal(
        integration_type=IntegrationType.ORDER_WITH_FORM,
        form_activated=True,
        buttons={**BUTTONS, "VTBPay": "VTB SBP"},
    )


@pytest.fixture
def closed_shop(world) -> ApiClient:
    """Another merchant's terminal, its payment form off."""
    return world.other_terminal()


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
