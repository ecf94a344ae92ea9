"""Reads of orders for the merchants' and traders' API."""

from django.db.models import QuerySet

from core.error_codes import ErrorCode
from core.errors import NotFound
from core.formats import parse_uuid
from finance.models import Terminal

from .joined import prep, read_order
from .models import Order, OrderStatus, Receipt, Trader
from .rules import open_pending_q


def order_of_terminal(*, terminal: Terminal, order_id: str) -> Order:
    """The terminal's order with its method and the database's time beside it (a
    merchant's lookup, one of the most frequent requests: see orders.joined)."""
    order_uuid = parse_uuid(order_id)
    order = None
    if order_uuid:
        order = read_order(
            "o.id = %s AND o.terminal_id = %s",
            [prep("id", order_uuid), prep("terminal", terminal.pk)],
            related=("method",),
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
    # The trader's open orders off its own Pending index, whatever others hold Pending.
    qs = qs.filter(open_pending_q()) if status == OrderStatus.PENDING else qs.shown_as(status)
    return qs.select_related("method").order_by("-created_at", "-id")


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
