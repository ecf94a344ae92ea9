"""A speed shortcut that leans on Django internals, kept in this one module.

insert_row writes a new row as `Model.save(force_insert=True)` would, without the
per-save machinery (signals it checks are not listened to, `_state`, the field's
`pre_save` and `get_db_prep_save`). It relies on what `Model._save_table` /
`_do_insert` do for a plain insert; core/tests/test_framework_internals.py fails when
that Django code changes, and checks that the row written equals save()'s.
"""

from django.db import connection
from django.db.models.signals import post_save, pre_save

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
