"""Database helpers that make PostgreSQL and SQLite give the same answers."""

import hashlib

from django.db import connection


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
