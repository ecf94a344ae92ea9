import pytest
from django.test import Client

from core.testing import ApiClient, operator_user_create

# The payment form's Playwright set-up (Chromium, a live server with the demo data).
from forms_ui.tests.conftest import (  # noqa: F401
    browser,
    live,
    sync_database_calls_beside_playwright,
)
from orders.tests.world import World

ADDRESS = "203.0.113.7"  # the client's, behind the trusted proxy the test client is


@pytest.fixture
def world(db) -> World:
    """A shop and two traders, each holding a requisite on Sberbank SBP, which takes Buys
    of 100 to 300000."""
    return World.build({"Sberbank SBP": 2})


@pytest.fixture
def shop(world) -> ApiClient:
    return world.api


@pytest.fixture
def operator(db) -> Client:
    """An operator (staff of the Operators group, `operator`), signed in through the
    admin's login form from ADDRESS."""
    operator_user_create()
    client = Client(HTTP_X_FORWARDED_FOR=ADDRESS)
    response = client.post(
        "/admin/login/",
        {"username": "operator", "password": "operator-demo-password", "next": "/admin/"},
    )
    assert response.status_code == 302, response.content[:300]
    return client


def from_address(api: ApiClient) -> ApiClient:
    api.http.defaults["HTTP_X_FORWARDED_FOR"] = ADDRESS
    return api
