"""verify_webhook on what the service really delivered to a receiver, and the
events, deliveries and sandbox calls (their live tests switch on by themselves
once the service routes those endpoints)."""

import json
from decimal import Decimal
from urllib.parse import urlsplit

import pytest
from paymentsvc_client import (
    ConflictError,
    Delivery,
    DeliveryStatus,
    Event,
    EventType,
    NotFoundError,
    OrderStatus,
    PermissionDeniedError,
    ValidationError,
    WebhookEndpoints,
    WebhookSecret,
    WebhookVerificationError,
    verify_webhook,
)

from webhooks.tests.test_delivery import deliver_all

from .conftest import SECRET, has_route, png_bytes

OTHER_SECRET = "whsec_" + "b3RoZXItc2VjcmV0LW9mLXRoaXJ0eS10d28tYnl0ZXM="


def order_with_webhook(client, method_ids, receiver, **extra):
    return client.orders.create(
        client_order_id=extra.pop("client_order_id", "hooked"),
        order_side="Buy",
        payment_method_id=method_ids["Sberbank SBP"],
        amount=extra.pop("amount", "1000.00"),
        webhook_url=receiver.url,
        **extra,
    )


def test_a_delivered_webhook_verifies_into_a_typed_event(client, method_ids, receiver):
    order = order_with_webhook(client, method_ids, receiver)
    client.orders.cancel(order.id)
    deliver_all()
    assert len(receiver.requests) == 2

    events = [verify_webhook(r["body"], r["headers"], SECRET) for r in receiver.requests]
    assert all(isinstance(e, Event) for e in events)
    assert [e.type for e in events] == [EventType.ORDER_CREATED, EventType.ORDER_CANCELLED]
    assert [e.sequence for e in events] == [1, 2]
    created, cancelled = events
    assert created.id == receiver.requests[0]["headers"]["webhook-id"]
    assert created.data.order.id == order.id
    assert created.data.order.amount == Decimal("1000.00")
    assert created.data.order.status is OrderStatus.PENDING
    assert cancelled.data.order.status is OrderStatus.CANCELLED
    assert created.created_at.utcoffset() is not None

    # Any of several secrets will do, as while a rotated secret is replaced.
    first = receiver.requests[0]
    assert verify_webhook(first["body"], first["headers"], [OTHER_SECRET, SECRET]).id == created.id


def test_a_dispute_webhook_carries_the_typed_dispute_and_order(client, method_ids, receiver):
    order = order_with_webhook(client, method_ids, receiver)
    opened = client.disputes.create(order.id, "1000.00", files=[("proof.png", png_bytes())])
    deliver_all()
    events = [verify_webhook(r["body"], r["headers"], SECRET) for r in receiver.requests]
    (dispute_event,) = [e for e in events if e.type is EventType.DISPUTE_CREATED]
    assert dispute_event.data.dispute.dispute_id == opened.dispute_id
    assert dispute_event.data.dispute.amount == Decimal("1000.00")
    assert dispute_event.data.dispute.processed is False
    assert dispute_event.data.order.id == order.id


def test_the_live_tests_switch_on_by_the_services_routes():
    assert has_route("/api/v1/order/some-id/cancel")
    assert has_route("/api/v1/finance/balance")
    assert not has_route("/api/v1/no-such-endpoint")


def test_a_forged_or_altered_webhook_is_refused(client, method_ids, receiver):
    order_with_webhook(client, method_ids, receiver)
    deliver_all()
    (delivered,) = receiver.requests
    body, headers = delivered["body"], delivered["headers"]

    with pytest.raises(WebhookVerificationError):
        verify_webhook(body, headers, OTHER_SECRET)
    tampered = json.loads(body)
    tampered["data"]["order"]["amount"] = "1.00"
    with pytest.raises(WebhookVerificationError):
        verify_webhook(json.dumps(tampered).encode(), headers, SECRET)
    unsigned = {k: v for k, v in headers.items() if k.lower() != "webhook-signature"}
    with pytest.raises(WebhookVerificationError):
        verify_webhook(body, unsigned, SECRET)
    stale = dict(headers, **{"webhook-timestamp": "1000000000"})
    stale = {k: v for k, v in stale.items() if k != "Webhook-Timestamp"}
    with pytest.raises(WebhookVerificationError):
        verify_webhook(body, stale, SECRET)


@pytest.mark.skipif(
    not has_route("/api/v1/events"), reason="the service has no events API yet (docs/webhooks.md)"
)
def test_events_give_an_orders_history(client, method_ids):
    order = client.orders.create(
        client_order_id="history",
        order_side="Buy",
        payment_method_id=method_ids["Sberbank SBP"],
        amount="1000.00",
    )
    client.orders.cancel(order.id)
    history = client.events.list(order_id=order.id)
    assert [e.type for e in history.items] == [
        EventType.ORDER_CANCELLED,
        EventType.ORDER_CREATED,
    ]
    assert [e.sequence for e in history.items] == [2, 1]
    latest = client.events.get(history.items[0].id)
    assert latest.data.order.status is OrderStatus.CANCELLED
    assert [e.id for e in client.events.list_all(order_id=order.id, size=1)] == [
        e.id for e in history.items
    ]
    with pytest.raises(NotFoundError):
        client.events.get("no-such-event")


def test_events_and_deliveries_page_by_cursor(client, method_ids, receiver):
    order = order_with_webhook(client, method_ids, receiver)
    client.orders.cancel(order.id)
    history = client.events.list(order_id=order.id)
    assert (history.has_more, history.total_is_estimate) == (False, False)
    newest = client.events.list(order_id=order.id, size=1)
    assert newest.has_more is True and newest.items[0].id == history.items[0].id
    older = client.events.list(order_id=order.id, size=1, starting_after=newest.items[0].id)
    assert [e.id for e in older.items] == [history.items[1].id] and older.has_more is False
    newer = client.events.list(order_id=order.id, ending_before=older.items[0].id)
    assert [e.id for e in newer.items] == [history.items[0].id]
    deliveries = client.deliveries.list(order_id=order.id)
    assert len(deliveries.items) == 2 and deliveries.has_more is False
    rest = client.deliveries.list(order_id=order.id, starting_after=deliveries.items[0].id)
    assert [d.id for d in rest.items] == [deliveries.items[1].id]
    with pytest.raises(NotFoundError) as raised:
        client.events.list(starting_after="msg_unknown")
    assert "starting_after" in raised.value.errors


@pytest.mark.skipif(
    not has_route("/api/v1/webhooks/deliveries"),
    reason="the service has no deliveries API yet (docs/webhooks.md)",
)
def test_deliveries_are_listed_inspected_and_resent(client, method_ids, receiver):
    order = order_with_webhook(client, method_ids, receiver)
    deliver_all()
    (delivery,) = client.deliveries.list(order_id=order.id).items
    assert isinstance(delivery, Delivery)
    assert delivery.status is DeliveryStatus.DELIVERED
    assert delivery.event_type is EventType.ORDER_CREATED
    detail = client.deliveries.get(delivery.id)
    assert detail.attempts and detail.attempts[0].response_status == 200
    resent = client.deliveries.resend(delivery.id)
    assert resent.id == delivery.id
    with pytest.raises(NotFoundError):
        client.deliveries.get("999999999")


@pytest.mark.skipif(
    not has_route("/api/v1/webhooks/endpoints"),
    reason="the service has no webhook self-service yet (docs/webhooks.md)",
)
def test_the_terminals_webhook_urls_are_read_and_replaced(client, method_ids, receiver):
    assert client.webhooks.endpoints().urls == []
    second = receiver.url + "/second"
    replaced = client.webhooks.set_endpoints([receiver.url, second, receiver.url])
    assert isinstance(replaced, WebhookEndpoints)
    assert replaced.success is True
    assert replaced.urls == [receiver.url, second]
    assert client.webhooks.endpoints().urls == [receiver.url, second]

    # An order without a webhook_url of its own is delivered to the terminal's URLs.
    client.orders.create(
        client_order_id="to-terminal-urls",
        order_side="Buy",
        payment_method_id=method_ids["Sberbank SBP"],
        amount="1000.00",
    )
    deliver_all()
    base = urlsplit(receiver.url).path
    assert sorted(r["path"] for r in receiver.requests) == [base, base + "/second"]

    with pytest.raises(ValidationError) as bad:
        client.webhooks.set_endpoints(["ftp://example.com/hook"])
    assert bad.value.status == 400
    assert client.webhooks.endpoints().urls == [receiver.url, second]
    assert client.webhooks.set_endpoints([]).urls == []


@pytest.mark.skipif(
    not has_route("/api/v1/webhooks/secret/rotate"),
    reason="the service has no secret rotation yet (docs/webhooks.md)",
)
def test_a_rotated_secret_and_the_old_one_both_verify_meanwhile(client, method_ids, receiver):
    rotated = client.webhooks.rotate_secret()
    assert isinstance(rotated, WebhookSecret)
    assert rotated.success is True
    assert rotated.secret.startswith("whsec_") and rotated.secret != SECRET

    order = order_with_webhook(client, method_ids, receiver)
    deliver_all()
    (request,) = receiver.requests
    for secret in (rotated.secret, SECRET):
        assert verify_webhook(request["body"], request["headers"], secret).data.order.id == order.id
    with pytest.raises(WebhookVerificationError):
        verify_webhook(request["body"], request["headers"], OTHER_SECRET)


@pytest.mark.skipif(
    not has_route("/api/v1/sandbox/order/x/simulate"),
    reason="the service has no sandbox API yet (docs/sandbox.md)",
)
def test_sandbox_orders_are_simulated(live, client):
    from paymentsvc_client import Client

    with Client(live, "demo-sandbox-key") as sandbox:
        methods = {m.method_name: m.method_id for m in sandbox.finance.payment_methods()}
        order = sandbox.orders.create(
            client_order_id="sandbox-1",
            order_side="Buy",
            payment_method_id=methods["Sberbank SBP"],
            amount="1000.00",
        )
        assert order.livemode is False
        done = sandbox.sandbox.simulate(order.id, "complete")
        assert done.status is OrderStatus.COMPLETED
        with pytest.raises(ConflictError):
            sandbox.sandbox.simulate(order.id, "cancel")
    with pytest.raises(PermissionDeniedError) as live_key:
        client.sandbox.simulate(order.id, "complete")
    assert live_key.value.code == "sandbox_only"
