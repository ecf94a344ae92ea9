"""Reads for the traders' cabinet and API: the trader's requisites with their live
figures, one requisite, the open orders, the statistics of a period."""

from dataclasses import dataclass
from datetime import UTC, timedelta
from decimal import Decimal

from django.db.models import Count, Q, Sum

from core.db import DbNow, db_now
from core.error_codes import ErrorCode
from core.errors import NotFound
from core.formats import parse_uuid
from orders.models import Order, OrderStatus, Requisite, RequisiteLoad, Trader
from orders.selectors import trader_order_list

PERIODS = {"24h": timedelta(hours=24), "7d": timedelta(days=7), "30d": timedelta(days=30)}


@dataclass
class RequisiteFigures:
    requisite: Requisite
    pending: int
    turnover_today: Decimal


def trader_requisites(*, trader: Trader) -> list[RequisiteFigures]:
    """Every requisite of the trader (by method, then account) with its Pending count
    and the turnover of the current UTC day, as its load row keeps them."""
    requisites = list(
        Requisite.objects.filter(trader=trader)
        .select_related("method")
        .order_by("method__name", "account", "id")
    )
    today = db_now().astimezone(UTC).date()
    loads = {
        load.requisite_id: load
        for load in RequisiteLoad.objects.filter(requisite__in=[r.pk for r in requisites])
    }
    out = []
    for requisite in requisites:
        load = loads.get(requisite.pk)
        pending = load.pending if load else 0
        turnover = load.turnover if load and load.day == today else Decimal(0)
        out.append(RequisiteFigures(requisite, pending, turnover))
    return out


def requisite_figures(*, trader: Trader, requisite_id) -> RequisiteFigures:
    """One requisite of the trader with its figures; another's (or none) is a 404."""
    requisite_uuid = parse_uuid(requisite_id)
    for figures in trader_requisites(trader=trader) if requisite_uuid else []:
        if figures.requisite.pk == requisite_uuid:
            return figures
    raise NotFound(code=ErrorCode.REQUISITE_NOT_FOUND)


def trader_open_orders(*, trader: Trader):
    """The trader's Pending orders not yet past expiry, newest first."""
    return trader_order_list(trader=trader, status=OrderStatus.PENDING).select_related(
        "method", "requisite"
    )


@dataclass
class Stats:
    period: str
    orders: int
    completed: int
    conversion: float
    turnover: Decimal
    reward: Decimal


def trader_stats(*, trader: Trader, period: str) -> Stats:
    """Orders created on the trader's requisites in the last `period` (by the
    database's clock): how many, how many Completed, the percent Completed of those
    that ended (a Pending one past expiry has ended Expired), the sum of their
    `paid_amount` and of the trader's rewards on them."""
    since = DbNow() - PERIODS[period]
    ended = Q(status__in=[OrderStatus.COMPLETED, OrderStatus.CANCELLED, OrderStatus.EXPIRED]) | Q(
        status=OrderStatus.PENDING, expires_at__lte=DbNow()
    )
    completed = Q(status=OrderStatus.COMPLETED)
    figures = Order.objects.filter(
        trader=trader, livemode=trader.livemode, created_at__gte=since
    ).aggregate(
        orders=Count("id"),
        completed=Count("id", filter=completed),
        ended=Count("id", filter=ended),
        turnover=Sum("paid_amount", filter=completed),
        reward=Sum("trader_reward", filter=completed),
    )
    conversion = round(figures["completed"] * 100 / figures["ended"], 1) if figures["ended"] else 0
    return Stats(
        period=period,
        orders=figures["orders"],
        completed=figures["completed"],
        conversion=conversion,
        turnover=Decimal(figures["turnover"] or 0).quantize(Decimal("0.01")),
        reward=Decimal(figures["reward"] or 0).quantize(Decimal("0.01")),
    )
