"""Operators set the sandbox flag on terminals and traders, and see it in the lists and
their filters."""

import pytest

from finance.models import Terminal
from orders.tests.test_sandbox import sandbox_world


@pytest.fixture
def world(db):
    return sandbox_world()


@pytest.fixture
def operator(client, operator_user, world):
    assert client.login(username="operator", password="operator-demo-password")
    return client


def management(prefix: str) -> dict:
    return {
        f"{prefix}-TOTAL_FORMS": "0",
        f"{prefix}-INITIAL_FORMS": "0",
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }


def test_terminal_list_shows_and_filters_by_sandbox(operator):
    page = operator.get("/admin/finance/terminal/", {"sandbox__exact": "1"}).content.decode()
    assert "Sandbox Shop" in page and "Live Shop" not in page
    page = operator.get("/admin/finance/terminal/", {"sandbox__exact": "0"}).content.decode()
    assert "Live Shop" in page and "Sandbox Shop" not in page
    assert "column-sandbox" in page


def test_trader_list_shows_and_filters_by_sandbox(operator, world):
    page = operator.get("/admin/orders/trader/", {"sandbox__exact": "1"}).content.decode()
    assert "Sandbox Trader" in page and world.requisites[0].trader.name not in page
    assert "column-sandbox" in page


def test_requisites_filter_by_their_traders_mode(operator, world):
    page = operator.get("/admin/orders/requisite/", {"trader__sandbox__exact": "1"})
    assert page.status_code == 200
    assert world.sandbox_trader.requisites.first().account in page.content.decode()
    assert world.requisites[0].account not in page.content.decode()


def test_operator_creates_a_sandbox_terminal(operator, world):
    data = {
        "client": str(world.shop.client_id),
        "name": "Staging Shop",
        "currency": "RUB",
        "integration_type": "h2h",
        "is_active": "on",
        "sandbox": "on",
        "antifraud_max_pending": "",
        "webhook_urls": "[]",
        **management("methods"),
        **management("api_keys"),
    }
    response = operator.post("/admin/finance/terminal/add/", data)
    assert response.status_code == 302, response.content
    terminal = Terminal.objects.get(name="Staging Shop")
    assert terminal.sandbox is True
    assert terminal.balance.available == 0


def test_operator_flags_a_trader_as_sandbox(operator, world):
    trader = world.requisites[0].trader
    data = {"name": trader.name, "is_active": "on", "sandbox": "on"}
    data.update(management("requisites"))
    data.update(management("api_keys"))
    response = operator.post(f"/admin/orders/trader/{trader.pk}/change/", data)
    assert response.status_code == 302, response.content
    trader.refresh_from_db()
    assert trader.sandbox is True
