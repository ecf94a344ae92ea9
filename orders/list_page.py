"""A merchant's order list by page number (the list's common case) in two written-out
statements: the page with its methods' names, and the capped count; and the search by
client_order_id in one.

The ORM spent more time building these two statements for each request than the
database spends running them; here they are strings put together from the filters
given, with values prepared by the fields themselves and rows converted by Django's
own converters (SQLite keeps dates, decimals and ids as text). The page's rows are
OrderRow tuples for render_rows, as the ORM path gives them. Cursor pages
(`starting_after`, `ending_before`) stay on the ORM path (selectors.order_list_page).
"""

import functools
from datetime import datetime

from django.db import connection

from core.db import db_now_sql
from core.formats import parse_uuid
from core.pagination import numbered_page_body
from finance.models import PaymentMethod, Terminal

from .models import Order, OrderStatus
from .render import OrderRow

_ORDERS = Order._meta.db_table
_METHODS = PaymentMethod._meta.db_table
_SORTS = {"created_at", "amount"}


def _column(name: str) -> str:
    return "o." + connection.ops.quote_name(Order._meta.get_field(name).column)


@functools.cache
def _select() -> str:
    # db_clock: the database's time beside each row, for the shown status (is_overdue).
    columns = ", ".join(
        db_now_sql() if name == "db_clock" else _column(name) for name in OrderRow.FIELDS
    )
    return (
        f"SELECT {columns}, m.name, m.method_type FROM {_ORDERS} o"
        f" INNER JOIN {_METHODS} m ON m.id = o.method_id"
    )


@functools.cache
def _converters() -> list:
    """(position, converters, expression) for each column that needs converting on
    this database, as Django's compiler finds them for the same values_list."""
    rows = Order.objects.with_db_clock().values_list(*OrderRow.COLUMNS)
    compiler = rows.query.get_compiler(connection.alias)
    compiler.setup_query()
    expressions = [column[0] for column in compiler.select]
    found = compiler.get_converters(expressions)
    return [(position, convs, expression) for position, (convs, expression) in found.items()]


def _convert(rows: list) -> list:
    converters = _converters()
    if not converters:
        return rows
    out = []
    for row in rows:
        row = list(row)
        for position, convs, expression in converters:
            value = row[position]
            for convert in convs:
                value = convert(value, expression, connection)
            row[position] = value
        out.append(tuple(row))
    return out


@functools.cache
def _plain_timestamptz_loader():
    """psycopg's own timestamptz loader (C when psycopg[binary] has it), for a cursor
    that reads many dates: Django's, which re-attaches the connection's timezone to
    each value, took a fifth of a page's time. The session's timezone is already the
    connection's (UTC), so the values are the same instants, in UTC."""
    import psycopg
    from psycopg.pq import Format

    return psycopg.adapters.get_loader(psycopg.adapters.types["timestamptz"].oid, Format.TEXT)


def _read_dates_plainly(cursor) -> None:
    if connection.vendor == "postgresql":
        cursor.cursor.adapters.register_loader("timestamptz", _plain_timestamptz_loader())


def _prep(field: str, value):
    return Order._meta.get_field(field).get_db_prep_value(value, connection)


def _where(
    *,
    terminal: Terminal,
    start: datetime,
    end: datetime,
    payment_method_id: str | None,
    order_side: str | None,
    status: str | None,
) -> tuple[str, list] | None:
    """The list's filter, or None when it can match nothing (a malformed method id)."""
    conditions = [f"{_column('terminal')} = %s", f"{_column('created_at')} >= %s"]
    conditions.append(f"{_column('created_at')} <= %s")
    params = [_prep("terminal", terminal.pk), _prep("created_at", start)]
    params.append(_prep("created_at", end))
    if payment_method_id is not None:
        method_uuid = parse_uuid(payment_method_id)
        if method_uuid is None:
            return None
        conditions.append(f"{_column('method')} = %s")
        params.append(_prep("method", method_uuid))
    if order_side:
        conditions.append(f"{_column('side')} = %s")
        params.append(order_side)
    if status:
        # The status as shown: a Pending order past expiry (by the database's clock)
        # counts as Expired (selectors.orders_with_shown_status: the ORM path's rule).
        now = db_now_sql()
        state, expires = _column("status"), _column("expires_at")
        if status == OrderStatus.PENDING:
            conditions.append(f"{state} = %s AND {expires} > {now}")
            params.append(OrderStatus.PENDING.value)
        elif status == OrderStatus.EXPIRED:
            conditions.append(f"({state} = %s OR ({state} = %s AND {expires} <= {now}))")
            params += [OrderStatus.EXPIRED.value, OrderStatus.PENDING.value]
        else:
            conditions.append(f"{state} = %s")
            params.append(status)
    return " AND ".join(conditions), params


def order_list_by_page(
    *,
    terminal: Terminal,
    start: datetime,
    end: datetime,
    payment_method_id: str | None,
    order_side: str | None,
    status: str | None,
    sort_by: str,
    descending: bool,
    page: int,
    size: int,
    count_cap: int,
) -> dict:
    """Page `page` (by offset) of selectors.order_list's filter and order, `total`
    counted up to `count_cap` (a lower bound with `total_is_estimate` beyond it; not
    counted at all when a first page is not full)."""
    if sort_by not in _SORTS:
        raise ValueError(sort_by)
    where = _where(
        terminal=terminal,
        start=start,
        end=end,
        payment_method_id=payment_method_id,
        order_side=order_side,
        status=status,
    )
    if where is None:  # nothing can match
        return numbered_page_body([], page=page, size=size, count_cap=count_cap, count=lambda _: 0)
    condition, params = where
    direction = "DESC" if descending else "ASC"
    sql = (
        f"{_select()} WHERE {condition}"
        f" ORDER BY {_column(sort_by)} {direction}, {_column('id')} {direction}"
        f" LIMIT %s OFFSET %s"
    )
    with connection.cursor() as cursor:
        _read_dates_plainly(cursor)
        cursor.execute(sql, [*params, size + 1, (page - 1) * size])
        rows = _convert(cursor.fetchall())

        def count(limit: int) -> int:
            cursor.execute(
                f"SELECT COUNT(*) FROM (SELECT 1 FROM {_ORDERS} o WHERE {condition} LIMIT %s) c",
                [*params, limit],
            )
            return cursor.fetchone()[0]

        return numbered_page_body(rows, page=page, size=size, count_cap=count_cap, count=count)


def orders_by_client_order_id(*, terminal: Terminal, client_order_id: str, size: int) -> list:
    """OrderRow tuples of the terminal's orders with this client_order_id, newest first
    (the search), in one written-out statement like the list's page."""
    sql = (
        f"{_select()} WHERE {_column('terminal')} = %s AND {_column('client_order_id')} = %s"
        f" ORDER BY {_column('created_at')} DESC, {_column('id')} DESC LIMIT %s"
    )
    with connection.cursor() as cursor:
        _read_dates_plainly(cursor)
        cursor.execute(sql, [_prep("terminal", terminal.pk), client_order_id, size])
        return _convert(cursor.fetchall())
