"""Reads of orders for the merchants' and traders' API."""

from datetime import datetime

from django.db.models import Q, QuerySet

from core.db import DbNow
from core.error_codes import ErrorCode
from core.errors import NotFound
from core.formats import parse_uuid
from core.pagination import PageAsked, list_page
from finance.models import Terminal

from .models import Order, OrderStatus, Receipt, Trader
from .render import OrderRow


def orders_with_shown_status(qs: QuerySet, status: str | None) -> QuerySet:
    """Filter by the status as shown: a Pending order past expiry counts as Expired."""
    if not status:
        return qs
    if status == OrderStatus.PENDING:
        return qs.filter(status=OrderStatus.PENDING, expires_at__gt=DbNow())
    if status == OrderStatus.EXPIRED:
        return qs.filter(
            Q(status=OrderStatus.EXPIRED) | Q(status=OrderStatus.PENDING, expires_at__lte=DbNow())
        )
    return qs.filter(status=status)


def order_list(
    *,
    terminal: Terminal,
    start: datetime,
    end: datetime,
    payment_method_id: str | None = None,
    order_side: str | None = None,
    status: str | None = None,
    sort_by: str = "created_at",
    descending: bool = True,
) -> QuerySet:
    qs = Order.objects.with_db_clock().filter(
        terminal=terminal, created_at__gte=start, created_at__lte=end
    )
    if payment_method_id is not None:
        method_uuid = parse_uuid(payment_method_id)
        qs = qs.filter(method_id=method_uuid) if method_uuid else qs.none()
    if order_side:
        qs = qs.filter(side=order_side)
    qs = orders_with_shown_status(qs, status)
    prefix = "-" if descending else ""
    return qs.order_by(f"{prefix}{sort_by}", f"{prefix}id")


def order_list_page(
    qs: QuerySet, asked: PageAsked, *, terminal: Terminal, sort_by: str, descending: bool
) -> dict:
    """The page `asked` of `qs` (order_list's filter) in (`sort_by`, id) order; for
    cursor pages (list_page.order_list_by_page writes out the numbered ones): the
    `asked.size` orders right after `starting_after` or right before `ending_before`
    (with both, the first `size` between them), read off the index whatever the page's
    depth. Raises NotFound when a cursor is not one of the terminal's orders."""
    return list_page(
        qs,
        asked,
        own=Order.objects.filter(terminal=terminal),
        keys=(sort_by, "id"),
        descending=descending,
        code=ErrorCode.ORDER_NOT_FOUND,
        what="an order of this terminal",
        read=lambda side: side.values_list(*OrderRow.COLUMNS),
    )


def order_of_terminal(*, terminal: Terminal, order_id: str) -> Order:
    order_uuid = parse_uuid(order_id)
    order = (
        Order.objects.select_related("method")
        .with_db_clock()
        .filter(pk=order_uuid, terminal=terminal)
        .first()
        if order_uuid
        else None
    )
    if order is None:
        raise NotFound(code=ErrorCode.ORDER_NOT_FOUND)
    return order


def trader_order_list(
    *, trader: Trader, order_side: str | None = None, status: str | None = None
) -> QuerySet:
    # A trader sees only orders of its own mode, even if an operator flips its flag.
    qs = Order.objects.with_db_clock().filter(trader=trader, livemode=trader.livemode)
    if order_side:
        qs = qs.filter(side=order_side)
    return (
        orders_with_shown_status(qs, status).select_related("method").order_by("-created_at", "-id")
    )


def order_of_trader(*, trader: Trader, order_id: str) -> Order:
    order_uuid = parse_uuid(order_id)
    order = (
        Order.objects.with_db_clock()
        .filter(pk=order_uuid, trader=trader, livemode=trader.livemode)
        .first()
        if order_uuid
        else None
    )
    if order is None:
        raise NotFound(code=ErrorCode.ORDER_NOT_FOUND)
    return order


def receipts_of_order(*, order: Order) -> list[Receipt]:
    return list(order.receipts.all())


def receipt_of_order(*, order: Order, receipt_id: str) -> Receipt:
    receipt = None
    if str(receipt_id).isdigit() and len(str(receipt_id)) <= 18:
        receipt = Receipt.objects.filter(order=order, pk=int(receipt_id)).first()
    if receipt is None:
        raise NotFound(code=ErrorCode.RECEIPT_NOT_FOUND)
    return receipt
