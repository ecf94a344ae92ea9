"""Each rule that decides what a row is has a Python form (a pure function beside its
model) and an SQL form (a QuerySet method, a Q, or shown_as_sql for hand-written
statements). These tests run both over the same rows and want the same answer, on
whichever database the suite runs against (SQLite and PostgreSQL)."""

import uuid
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.db.models import F

from core.db import db_now, db_now_sql
from finance.models import (
    FeeRange,
    PaymentMethod,
    Side,
    TerminalMethod,
    fee_range_usable,
    method_enabled_on,
)
from finance.tests.factories import PaymentMethodFactory, TerminalFactory
from orders.models import (
    Order,
    OrderStatus,
    conversion,
    merchant_credit,
    order_shown_status,
    shown_as_sql,
)
from orders.rules import open_pending_q

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


@pytest.fixture
def orders():
    """One order of each (side, status, due or not) the rules tell apart."""
    method = PaymentMethodFactory()
    terminal = TerminalFactory(methods=[method])
    made = []
    for side in (Side.BUY, Side.SELL):
        for status in OrderStatus.values:
            for past_expiry in (False, True):
                order = Order.objects.create(
                    terminal=terminal,
                    client_order_id=f"{side}-{status}-{past_expiry}",
                    side=side,
                    method=method,
                    initial_method=method,
                    status=status,
                    requested_amount=Decimal("1000.00"),
                    amount=Decimal("1000.00") + len(made),
                    fee=Decimal("5.00"),
                    fee_amount=Decimal("50.00"),
                )
                shift = -HOUR if past_expiry else HOUR
                Order.objects.filter(pk=order.pk).update(expires_at=F("created_at") + shift)
                made.append(order.pk)
    assert len(made) == 16
    return made


def _read(ids):
    return list(Order.objects.with_db_clock().filter(pk__in=ids).order_by("pk"))


def test_shown_status_column_is_the_property(orders):
    rows = Order.objects.with_db_clock().with_shown_status().filter(pk__in=orders)
    seen = {(row.shown, row.shown_status) for row in rows}
    assert all(sql == python for sql, python in seen)
    # Every status shows up, and some Pending order reads as Expired.
    assert {python for _, python in seen} == set(OrderStatus.values)
    assert any(row.status == OrderStatus.PENDING and row.shown == "Expired" for row in rows)


def test_shown_status_at_a_given_moment(orders):
    """The dashboard reads the period's orders against one moment it passes in."""
    later = db_now() + 2 * HOUR  # past every order's expiry
    for row in Order.objects.with_shown_status(now=later).filter(pk__in=orders):
        assert row.shown == order_shown_status(row.status, row.expires_at, later)


@pytest.mark.parametrize("status", OrderStatus.values)
def test_shown_as_is_the_property(orders, status):
    python = {o.pk for o in _read(orders) if o.shown_status == status}
    assert python  # the case is exercised
    assert (
        set(Order.objects.filter(pk__in=orders).shown_as(status).values_list("pk", flat=True))
        == python
    )


@pytest.mark.parametrize("status", OrderStatus.values)
def test_shown_as_sql_is_the_property(orders, status):
    """The hand-written form (the order list's written-out statement)."""
    python = {o.pk for o in _read(orders) if o.shown_status == status}
    condition, params = shown_as_sql(status, state="status", expires="expires_at", now=db_now_sql())
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id FROM {Order._meta.db_table} WHERE {condition}", params)
        found = {uuid.UUID(str(row[0])) for row in cursor.fetchall()}
    assert found == python


def test_open_pending_is_shown_pending(orders):
    """The traders' form of shown_as(Pending) (written for the planner) is the same."""
    python = {o.pk for o in _read(orders) if o.shown_status == OrderStatus.PENDING}
    assert len(python) == 2
    found = (
        Order.objects.filter(pk__in=orders).filter(open_pending_q()).values_list("pk", flat=True)
    )
    assert set(found) == python


def test_overdue_is_the_property(orders):
    python = {o.pk for o in _read(orders) if o.is_overdue}
    assert len(python) == 2  # the Pending Buy and Sell past expiry
    assert set(Order.objects.filter(pk__in=orders).overdue().values_list("pk", flat=True)) == python


def test_receipts_are_taken_while_shown_pending(orders):
    python = {o.pk for o in _read(orders) if o.takes_receipts}
    assert len(python) == 2  # Pending and not past expiry: overdue ones take none
    sql = Order.objects.filter(pk__in=orders).taking_receipts().values_list("pk", flat=True)
    assert set(sql) == python


def test_dispute_completable_is_the_property(orders):
    python = {o.pk for o in _read(orders) if o.completable_by_dispute}
    # Buy orders that are not Completed: Pending, Cancelled and Expired, due or not.
    assert len(python) == 6
    sql = Order.objects.filter(pk__in=orders).completable_by_dispute().values_list("pk", flat=True)
    assert set(sql) == python


def test_merchant_credit_is_floored_at_zero():
    assert merchant_credit(Decimal("1000.00"), Decimal("50.00")) == Decimal("950.00")
    assert merchant_credit(Decimal("10.00"), Decimal("50.00")) == Decimal("0.00")


def test_conversion_rounds_once_to_a_tenth():
    assert conversion(0, 0) is None
    assert conversion(2, 3) == Decimal("66.7")
    assert conversion(1, 8) == Decimal("12.5")  # half to even, as the dashboard always did
    assert conversion(3, 3) == Decimal("100.0")


def test_methods_enabled_on_a_terminal():
    terminal = TerminalFactory()
    on = PaymentMethodFactory()
    inactive = PaymentMethodFactory(is_active=False)
    switched_off = PaymentMethodFactory()
    foreign = PaymentMethodFactory(currency="USD")
    PaymentMethodFactory()  # never linked to the terminal
    for method in (on, inactive, foreign):
        TerminalMethod.objects.create(terminal=terminal, method=method)
    TerminalMethod.objects.create(terminal=terminal, method=switched_off, enabled=False)
    links = {link.method_id: link for link in TerminalMethod.objects.filter(terminal=terminal)}
    python = {
        m.pk
        for m in PaymentMethod.objects.all()
        if method_enabled_on(m, terminal=terminal, link=links.get(m.pk))
    }
    assert python == {on.pk}
    assert set(PaymentMethod.objects.enabled_on(terminal).values_list("pk", flat=True)) == python


def test_fee_ranges_count_in_their_methods_currency():
    method = PaymentMethodFactory(sell=False)
    FeeRange.objects.create(
        method=method,
        side=Side.SELL,
        currency="USD",
        min_amount=Decimal("1.00"),
        max_amount=Decimal("10.00"),
        fee=Decimal("1.00"),
    )
    ranges = FeeRange.objects.filter(method=method).select_related("method")
    python = {r.pk for r in ranges if fee_range_usable(r, r.method)}
    assert len(python) == 1  # the Buy range in RUB, not the Sell one in USD
    assert set(FeeRange.objects.filter(method=method).usable().values_list("pk", flat=True)) == (
        python
    )
