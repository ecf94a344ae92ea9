"""A form session records the payer's address as the one client-address function
reads it (behind nginx, not the proxy's own)."""

import pytest

from conftest import buy_body
from forms_ui.models import FormSession

BEHIND_PROXY = {"X-Forwarded-For": "198.51.100.23, 203.0.113.7"}


@pytest.fixture
def shop(world):
    return world.api


@pytest.fixture
def behind_nginx(settings):
    settings.FORWARDED_ALLOW_IPS = ["127.0.0.1"]  # the test client's REMOTE_ADDR


def test_a_form_session_records_the_client_behind_the_proxy(shop, world, behind_nginx):
    body = {"order_data": {"client_order_id": "f-1", "order_side": "Buy", "amount": "1000"}}
    response = shop.post("/api/v1/form/create", body, headers=BEHIND_PROXY)
    assert response.status_code == 201, response.content
    assert FormSession.objects.get().ip_address == "203.0.113.7"


def test_the_session_of_a_form_terminals_order_records_the_client_too(
    form_shop, world, behind_nginx
):
    response = form_shop.post("/api/v1/order/", buy_body(world), headers=BEHIND_PROXY)
    assert response.status_code == 201, response.content
    assert FormSession.objects.get().ip_address == "203.0.113.7"


def test_without_a_trusted_proxy_the_connections_own_address_is_kept(shop, world, settings):
    settings.FORWARDED_ALLOW_IPS = ["10.9.9.9"]
    body = {"order_data": {"client_order_id": "f-1", "order_side": "Buy", "amount": "1000"}}
    shop.post("/api/v1/form/create", body, headers=BEHIND_PROXY)
    assert FormSession.objects.get().ip_address == "127.0.0.1"
