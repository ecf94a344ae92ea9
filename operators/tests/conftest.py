"""Fixtures of the operators' pages: a signed-in operator and a world of their own (a
shop, a method, traders); the payment form's Playwright set-up (Chromium, a live server
with the demo data) for the browser tests."""

import pytest

from core.testing import ApiClient, operator_user_create
from forms_ui.tests.conftest import (  # noqa: F401
    browser,
    live,
    sync_database_calls_beside_playwright,
)
from orders.tests.world import World


def operators_world(**extra) -> World:
    """A shop with 100000.00 deposited (a Sell reserves from it) and two traders, each
    holding a requisite on Sberbank SBP: Buys of 100 to 300000 at 5 % (the trader's
    reward 2.5 %), Sells of 500 to 100000 at 3 % + 50.00 (the reward 1.5 %)."""
    return World.build({"Sberbank SBP": 2}, available="100000.00", **extra)


@pytest.fixture
def world(db) -> World:
    return operators_world()


@pytest.fixture
def shop(world) -> ApiClient:
    return world.api


@pytest.fixture
def operator(client, db):
    """The test client signed in as an operator: staff of the Operators group, not a
    superuser; the admin in Russian unless the test chooses English."""
    operator_user_create()
    assert client.login(username="operator", password="operator-demo-password")
    return client
