"""Speed shortcuts for hand-written SELECTs that lean on Django and psycopg internals,
kept in this one module: rows converted by the converters Django's SQL compiler would
apply to the same values_list (SQLite keeps dates, decimals and ids as text), and
psycopg's own timestamptz loader on a cursor that reads many dates.

core/tests/test_framework_internals.py fails when the compiler or loader code these rely
on changes, and checks that converted rows equal the ORM's for the same query.
"""

import functools

from django.db import connection
from django.db.models import QuerySet


def converters_for(rows: QuerySet) -> list:
    """(position, converters, expression) for each column of the values_list `rows`
    that needs converting on this database, as Django's compiler finds them."""
    compiler = rows.query.get_compiler(connection.alias)
    compiler.setup_query()
    expressions = [column[0] for column in compiler.select]
    found = compiler.get_converters(expressions)
    return [(position, convs, expression) for position, (convs, expression) in found.items()]


def convert(rows: list, converters: list) -> list:
    """Rows of a cursor as the ORM would give them, given converters_for's answer."""
    if not converters:
        return rows
    out = []
    for row in rows:
        row = list(row)
        for position, convs, expression in converters:
            value = row[position]
            for convert_one in convs:
                value = convert_one(value, expression, connection)
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


def read_dates_plainly(cursor) -> None:
    """Make `cursor` (Django's, on PostgreSQL) read timestamptz with psycopg's loader."""
    if connection.vendor == "postgresql":
        cursor.cursor.adapters.register_loader("timestamptz", _plain_timestamptz_loader())
