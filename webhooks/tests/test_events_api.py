"""GET /api/v1/events and /api/v1/events/{id}: the merchant's event log and an order's
history, each event exactly the webhook body that was (or would be) delivered."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from core.actors import actor_kind
from core.testing import ApiClient
from disputes.models import Dispute
from disputes.services import dispute_resolve
from orders.models import Order
from orders.services import order_expire_due
from webhooks.models import WebhookEvent

from .conftest import SECRET, deliver_all


@pytest.fixture
def shop(world) -> ApiClient:  # the conftest's world, not the demo set
    return world.shop


def create_and_confirm(shop, world, **extra):
    order = shop.post("/api/v1/order/", world.buy_body(**extra)).json()
    world.trader.post(f"/api/v1/trader/orders/{order['id']}/confirm")
    return order


def test_an_orders_history_lists_its_events_newest_first_with_actors(shop, world):
    order = create_and_confirm(shop, world)
    body = shop.get("/api/v1/events", {"order_id": order["id"]}).json()
    assert (body["success"], body["message"]) == (True, "OK")
    page = body["events"]
    assert (page["total"], page["page"], page["size"], page["pages"]) == (2, 1, 10, 1)
    items = page["items"]
    assert [(e["type"], e["sequence"], e["actor"]) for e in items] == [
        ("order.completed", 2, "trader"),
        ("order.created", 1, "merchant"),
    ]
    assert all(e["livemode"] is True for e in items)
    assert set(items[0]) == {"id", "type", "created_at", "sequence", "livemode", "actor", "data"}
    assert items[0]["data"]["order"]["status"] == "Completed"
    assert items[1]["data"]["order"]["status"] == "Pending"


def test_event_ids_and_bodies_are_the_delivered_ones(shop, world, receiver):
    order = create_and_confirm(shop, world, webhook_url=receiver.url)
    deliver_all()
    received = []
    for request in receiver.requests:
        headers = {k.lower(): v for k, v in request["headers"].items()}
        received.append((headers["webhook-id"], Webhook(SECRET).verify(request["body"], headers)))
    items = shop.get("/api/v1/events", {"order_id": order["id"]}).json()["events"]["items"]
    assert [e["id"] for e in reversed(items)] == [webhook_id for webhook_id, _ in received]
    assert list(reversed(items)) == [payload for _, payload in received]


def test_events_are_recorded_for_a_terminal_without_any_webhook_url(shop, world):
    assert not world.terminal.webhook_urls
    order = create_and_confirm(shop, world)
    assert shop.get("/api/v1/events").json()["events"]["total"] == 2
    event_id = shop.get("/api/v1/events", {"order_id": order["id"]}).json()["events"]["items"][0][
        "id"
    ]
    body = shop.get(f"/api/v1/events/{event_id}").json()
    assert (body["success"], body["event"]["id"], body["event"]["type"]) == (
        True,
        event_id,
        "order.completed",
    )


def test_another_terminals_event_is_a_404_and_absent_from_its_list(shop, world):
    order = create_and_confirm(shop, world)
    event = WebhookEvent.objects.filter(order_id=order["id"]).first()
    other = world.another_terminal()
    response = other.get(f"/api/v1/events/{event.pk}")
    assert response.status_code == 404
    assert response.json() == {
        "success": False,
        "message": "Event not found",
        "code": "event_not_found",
    }
    assert other.get("/api/v1/events").json()["events"]["total"] == 0
    assert other.get("/api/v1/events", {"order_id": order["id"]}).json()["events"]["items"] == []


@pytest.mark.parametrize("event_id", ["msg_unknown", "x" * 41, "%00"])
def test_unknown_event_is_a_404(shop, event_id):
    assert shop.get(f"/api/v1/events/{event_id}").status_code == 404


def test_filters_by_type_and_time(shop, world):
    first = create_and_confirm(shop, world, client_order_id="a")
    shop.post("/api/v1/order/", world.buy_body(client_order_id="b", amount="1500.00"))
    created = shop.get("/api/v1/events", {"type": "order.created"}).json()["events"]
    assert created["total"] == 2
    assert [e["data"]["order"]["client_order_id"] for e in created["items"]] == ["b", "a"]
    completed = shop.get("/api/v1/events", {"type": "order.completed"}).json()["events"]
    assert [e["data"]["order"]["id"] for e in completed["items"]] == [first["id"]]
    future = (timezone.now() + timedelta(minutes=1)).isoformat()
    assert shop.get("/api/v1/events", {"created_after": future}).json()["events"]["total"] == 0
    assert shop.get("/api/v1/events", {"created_before": future}).json()["events"]["total"] == 3


def test_pages_go_newest_first(shop, world):
    for n in range(3):
        shop.post(
            "/api/v1/order/", world.buy_body(client_order_id=f"o{n}", amount=f"{1000 + n}.00")
        )
    page = shop.get("/api/v1/events", {"page": 2, "size": 2}).json()["events"]
    assert (page["total"], page["pages"], len(page["items"])) == (3, 2, 1)
    assert page["items"][0]["data"]["order"]["client_order_id"] == "o0"


@pytest.mark.parametrize(
    "params, field",
    [
        ({"type": "order.unknown"}, "type"),
        ({"order_id": "not-a-uuid"}, "order_id"),
        ({"created_after": "yesterday"}, "created_after"),
        ({"created_before": "2026-13-01"}, "created_before"),
        ({"page": "0"}, "page"),
        ({"size": "101"}, "size"),
    ],
)
def test_bad_filters_are_400(shop, params, field):
    response = shop.get("/api/v1/events", params)
    assert response.status_code == 400
    body = response.json()
    assert (body["success"], body["code"]) == (False, "validation_error")
    assert field in body["errors"]


def test_created_after_past_created_before_is_400(shop):
    response = shop.get(
        "/api/v1/events",
        {"created_after": "2026-01-02T00:00:00Z", "created_before": "2026-01-01T00:00:00Z"},
    )
    assert response.status_code == 400
    assert "created_after" in response.json()["errors"]


def test_a_trader_key_or_no_key_is_401(world, anonymous):
    assert world.trader.get("/api/v1/events").status_code == 401
    assert anonymous.get("/api/v1/events").status_code == 401


def test_listing_writes_nothing(shop, world):
    create_and_confirm(shop, world)
    event_id = WebhookEvent.objects.first().pk
    with CaptureQueriesContext(connection) as queries:
        shop.get("/api/v1/events")
        shop.get(f"/api/v1/events/{event_id}")
    writes = [
        q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE"))
    ]
    assert writes == []


def test_expiry_and_dispute_events_name_system_merchant_and_operator(shop, world):
    order = shop.post("/api/v1/order/", world.buy_body()).json()
    Order.objects.filter(pk=order["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert order_expire_due() == 1
    created = shop.post_multipart(
        "/api/v1/disputes/create", {"order_id": order["id"], "amount": "1000.00"}
    )
    assert created.status_code == 201, created.content
    dispute_resolve(dispute=Dispute.objects.get(), accept=True, comment="ok", actor="operator")
    items = shop.get("/api/v1/events", {"order_id": order["id"]}).json()["events"]["items"]
    assert [(e["sequence"], e["type"], e["actor"]) for e in items] == [
        (5, "dispute.processed", "operator"),
        (4, "order.completed", "operator"),
        (3, "dispute.created", "merchant"),
        (2, "order.expired", "system"),
        (1, "order.created", "merchant"),
    ]


@pytest.mark.parametrize(
    "actor, kind",
    [
        ("merchant:5c54", "merchant"),
        ("trader:12", "trader"),
        ("operator:alice", "operator"),
        ("payer:7", "payer"),
        ("sandbox:simulate", "sandbox"),
        ("sandbox", "sandbox"),
        ("expiry", "system"),
        ("sweep", "system"),
        ("admin", "operator"),  # the admin passes bare user names
    ],
)
def test_actor_kind_is_derived_from_the_detailed_actor(actor, kind):
    assert actor_kind(actor) == kind
