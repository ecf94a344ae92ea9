"""Reads of orders for the merchants' and traders' API."""

import functools

from django.db import connection
from django.db.models import QuerySet

from core.db import DbNow, db_now_sql
from core.error_codes import ErrorCode
from core.errors import NotFound
from core.formats import parse_uuid
from core.prepared import prepared_cursor
from core.sql_rows import columns, convert_value, from_joined_row
from finance.models import PaymentMethod, Terminal

from .models import Order, Receipt, Trader


def order_of_terminal(*, terminal: Terminal, order_id: str) -> Order:
    """The terminal's order with its method and the database's time beside it, as
    `select_related("method").with_db_clock().filter(pk=..., terminal=...)` reads it;
    written out and prepared once per connection (core.prepared): a merchant's lookup
    is one of the most frequent requests, and building its query through the ORM cost
    more than running it."""
    order_uuid = parse_uuid(order_id)
    row = None
    if order_uuid:
        meta = Order._meta
        with prepared_cursor() as cursor:
            cursor.execute(
                _order_of_terminal_sql(connection.vendor),
                [
                    meta.pk.get_db_prep_value(order_uuid, connection),
                    meta.get_field("terminal").get_db_prep_value(terminal.pk, connection),
                ],
            )
            row = cursor.fetchone()
    if row is None:
        raise NotFound(code=ErrorCode.ORDER_NOT_FOUND)
    (order, method), (clock,) = from_joined_row(row, Order, PaymentMethod)
    Order.method.field.set_cached_value(order, method)
    order.db_clock = convert_value(DbNow(), clock)
    return order


@functools.cache
def _order_of_terminal_sql(vendor: str) -> str:
    return (
        f"SELECT {columns(Order, 'o')}, {columns(PaymentMethod, 'm')}, {db_now_sql()} "
        f"FROM {Order._meta.db_table} o "
        f"JOIN {PaymentMethod._meta.db_table} m ON m.id = o.method_id "
        "WHERE o.id = %s AND o.terminal_id = %s"
    )


def trader_order_list(
    *, trader: Trader, order_side: str | None = None, status: str | None = None
) -> QuerySet:
    # A trader sees only orders of its own mode, even if an operator flips its flag.
    qs = Order.objects.with_db_clock().filter(trader=trader, livemode=trader.livemode)
    if order_side:
        qs = qs.filter(side=order_side)
    return qs.shown_as(status).select_related("method").order_by("-created_at", "-id")


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
