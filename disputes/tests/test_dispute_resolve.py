"""disputes.services.dispute_resolve: an operator's decision and what it moves
(docs/orders.md#lifecycle, docs/disputes.md)."""

import os
import subprocess
import sys
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.db.models import F
from django.utils import timezone

from conftest import buy_body, sell_body
from core.errors import Conflict
from disputes.models import Dispute
from disputes.services import dispute_resolve
from finance.models import Balance, Transaction
from finance.services import ledger_check
from orders.models import Order
from orders.services import order_expire_due
from orders.tests.world import trader_for
from webhooks.models import WebhookEvent

from .conftest import dispute_world

START = Decimal("100000.00")  # the shop's opening balance (dispute_world)


def open_dispute(shop, order, amount):
    response = shop.post_multipart(
        "/api/v1/disputes/create", {"order_id": order["id"], "amount": amount}
    )
    assert response.status_code == 201, response.content
    return Dispute.objects.get(pk=response.json()["dispute_id"])


def balance(world):
    return Balance.objects.get(terminal=world.shop)


def events(order):
    return list(
        WebhookEvent.objects.filter(order_id=order["id"])
        .order_by("sequence")
        .values_list("type", "sequence")
    )


def assert_ledger_consistent():
    assert ledger_check() == []
    call_command("check_ledger", verbosity=0)  # raises CommandError on any mismatch


def test_accepting_on_a_pending_buy_completes_it_with_the_claimed_amount(shop, world):
    order = shop.post("/api/v1/order/", buy_body(world, amount="1000")).json()
    dispute = open_dispute(shop, order, "800")
    resolved = dispute_resolve(dispute=dispute, accept=True, comment="Statement", actor="op-1")
    assert (resolved.processed, resolved.resolution, resolved.comment, resolved.resolved_by) == (
        True,
        "accepted",
        "Statement",
        "op-1",
    )
    assert resolved.resolved_at is not None
    o = Order.objects.get(pk=order["id"])
    assert (o.status, o.paid_amount, o.fee_amount, o.closed_by) == (
        "Completed",
        Decimal("800.00"),
        Decimal("40.00"),  # the method's 5 % on the claimed amount
        "op-1",
    )
    assert balance(world).available == START + Decimal("760.00")
    deposit = Transaction.objects.get(reference=order["id"], balance__terminal__isnull=False)
    assert (deposit.transaction_type, deposit.amount) == ("deposit", Decimal("760.00"))
    assert events(order) == [
        ("order.created", 1),
        ("dispute.created", 2),
        ("order.completed", 3),
        ("dispute.processed", 4),
    ]
    assert shop.get(f"/api/v1/order/{order['id']}").json()["order"]["status"] == "Completed"
    assert_ledger_consistent()


def test_the_processed_event_carries_the_dispute_as_listed_and_the_order(shop, world):
    order = shop.post("/api/v1/order/", buy_body(world, amount="1000")).json()
    dispute = open_dispute(shop, order, "1000")
    dispute_resolve(dispute=dispute, accept=True, comment="ok", actor="op")
    payload = WebhookEvent.objects.get(type="dispute.processed").payload["data"]
    listed = shop.get("/api/v1/disputes/search").json()["data"]["items"][0]
    assert payload["dispute"] == listed
    assert listed["processed"] is True and listed["resolution"] == "accepted"
    assert payload["order"]["id"] == order["id"] and payload["order"]["status"] == "Completed"


def test_accepting_on_a_cancelled_buy_completes_it(shop, world):
    order = shop.post("/api/v1/order/", buy_body(world, amount="1000")).json()
    shop.post(f"/api/v1/order/{order['id']}/cancel")
    dispute_resolve(dispute=open_dispute(shop, order, "1000"), accept=True, comment="ok", actor="o")
    assert Order.objects.get(pk=order["id"]).status == "Completed"
    assert balance(world).available == START + Decimal("950.00")
    assert shop.get(f"/api/v1/order/{order['id']}").json()["order"]["paid_amount"] == "1000.00"
    assert_ledger_consistent()


def test_accepting_on_an_expired_buy_completes_it(shop, world):
    order = shop.post("/api/v1/order/", buy_body(world, amount="1000")).json()
    Order.objects.filter(pk=order["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    order_expire_due()
    assert Order.objects.get(pk=order["id"]).status == "Expired"
    dispute_resolve(dispute=open_dispute(shop, order, "500"), accept=True, comment="ok", actor="o")
    o = Order.objects.get(pk=order["id"])
    assert (o.status, o.paid_amount) == ("Completed", Decimal("500.00"))
    assert balance(world).available == START + Decimal("475.00")
    assert_ledger_consistent()


def test_accepting_on_a_completed_buy_or_a_sell_records_the_decision_only(shop, world):
    buy = shop.post("/api/v1/order/", buy_body(world, amount="1000")).json()
    trader_for(buy).post(f"/api/v1/trader/orders/{buy['id']}/confirm")
    sell = shop.post("/api/v1/order/", sell_body(world, amount="1000")).json()
    before = balance(world)
    transactions = Transaction.objects.count()
    for order in (buy, sell):
        resolved = dispute_resolve(
            dispute=open_dispute(shop, order, "500"), accept=True, comment="ok", actor="op"
        )
        assert (resolved.processed, resolved.resolution) == (True, "accepted")
        assert [t for t, _ in events(order)][-1] == "dispute.processed"
    after = balance(world)
    assert (after.available, after.frozen) == (before.available, before.frozen)
    assert Transaction.objects.count() == transactions
    assert Order.objects.get(pk=buy["id"]).paid_amount == Decimal("1000.00")
    assert Order.objects.get(pk=sell["id"]).status == "Pending"
    assert WebhookEvent.objects.filter(type="order.completed").count() == 1  # the trader's
    assert_ledger_consistent()


def test_rejecting_moves_no_money(shop, world):
    order = shop.post("/api/v1/order/", buy_body(world, amount="1000")).json()
    resolved = dispute_resolve(
        dispute=open_dispute(shop, order, "1000"), accept=False, comment="No proof", actor="op"
    )
    assert (resolved.processed, resolved.resolution, resolved.comment) == (
        True,
        "rejected",
        "No proof",
    )
    assert Order.objects.get(pk=order["id"]).status == "Pending"
    assert balance(world).available == START
    assert [t for t, _ in events(order)] == [
        "order.created",
        "dispute.created",
        "dispute.processed",
    ]
    payload = WebhookEvent.objects.get(type="dispute.processed").payload["data"]["dispute"]
    assert (payload["processed"], payload["resolution"]) == (True, "rejected")
    assert_ledger_consistent()


@pytest.mark.parametrize("first", [True, False])
def test_a_processed_dispute_cannot_be_resolved_again(shop, world, first):
    order = shop.post("/api/v1/order/", buy_body(world, amount="1000")).json()
    dispute = open_dispute(shop, order, "1000")
    dispute_resolve(dispute=dispute, accept=first, comment="ok", actor="op")
    for again in (True, False):
        with pytest.raises(Conflict) as exc:
            dispute_resolve(dispute=dispute, accept=again, comment="again", actor="op2")
        assert exc.value.status == 409 and exc.value.code == "dispute_processed"
    dispute.refresh_from_db()
    assert (dispute.resolution, dispute.resolved_by) == ("accepted" if first else "rejected", "op")
    assert balance(world).available == START + (Decimal("950.00") if first else 0)
    assert WebhookEvent.objects.filter(type="dispute.processed").count() == 1


@pytest.mark.django_db(transaction=True)
def test_check_ledger_command_exits_0_after_an_acceptance():
    world = dispute_world()
    shop = world.api
    order = shop.post("/api/v1/order/", buy_body(world, amount="1000")).json()
    dispute_resolve(dispute=open_dispute(shop, order, "900"), accept=True, comment="ok", actor="o")
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        url = f"sqlite:///{db['NAME']}"
    else:
        url = (
            f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
        )
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "paymentsvc.test_settings"}

    def check_ledger():
        return subprocess.run(
            [sys.executable, "manage.py", "check_ledger"],
            cwd=Path(settings.BASE_DIR),
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    result = check_ledger()
    assert result.returncode == 0, result.stderr
    assert "Ledger consistent" in result.stdout
    # the command looked at this very database: a drifted balance makes it fail
    Balance.objects.filter(terminal=world.shop).update(available=F("available") + 1)
    assert check_ledger().returncode != 0
