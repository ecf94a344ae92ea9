"""A creation's write: the order's INSERT, the requisite's caps, a Buy's deposit and the
order.created event with its deliveries, in one statement on PostgreSQL, each written
only if the one before was (docs/orders.md#requisite-limits)."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.conf import settings
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from finance.models import AccountKind, Balance
from finance.services import ledger_check
from orders.models import Order, RequisiteLoad
from orders.tests.test_requisite_caps import caps_world, create, figures, vtb_requisites
from webhooks.models import WebhookDelivery, WebhookEvent

pytestmark = pytest.mark.django_db
POSTGRES = connection.vendor == "postgresql"


def statements_of(world, amount, i, **kwargs) -> tuple[dict, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        response = create(world, amount, i, **kwargs)
    assert response.status_code == 201, response.content
    sent = [q["sql"] for q in captured.captured_queries]
    return response.json(), [s for s in sent if "SAVEPOINT" not in s]


@pytest.mark.skipif(not POSTGRES, reason="one statement where data-modifying WITHs are")
@pytest.mark.parametrize("side", ["Buy", "Sell"])
def test_a_creation_is_its_slice_and_one_write(side):
    world = caps_world()
    world.shop.webhook_urls = ["https://merchant.example/hooks"]
    world.shop.save(update_fields=["webhook_urls"])
    order, sent = statements_of(world, "1000.00", 1, side=side)
    slice_at = next(n for n, s in enumerate(sent) if "row_number()" in s)
    rest = sent[slice_at + 1 :]
    if side == "Sell":
        # The slice is read before the transaction, whose first statement is a Sell's
        # check of the merchant's balance (402 before matching).
        check, *rest = rest
        assert check.startswith("SELECT") and "finance_balance" in check, check
    write, *after = rest
    # the slice, the write; then a Sell's reserve of the merchant's balance
    assert all("finance_balance" in s or "finance_reserve" in s for s in after), after
    assert bool(after) is (side == "Sell")
    for part in ("orders_order", "orders_requisiteload", "webhooks_webhookevent"):
        assert part in write
    assert write.count("webhooks_webhookdelivery") == 1
    assert ("finance_balance" in write) is (side == "Buy")
    event = WebhookEvent.objects.get(order_id=order["id"])
    assert event.type == "order.created" and event.payload["data"]["order"] == order
    delivery = WebhookDelivery.objects.get(event=event)
    assert delivery.url == "https://merchant.example/hooks"


def test_the_orders_times_are_the_databases_and_its_ttl_apart():
    world = caps_world()
    before = Order.objects.with_db_clock().values_list("db_clock", flat=True).first()
    order, _sent = statements_of(world, "1000.00", 1)
    made = Order.objects.get(pk=order["id"])
    ttl = timedelta(seconds=settings.ORDER_TTL_BUY_SECONDS)
    assert made.expires_at - made.created_at == ttl
    if before is not None:
        assert made.created_at >= before
    event = WebhookEvent.objects.get(order_id=made.pk)
    assert event.payload["data"]["order"]["created_at"] == order["created_at"]


def before_the_first_write(requisites, change):
    """Run `change(requisite)` just before the order's first INSERT, on the requisite
    it is for: as a concurrent transaction that committed between the slice and the
    write would. Returns the execute wrapper and what it changed."""
    done = []
    keys = {r.pk: r for r in requisites}

    def wrapper(execute, sql, params, many, context):
        if 'INSERT INTO "orders_order"' in sql and not done:
            seen = {str(p).replace("-", "") for p in params}
            [requisite] = [r for pk, r in keys.items() if pk.hex in seen]
            done.append(requisite)
            change(requisite)
        return execute(sql, params, many, context)

    return wrapper, done


def made_stale(requisite, stale: str) -> None:
    """The requisite full ("no room"), or its trader's available spent ("no deposit"),
    as orders made meanwhile would leave them."""
    if stale == "no room":
        RequisiteLoad.objects.filter(requisite=requisite).update(pending=1)
    else:
        # spent meanwhile: all of it frozen by other orders, as the books count it
        Balance.objects.filter(kind=AccountKind.TRADER, trader_id=requisite.trader_id).update(
            frozen=F("frozen") + F("available"), available=0
        )


@pytest.mark.parametrize("stale", ["no room", "no deposit"])
def test_a_candidate_refused_at_the_write_leaves_nothing_and_the_next_one_serves(stale):
    """The slice read room and a deposit; by the write, the first candidate's requisite
    is full (or its trader's available spent). Its order row is taken back (and its
    slot, when the freeze failed), no event of it was written, and the next candidate
    serves."""
    world = caps_world()
    requisites = vtb_requisites(max_pending=1)

    assert requisites[0].trader_id != requisites[1].trader_id

    wrapper, done = before_the_first_write(requisites, lambda r: made_stale(r, stale))
    with connection.execute_wrapper(wrapper):
        response = create(world, "1000.00", 1)
    assert response.status_code == 201, response.content
    [refused] = done
    order = Order.objects.get(pk=response.json()["id"])
    assert order.requisite_id != refused.pk
    assert Order.objects.count() == 1
    assert list(WebhookEvent.objects.values_list("order_id", flat=True)) == [order.pk]
    assert figures(refused) == ((1, Decimal(0)) if stale == "no room" else (0, Decimal(0)))
    assert figures(order.requisite) == (1, Decimal("1000.00"))
    if stale == "no room":  # (the other's balance was changed around the books)
        assert ledger_check() == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("side", ["Buy", "Sell"])
def test_the_slice_is_read_before_the_transaction_that_writes(side):
    """What the creation's transaction holds (on SQLite, the database's one write lock)
    is its writes: the requisites are read, and the order built, before it begins. (On
    PostgreSQL a Buy's one write is its whole transaction: test_creation_alone.)"""
    world = caps_world()
    seen = []

    def wrapper(execute, sql, params, many, context):
        seen.append((sql, connection.in_atomic_block))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        response = create(world, "1000.00", 1, side=side)
    assert response.status_code == 201, response.content
    [slice_read] = [atomic for sql, atomic in seen if "row_number()" in sql]
    [insert] = [atomic for sql, atomic in seen if 'INSERT INTO "orders_order"' in sql]
    alone = side == "Buy" and connection.vendor == "postgresql"
    assert (slice_read, insert) == (False, not alone)
    assert Order.objects.get(pk=response.json()["id"]).status == "Pending"
