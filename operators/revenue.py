"""The revenue report: per day (in the operators' zone) and payment method, the
merchants' fees, the traders' rewards and the platform's revenue of the live orders
completed in the period; on the page and as CSV for a Russian spreadsheet."""

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.views.decorators import staff_member_required
from django.db.models import Count, Sum
from django.db.models.functions import TruncDate
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from core.admin_site import operator_zone
from core.db import db_now
from core.money import quantize_money
from finance.models import PaymentMethod
from orders.models import Order, OrderStatus

from .selectors import DEFAULT_PERIOD, PERIODS


@dataclass
class RevenueRow:
    day: object
    method: str
    orders: int
    fees: Decimal
    rewards: Decimal

    @property
    def revenue(self) -> Decimal:
        return self.fees - self.rewards


def revenue_report(*, since: datetime, until: datetime) -> list[RevenueRow]:
    zone = operator_zone(settings.OPERATOR_TIME_ZONE)
    rows = (
        Order.objects.filter(
            status=OrderStatus.COMPLETED,
            livemode=True,
            closed_at__gte=since,
            closed_at__lte=until,
        )
        .annotate(day=TruncDate("closed_at", tzinfo=zone))
        .values("day", "method_id")
        .annotate(fees=Sum("fee_amount"), rewards=Sum("trader_reward"), n=Count("id"))
        .order_by("-day", "method_id")
    )
    rows = list(rows)
    names = dict(
        PaymentMethod.objects.filter(pk__in={r["method_id"] for r in rows}).values_list(
            "pk", "name"
        )
    )
    out = [
        RevenueRow(
            day=r["day"],
            method=names.get(r["method_id"], "?"),
            orders=r["n"],
            fees=quantize_money(r["fees"] or 0),
            rewards=quantize_money(r["rewards"] or 0),
        )
        for r in rows
    ]
    out.sort(key=lambda row: row.method)
    out.sort(key=lambda row: row.day, reverse=True)  # newest day first, methods by name
    return out


def _comma(value: Decimal) -> str:
    return f"{value:.2f}".replace(".", ",")


def revenue_csv(rows: list[RevenueRow]) -> HttpResponse:
    lines = [
        ";".join(
            [
                _("Day"),
                _("Method"),
                _("Orders"),
                _("Merchant fees"),
                _("Trader rewards"),
                _("Revenue"),
            ]
        )
    ]
    for row in rows:
        lines.append(
            ";".join(
                [
                    row.day.isoformat(),
                    row.method,
                    str(row.orders),
                    _comma(row.fees),
                    _comma(row.rewards),
                    _comma(row.revenue),
                ]
            )
        )
    body = "\ufeff" + "\r\n".join(lines) + "\r\n"
    response = HttpResponse(body.encode("utf-8"), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="revenue.csv"'
    return response


@staff_member_required
def revenue_view(request):
    period = request.GET.get("period") or DEFAULT_PERIOD
    if period not in PERIODS:
        period = DEFAULT_PERIOD
    now = db_now()
    rows = revenue_report(since=now - PERIODS[period], until=now)
    if request.GET.get("format") == "csv":
        return revenue_csv(rows)
    totals = RevenueRow(
        day=None,
        method="",
        orders=sum(r.orders for r in rows),
        fees=sum((r.fees for r in rows), Decimal("0.00")),
        rewards=sum((r.rewards for r in rows), Decimal("0.00")),
    )
    context = {
        **admin.site.each_context(request),
        "title": _("Revenue by day and method"),
        "rows": rows,
        "totals": totals,
        "period": period,
        "periods": list(PERIODS),
    }
    return TemplateResponse(request, "operators/revenue.html", context)
