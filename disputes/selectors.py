"""Reads of disputes: for the merchants' API and for the operators' admin."""

from datetime import datetime

from django.db.models import QuerySet
from django.utils.translation import gettext

from core.formats import parse_uuid
from core.money import quantize_money
from finance.models import Terminal
from orders.models import merchant_credit

from .models import Dispute


def _dispute_pk(value: str) -> int | None:
    """A dispute id that cannot name a row (not digits, past the column's range) is no match."""
    if value.isascii() and value.isdigit() and 0 < int(value) < 2**63:
        return int(value)
    return None


def dispute_search(
    *,
    terminal: Terminal,
    order_id: str | None = None,
    dispute_id: str | None = None,
    processed: bool | None = None,
    start_date: datetime | None = None,
    end_date: datetime | None = None,
) -> QuerySet:
    qs = Dispute.objects.filter(terminal=terminal)
    if order_id is not None:
        order_uuid = parse_uuid(order_id)
        qs = qs.filter(order_id=order_uuid) if order_uuid else qs.none()
    if dispute_id is not None:
        qs = qs.filter(pk=dispute_pk) if (dispute_pk := _dispute_pk(dispute_id)) else qs.none()
    if processed is not None:
        qs = qs.filter(processed=processed)
    if start_date:
        qs = qs.filter(created_at__gte=start_date)
    if end_date:
        qs = qs.filter(created_at__lte=end_date)
    return qs.select_related("order").order_by("-created_at", "-pk")


def dispute_effect(*, dispute: Dispute, accept: bool) -> str:
    """What a decision would do, in the operator's words, computed by the same rule
    as dispute_resolve (order_complete_by_dispute): "order -> Completed, merchant
    +760.00 RUB" or that only the decision is recorded."""
    order = dispute.order
    if not accept:
        return gettext("decision recorded; no money moves")
    if not order.completable_by_dispute:
        return gettext(
            "decision recorded; the {status} {side} order and money stay as they are"
        ).format(status=order.status, side=order.side)
    paid = quantize_money(dispute.amount)
    credit = merchant_credit(paid, order.fee_on(paid))
    return gettext("order {status} -> Completed, merchant +{credit} {currency}").format(
        status=order.shown_status, credit=credit, currency=order.currency
    )
