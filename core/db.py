"""Database helpers that make PostgreSQL and SQLite give the same answers."""

import hashlib
from datetime import UTC, datetime

from django.db import connection
from django.db.models.functions import Now
from django.db.models.signals import post_save, pre_save


def advisory_xact_lock(*parts: object) -> None:
    """Serialise transactions on a logical key until the current transaction ends.

    On PostgreSQL this is pg_advisory_xact_lock; on SQLite every write transaction
    already holds the database write lock (IMMEDIATE mode), so there is nothing to do.
    """
    if connection.vendor != "postgresql":
        return
    digest = hashlib.blake2b("|".join(map(str, parts)).encode(), digest_size=8).digest()
    key = int.from_bytes(digest, "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


# SQLite keeps datetimes as text, and Django writes them as str(datetime) in UTC:
# microseconds, or none at all when they are zero. SQLite's own 'now' has three digits,
# so a moment it wrote would not equal (nor sort exactly against) the same moment
# bound from Python. This writes 'now' in Django's form; 'now' is one value throughout
# a statement.
_SQLITE_NOW = (
    "(STRFTIME('%Y-%m-%d %H:%M:%S', 'NOW') || CASE SUBSTR(STRFTIME('%f', 'NOW'), 4)"
    " WHEN '000' THEN '' ELSE SUBSTR(STRFTIME('%f', 'NOW'), 3) || '000' END)"
)


class DbNow(Now):
    """Django's Now() (PostgreSQL's statement_timestamp()), written on SQLite as Django
    writes datetimes there. Expiry and every time that matters for money compare with
    it: the database's clock is one clock for every web process."""

    def as_sqlite(self, compiler, connection, **extra_context):
        template = _SQLITE_NOW.replace("%", "%%%%")
        return self.as_sql(compiler, connection, template=template, **extra_context)


def db_now_sql() -> str:
    """DbNow() as SQL to write into a statement of one's own (sent with parameters)."""
    if connection.vendor == "postgresql":
        return "STATEMENT_TIMESTAMP()"
    return _SQLITE_NOW.replace("%", "%%")


def db_now() -> datetime:
    """DbNow() read into Python, where a query cannot compare with it itself: once per
    decision, never the web process's own clock."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT STATEMENT_TIMESTAMP()")
            return cursor.fetchone()[0]
        cursor.execute(f"SELECT {_SQLITE_NOW}")
        return datetime.fromisoformat(cursor.fetchone()[0]).replace(tzinfo=UTC)


_INSERTS: dict = {}


def insert_row(obj) -> None:
    """INSERT `obj` as `obj.save(force_insert=True)` does (the same columns and values,
    an IntegrityError the same way), without the per-save machinery of the ORM: for the
    rows every order creation writes. Its primary key must be set. A model with save
    signal receivers, or a value the database computes (a db_default, an expression
    such as DbNow()), goes through save() as usual."""
    model = type(obj)
    if pre_save.has_listeners(model) or post_save.has_listeners(model) or _computed(obj):
        obj.save(force_insert=True)
        return
    known = _INSERTS.get(model)
    if known is None:
        fields = model._meta.local_concrete_fields
        quote = connection.ops.quote_name
        sql = (
            f"INSERT INTO {quote(model._meta.db_table)}"
            f" ({', '.join(quote(f.column) for f in fields)})"
            f" VALUES ({', '.join(['%s'] * len(fields))})"
        )
        known = _INSERTS[model] = (fields, sql)
    fields, sql = known
    values = [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
    obj._state.adding = False
    obj._state.db = connection.alias


def _computed(obj) -> bool:
    return any(
        hasattr(getattr(obj, f.attname), "resolve_expression")
        for f in obj._meta.local_concrete_fields
    )
