"""Database helpers that make PostgreSQL and SQLite give the same answers."""

import hashlib
from datetime import UTC, datetime

from django.db import connection
from django.db.models.functions import Now


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


def db_now_sql(vendor: str | None = None) -> str:
    """DbNow() as SQL to write into a statement of one's own (sent with parameters).
    `vendor`: the database's, when the caller builds text for another connection."""
    if (vendor or connection.vendor) == "postgresql":
        return "STATEMENT_TIMESTAMP()"
    return _SQLITE_NOW.replace("%", "%%")


def parse_clock(text: str) -> datetime:
    """The database's clock as SQLite gives it (db_now_sql's text), as a datetime."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def db_now() -> datetime:
    """DbNow() read into Python, where a query cannot compare with it itself: once per
    decision, never the web process's own clock."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT STATEMENT_TIMESTAMP()")
            return cursor.fetchone()[0]
        cursor.execute(f"SELECT {_SQLITE_NOW}")
        return parse_clock(cursor.fetchone()[0])
