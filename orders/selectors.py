"""Reads of orders for the merchants' and traders' API."""

import math
from datetime import datetime

from django.db.models import Q, QuerySet

from finance.models import Terminal
from paymentsvc.db import DbNow
from paymentsvc.error_codes import ErrorCode
from paymentsvc.errors import NotFound
from paymentsvc.formats import parse_uuid

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
    qs: QuerySet,
    *,
    terminal: Terminal,
    sort_by: str,
    descending: bool,
    size: int,
    starting_after: str | None = None,
    ending_before: str | None = None,
    count_cap: int,
) -> dict:
    """One page of `qs` (ordered by `sort_by`, then id, as order_list orders it) by
    keyset: the `size` orders right after `starting_after` or right before
    `ending_before` in the list's order (with both, the first `size` between them),
    read off the index whatever the page's depth. Raises NotFound when a cursor is not
    one of the terminal's orders.

    `total` counts the orders on the cursor's side of the list (this page is page 1 of
    that list) up to `count_cap`; `has_more` tells whether more follow this page in the
    direction of travel."""
    after = _cursor(terminal, sort_by, "starting_after", starting_after)
    before = _cursor(terminal, sort_by, "ending_before", ending_before)
    side = qs
    if after is not None:
        # Moving forward in a descending list is moving towards smaller keys.
        side = _beyond(side, sort_by, after, smaller=descending)
    if before is not None:
        side = _beyond(side, sort_by, before, smaller=not descending)
    backwards = after is None
    if backwards:
        # The orders nearest the cursor, read towards it, shown in the list's order.
        side = side.reverse()
    rows = list(side.values_list(*OrderRow.COLUMNS)[: size + 1])
    has_more = len(rows) > size
    rows = rows[:size]
    if backwards:
        rows.reverse()
    total, estimate = (len(rows), False) if not has_more else capped_count(side, cap=count_cap)
    return page_body(rows, page=1, size=size, total=total, has_more=has_more, estimate=estimate)


def _cursor(terminal: Terminal, sort_by: str, field: str, order_id) -> dict | None:
    if order_id is None:
        return None
    cursor = Order.objects.filter(pk=order_id, terminal=terminal).values(sort_by, "id").first()
    if cursor is None:
        raise NotFound(
            f"{field} is not an order of this terminal",
            code=ErrorCode.ORDER_NOT_FOUND,
            errors={field: ["Not an order of this terminal"]},
        )
    return cursor


def _beyond(qs: QuerySet, sort_by: str, cursor: dict, *, smaller: bool) -> QuerySet:
    """The rows of `qs` past `cursor` in (sort_by, id) order, towards smaller keys or
    larger ones."""
    op = "lt" if smaller else "gt"
    return qs.filter(
        Q(**{f"{sort_by}__{op}": cursor[sort_by]})
        | Q(**{sort_by: cursor[sort_by], f"id__{op}": cursor["id"]})
    )


def page_body(rows: list, *, page: int, size: int, total: int, has_more: bool, estimate: bool):
    return {
        "total": total,
        "page": page,
        "size": size,
        "pages": math.ceil(total / size),
        "items": rows,
        "has_more": has_more,
        "total_is_estimate": estimate,
    }


def capped_count(qs: QuerySet, *, cap: int) -> tuple[int, bool]:
    """How many rows `qs` has, counted up to `cap`: (cap, True) when there are more,
    so that a busy terminal's list costs the same as a quiet one's. `qs` is the bare
    filter (no joined columns), so the count is read off the index alone."""
    counted = qs.order_by()[: cap + 1].count()
    return (cap, True) if counted > cap else (counted, False)


def orders_by_client_order_id(*, terminal: Terminal, client_order_id: str, size: int) -> list:
    """Rows for render_rows (OrderRow.COLUMNS), newest first."""
    return list(
        Order.objects.with_db_clock()
        .filter(terminal=terminal, client_order_id=client_order_id)
        .order_by("-created_at", "-id")
        .values_list(*OrderRow.COLUMNS)[:size]
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
