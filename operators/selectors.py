"""The operators' dashboard, read in a fixed number of statements.

Every figure is an aggregate the database computes over an index (orders by
`created_at`, Pending orders by their partial expiry index, deliveries by state), so
the statement count never depends on how many orders there are. The period's orders
are the ones created in it, the set the merchant API lists for the same dates; an
order still Pending past `expires_at` counts as Expired, as the API shows it.
"""

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from django.db.models import (
    Case,
    CharField,
    Count,
    DurationField,
    ExpressionWrapper,
    F,
    Q,
    Sum,
    Value,
    When,
)
from django.db.models.functions import TruncHour

from disputes.models import Dispute
from finance.models import Terminal
from orders.models import Order, OrderStatus
from paymentsvc.money import quantize_money
from webhooks.models import DeliveryState, WebhookDelivery

PERIODS = {"24h": timedelta(hours=24), "7d": timedelta(days=7), "30d": timedelta(days=30)}
DEFAULT_PERIOD = "24h"


@dataclass
class Dashboard:
    since: datetime
    now: datetime
    orders: int = 0
    completed: int = 0
    ended: int = 0
    volume_buy: Decimal = Decimal("0.00")
    volume_sell: Decimal = Decimal("0.00")
    pending: int = 0
    median_confirm_seconds: int | None = None
    disputes_open: int = 0
    webhooks_failed: int = 0
    per_hour: list = field(default_factory=list)
    per_method: list = field(default_factory=list)
    per_trader: list = field(default_factory=list)

    @property
    def conversion(self) -> Decimal | None:
        return _conversion(self.completed, self.ended)


def _terminal_has_sandbox_flag() -> bool:
    return any(f.name == "sandbox" for f in Terminal._meta.get_fields())


def scope_orders(orders, *, terminal: Terminal | None, path: str = "terminal"):
    """The one place that decides whose orders the dashboard counts: the chosen
    terminal's, or every live terminal's (sandbox terminals only when chosen)."""
    if terminal is not None:
        return orders.filter(**{path: terminal})
    if _terminal_has_sandbox_flag():
        return orders.filter(**{f"{path}__sandbox": False})
    return orders


def _shown_status(now: datetime):
    return Case(
        When(status=OrderStatus.PENDING, expires_at__lte=now, then=Value(OrderStatus.EXPIRED)),
        default=F("status"),
        output_field=CharField(),
    )


def _conversion(completed: int, ended: int) -> Decimal | None:
    return (Decimal(completed) * 100 / ended).quantize(Decimal("0.1")) if ended else None


def dashboard_get(*, period: str, terminal: Terminal | None, now: datetime) -> Dashboard:
    since = now - PERIODS[period]
    board = Dashboard(since=since, now=now)
    ended = ~Q(status=OrderStatus.PENDING) | Q(expires_at__lte=now)
    completed = Q(status=OrderStatus.COMPLETED)
    cohort = scope_orders(
        Order.objects.filter(created_at__gte=since, created_at__lte=now), terminal=terminal
    )

    totals = cohort.aggregate(
        orders=Count("id"),
        completed=Count("id", filter=completed),
        ended=Count("id", filter=ended),
        volume_buy=Sum("paid_amount", filter=completed & Q(side="Buy")),
        volume_sell=Sum("paid_amount", filter=completed & Q(side="Sell")),
    )
    board.orders, board.completed, board.ended = (
        totals["orders"],
        totals["completed"],
        totals["ended"],
    )
    board.volume_buy = quantize_money(totals["volume_buy"] or 0)
    board.volume_sell = quantize_money(totals["volume_sell"] or 0)
    board.median_confirm_seconds = _median_confirm_seconds(cohort, board.completed)

    pending_now = scope_orders(
        Order.objects.filter(status=OrderStatus.PENDING, expires_at__gt=now), terminal=terminal
    )
    board.pending = pending_now.count()
    board.disputes_open = scope_orders(
        Dispute.objects.filter(processed=False), terminal=terminal, path="order__terminal"
    ).count()
    board.webhooks_failed = scope_orders(
        WebhookDelivery.objects.filter(state=DeliveryState.FAILED, updated_at__gte=since),
        terminal=terminal,
        path="event__terminal",
    ).count()

    board.per_hour = list(
        cohort.annotate(hour=TruncHour("created_at"), shown=_shown_status(now))
        .values("hour", "shown")
        .annotate(n=Count("id"))
        .order_by("hour")
    )
    board.per_method = [
        {**row, "conversion": _conversion(row["completed"], row["ended"])}
        for row in cohort.values("method__name")
        .annotate(
            orders=Count("id"),
            completed=Count("id", filter=completed),
            ended=Count("id", filter=ended),
        )
        .order_by("-orders", "method__name")
    ]
    board.per_trader = _trader_load(cohort, pending_now, completed, ended)
    return board


def _median_confirm_seconds(cohort, completed_count: int) -> int | None:
    """The middle of the sorted confirmation times, read with OFFSET: one statement."""
    if not completed_count:
        return None
    took = ExpressionWrapper(F("closed_at") - F("created_at"), output_field=DurationField())
    middle = (completed_count - 1) // 2
    size = 1 if completed_count % 2 else 2
    rows = list(
        cohort.filter(status=OrderStatus.COMPLETED, closed_at__isnull=False)
        .annotate(took=took)
        .order_by("took")
        .values_list("took", flat=True)[middle : middle + size]
    )
    if not rows:
        return None
    return round(sum(r.total_seconds() for r in rows) / len(rows))


def _trader_load(cohort, pending_now, completed, ended) -> list[dict]:
    traders: dict = {}
    for row in (
        pending_now.filter(trader__isnull=False)
        .values("trader_id", "trader__name")
        .annotate(n=Count("id"))
    ):
        traders[row["trader_id"]] = {"name": row["trader__name"], "pending": row["n"]}
    for row in (
        cohort.filter(trader__isnull=False)
        .values("trader_id", "trader__name")
        .annotate(completed=Count("id", filter=completed), ended=Count("id", filter=ended))
    ):
        entry = traders.setdefault(row["trader_id"], {"name": row["trader__name"], "pending": 0})
        entry["conversion"] = _conversion(row["completed"], row["ended"])
        entry["ended"] = row["ended"]
    for trader_id, entry in traders.items():
        entry["id"] = trader_id
        entry.setdefault("conversion", None)
    return sorted(traders.values(), key=lambda t: (-t["pending"], t["name"]))
