"""A Buy's creation on PostgreSQL whose one write is its whole transaction: the write
is sent outside any transaction block, PostgreSQL commits it as it ends (no BEGIN, no
COMMIT: two round trips fewer), and it writes nothing unless the order, the
requisite's slot and the trader's freeze all were. A write that refused itself
(a concurrent order took the amount or the room, or the deposit was spent, after the
walk read them) leaves nothing, and the creation is taken again the usual way.

Transactional tests: outside a test's own transaction, what was committed is seen
from another connection."""

from decimal import Decimal

import pytest
from django.db import connection
from django.db.models import F

from conftest import buy_body
from finance.models import AccountKind, Balance
from finance.services import ledger_check
from orders.models import Order, RequisiteLoad
from orders.tests.test_concurrency import in_parallel
from orders.tests.test_creation_write import before_the_first_write, made_stale
from orders.tests.test_requisite_caps import caps_world, create, figures, vtb_requisites
from webhooks.models import WebhookDelivery, WebhookEvent

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

WRITE = 'INSERT INTO "orders_order"'


def writes_watched():
    """An execute wrapper noting each order write: whether it ran inside a transaction
    block, what it raised, and the orders another connection saw right after it."""
    seen = []

    def wrapper(execute, sql, params, many, context):
        if WRITE not in sql:
            return execute(sql, params, many, context)
        entry = {"atomic": connection.in_atomic_block, "raised": None}
        seen.append(entry)
        try:
            return execute(sql, params, many, context)
        except Exception as error:
            entry["raised"] = type(error).__name__
            raise
        finally:
            entry["elsewhere"] = in_parallel(
                [lambda: sorted(Order.objects.values_list("client_order_id", flat=True))],
                workers=1,
            )[0]

    return wrapper, seen


def _trader_balance(trader_id) -> Balance:
    return Balance.objects.get(kind=AccountKind.TRADER, trader_id=trader_id)


def test_a_buy_is_committed_by_its_write_alone():
    world = caps_world()
    world.shop.webhook_urls = ["https://merchant.example/hooks"]
    world.shop.save(update_fields=["webhook_urls"])
    wrapper, seen = writes_watched()
    with connection.execute_wrapper(wrapper):
        response = create(world, "1000.00", 1)

    assert response.status_code == 201, response.content
    # Outside any transaction block, and committed by it: another connection saw the
    # order before the request was over.
    assert seen == [{"atomic": False, "raised": None, "elsewhere": ["cap-1"]}]
    order = Order.objects.get(pk=response.json()["id"])
    assert (order.status, order.amount) == ("Pending", Decimal("1000.00"))
    assert figures(order.requisite) == (1, Decimal("1000.00"))
    trader = _trader_balance(order.requisite.trader_id)
    assert trader.frozen == Decimal("1000.00")
    event = WebhookEvent.objects.get(order_id=order.pk)
    assert event.type == "order.created" and event.payload["data"]["order"] == response.json()
    assert WebhookDelivery.objects.get(event=event).url == "https://merchant.example/hooks"
    assert ledger_check() == []


@pytest.mark.parametrize("stale", ["slot held", "no room", "no deposit"])
def test_a_write_that_refuses_itself_leaves_nothing_and_the_creation_is_taken_again(stale):
    """Between the walk and the write, a concurrent change takes the first candidate
    (committed at once: nothing here is inside a transaction block). That write leaves
    nothing; the creation walks again, in a transaction, and the other requisite
    serves."""
    world = caps_world()
    requisites = vtb_requisites(max_pending=1)
    assert requisites[0].trader_id != requisites[1].trader_id
    holder = Order.objects.get(pk=create(world, "1000.00", 0, method="Sberbank SBP").json()["id"])

    def change(requisite):
        if stale == "slot held":
            # a concurrent Buy of the same amount on it: its row and its load
            Order.objects.filter(pk=holder.pk).update(requisite=requisite)
            RequisiteLoad.objects.filter(requisite=requisite).update(pending=F("pending") + 1)
            RequisiteLoad.objects.filter(requisite=holder.requisite).update(
                pending=F("pending") - 1
            )
        else:
            made_stale(requisite, stale)

    taken, done = before_the_first_write(requisites, change)
    wrapper, seen = writes_watched()
    before = {r.trader_id: _trader_balance(r.trader_id) for r in requisites}
    with connection.execute_wrapper(wrapper), connection.execute_wrapper(taken):
        response = create(world, "1000.00", 1)

    assert response.status_code == 201, response.content
    [refused] = done
    # The first write, alone, refused itself; the second, in a transaction, served.
    assert [(s["atomic"], s["raised"]) for s in seen] == [(False, "DataError"), (True, None)]
    assert seen[0]["elsewhere"] == ["cap-0"]  # it committed nothing
    order = Order.objects.get(pk=response.json()["id"])
    assert order.requisite_id != refused.pk
    assert sorted(Order.objects.values_list("client_order_id", flat=True)) == ["cap-0", "cap-1"]
    assert set(WebhookEvent.objects.values_list("order_id", flat=True)) == {holder.pk, order.pk}
    assert figures(order.requisite) == (1, Decimal("1000.00"))
    assert figures(refused)[0] == (0 if stale == "no deposit" else 1)
    was, now = before[refused.trader_id], _trader_balance(refused.trader_id)
    if stale == "no deposit":
        assert (now.available, now.frozen) == (0, was.available + was.frozen)
    else:  # nothing frozen by the refused write, the books as they were
        assert (now.available, now.frozen) == (was.available, was.frozen)
        assert ledger_check() == []


@pytest.mark.parametrize(
    "how",
    ["Sell", "with Idempotency-Key", "with user_id"],
)
def test_a_creation_with_more_to_write_keeps_its_transaction(how):
    """A Sell reserves after its write, an Idempotency-Key's answer is stored after it,
    and a user_id's cap holds a lock for the transaction: each keeps its write in a
    transaction block."""
    world = caps_world()
    wrapper, seen = writes_watched()
    body = buy_body(world, method="VTB SBP", amount="1000.00", client_order_id="kept")
    headers = {}
    if how == "Sell":
        with connection.execute_wrapper(wrapper):
            response = create(world, "1000.00", "kept", side="Sell")
    else:
        if how == "with Idempotency-Key":
            headers["Idempotency-Key"] = "kept-1"
        else:
            body["user_id"] = "payer-1"
        with connection.execute_wrapper(wrapper):
            response = world.api.post("/api/v1/order/", body, headers=headers)
    assert response.status_code == 201, response.content
    assert [(s["atomic"], s["raised"]) for s in seen] == [(True, None)]
    assert ledger_check() == []
