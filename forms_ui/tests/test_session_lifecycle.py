"""The session state machine driven by the form, the order and the beat task."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from forms_ui.models import FormSession
from forms_ui.services import sessions_sync_due
from forms_ui.tasks import sync_sessions
from orders.tests.clock import orders_age
from orders.tests.world import trader_for


@pytest.fixture
def shop(world):
    return world.api


def create(client, **order_data):
    data = {"client_order_id": "f-1", "order_side": "Buy", "amount": "1000"}
    data.update(order_data)
    return FormSession.objects.get(
        pk=client.post("/api/v1/form/create", {"order_data": data}).json()["form_data"][
            "session_id"
        ]
    )


def fill_sberbank(shop, world, amount=1000):
    for i in range(2):
        body = {
            "client_order_id": f"fill-{i}",
            "order_side": "Buy",
            "payment_method_id": world.method_id("Sberbank SBP"),
            "amount": amount,
        }
        assert shop.post("/api/v1/order/", body).status_code == 201
    return list(world.shop.orders.all())


def test_search_retries_until_requisites_free_up(shop, world, settings):
    settings.FORM_SEARCH_RETRY_SECONDS = 0
    holders = fill_sberbank(shop, world)
    session = create(shop, button_name="SberPay")
    assert session.state == "requisites_search" and session.search_count == 1
    sessions_sync_due()
    session.refresh_from_db()
    assert session.state == "requisites_search" and session.search_count == 2
    shop.post(f"/api/v1/order/{holders[0].pk}/cancel")
    sync_sessions()
    session.refresh_from_db()
    assert session.state == "requisites_found" and session.search_count == 3
    assert session.order is not None


def test_search_window_closes_into_requisites_not_found(shop, world, settings):
    fill_sberbank(shop, world)
    session = create(shop, button_name="SberPay")
    with time_machine.travel(
        timezone.now() + timedelta(seconds=settings.FORM_SEARCH_WINDOW_SECONDS + 1)
    ):
        sessions_sync_due()
    session.refresh_from_db()
    assert session.state == "requisites_not_found"


def test_unused_session_expires(shop, world, settings):
    session = create(shop)
    with time_machine.travel(
        timezone.now() + timedelta(seconds=settings.FORM_SESSION_TTL_SECONDS + 1)
    ):
        item = shop.get("/api/v1/form/search").json()["items"][0]
        assert item["state"] == "expired"
        sessions_sync_due()
    session.refresh_from_db()
    assert session.state == "expired"


def test_session_follows_order_expiry_and_cancellation(shop, world):
    expiring = create(shop, button_name="SberPay")
    cancelled = create(shop, button_name="TPay")
    shop.post(f"/api/v1/order/{cancelled.order_id}/cancel")
    orders_age(timedelta(minutes=16))
    sessions_sync_due()
    expiring.refresh_from_db()
    cancelled.refresh_from_db()
    assert (expiring.state, cancelled.state) == ("expired", "cancelled")


def test_paid_then_confirmed_completes(shop, world, client):
    session = create(shop, button_name="AlfaPay")
    page = client.get("/form/", {"session_id": session.pk})
    assert page.status_code == 200
    client.post("/form/paid", {"session_id": session.pk})
    session.refresh_from_db()
    assert session.state == "payment_confirmation"
    assert session.payment_confirmation_starts_at is not None
    assert session.payment_confirmation_expires_at == session.order.expires_at
    trader_for({"id": str(session.order_id)}).post(
        f"/api/v1/trader/orders/{session.order_id}/confirm"
    )
    client.get("/form/", {"session_id": session.pk})
    session.refresh_from_db()
    assert session.state == "completed"


def test_a_found_session_expires_with_its_order(shop, world):
    session = create(shop, button_name="SberPay")
    assert session.expires_at == session.order.expires_at
    item = shop.get("/api/v1/form/search").json()["items"][0]
    assert (
        item["expires_at"]
        == shop.get(f"/api/v1/order/{session.order_id}").json()["order"]["expires_at"]
    )


def test_the_page_poll_retries_a_due_search_without_the_beat(shop, world, client, settings):
    settings.FORM_SEARCH_RETRY_SECONDS = 0
    holders = fill_sberbank(shop, world)
    session = create(shop, button_name="SberPay")
    assert client.get("/form/status", {"session_id": session.pk}).json()["state"] == (
        "requisites_search"
    )
    shop.post(f"/api/v1/order/{holders[0].pk}/cancel")
    assert client.get("/form/status", {"session_id": session.pk}).json()["state"] == (
        "requisites_found"
    )
    session.refresh_from_db()
    assert session.search_count == 3


def test_a_retry_within_the_interval_is_skipped(shop, world, settings):
    settings.FORM_SEARCH_RETRY_SECONDS = 60
    fill_sberbank(shop, world)
    session = create(shop, button_name="SberPay")
    sessions_sync_due()
    session.refresh_from_db()
    assert session.search_count == 1


def test_chosen_method_without_requisites_searches_until_the_window_closes(
    shop, world, client, settings
):
    session = create(shop)
    client.post(
        "/form/choose", {"session_id": session.pk, "method_id": world.method_id("Ozon Bank SBP")}
    )
    session.refresh_from_db()
    assert session.state == "requisites_search" and session.search_count == 1
    assert session.requisites_request_expires_at == session.requisites_request_starts_at + (
        timedelta(seconds=settings.FORM_SEARCH_WINDOW_SECONDS)
    )
    with time_machine.travel(
        timezone.now() + timedelta(seconds=settings.FORM_SEARCH_WINDOW_SECONDS + 1)
    ):
        sync_sessions()
    session.refresh_from_db()
    assert (session.state, session.search_count) == ("requisites_not_found", 2)
