"""Buys that were Pending when the books came froze nothing on their trader. The
upgrade (orders migration 0013) marks them `before_books`; closing one then unfreezes
nothing and moves only the merchant, as it would have before the books, so no close
drives a frozen balance below zero or trips a CHECK, and check_ledger stays clean.

Worked figures: a Buy of 1000.00 at 5 % (reward 2.5 %) from before the books; the
trader holds 300.00, nothing frozen. Completed: the merchant +950.00, the trader and
the platform unchanged. A Buy made after the books on the same trader still freezes
and settles on three sides.
"""

import importlib
from datetime import timedelta
from decimal import Decimal

import pytest
from django.apps import apps
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
from django.utils import timezone

from finance.models import AccountKind, Balance, Transaction
from finance.services import balance_unfreeze, ledger_check
from finance.tests.factories import TerminalFactory
from orders.models import Order, OrderStatus
from orders.services import (
    order_cancel,
    order_complete_by_dispute,
    order_confirm,
    order_expire_due,
)
from orders.tests.factories import (
    RequisiteFactory,
    TraderFactory,
    buy_order,
    rewarded_method,
    sell_order,
)

pytestmark = pytest.mark.django_db
D = Decimal
UPGRADE = importlib.import_module("orders.migrations.0013_buys_before_the_books")


@pytest.fixture
def world(db):
    method = rewarded_method()
    shop = TerminalFactory(available="10000.00", methods=[method])
    trader = TraderFactory(deposit="1300.00")
    for _ in range(3):
        RequisiteFactory(trader=trader, method=method)
    return method, shop, trader


def figures(shop, trader) -> tuple:
    t = Balance.objects.get(trader_id=trader.pk)
    s = Balance.objects.get(terminal=shop)
    p = Balance.objects.filter(kind=AccountKind.PLATFORM, sandbox=False).first()
    return (s.available, s.frozen), (t.available, t.frozen), p.available if p else D(0)


def made_before_the_books(method, shop, trader, *amounts) -> list[Order]:
    """Buys as the books found them: Pending, nothing frozen on their trader (each
    freeze undone, as if the matcher of then had made them), then the upgrade run."""
    orders = [buy_order(terminal=shop, method=method, amount=a) for a in amounts or ["1000.00"]]
    for order in orders:
        balance_unfreeze(trader_id=trader.pk, amount=order.amount)
    books_came(minutes=1)  # the books came after these orders were made
    run_upgrade()
    books_came(minutes=-1)  # and orders made from now on are made under the books
    for order in orders:
        order.refresh_from_db()
    return orders


def books_came(*, minutes: int) -> None:
    MigrationRecorder.Migration.objects.filter(app="finance", name=UPGRADE.BOOKS[1]).update(
        applied=timezone.now() + timedelta(minutes=minutes)
    )


def run_upgrade():
    class Editor:
        pass

    editor = Editor()
    editor.connection = connection
    UPGRADE.mark_buys_before_the_books(apps, editor)


def test_the_upgrade_marks_only_pending_buys_made_before_the_books(world):
    method, shop, trader = world
    completed = buy_order(terminal=shop, method=method, amount="100.00")
    order_confirm(order_id=completed.pk, actor="test")
    sell = sell_order(terminal=shop, method=method, amount="1000.00")
    (old,) = made_before_the_books(method, shop, trader, "200.00")
    assert old.before_books
    assert not Order.objects.get(pk=completed.pk).before_books
    assert not Order.objects.get(pk=sell.pk).before_books
    # A Buy made once the books are here is not marked, however often it runs.
    new = buy_order(terminal=shop, method=method, amount="200.00")
    run_upgrade()
    run_upgrade()
    assert Order.objects.get(pk=old.pk).before_books
    assert not Order.objects.get(pk=new.pk).before_books
    assert ledger_check() == []


def test_completing_a_buy_from_before_the_books_moves_only_the_merchant(world):
    method, shop, trader = world
    (old,) = made_before_the_books(method, shop, trader)
    assert figures(shop, trader) == ((D("10000.00"), D(0)), (D("1300.00"), D(0)), D(0))
    assert ledger_check() == []  # its amount is not expected frozen

    done = order_confirm(order_id=old.pk, actor="test", paid_amount=D("1000.00"))
    assert done.status == OrderStatus.COMPLETED and done.trader_reward is None
    assert figures(shop, trader) == ((D("10950.00"), D(0)), (D("1300.00"), D(0)), D(0))
    kinds = set(
        Transaction.objects.filter(reference=str(old.pk)).values_list("balance__kind", flat=True)
    )
    assert kinds == {"terminal"}
    assert ledger_check() == []


def test_a_buy_from_before_the_books_is_cancelled_or_expired_without_unfreezing(world):
    method, shop, trader = world
    cancelled, expiring = made_before_the_books(method, shop, trader, "400.00", "300.00")
    # A Buy made after the books on the same trader freezes as usual.
    new = buy_order(terminal=shop, method=method, amount="500.00")
    assert figures(shop, trader)[1] == (D("800.00"), D("500.00"))
    assert ledger_check() == []

    order_cancel(order_id=cancelled.pk, actor="test")
    assert figures(shop, trader)[1] == (D("800.00"), D("500.00"))  # nothing unfrozen
    assert ledger_check() == []

    Order.objects.filter(pk=expiring.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert order_expire_due() == 1
    assert Order.objects.get(pk=expiring.pk).status == OrderStatus.EXPIRED
    assert figures(shop, trader)[1] == (D("800.00"), D("500.00"))
    assert ledger_check() == []

    # The Buy made after the books still settles on three sides: 500 - 25 to the
    # merchant, -500 + 12.50 to the trader, 25 - 12.50 to the platform.
    order_confirm(order_id=new.pk, actor="test")
    merchant, trader_now, platform = figures(shop, trader)
    assert merchant == (D("10475.00"), D(0))
    assert trader_now == (D("812.50"), D(0))
    assert platform == D("12.50")
    assert ledger_check() == []


def test_an_accepted_dispute_completes_a_buy_from_before_the_books_on_the_merchant_only(world):
    method, shop, trader = world
    (old,) = made_before_the_books(method, shop, trader, "600.00")
    order_cancel(order_id=old.pk, actor="test")
    done = order_complete_by_dispute(order_id=old.pk, paid_amount=D("600.00"), actor="operator")
    assert done.status == OrderStatus.COMPLETED and done.trader_reward is None
    # 600 - 5 % = 570 to the merchant; the trader's 1300.00 untouched, no revenue.
    assert figures(shop, trader) == ((D("10570.00"), D(0)), (D("1300.00"), D(0)), D(0))
    assert ledger_check() == []
