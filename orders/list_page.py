"""A merchant's order list, numbered or cursor pages, in two written-out statements:
the page with its methods' names, and the capped count; and the search by
client_order_id in one.

The ORM spent more time building these two statements for each request than the
database spends running them; here they are strings put together from the filters
given, with values prepared by the fields themselves; ids, times, sums and the status
are read as the contract's text, the other columns through Django's own converters
(SQLite's booleans and fixed fees). Each filter's shape is
one text, prepared once per connection (core.prepared). The page's rows are
OrderRow tuples for render_rows. The cursor's keyset condition and the page's
envelope come from core.pagination, as every list's do.
"""

import functools
from datetime import datetime

from django.db import connection

from core import sql_rows
from core.db import db_now_sql
from core.error_codes import ErrorCode
from core.errors import NotFound
from core.formats import parse_uuid
from core.pagination import (
    PageAsked,
    beyond_sql,
    keyset_page_body,
    numbered_page_body,
    page_offset,
)
from core.prepared import opaque, prepared_cursor
from finance.models import PaymentMethod, Terminal

from .models import Order, shown_as_sql
from .render import OrderRow
from .rules import shown_status_sql

_ORDERS = Order._meta.db_table
_METHODS = PaymentMethod._meta.db_table
_SORTS = {"created_at", "amount"}


def _column(name: str) -> str:
    return "o." + connection.ops.quote_name(Order._meta.get_field(name).column)


# The ids, times and sums are read as the text the contract shows them in
# (render_order keeps text as it is: `core.formats.iso_utc`, `core.money.money_str`),
# and the status as shown, by the database's clock (`shown_status_sql`; db_clock is
# then NULL, OrderRow's sign that the status is the shown one): turning 150 UUIDs, 150
# times and 150 sums of a page into text in Python was most of rendering it, and on
# SQLite (make run's demo) converting them first (its ids, times and sums are stored as
# hex, text and REAL) was a fifth of the page. The sums' columns hold two decimals.
_IDS_AS_TEXT = {"id", "method_id", "initial_method_id"}
_TIMES_AS_TEXT = {"created_at", "updated_at", "expires_at"}
_SUMS_AS_TEXT = {"amount", "fee", "fee_amount", "paid_amount"}
_AS_TEXT = {*_IDS_AS_TEXT, *_TIMES_AS_TEXT, *_SUMS_AS_TEXT, "status", "db_clock"}
_ISO_UTC = 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'  # core.formats.iso_utc's form
_UUID_GROUPS = ((1, 8), (9, 4), (13, 4), (17, 4), (21, 12))  # SQLite's hex, dashed


def _as_text(name: str, column: str) -> str:
    """`column` (of OrderRow's field `name`) as its text in the contract."""
    if connection.vendor == "postgresql":
        if name in _TIMES_AS_TEXT:
            return f"to_char({column} AT TIME ZONE 'UTC', '{_ISO_UTC}')"
        return f"{column}::text"
    # SQLite, as Django stores them: a UUID's 32 hex digits; a UTC time as
    # 'YYYY-MM-DD HH:MM:SS', with '.ffffff' unless on a whole second; a sum as a number.
    # A NULL stays NULL (concatenation and the CASE keep it).
    if name in _IDS_AS_TEXT:
        parts = (f"substr({column}, {start}, {length})" for start, length in _UUID_GROUPS)
        return " || '-' || ".join(parts)
    if name in _TIMES_AS_TEXT:
        return (
            f"replace({column}, ' ', 'T')"
            f" || CASE WHEN length({column}) = 19 THEN '.000000Z' ELSE 'Z' END"
        )
    return f"CASE WHEN {column} IS NULL THEN NULL ELSE printf('%%.2f', {column}) END"


def _read(name: str) -> str:
    """The column `name` of OrderRow as the page reads it."""
    if name == "db_clock":  # the status is read as shown: no clock beside the row
        return "NULL"
    column = _column(name)
    if name == "status":
        return shown_status_sql(state=column, expires=_column("expires_at"), now=db_now_sql())
    if name in _AS_TEXT:
        return _as_text(name, column)
    return column


@functools.cache
def _select(extra: str = "") -> str:
    """The rows' SELECT and FROM, with `extra` columns after the rows'."""
    columns = ", ".join(_read(name) for name in OrderRow.FIELDS)
    return (
        f"SELECT {columns}, m.name, m.method_type{extra} FROM {_ORDERS} o"
        f" INNER JOIN {_METHODS} m ON m.id = o.method_id"
    )


@functools.cache
def _converters() -> list:
    """Django's converters of the columns read as they are (on SQLite: the booleans,
    fixed_fee); the columns read as text need none."""
    text = {OrderRow.COLUMNS.index(name) for name in _AS_TEXT}
    found = sql_rows.converters_for(Order.objects.with_db_clock().values_list(*OrderRow.COLUMNS))
    return [converter for converter in found if converter[0] not in text]


def _convert(rows: list) -> list:
    return sql_rows.convert(rows, _converters())


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
        # The status as shown, by the database's clock (models.shown_as_sql).
        condition, status_params = shown_as_sql(
            status, state=_column("status"), expires=_column("expires_at"), now=db_now_sql()
        )
        conditions.append(condition)
        params += status_params
    return " AND ".join(conditions), params


def _cursor(terminal: Terminal, field: str, order_id, sort_by: str) -> list | None:
    """The cursor order's (sort key, id), prepared; 404 unless it is the terminal's."""
    if order_id is None:
        return None
    order_uuid = parse_uuid(str(order_id))
    keys = Order.objects.filter(terminal=terminal, pk=order_uuid).values_list(sort_by, "id")
    row = keys.first() if order_uuid else None
    if row is None:
        raise NotFound(
            f"{field} is not an order of this terminal",
            code=ErrorCode.ORDER_NOT_FOUND,
            errors={field: ["Not an order of this terminal"]},
        )
    return [_prep(sort_by, row[0]), _prep("id", row[1])]


def order_list_page(
    *,
    terminal: Terminal,
    start: datetime,
    end: datetime,
    payment_method_id: str | None,
    order_side: str | None,
    status: str | None,
    sort_by: str,
    descending: bool,
    asked: PageAsked,
) -> dict:
    """The page `asked` of the terminal's orders in (`sort_by`, id) order, numbered or
    by cursor, from the same written-out statement. A numbered page is read by offset,
    `total` counted up to the cap (a lower bound with `total_is_estimate` beyond it;
    not counted at all when a first page is not full). A cursor page is the `size`
    orders right after `starting_after` or right before `ending_before` (with both,
    the first `size` between them), read off the index whatever its depth; a cursor
    that is not one of the terminal's orders is a 404."""
    if sort_by not in _SORTS:
        raise ValueError(sort_by)
    after = _cursor(terminal, "starting_after", asked.starting_after, sort_by)
    before = _cursor(terminal, "ending_before", asked.ending_before, sort_by)
    where = _where(
        terminal=terminal,
        start=start,
        end=end,
        payment_method_id=payment_method_id,
        order_side=order_side,
        status=status,
    )
    size, count_cap = asked.size, asked.count_cap
    if where is None:  # nothing can match
        if asked.by_cursor:
            return keyset_page_body([], size=size, backwards=False, count_cap=0, count=len)
        return numbered_page_body(
            [], page=asked.page, size=size, count_cap=count_cap, count=lambda _: 0
        )
    condition, params = where
    keys = (_column(sort_by), _column("id"))
    # Moving forward in a descending list is moving towards smaller keys.
    for cursor, smaller in ((after, descending), (before, not descending)):
        if cursor is not None:
            past, past_params = beyond_sql(keys, cursor, smaller=smaller)
            condition, params = f"{condition} AND {past}", [*params, *past_params]
    # Only `ending_before`: the orders nearest the cursor, read towards it.
    backwards = after is None and before is not None
    direction = "DESC" if descending != backwards else "ASC"
    offset = 0 if asked.by_cursor else page_offset(asked.page, size)
    # The sizes are opaque to the planner: with them in sight, each run's plan looked
    # cheaper than the generic one (same shape) and the page was planned every time.
    number = opaque("bigint")
    counting = (
        f"SELECT COUNT(*) FROM (SELECT 1 FROM {_ORDERS} o WHERE {condition} LIMIT {number}) c"
    )
    # The capped count rides in the page's statement as a column (one round trip, not
    # two; the database runs it once, and only when the page has a row): the pages
    # that need it are the busy terminals' (a full first page, any later page).
    sql = (
        f"{_select(f', ({counting})')} WHERE {condition}"
        f" ORDER BY {keys[0]} {direction}, {keys[1]} {direction} LIMIT {number} OFFSET {number}"
    )
    with prepared_cursor() as cursor:
        cursor.execute(sql, [*params, count_cap + 1, *params, size + 1, offset])
        read = cursor.fetchall()
        counted = read[0][-1] if read else None
        rows = _convert([row[:-1] for row in read])

        def count(limit: int) -> int:
            if counted is not None and limit == count_cap + 1:
                return counted
            cursor.execute(counting, [*params, limit])
            return cursor.fetchone()[0]

        if asked.by_cursor:
            return keyset_page_body(
                rows, size=size, backwards=backwards, count_cap=count_cap, count=count
            )
        return numbered_page_body(
            rows, page=asked.page, size=size, count_cap=count_cap, count=count
        )


def orders_by_client_order_id(*, terminal: Terminal, client_order_id: str, size: int) -> list:
    """OrderRow tuples of the terminal's orders with this client_order_id, newest first
    (the search), in one written-out statement like the list's page."""
    sql = (
        f"{_select()} WHERE {_column('terminal')} = %s AND {_column('client_order_id')} = %s"
        f" ORDER BY {_column('created_at')} DESC, {_column('id')} DESC LIMIT {opaque('bigint')}"
    )
    with prepared_cursor() as cursor:
        cursor.execute(sql, [_prep("terminal", terminal.pk), client_order_id, size])
        return _convert(cursor.fetchall())
