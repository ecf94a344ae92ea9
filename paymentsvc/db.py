"""Database helpers that make PostgreSQL and SQLite give the same answers."""

import hashlib

from django.db import connection
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


_INSERTS: dict = {}


def insert_row(obj) -> None:
    """INSERT `obj` as `obj.save(force_insert=True)` does (the same columns and values,
    an IntegrityError the same way), without the per-save machinery of the ORM: for the
    rows every order creation writes. Its primary key must be set. A model with save
    signal receivers goes through save() as usual."""
    model = type(obj)
    if pre_save.has_listeners(model) or post_save.has_listeners(model):
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
