"""Three-sided books: every order's merchant, trader and platform movements, worked
through by hand.

The method charges 5 % on a Buy (3 % + 50.00 on a Sell); the trader's reward is
2.5 % of a Buy's paid amount (1.5 % of a Sell's amount). A Buy of 530.00:
fee 26.50, reward 13.25, so the merchant gets 530.00 - 26.50 = +503.50, the trader
pays 530.00 and earns 13.25 = -516.75, the platform keeps 26.50 - 13.25 = +13.25;
503.50 - 516.75 + 13.25 = 0.
"""

import uuid
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.models import AuditEntry
from core.errors import InsufficientFunds, InvalidRequest, NoAvailableTraders, NotFound
from core.testing import ApiClient
from finance.models import AccountKind, Balance, FeeRange, Transaction
from finance.services import ledger_check
from finance.tests.factories import TerminalFactory
from orders.models import Order, OrderStatus
from orders.services import order_cancel, order_confirm, order_expire_now
from orders.tests.factories import (
    RequisiteFactory,
    TraderFactory,
    buy_order,
    rewarded_method,
    sell_order,
)

D = Decimal


@pytest.fixture
def method(db):
    return rewarded_method()


@pytest.fixture
def shop(method):
    return TerminalFactory(available="10000.00", methods=[method])


def trader_balance(trader) -> tuple[Decimal, Decimal]:
    balance = Balance.objects.get(trader_id=trader.pk)
    return balance.available, balance.frozen


def platform_available(sandbox=False) -> Decimal:
    row = Balance.objects.filter(kind=AccountKind.PLATFORM, sandbox=sandbox).first()
    return row.available if row else D(0)


def movements(order) -> dict:
    """{(account kind, transaction type): signed amount} of the order's ledger rows."""
    out = {}
    for txn in Transaction.objects.filter(reference=str(order.pk)).select_related("balance"):
        sign = -1 if txn.transaction_type in ("withdrawal", "order_buy") else 1
        out[(txn.balance.kind, txn.transaction_type)] = sign * txn.amount
    return out


def test_a_buy_of_530_at_5_and_2_5_percent_adds_up_to_zero(method, shop):
    trader = TraderFactory(deposit="1000.00")
    RequisiteFactory(trader=trader, method=method)
    order = buy_order(terminal=shop, method=method, amount="530.00")
    assert order.trader_id == trader.pk
    assert trader_balance(trader) == (D("470.00"), D("530.00"))  # frozen at creation

    order = order_confirm(order_id=order.pk, actor="test")
    assert (order.fee_amount, order.trader_reward) == (D("26.50"), D("13.25"))
    assert movements(order) == {
        ("terminal", "deposit"): D("503.50"),
        ("trader", "order_buy"): D("-530.00"),
        ("trader", "reward"): D("13.25"),
        ("platform", "revenue"): D("13.25"),
    }
    assert sum(movements(order).values()) == 0
    assert trader_balance(trader) == (D("483.25"), D("0.00"))  # 1000 - 530 + 13.25
    assert Balance.objects.get(terminal=shop).available == D("10503.50")
    assert platform_available() == D("13.25")
    assert ledger_check() == []


def test_a_sell_credits_the_trader_its_amount_and_reward(method, shop):
    trader = TraderFactory(deposit="0")
    RequisiteFactory(trader=trader, method=method)
    order = sell_order(terminal=shop, method=method, amount="1000.00")
    # Nothing is frozen on the trader for a Sell; the merchant's 1000 + 3 % + 50 is.
    assert not Balance.objects.filter(trader_id=trader.pk, frozen__gt=0).exists()
    order = order_confirm(order_id=order.pk, actor="test")
    # fee 80.00, reward 15.00: merchant -1080.00, trader +1015.00, platform +65.00
    assert movements(order) == {
        ("terminal", "withdrawal"): D("-1080.00"),
        ("trader", "order_sell"): D("1000.00"),
        ("trader", "reward"): D("15.00"),
        ("platform", "revenue"): D("65.00"),
    }
    assert trader_balance(trader) == (D("1015.00"), D("0.00"))
    assert ledger_check() == []


@pytest.mark.parametrize("close", [order_cancel, order_expire_now])
def test_cancel_and_expiry_release_the_working_deposit(method, shop, close):
    trader = TraderFactory(deposit="1000.00")
    RequisiteFactory(trader=trader, method=method)
    order = buy_order(terminal=shop, method=method, amount="700.00")
    assert trader_balance(trader) == (D("300.00"), D("700.00"))
    close(order_id=order.pk, actor="test")
    assert trader_balance(trader) == (D("1000.00"), D("0.00"))
    assert not Transaction.objects.filter(reference=str(order.pk)).exists()
    assert ledger_check() == []


def test_a_buy_goes_only_to_a_trader_whose_available_covers_it(method, shop):
    poor = TraderFactory(deposit="499.99")
    rich = TraderFactory(deposit="500.00")
    RequisiteFactory(trader=poor, method=method)
    RequisiteFactory(trader=rich, method=method)
    for _ in range(5):  # the matcher's order is random: the poor trader is never chosen
        order = buy_order(terminal=shop, method=method, amount="500.00")
        assert order.trader_id == rich.pk
        order_cancel(order_id=order.pk, actor="test")
    buy_order(terminal=shop, method=method, amount="500.00")
    # rich's 500.00 is frozen now; poor's 499.99 does not cover another 500.00
    with pytest.raises(NoAvailableTraders):
        buy_order(terminal=shop, method=method, amount="500.00")
    assert trader_balance(poor) == (D("499.99"), D("0.00"))
    assert trader_balance(rich) == (D("0.00"), D("500.00"))


def test_a_trader_short_of_one_amount_still_takes_a_smaller_one(method, shop):
    trader = TraderFactory(deposit="1000.00")
    RequisiteFactory(trader=trader, method=method)
    buy_order(terminal=shop, method=method, amount="800.00")
    with pytest.raises(NoAvailableTraders):
        buy_order(terminal=shop, method=method, amount="200.01")
    assert buy_order(terminal=shop, method=method, amount="200.00").trader_id == trader.pk
    assert trader_balance(trader) == (D("0.00"), D("1000.00"))


def test_the_matcher_honours_a_requisites_own_range_and_skips_inactive_ones(method, shop):
    ranged = RequisiteFactory(method=method, min_amount=D(100), max_amount=D(600))
    off = RequisiteFactory(method=method, is_active=False)
    high = RequisiteFactory(method=method, min_amount=D(5000))
    assert buy_order(terminal=shop, method=method, amount="600.00").requisite_id == ranged.pk
    # above 600: only `high` is on, and it takes 5000 and more
    with pytest.raises(NoAvailableTraders):
        buy_order(terminal=shop, method=method, amount="601.00")
    # 599.00 is free on `ranged`; then 599.00 and 600.00 are held and 601.00 is out
    # of its range, so unique_amount finds nothing more
    order = buy_order(terminal=shop, method=method, amount="599.00", unique_amount=True)
    assert (order.requisite_id, order.amount) == (ranged.pk, D("599.00"))
    with pytest.raises(NoAvailableTraders):
        buy_order(terminal=shop, method=method, amount="599.00", unique_amount=True)
    assert buy_order(terminal=shop, method=method, amount="5000.00").requisite_id == high.pk
    assert off.orders.count() == 0


def test_confirm_with_another_paid_amount_charges_everything_on_it(method, shop):
    trader = TraderFactory(deposit="1000.00")
    RequisiteFactory(trader=trader, method=method)
    order = buy_order(terminal=shop, method=method, amount="530.00")
    order = order_confirm(order_id=order.pk, actor="test", paid_amount=D("600.00"))
    # fee 5 % of 600 = 30.00, reward 2.5 % = 15.00: merchant +570.00, trader -585.00,
    # platform +15.00
    assert (order.paid_amount, order.fee_amount, order.trader_reward) == (
        D("600.00"),
        D("30.00"),
        D("15.00"),
    )
    assert movements(order) == {
        ("terminal", "deposit"): D("570.00"),
        ("trader", "order_buy"): D("-600.00"),
        ("trader", "reward"): D("15.00"),
        ("platform", "revenue"): D("15.00"),
    }
    assert trader_balance(trader) == (D("415.00"), D("0.00"))
    assert ledger_check() == []


def test_a_buys_completion_writes_its_four_ledger_rows_in_one_insert(method, shop):
    """Each account's row moves as the close runs; the Transactions follow together,
    each with its own account's balance after it (the trader's two in their order)."""
    trader = TraderFactory(deposit="1000.00")
    RequisiteFactory(trader=trader, method=method)
    order = buy_order(terminal=shop, method=method, amount="530.00")
    with CaptureQueriesContext(connection) as captured:
        order_confirm(order_id=order.pk, actor="test")
    inserts = [q["sql"] for q in captured.captured_queries if "INSERT" in q["sql"]]
    assert sum('"finance_transaction"' in q for q in inserts) == 1
    rows = Transaction.objects.filter(reference=str(order.pk)).select_related("balance")
    after = sorted((t.balance.kind, t.transaction_type, t.balance_after) for t in rows)
    assert after == [
        ("platform", "revenue", D("13.25")),
        ("terminal", "deposit", D("10503.50")),
        ("trader", "order_buy", D("470.00")),  # 1000.00 held, 530.00 paid out
        ("trader", "reward", D("483.25")),
    ]
    assert ledger_check() == []


def test_a_paid_amount_the_traders_balance_does_not_cover_is_402(method, shop):
    trader = TraderFactory(deposit="600.00")
    RequisiteFactory(trader=trader, method=method)
    order = buy_order(terminal=shop, method=method, amount="530.00")
    # available 70.00 + this order's frozen 530.00 = 600.00
    with pytest.raises(InsufficientFunds, match="^Insufficient funds"):
        order_confirm(order_id=order.pk, actor="test", paid_amount=D("600.01"))
    order.refresh_from_db()
    assert order.status == OrderStatus.PENDING
    assert trader_balance(trader) == (D("70.00"), D("530.00"))
    assert not Transaction.objects.filter(reference=str(order.pk)).exists()
    order = order_confirm(order_id=order.pk, actor="test", paid_amount=D("600.00"))
    assert trader_balance(trader) == (D("15.00"), D("0.00"))  # 600 - 600 + 15


@pytest.mark.parametrize("paid", ["0", "-1.00", "1060.01", "100.001"])
def test_a_paid_amount_out_of_bounds_is_400_and_changes_nothing(method, shop, paid):
    RequisiteFactory(method=method)
    order = buy_order(terminal=shop, method=method, amount="530.00")
    with pytest.raises(InvalidRequest):
        order_confirm(order_id=order.pk, actor="test", paid_amount=D(paid))
    order.refresh_from_db()
    assert order.status == OrderStatus.PENDING


def test_a_sell_takes_no_paid_amount(method, shop):
    RequisiteFactory(method=method)
    order = sell_order(terminal=shop, method=method, amount="1000.00")
    with pytest.raises(InvalidRequest):
        order_confirm(order_id=order.pk, actor="test", paid_amount=D("1000.00"))


def test_the_trader_confirm_endpoint_takes_paid_amount(method, shop):
    trader = TraderFactory(deposit="530.00")
    RequisiteFactory(trader=trader, method=method)
    api = ApiClient(trader.raw_key)
    order = buy_order(terminal=shop, method=method, amount="530.00")
    url = f"/api/v1/trader/orders/{order.pk}/confirm"
    for bad in ("0", "-5", "1060.01", "1.234", "abc", "1\x00"):
        response = api.post(url, {"paid_amount": bad})
        assert response.status_code == 400, bad
        assert response.json()["success"] is False
    # available 0.00, this order's 530.00 frozen
    response = api.post(url, {"paid_amount": "530.01"})
    assert response.status_code == 402
    assert response.json()["message"].startswith("Insufficient funds")
    response = api.post(url, {"paid_amount": "520.00"})
    assert response.status_code == 200
    assert response.json()["order"]["paid_amount"] == "520.00"
    assert trader_balance(trader) == (D("23.00"), D("0.00"))  # 530 - 520 + 13.00
    sell = sell_order(terminal=shop, method=method, amount="1000.00")
    response = api.post(f"/api/v1/trader/orders/{sell.pk}/confirm", {"paid_amount": "1000.00"})
    assert response.status_code == 400
    assert response.json()["errors"]["paid_amount"]
    assert ledger_check() == []


def test_a_confirms_audit_entry_rides_on_the_shared_rows_statement_and_is_refused_with_them(
    method, shop
):
    """The trader's confirm writes its entry with the order's status and event in the
    statement that changes the requisite's load row and the balances (PostgreSQL: no
    round trip of its own), once the statement before it has locked those rows in the
    lock order; a money refusal (402) takes the entry back with the close."""
    trader = TraderFactory(deposit="530.00")
    RequisiteFactory(trader=trader, method=method)
    api = ApiClient(trader.raw_key)
    refused = buy_order(terminal=shop, method=method, amount="530.00")
    response = api.post(f"/api/v1/trader/orders/{refused.pk}/confirm", {"paid_amount": "530.01"})
    assert response.status_code == 402
    assert not AuditEntry.objects.filter(object_id=str(refused.pk)).exists()
    order_cancel(order_id=refused.pk, actor="test")
    order = buy_order(terminal=shop, method=method, amount="530.00")
    with CaptureQueriesContext(connection) as queries:
        assert api.post(f"/api/v1/trader/orders/{order.pk}/confirm").status_code == 200
    statements = [q["sql"] for q in queries.captured_queries]

    def first(text: str) -> tuple[int, int]:
        """The first statement that writes `text`, and where in it."""
        return next((i, sql.index(text)) for i, sql in enumerate(statements) if text in sql)

    entry_at = first("audit_auditentry")[0]
    if connection.vendor == "postgresql":
        carrier = statements[entry_at]
        for write in (
            'UPDATE "orders_order"',
            'INSERT INTO "webhooks_webhookevent"',
            "UPDATE orders_requisiteload",
            "UPDATE finance_balance",
        ):
            assert write in carrier, write
        # the rows it changes locked by the statement just before it, load row first
        lock = statements[entry_at - 1]
        assert "FOR NO KEY UPDATE" in lock and " SET " not in lock
        assert lock.index("orders_requisiteload") < lock.index("finance_balance")
    else:  # each write at once: the entry with the status, before the shared rows
        assert entry_at < first("UPDATE orders_requisiteload")[0]
    assert first("UPDATE orders_requisiteload") < first("UPDATE finance_balance")
    entry = AuditEntry.objects.get(object_id=str(order.pk), action="order.confirm")
    assert entry.changes == {"status": ["Pending", "Completed"]}


def test_check_ledger_catches_a_tampered_movement(method, shop):
    RequisiteFactory(method=method)
    order = order_confirm(
        order_id=buy_order(terminal=shop, method=method, amount="530.00").pk, actor="test"
    )
    assert ledger_check() == []
    Transaction.objects.filter(reference=str(order.pk), transaction_type="reward").update(
        amount=D("13.26")
    )
    fields = sorted((p.field, p.account.split()[0]) for p in ledger_check())
    assert ("sum", "order") in fields
    assert ("total", "trader") in fields


def test_the_reward_is_never_in_the_merchants_view(method, shop):
    RequisiteFactory(method=method)
    order = order_confirm(
        order_id=buy_order(terminal=shop, method=method, amount="530.00").pk, actor="test"
    )
    body = ApiClient(shop.raw_key).get(f"/api/v1/order/{order.pk}").json()
    assert "reward" not in str(body)
    assert FeeRange.objects.filter(method=method, trader_reward_percent=D("2.5")).exists()


def test_the_close_locks_and_reads_the_order_as_the_orm_reads_it(shop, method):
    """The close's lock is written out (prepared once per connection): it reads the
    order, its terminal and method, and the database's time, as the ORM's
    select_for_update().select_related("terminal", "method").with_db_clock() does."""
    from django.db import transaction

    from orders.services.lifecycle import _lock

    RequisiteFactory(method=method)
    made = buy_order(terminal=shop, method=method, amount="1234.56")
    with transaction.atomic():
        locked = _lock(made.pk)
        orm = (
            Order.objects.select_for_update(of=("self",))
            .select_related("terminal", "method")
            .with_db_clock()
            .get(pk=made.pk)
        )
    for got, want in ((locked, orm), (locked.terminal, orm.terminal), (locked.method, orm.method)):
        fields = type(want)._meta.concrete_fields
        assert [getattr(got, f.attname) for f in fields] == [
            getattr(want, f.attname) for f in fields
        ]
    assert abs((locked.clock - orm.clock).total_seconds()) < 5
    assert (
        locked.seconds_left == orm.seconds_left or abs(locked.seconds_left - orm.seconds_left) <= 1
    )
    with pytest.raises(NotFound):
        with transaction.atomic():
            _lock(uuid.uuid4())
