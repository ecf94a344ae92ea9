"""What an order is: its statuses, the state machine, and the rules that decide what a
row shows, each written once as a pure function of its fields and once in SQL."""

from datetime import datetime
from decimal import Decimal

from django.db import models
from django.db.models import BooleanField, Case, CharField, F, Q, Value, When
from django.db.models.functions import Coalesce
from django.db.models.lookups import GreaterThan

from core.db import DbNow
from finance.models import Side


class OrderStatus(models.TextChoices):
    PENDING = "Pending", "Pending"
    COMPLETED = "Completed", "Completed"
    CANCELLED = "Cancelled", "Cancelled"
    EXPIRED = "Expired", "Expired"


# The order state machine (docs/orders.md#lifecycle), written once; services check against it.
# Reaching Completed from Cancelled/Expired is only for an accepted dispute.
ORDER_TRANSITIONS: dict[str, set[str]] = {
    OrderStatus.PENDING: {OrderStatus.COMPLETED, OrderStatus.CANCELLED, OrderStatus.EXPIRED},
    OrderStatus.COMPLETED: set(),
    OrderStatus.CANCELLED: set(),
    OrderStatus.EXPIRED: set(),
}
DISPUTE_COMPLETABLE = {OrderStatus.PENDING, OrderStatus.CANCELLED, OrderStatus.EXPIRED}


# The rules that decide what an order is, each written once: a pure function of its
# fields and the same rule in SQL (a Q for the QuerySet methods; shown_as_sql for
# hand-written statements). orders/tests/test_rules_parity.py runs both on the same rows.
def order_is_overdue(status: str, expires_at: datetime, clock: datetime) -> bool:
    """Pending past `expires_at` (by the database's `clock`): due for the sweep."""
    return status == OrderStatus.PENDING and expires_at <= clock


def order_shown_status(status: str, expires_at: datetime, clock: datetime) -> str:
    """The status as shown everywhere: Pending past expires_at reads as Expired."""
    return OrderStatus.EXPIRED if order_is_overdue(status, expires_at, clock) else status


def order_completable_by_dispute(side: str, status: str) -> bool:
    """An accepted dispute completes a Buy order that is not Completed yet."""
    return side == Side.BUY and status in DISPUTE_COMPLETABLE


def merchant_credit(paid_amount: Decimal, fee_amount: Decimal) -> Decimal:
    """What a completed Buy credits its merchant: paid less the fee, never below 0."""
    return max(paid_amount - fee_amount, Decimal("0.00"))


def conversion(completed: int, ended: int) -> Decimal | None:
    """Completed as a percent of ended (shown status not Pending), to 0.1; None if none."""
    return (Decimal(completed) * 100 / ended).quantize(Decimal("0.1")) if ended else None


def overdue_q(*, now=None, path: str = "") -> Q:
    """order_is_overdue in SQL, `path` to the order ("order__"), `now` the DB's clock."""
    now = DbNow() if now is None else now
    return Q(**{f"{path}status": OrderStatus.PENDING, f"{path}expires_at__lte": now})


def shown_as_q(status: str, *, now=None, path: str = "") -> Q:
    """Orders whose shown status (order_shown_status) is `status`, in SQL."""
    now = DbNow() if now is None else now
    if status == OrderStatus.PENDING:
        return Q(**{f"{path}status": OrderStatus.PENDING, f"{path}expires_at__gt": now})
    if status == OrderStatus.EXPIRED:
        return Q(**{f"{path}status": OrderStatus.EXPIRED}) | overdue_q(now=now, path=path)
    return Q(**{f"{path}status": status})


def open_pending_q(*, now=None) -> Q:
    """shown_as_q(PENDING), for reads that start from one trader's Pending orders. Its
    expiry test (`COALESCE(expires_at > now, FALSE)`, the same rows) does not imply
    the Pending-expiry index's condition, so that index of every trader's Pending
    orders, which the planner takes whenever its statistics were taken with few orders
    Pending, cannot answer it; the trader's own (order_trader_pending) can."""
    now = DbNow() if now is None else now
    unexpired = Coalesce(
        GreaterThan(F("expires_at"), now), Value(False), output_field=BooleanField()
    )
    return Q(status=OrderStatus.PENDING) & Q(unexpired)


def shown_as_sql(status: str, *, state: str, expires: str, now: str) -> tuple[str, list]:
    """shown_as_q for a hand-written statement (columns and the clock's SQL given)."""
    if status == OrderStatus.PENDING:
        return f"{state} = %s AND {expires} > {now}", [OrderStatus.PENDING.value]
    if status == OrderStatus.EXPIRED:
        return (
            f"({state} = %s OR ({state} = %s AND {expires} <= {now}))",
            [OrderStatus.EXPIRED.value, OrderStatus.PENDING.value],
        )
    return f"{state} = %s", [status]


def shown_status_sql(*, state: str, expires: str, now: str) -> str:
    """order_shown_status as a column of a hand-written statement."""
    pending, expired = OrderStatus.PENDING.value, OrderStatus.EXPIRED.value
    return (
        f"CASE WHEN {state} = '{pending}' AND {expires} <= {now} THEN '{expired}' ELSE {state} END"
    )


def shown_status_expression(*, now=None) -> Case:  # order_shown_status as a column
    return Case(
        When(overdue_q(now=now), then=Value(OrderStatus.EXPIRED.value)),
        default=F("status"),
        output_field=CharField(),
    )
