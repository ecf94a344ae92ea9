"""One order read with some of its relations and the database's time beside it, by a
hand-written statement prepared once per connection (core.prepared).

It reads what `select_related(*related).with_db_clock().filter(...)` would, with
`select_for_update(of=("self",))` when asked to lock. The hottest reads of an order
(a close's lock, a merchant's lookup) go through it: building their queries through
the ORM cost more than running them.
"""

import functools

from django.db import connection

from core.db import DbNow, db_now_sql
from core.prepared import prepared_cursor
from core.sql_rows import columns, convert_value, from_joined_row

from .models import Order

# What a close reads with the order it locks (orders.services.lifecycle), and what a
# caller that locks it for the close reads too.
CLOSE_RELATED = ("terminal", "method")


def read_order(where: str, params: list, *, related: tuple[str, ...], lock: bool = False):
    """The order matching `where` (SQL on the order's alias `o`, with `params`), or
    None; each of the `related` foreign keys is read with it and cached on it."""
    found = read_orders(where, params, related=related, lock=lock)
    return found[0] if found else None


def read_orders(
    where: str, params: list, *, related: tuple[str, ...], lock: bool = False, limit=None
) -> list:
    """As read_order, every order matching `where`; with `limit`, at most that many,
    the first by id (locked in that order: two such reads never wait on each other's
    rows crosswise)."""
    with prepared_cursor() as cursor:
        cursor.execute(order_read_sql(where, related, lock, limit), params)
        rows = cursor.fetchall()
    fields = [Order._meta.get_field(name) for name in related]
    models = [field.related_model for field in fields]
    found = []
    for row in rows:
        (order, *others), (clock,) = from_joined_row(row, Order, *models)
        for field, other in zip(fields, others, strict=True):
            field.set_cached_value(order, other)
        order.db_clock = convert_value(DbNow(), clock)
        found.append(order)
    return found


def prep(field_name: str, value):
    """`value` as the order's field `field_name` sends it to this database."""
    return Order._meta.get_field(field_name).get_db_prep_value(value, connection)


def order_read_sql(where: str, related: tuple[str, ...], lock: bool, limit=None) -> str:
    """The statement read_orders sends, on this database."""
    return _sql(connection.vendor, where, related, lock, limit)


@functools.cache
def _sql(vendor: str, where: str, related: tuple[str, ...], lock: bool, limit) -> str:
    selected, joins = [columns(Order, "o")], []
    for index, name in enumerate(related):
        field = Order._meta.get_field(name)
        model, alias = field.related_model, f"r{index}"
        selected.append(columns(model, alias))
        joins.append(
            f"JOIN {model._meta.db_table} {alias} "
            f"ON {alias}.{model._meta.pk.column} = o.{field.column}"
        )
    selected.append(db_now_sql())
    locking = " FOR UPDATE OF o" if lock and connection.features.has_select_for_update_of else ""
    limited = "" if limit is None else f" ORDER BY o.id LIMIT {int(limit)}"
    return (
        f"SELECT {', '.join(selected)} FROM {Order._meta.db_table} o "
        f"{' '.join(joins)} WHERE {where}{limited}{locking}"
    )
