"""The operators' dashboard, read in a fixed number of statements.

The period's orders are read in one grouped pass (counts and paid sums per hour,
shown status, method, trader and side) that every figure and chart is folded from,
plus one sorted read for the median; Pending now, open disputes and failed deliveries
are counts over their own indexes. The statement count never depends on how many
orders there are. The period's orders
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
    Sum,
    Value,
    When,
)
from django.db.models.functions import TruncHour

from core.money import quantize_money
from disputes.models import Dispute
from finance.models import PaymentMethod, Terminal
from orders.models import Order, OrderStatus, Trader
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
    # Completed orders of the period: the platform's revenue (fees less rewards) and
    # the traders' rewards.
    revenue: Decimal = Decimal("0.00")
    rewards: Decimal = Decimal("0.00")
    per_hour: list = field(default_factory=list)
    per_method: list = field(default_factory=list)
    per_trader: list = field(default_factory=list)

    @property
    def conversion(self) -> Decimal | None:
        return _conversion(self.completed, self.ended)


def scope_orders(
    orders, *, terminal: Terminal | None, path: str = "terminal", livemode: str = "livemode"
):
    """The one place that decides whose orders the dashboard counts: the chosen
    terminal's, or every live one (sandbox orders only when their terminal is chosen).
    Live or not is the row's own stored `livemode` (the order's, or its event's), so an
    order keeps its mode even if an operator later switches its terminal's flag."""
    if terminal is not None:
        return orders.filter(**{path: terminal})
    return orders.filter(**{livemode: True})


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
    cohort = scope_orders(
        Order.objects.filter(created_at__gte=since, created_at__lte=now), terminal=terminal
    )
    # One pass over the period's orders: counts and paid sums per (hour, shown status,
    # method, trader, side). Every figure and chart below is folded from these groups,
    # whose number is bounded by those dimensions, not by the number of orders.
    groups = list(
        cohort.annotate(hour=TruncHour("created_at"), shown=_shown_status(now))
        .values("hour", "shown", "method_id", "trader_id", "side")
        .annotate(n=Count("id"), paid=Sum("paid_amount"))
        .order_by()
    )
    _fold(board, groups)
    books = cohort.filter(status=OrderStatus.COMPLETED).aggregate(
        fees=Sum("fee_amount"), rewards=Sum("trader_reward")
    )
    board.rewards = quantize_money(books["rewards"] or 0)
    board.revenue = quantize_money(books["fees"] or 0) - board.rewards
    board.median_confirm_seconds = _median_confirm_seconds(cohort, board.completed)

    pending_now = scope_orders(
        Order.objects.filter(status=OrderStatus.PENDING, expires_at__gt=now), terminal=terminal
    )
    pending_by_trader = {
        row["trader_id"]: row["n"]
        for row in pending_now.values("trader_id").annotate(n=Count("id")).order_by()
    }
    board.pending = sum(pending_by_trader.values())
    board.disputes_open = scope_orders(
        Dispute.objects.filter(processed=False),
        terminal=terminal,
        path="order__terminal",
        livemode="order__livemode",
    ).count()
    board.webhooks_failed = scope_orders(
        WebhookDelivery.objects.filter(state=DeliveryState.FAILED, updated_at__gte=since),
        terminal=terminal,
        path="event__terminal",
        livemode="event__livemode",
    ).count()

    method_names = dict(
        PaymentMethod.objects.filter(pk__in={g["method_id"] for g in groups}).values_list(
            "pk", "name"
        )
    )
    trader_ids = {g["trader_id"] for g in groups} | set(pending_by_trader)
    trader_names = dict(Trader.objects.filter(pk__in=trader_ids - {None}).values_list("pk", "name"))
    board.per_method = sorted(
        (
            {"method__name": method_names.get(key, "?"), **tally}
            for key, tally in _tally(groups, "method_id").items()
        ),
        key=lambda row: (-row["orders"], row["method__name"]),
    )
    tallies = _tally(groups, "trader_id")
    board.per_trader = sorted(
        (
            {
                "id": trader_id,
                "name": trader_names.get(trader_id, "?"),
                "pending": pending_by_trader.get(trader_id, 0),
                "ended": tallies.get(trader_id, {}).get("ended", 0),
                "conversion": tallies.get(trader_id, {}).get("conversion"),
            }
            for trader_id in trader_ids - {None}
        ),
        key=lambda t: (-t["pending"], t["name"]),
    )
    return board


def _fold(board: Dashboard, groups: list[dict]) -> None:
    per_hour: dict = {}
    volume = {"Buy": Decimal(0), "Sell": Decimal(0)}
    for g in groups:
        board.orders += g["n"]
        if g["shown"] == OrderStatus.COMPLETED:
            board.completed += g["n"]
            volume[g["side"]] += g["paid"] or 0
        if g["shown"] != OrderStatus.PENDING:
            board.ended += g["n"]
        key = (g["hour"], g["shown"])
        per_hour[key] = per_hour.get(key, 0) + g["n"]
    board.volume_buy = quantize_money(volume["Buy"])
    board.volume_sell = quantize_money(volume["Sell"])
    board.per_hour = [
        {"hour": hour, "shown": shown, "n": n} for (hour, shown), n in sorted(per_hour.items())
    ]


def _tally(groups: list[dict], dimension: str) -> dict:
    """Orders, Completed, ended and conversion per value of one dimension."""
    tallies: dict = {}
    for g in groups:
        if g[dimension] is None:
            continue
        tally = tallies.setdefault(g[dimension], {"orders": 0, "completed": 0, "ended": 0})
        tally["orders"] += g["n"]
        tally["completed"] += g["n"] if g["shown"] == OrderStatus.COMPLETED else 0
        tally["ended"] += g["n"] if g["shown"] != OrderStatus.PENDING else 0
    for tally in tallies.values():
        tally["conversion"] = _conversion(tally["completed"], tally["ended"])
    return tallies


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
