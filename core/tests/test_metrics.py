"""GET /metrics (docs/operations.md): Prometheus text, who may read it, and the counters
moving when orders are created, change status and their webhooks are sent."""

from decimal import Decimal

import pytest
from django.db import transaction
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from core.metrics import actor_label
from webhooks.delivery import delivery_attempt
from webhooks.models import WebhookDelivery
from webhooks.tests.conftest import SECRET
from webhooks.tests.receiver import Receiver
from webhooks.tests.world import World


def scrape(client: Client | None = None, **extra) -> dict:
    """{(name, frozenset(labels)): value} from a loopback scrape."""
    response = (client or Client()).get("/metrics", **extra)
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: dict, name: str, **labels) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def test_metrics_from_loopback_parse_as_prometheus_text_with_the_contract_names(db):
    names = {name for name, _ in scrape()}
    for name in (
        "paymentsvc_orders_pending",
        "paymentsvc_orders_pending_overdue",
        "paymentsvc_webhook_deliveries_due",
        "paymentsvc_webhook_deliveries_oldest_due_seconds",
    ):
        assert name in names
    # The scrape itself was counted by the time of the next one.
    assert (
        value(
            scrape(), "paymentsvc_http_requests_total", method="GET", route="/metrics", status="200"
        )
        >= 1
    )


def test_metrics_refuse_a_client_that_is_not_on_this_machine(db):
    response = Client().get("/metrics", REMOTE_ADDR="203.0.113.7")
    assert response.status_code == 403
    assert response.json() == {
        "success": False,
        "message": "Metrics are served only to loopback clients",
        "code": "metrics_forbidden",
    }


def test_metrics_refuse_loopback_requests_relayed_by_a_proxy(db):
    response = Client().get("/metrics", HTTP_X_FORWARDED_FOR="203.0.113.7")
    assert response.status_code == 403


def test_metrics_answer_ipv6_loopback(db):
    assert Client().get("/metrics", REMOTE_ADDR="::1").status_code == 200


def test_with_a_token_metrics_need_the_bearer_from_anywhere(db, settings):
    settings.METRICS_TOKEN = "scrape-token-123"
    client = Client()
    missing = client.get("/metrics")
    assert missing.status_code == 401
    assert missing.json()["code"] == "metrics_unauthorized"
    assert missing["WWW-Authenticate"].startswith("Bearer")
    wrong = client.get("/metrics", HTTP_AUTHORIZATION="Bearer nope")
    assert wrong.status_code == 401
    right = client.get(
        "/metrics", REMOTE_ADDR="203.0.113.7", HTTP_AUTHORIZATION="Bearer scrape-token-123"
    )
    assert right.status_code == 200
    assert b"paymentsvc_orders_pending" in right.content


def test_metrics_refuse_writes_with_a_json_405(db):
    response = Client().post("/metrics")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"
    assert response["Allow"] == "GET, HEAD"


@pytest.fixture
def world(transactional_db) -> World:
    """A terminal, method and trader of the test's own, committed (metrics count what
    commits)."""
    return World.build(webhook_secret=SECRET)


def test_creating_an_order_counts_it_once_by_side_and_route_pattern(world):
    shop = world.shop
    before = scrape()
    response = shop.post("/api/v1/order/", world.buy_body())
    assert response.status_code == 201
    order_id = response.json()["id"]
    shop.get(f"/api/v1/order/{order_id}")
    after = scrape()

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("paymentsvc_orders_created_total", side="Buy", livemode="true") == 1
    assert delta("paymentsvc_orders_created_total", side="Sell", livemode="true") == 0
    assert (
        delta("paymentsvc_http_requests_total", method="POST", route="/api/v1/order/", status="201")
        == 1
    )
    assert (
        delta(
            "paymentsvc_http_requests_total",
            method="GET",
            route="/api/v1/order/<str:order_id>",
            status="200",
        )
        == 1
    )
    assert (
        delta(
            "paymentsvc_http_request_duration_seconds_count",
            method="POST",
            route="/api/v1/order/",
        )
        == 1
    )
    assert (
        value(after, "paymentsvc_orders_pending") == value(before, "paymentsvc_orders_pending") + 1
    )
    # Ids never become label values.
    assert not any(order_id in str(labels) for _, labels in after)


def test_with_metrics_off_nothing_is_counted_and_the_gauges_still_answer(world, settings):
    shop = world.shop
    settings.METRICS_ENABLED = False
    before = scrape()
    created = shop.post("/api/v1/order/", world.buy_body()).json()
    assert shop.post(f"/api/v1/order/{created['id']}/cancel").status_code == 200
    after = scrape()
    settings.METRICS_ENABLED = True
    counted = {
        key: v
        for key, v in after.items()
        if key[0].startswith("paymentsvc_") and v != before.get(key, 0.0)
    }
    assert counted == {}
    assert "paymentsvc_orders_pending" in {name for name, _ in after}
    # Back on, the next request counts again.
    shop.get("/api/v1/ping")
    route = {"method": "GET", "route": "/api/v1/ping", "status": "200"}
    assert value(scrape(), "paymentsvc_http_requests_total", **route) == (
        value(after, "paymentsvc_http_requests_total", **route) + 1
    )


def test_a_creation_rolled_back_is_not_counted(world):
    from orders.services import order_create

    created = "paymentsvc_orders_created_total"
    before = value(scrape(), created, side="Buy", livemode="true")
    with pytest.raises(RuntimeError), transaction.atomic():
        order_create(
            terminal=world.terminal,
            client_order_id="rolled-back",
            side="Buy",
            amount=Decimal("1000.00"),
            payment_method_id=str(world.method.pk),
        )
        raise RuntimeError("the caller's transaction fails after the order was made")
    assert value(scrape(), created, side="Buy", livemode="true") == before


def test_status_changes_count_by_new_status_and_actor(world):
    shop = world.shop
    before = scrape()
    first = shop.post("/api/v1/order/", world.buy_body(client_order_id="a")).json()
    second = shop.post(
        "/api/v1/order/", world.buy_body(client_order_id="b", amount="1500.00")
    ).json()
    assert world.trader.post(f"/api/v1/trader/orders/{first['id']}/confirm").status_code == 200
    assert shop.post(f"/api/v1/order/{second['id']}/cancel").status_code == 200
    after = scrape()
    transitions = "paymentsvc_order_transitions_total"

    def delta(**labels):
        return value(after, transitions, **labels) - value(before, transitions, **labels)

    assert delta(to="Completed", actor="trader") == 1
    assert delta(to="Cancelled", actor="merchant") == 1
    assert value(after, "paymentsvc_orders_pending") == value(before, "paymentsvc_orders_pending")


def test_webhook_attempts_count_by_outcome_as_the_api_spells_it(world, receiver):
    shop = world.shop
    shop.post("/api/v1/order/", world.buy_body(webhook_url=receiver.url))
    delivery = WebhookDelivery.objects.get()
    before = scrape()
    assert value(before, "paymentsvc_webhook_deliveries_due") == 1
    receiver.status = 500
    assert delivery_attempt(delivery_id=delivery.pk) == "pending"
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=delivery.created_at)
    receiver.status = 200
    assert delivery_attempt(delivery_id=delivery.pk) == "delivered"
    after = scrape()
    outcomes = "paymentsvc_webhook_deliveries_total"
    assert (
        value(after, outcomes, outcome="pending") - value(before, outcomes, outcome="pending") == 1
    )
    assert (
        value(after, outcomes, outcome="delivered") - value(before, outcomes, outcome="delivered")
        == 1
    )
    assert value(after, "paymentsvc_webhook_deliveries_due") == 0


@pytest.mark.parametrize(
    ("actor", "label"),
    [
        ("merchant:5f1c", "merchant"),
        ("trader:42", "trader"),
        ("trader", "trader"),
        ("operator:alice", "operator"),
        ("alice", "operator"),  # the admin's dispute decision passes the user name
        ("expiry", "system"),
        ("system", "system"),
        ("payer", "payer"),
        ("sandbox", "sandbox"),
    ],
)
def test_actor_strings_map_to_the_words_of_the_event_log(actor, label):
    assert actor_label(actor) == label
