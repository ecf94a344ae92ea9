"""Each audited action writes exactly one entry, with its actor, the client's address
and the object acted on, in the action's own transaction."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

from audit.models import AuditEntry
from core.testing import operator_user_create
from demo.testing import buy_body
from disputes.models import Dispute
from orders.models import Order, OrderStatus
from orders.tests.world import trader_for

from .conftest import ADDRESS, from_address


def only(action: str, **filters) -> AuditEntry:
    entries = list(AuditEntry.objects.filter(action=action, **filters))
    assert len(entries) == 1, entries
    return entries[0]


def test_an_operators_sign_in_is_one_entry(db):
    operator_user_create()
    client = Client(HTTP_X_FORWARDED_FOR=ADDRESS)
    client.post("/admin/login/", {"username": "operator", "password": "operator-demo-password"})
    user = get_user_model().objects.get(username="operator")
    entry = only("sign_in")
    assert (entry.actor_kind, entry.actor_id, entry.client_address) == (
        "operator",
        "operator",
        ADDRESS,
    )
    assert (entry.object_type, entry.object_id) == ("auth.user", str(user.pk))


def test_a_failed_sign_in_is_one_entry_without_the_password(db):
    operator_user_create()
    client = Client(HTTP_X_FORWARDED_FOR=ADDRESS)
    response = client.post("/admin/login/", {"username": "operator", "password": "guess-0451"})
    assert response.status_code == 200
    entry = only("sign_in_failed")
    assert (entry.actor_kind, entry.actor_id, entry.client_address) == (
        "operator",
        "operator",
        ADDRESS,
    )
    assert "guess-0451" not in entry.changes_json
    assert not AuditEntry.objects.filter(action="sign_in").exists()


def test_a_failed_sign_in_to_the_cabinet_is_the_traders(db):
    from orders.tests.factories import TraderFactory

    user = get_user_model().objects.create_user("trader-x", password="trader-x-password-1")
    trader = TraderFactory(user=user)
    client = Client(HTTP_X_FORWARDED_FOR=ADDRESS)
    client.post("/trader/login/", {"username": "trader-x", "password": "guess-0451"})
    client.post("/trader/login/", {"username": "nobody-here", "password": "guess-0451"})
    failed = AuditEntry.objects.filter(action="sign_in_failed").order_by("created_at", "id")
    assert [(e.actor_kind, e.actor_id) for e in failed] == [
        ("trader", str(trader.pk)),
        ("trader", "nobody-here"),
    ]


def test_admin_add_change_and_deletions_are_one_entry_each(db):
    get_user_model().objects.create_superuser("root", password="root-test-password-1")
    operator = Client(HTTP_X_FORWARDED_FOR=ADDRESS)
    assert operator.login(username="root", password="root-test-password-1")
    operator.post("/admin/auth/group/add/", {"name": "Auditors"})
    group = Group.objects.get(name="Auditors")
    added = only("admin.add", object_type="auth.group")
    assert (added.actor_id, added.client_address, added.object_id) == (
        "root",
        ADDRESS,
        str(group.pk),
    )

    operator.post(f"/admin/auth/group/{group.pk}/change/", {"name": "Auditors 2"})
    changed = only("admin.change", object_type="auth.group")
    assert changed.object_id == str(group.pk)
    assert changed.changes["fields"] == ["Name"]
    assert changed.changes["values"] == {"name": "Auditors 2"}

    other = Group.objects.create(name="Spare")
    operator.post(
        "/admin/auth/group/",
        {"action": "delete_selected", "_selected_action": [group.pk, other.pk], "post": "yes"},
    )
    assert not Group.objects.filter(pk__in=[group.pk, other.pk]).exists()
    deleted = AuditEntry.objects.filter(action="admin.delete", object_type="auth.group")
    assert sorted(e.object_id for e in deleted) == sorted([str(group.pk), str(other.pk)])
    assert {e.client_address for e in deleted} == {ADDRESS}


def test_an_order_confirmed_in_the_admin_is_one_entry(operator, shop, world):
    order = shop.post("/api/v1/order/", buy_body(world)).json()
    operator.post(
        f"/admin/orders/order/{order['id']}/do/confirm_orders/",
        {"action": "confirm_orders", "_selected_action": order["id"], "confirmed": "yes"},
    )
    assert Order.objects.get(pk=order["id"]).status == OrderStatus.COMPLETED
    entries = list(AuditEntry.objects.filter(object_type="orders.order", object_id=order["id"]))
    assert [e.action for e in entries] == ["order.confirm"]
    assert (entries[0].actor_kind, entries[0].actor_id) == ("operator", "operator")
    assert entries[0].client_address == ADDRESS


def test_an_order_cancelled_in_the_admin_is_one_entry(operator, shop, world):
    order = shop.post("/api/v1/order/", buy_body(world)).json()
    operator.post(
        "/admin/orders/order/",
        {"action": "cancel_orders", "_selected_action": order["id"], "confirmed": "yes"},
    )
    assert Order.objects.get(pk=order["id"]).status == OrderStatus.CANCELLED
    entry = only("order.cancel", object_id=order["id"])
    assert entry.changes == {"status": ["Pending", "Cancelled"]}
    assert not AuditEntry.objects.filter(action="admin.change", object_id=order["id"]).exists()


def test_an_export_is_one_entry(operator):
    response = operator.get("/admin/orders/order/export.csv?side__exact=Sell")
    assert response.status_code == 200
    entry = only("orders.export")
    assert entry.changes == {"filters": {"side__exact": "Sell"}}
    assert (entry.actor_id, entry.client_address) == ("operator", ADDRESS)


@pytest.mark.parametrize("decision", ["accept", "reject"])
def test_a_dispute_decision_is_one_entry(operator, shop, world, decision):
    order = shop.post("/api/v1/order/", buy_body(world, amount="1000")).json()
    opened = shop.post_multipart(
        "/api/v1/disputes/create", {"order_id": order["id"], "amount": "1000"}
    )
    assert opened.status_code == 201, opened.content
    dispute = Dispute.objects.get(pk=opened.json()["dispute_id"])
    operator.post(
        f"/admin/disputes/dispute/resolve/{decision}/?ids={dispute.pk}", {"comment": "checked"}
    )
    entry = only(f"dispute.{decision}")
    assert (entry.object_type, entry.object_id) == ("disputes.dispute", str(dispute.pk))
    assert (entry.actor_kind, entry.actor_id, entry.client_address) == (
        "operator",
        "operator",
        ADDRESS,
    )
    assert entry.changes["comment"] == "checked"
    assert not AuditEntry.objects.filter(object_type="disputes.dispute", action="admin.change")


@pytest.mark.parametrize(
    ("path", "action"), [("confirm", "order.confirm"), ("cancel", "order.decline")]
)
def test_a_traders_confirm_or_decline_is_one_entry(shop, world, path, action):
    order = shop.post("/api/v1/order/", buy_body(world)).json()
    placed = Order.objects.select_related("trader").get(pk=order["id"])
    trader = from_address(trader_for(order))
    response = trader.post(f"/api/v1/trader/orders/{order['id']}/{path}")
    assert response.status_code == 200, response.content
    entry = only(action)
    assert (entry.actor_kind, entry.actor_id, entry.client_address) == (
        "trader",
        str(placed.trader_id),
        ADDRESS,
    )
    assert (entry.object_type, entry.object_id) == ("orders.order", order["id"])


def test_a_failed_entry_undoes_the_traders_confirm(shop, world, monkeypatch):
    """The entry is written in the action's transaction: no entry, no action."""
    from orders import audited

    def refuse(**kwargs):
        raise RuntimeError("the log is unwritable")

    monkeypatch.setattr(audited, "audit_record", refuse)
    order = shop.post("/api/v1/order/", buy_body(world)).json()
    trader = trader_for(order)
    trader.http.raise_request_exception = False
    assert trader.post(f"/api/v1/trader/orders/{order['id']}/confirm").status_code == 500
    assert Order.objects.get(pk=order["id"]).status == OrderStatus.PENDING


def test_a_refused_confirm_writes_no_entry_and_keeps_the_expiry(shop, world):
    from orders.tests.clock import orders_age

    order = shop.post("/api/v1/order/", buy_body(world)).json()
    orders_age(timedelta(minutes=61))
    response = trader_for(order).post(f"/api/v1/trader/orders/{order['id']}/confirm")
    assert response.status_code == 409
    assert Order.objects.get(pk=order["id"]).status == OrderStatus.EXPIRED
    assert not AuditEntry.objects.filter(object_id=order["id"]).exists()


def test_a_merchants_webhook_urls_and_secret_are_one_entry_each(shop, world):
    from_address(shop)
    urls = {"urls": ["https://merchant.example/hook"]}
    assert (
        shop.request(
            "put", "/api/v1/webhooks/endpoints", data=urls, content_type="application/json"
        ).status_code
        == 200
    )
    entry = only("webhook_urls.set")
    assert (entry.actor_kind, entry.actor_id, entry.client_address) == (
        "merchant",
        str(world.shop.pk),
        ADDRESS,
    )
    assert entry.changes["webhook_urls"][1] == urls["urls"]
    secret = shop.post("/api/v1/webhooks/secret/rotate").json()["secret"]
    rotated = only("webhook_secret.rotate")
    assert (rotated.object_type, rotated.object_id) == ("finance.terminal", str(world.shop.pk))
    assert secret not in rotated.changes_json and rotated.client_address == ADDRESS
