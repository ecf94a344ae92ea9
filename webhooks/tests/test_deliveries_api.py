"""GET /api/v1/webhooks/deliveries, GET .../{id} with its attempts and POST .../{id}/resend,
against a real local receiver."""

import pytest
from django.core.cache import cache
from standardwebhooks.webhooks import Webhook

from core.testing import ApiClient
from webhooks.delivery import delivery_attempt
from webhooks.models import WebhookDelivery

from .conftest import SECRET, deliver_all, headers_of


@pytest.fixture
def shop(world) -> ApiClient:  # the conftest's world, not the demo set
    return world.shop


@pytest.fixture
def confirmed(shop, world, receiver):
    order = shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url)).json()
    world.trader.post(f"/api/v1/trader/orders/{order['id']}/confirm")
    deliver_all()
    return order


def test_deliveries_are_listed_newest_first_as_delivered(shop, confirmed, receiver):
    body = shop.get("/api/v1/webhooks/deliveries").json()
    assert (body["success"], body["message"]) == (True, "OK")
    page = body["deliveries"]
    assert (page["total"], page["page"], page["size"], page["pages"]) == (2, 1, 10, 1)
    events = shop.get("/api/v1/events", {"order_id": confirmed["id"]}).json()["events"]["items"]
    first = page["items"][0]
    assert set(first) == {
        "id",
        "event_id",
        "event_type",
        "order_id",
        "url",
        "status",
        "attempts_count",
        "next_attempt_at",
        "delivered_at",
        "last_response_status",
    }
    assert [(d["event_id"], d["event_type"]) for d in page["items"]] == [
        (e["id"], e["type"]) for e in events
    ]
    for delivery in page["items"]:
        assert delivery["order_id"] == confirmed["id"]
        assert delivery["url"] == receiver.url
        assert (delivery["status"], delivery["attempts_count"]) == ("delivered", 1)
        assert delivery["last_response_status"] == 200
        assert delivery["delivered_at"].endswith("Z")
        assert delivery["next_attempt_at"] is None


def test_filters(shop, confirmed):
    all_items = shop.get("/api/v1/webhooks/deliveries").json()["deliveries"]["items"]
    event_id = all_items[1]["event_id"]
    by_event = shop.get("/api/v1/webhooks/deliveries", {"event_id": event_id}).json()
    assert [d["event_id"] for d in by_event["deliveries"]["items"]] == [event_id]
    by_order = shop.get("/api/v1/webhooks/deliveries", {"order_id": confirmed["id"]}).json()
    assert by_order["deliveries"]["total"] == 2
    for status, total in [("delivered", 2), ("pending", 0), ("failed", 0)]:
        page = shop.get("/api/v1/webhooks/deliveries", {"status": status}).json()
        assert page["deliveries"]["total"] == total


@pytest.mark.parametrize(
    "params, field",
    [
        ({"status": "succeeded"}, "status"),
        ({"order_id": "123"}, "order_id"),
        ({"event_id": "x" * 41}, "event_id"),
        ({"size": "0"}, "size"),
    ],
)
def test_bad_filters_are_400(shop, params, field):
    response = shop.get("/api/v1/webhooks/deliveries", params)
    assert response.status_code == 400
    assert field in response.json()["errors"]


def test_one_delivery_shows_its_attempts(shop, world, receiver, settings):
    settings.WEBHOOK_RETRY_SCHEDULE = [0]
    receiver.status = 503
    receiver.body = b"busy"
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery = WebhookDelivery.objects.get()
    assert delivery_attempt(delivery_id=delivery.pk) == "pending"
    pending = shop.get(f"/api/v1/webhooks/deliveries/{delivery.pk}").json()["delivery"]
    assert (pending["status"], pending["next_attempt_at"] is not None) == ("pending", True)
    receiver.status = 200
    receiver.body = b"thanks"
    assert delivery_attempt(delivery_id=delivery.pk) == "delivered"
    body = shop.get(f"/api/v1/webhooks/deliveries/{delivery.pk}").json()
    assert body["success"] is True
    detail = body["delivery"]
    assert (detail["id"], detail["status"], detail["attempts_count"]) == (
        str(delivery.pk),
        "delivered",
        2,
    )
    newest, oldest = detail["attempts"]
    assert set(newest) == {
        "attempted_at",
        "response_status",
        "duration_ms",
        "error",
        "response_excerpt",
    }
    assert (newest["response_status"], newest["error"], newest["response_excerpt"]) == (
        200,
        None,
        "thanks",
    )
    assert (oldest["response_status"], oldest["error"], oldest["response_excerpt"]) == (
        503,
        "HTTP 503",
        "busy",
    )
    assert oldest["attempted_at"] <= newest["attempted_at"]
    assert isinstance(newest["duration_ms"], int)


def test_a_network_error_has_no_response_status(shop, world):
    shop.post("/api/v1/order/", world.buy_body(webhook_url="http://127.0.0.1:9/closed"))
    delivery = WebhookDelivery.objects.get()
    delivery_attempt(delivery_id=delivery.pk)
    attempt = shop.get(f"/api/v1/webhooks/deliveries/{delivery.pk}").json()["delivery"]
    assert attempt["last_response_status"] is None
    assert attempt["attempts"][0]["response_status"] is None
    assert attempt["attempts"][0]["error"]


def test_resend_sends_the_same_webhook_id_with_a_fresh_valid_signature(shop, confirmed, receiver):
    delivery = shop.get("/api/v1/webhooks/deliveries").json()["deliveries"]["items"][0]
    response = shop.post(f"/api/v1/webhooks/deliveries/{delivery['id']}/resend")
    assert response.status_code == 202
    body = response.json()
    assert (body["success"], body["delivery"]["id"], body["delivery"]["status"]) == (
        True,
        delivery["id"],
        "pending",
    )
    assert delivery_attempt(delivery_id=delivery["id"]) == "delivered"
    original = next(
        r for r in receiver.requests if headers_of(r)["webhook-id"] == delivery["event_id"]
    )
    again = receiver.requests[-1]
    assert len(receiver.requests) == 3
    assert headers_of(again)["webhook-id"] == delivery["event_id"]
    assert again["body"] == original["body"]
    Webhook(SECRET).verify(again["body"], headers_of(again))
    detail = shop.get(f"/api/v1/webhooks/deliveries/{delivery['id']}").json()["delivery"]
    assert (detail["status"], detail["attempts_count"], len(detail["attempts"])) == (
        "delivered",
        2,
        2,
    )


def test_a_failed_delivery_can_be_resent(shop, world, receiver, settings):
    settings.WEBHOOK_RETRY_SCHEDULE = []
    receiver.status = 500
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery = WebhookDelivery.objects.get()
    assert delivery_attempt(delivery_id=delivery.pk) == "failed"
    receiver.status = 200
    assert shop.post(f"/api/v1/webhooks/deliveries/{delivery.pk}/resend").status_code == 202
    assert delivery_attempt(delivery_id=delivery.pk) == "delivered"
    assert len({headers_of(r)["webhook-id"] for r in receiver.requests}) == 1


def test_another_terminals_delivery_is_a_404(world, confirmed):
    delivery_id = WebhookDelivery.objects.first().pk
    other = world.another_terminal()
    for response in (
        other.get(f"/api/v1/webhooks/deliveries/{delivery_id}"),
        other.post(f"/api/v1/webhooks/deliveries/{delivery_id}/resend"),
    ):
        assert response.status_code == 404
        assert response.json()["code"] == "delivery_not_found"
    assert other.get("/api/v1/webhooks/deliveries").json()["deliveries"]["total"] == 0
    assert WebhookDelivery.objects.get(pk=delivery_id).state == "delivered"


@pytest.mark.parametrize("delivery_id", ["0", "abc", "99999999999999999999999", "1.5"])
def test_unknown_delivery_ids_are_404(shop, delivery_id):
    assert shop.get(f"/api/v1/webhooks/deliveries/{delivery_id}").status_code == 404
    assert shop.post(f"/api/v1/webhooks/deliveries/{delivery_id}/resend").status_code == 404


def test_resend_is_rate_limited_like_other_calls(shop, confirmed, settings):
    settings.API_RATE_LIMIT = "2/min"
    cache.clear()
    delivery_id = WebhookDelivery.objects.first().pk
    statuses = [
        shop.post(f"/api/v1/webhooks/deliveries/{delivery_id}/resend").status_code for _ in range(3)
    ]
    assert statuses == [202, 202, 429]
