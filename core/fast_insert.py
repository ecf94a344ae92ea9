"""Speed shortcuts that lean on Django internals, kept in this one module.

insert_row writes a new row as `Model.save(force_insert=True)` would, without the
per-save machinery (it checks that no pre_save is listened to and sends post_save
itself; `_state`, the field's `pre_save` and `get_db_prep_save`); update_row writes
chosen fields of a row as `Model.save(update_fields=...)` would, the same way. insert_unless_held writes it as
save() would, but skips a row a unique index already holds (`ON CONFLICT DO
NOTHING`; SQLite's `INSERT OR IGNORE`) where save() would raise: no savepoint is
needed around it. Each statement is prepared once per connection (core.prepared):
one text per model and shape. They rely on what `Model._save_table` / `_do_insert`
and the insert compiler do for a plain insert; core/tests/test_framework_internals.py
fails when that Django code changes, and checks that the rows written equal save()'s.

Either can ride (`ride=True` inside core.riding's `riding()`): written in the
statement of the action's next write instead of one of its own.
"""

from django.db import DatabaseError
from django.db.models import CharField, TextField
from django.db.models.signals import post_save, pre_save
from django.db.models.sql import InsertQuery

from .prepared import current, prepared_cursor
from .riding import Rider, send, send_waiting, wait

_INSERTS: dict = {}
_UPDATES: dict = {}
# Fields of exactly these classes give a str back as it is from get_db_prep_save (their
# to_python keeps a str, and their pre_save reads the attribute): it is its own parameter.
_TEXT_FIELDS = frozenset({CharField, TextField})


def insert_row(obj, *, ride: bool = False) -> None:
    """INSERT `obj` as `obj.save(force_insert=True)` does (the same columns and values,
    an IntegrityError the same way, post_save sent once it is written), without the
    per-save machinery of the ORM: for the rows written on every order creation and
    every audited action. A primary key left unset is the database's to number (an
    auto field), read back onto `obj` as save() does. A model with pre_save receivers,
    or a value the database computes (a db_default, an expression such as DbNow()),
    goes through save() as usual.

    With `ride`, inside core.riding's `riding()`, the row waits for the next write and
    is written in its statement; its key is set then."""
    model = type(obj)
    if pre_save.has_listeners(model) or _computed(obj):
        send_waiting()  # what rides is written first, in its order
        obj.save(force_insert=True)
        return
    db = current()
    numbered = obj.pk is None
    fields, sql = _insert_sql(db, model, numbered, 1)
    values = _params(obj, fields, db)

    def written(pk) -> None:
        if numbered:
            obj.pk = pk
        _saved(obj, db, created=True, update_fields=None)

    if ride:
        pk = db.ops.quote_name(model._meta.pk.column)
        returns = f"(SELECT {pk} FROM {{name}})" if numbered else None
        if wait(Rider(sql, values, returns, written)):
            return
    own, _count = send(db, sql, values, returns=numbered)
    written(own[0] if numbered else None)


def _saved(obj, db, *, created: bool, update_fields) -> None:
    """What save() does once the row is written: the instance's state, post_save."""
    obj._state.adding = False
    obj._state.db = db.alias
    model = type(obj)
    if post_save.has_listeners(model):
        post_save.send(
            sender=model,
            instance=obj,
            created=created,
            update_fields=update_fields,
            raw=False,
            using=db.alias,
        )


def insert_rows(objs: list) -> None:
    """INSERT new rows of one model, each with its key already set (a UUID), in one
    statement, as `Model.objects.bulk_create(objs)` writes them (which sends no save
    signals either), without the ORM building that statement: for the ledger's rows
    of one movement. A value the database computes goes through bulk_create."""
    model = type(objs[0])
    if any(obj.pk is None or _computed(obj) for obj in objs):
        model.objects.bulk_create(objs)
        return
    db = current()
    fields, sql = _insert_sql(db, model, False, len(objs))
    values = [value for obj in objs for value in _params(obj, fields, db)]
    with prepared_cursor(db) as cursor:
        cursor.execute(sql, values)
    for obj in objs:
        obj._state.adding = False
        obj._state.db = db.alias


def _prepared(field, value, db):
    """`field.get_db_prep_save(value, db)`: a str in a plain text field is taken as it
    is, which is what that gives back for one."""
    if type(value) is str and type(field) in _TEXT_FIELDS:
        return value
    return field.get_db_prep_save(value, db)


def _params(obj, fields: list, db) -> list:
    """The parameters save() sends for `fields` of a new `obj`."""
    return [_prepared(f, f.pre_save(obj, True), db) for f in fields]


def _insert_sql(db, model, numbered: bool, rows: int) -> tuple[list, str]:
    """The fields and the INSERT of `rows` rows of `model` (its key left to the
    database when `numbered`), made once for each shape."""
    key = (model, numbered, rows, db.vendor)
    known = _INSERTS.get(key)
    if known is None:
        meta = model._meta
        fields = [f for f in meta.local_concrete_fields if not (numbered and f is meta.pk)]
        quote = db.ops.quote_name
        group = f"({', '.join(['%s'] * len(fields))})"
        sql = (
            f"INSERT INTO {quote(meta.db_table)}"
            f" ({', '.join(quote(f.column) for f in fields)})"
            f" VALUES {', '.join([group] * rows)}"
        )
        if numbered:
            # PostgreSQL and SQLite (3.35 and later, as Django's backends need) both
            # return the number they gave
            sql += f" RETURNING {quote(meta.pk.column)}"
        known = _INSERTS[key] = (fields, sql)
    return known


def update_row(obj, fields: list[str], *, ride: bool = False) -> None:
    """UPDATE `fields` of `obj` as `obj.save(update_fields=fields)` does (an auto_now
    field among them stamped as save() stamps it, post_save sent as save() sends it;
    DatabaseError when no row has the key), without the rest of the per-save
    machinery: for the order a close writes. With pre_save receivers, or a value the
    database computes, save() as usual. `ride`: as insert_row's (the error of a key
    no row has is raised when it is written)."""
    model = type(obj)
    if pre_save.has_listeners(model) or _computed(obj):
        send_waiting()
        obj.save(update_fields=fields)
        return
    meta, db = model._meta, current()
    key = (model, tuple(fields), db.vendor)
    known = _UPDATES.get(key)
    if known is None:
        chosen = [meta.get_field(name) for name in fields]
        quote = db.ops.quote_name
        sql = (
            f"UPDATE {quote(meta.db_table)}"
            f" SET {', '.join(f'{quote(f.column)} = %s' for f in chosen)}"
            f" WHERE {quote(meta.pk.column)} = %s"
        )
        known = _UPDATES[key] = (chosen, sql)
    chosen, sql = known
    values = [_prepared(f, f.pre_save(obj, False), db) for f in chosen]
    values.append(meta.pk.get_db_prep_value(obj.pk, db))

    def written(changed) -> None:
        if not changed:
            raise DatabaseError("Save with update_fields did not affect any rows.")
        _saved(obj, db, created=False, update_fields=frozenset(fields))

    if ride:
        counted = "(SELECT count(*) FROM {name})"
        if wait(Rider(f"{sql} RETURNING 1", values, counted, written)):
            return
    _own, count = send(db, sql, values, returns=False)
    written(count)


def _computed(obj) -> bool:
    return any(
        hasattr(getattr(obj, f.attname), "resolve_expression")
        for f in obj._meta.local_concrete_fields
    )


def insert_unless_held(obj, held_by: str) -> bool:
    """INSERT `obj` as `obj.save(force_insert=True)` does (the same columns, values,
    signals, and the values the database computes read back onto it), unless the
    model's unique constraint named `held_by` (a partial one too) already holds such a
    row: then nothing is written and the answer is False. Any other error raises as
    save()'s would. The transaction stays usable either way, so the caller needs no
    savepoint to try another row."""
    held = HeldInsert(obj, held_by)
    with prepared_cursor(held.db) as cursor:
        cursor.execute(held.sql, held.params)
        row = cursor.fetchone()
    if row is None:
        return False
    held.written(row)
    return True


class HeldInsert:
    """insert_unless_held's statement for `obj`, to send in a statement of one's own
    (a WITH): `sql` and `params`; `columns`, what its RETURNING gives,
    and `written(row)` with them once it is written (the values read back onto the
    object, post_save sent). pre_save is sent when it is made.

    The statement is compiled once for each shape of row (which fields carry an
    expression, and which): later rows of that shape reuse its text and compute only
    their plain values' parameters, as the compiler does for each field."""

    __slots__ = ("obj", "db", "sql", "params", "fields", "compiler")

    def __init__(self, obj, held_by: str):
        model, meta, db = type(obj), type(obj)._meta, current()
        self.obj, self.db = obj, db
        pre_save.send(sender=model, instance=obj, raw=False, using=db.alias, update_fields=None)
        fields = [f for f in meta.local_concrete_fields if not f.generated]
        values = [f.pre_save(obj, True) for f in fields]
        shape = _shape(values)
        key = (model, held_by, db.vendor, shape)
        known = _HELD.get(key) if shape is not None else None
        if known is not None:
            self.sql, layout, self.fields = known
            self.params = params = []
            for field, value, fixed in zip(fields, values, layout, strict=True):
                if fixed is None:
                    params.append(_prepared(field, value, db))
                else:
                    params.extend(fixed)
            self.compiler = None
            return
        query = InsertQuery(model)
        query.insert_values(fields, [obj])
        self.compiler = compiler = query.get_compiler(using=db.alias)
        self.fields = returning = meta.db_returning_fields
        compiler.returning_fields = returning
        [(sql, params)] = compiler.as_sql()
        head, returns, tail = sql.rpartition(" RETURNING ")
        if not returns:
            raise NotImplementedError(f"{db.vendor} does not return inserted columns")
        self.sql = (
            f"{head} ON CONFLICT {_conflict_target(db, model, held_by)} DO NOTHING{returns}{tail}"
        )
        self.params = params
        # the values as_sql used (its own pre_save: an auto_now field's time is its)
        layout = _layout(compiler, fields, [getattr(obj, f.attname) for f in fields], params)
        if shape is not None and layout is not None:
            _HELD[key] = (self.sql, layout, returning)

    @property
    def columns(self) -> list[str]:
        """The columns its RETURNING gives, quoted, in order."""
        return [self.db.ops.quote_name(f.column) for f in self.fields]

    def written(self, row) -> None:
        obj, meta, using = self.obj, self.obj._meta, self.db.alias
        compiler = self.compiler or InsertQuery(type(obj)).get_compiler(using=using)
        converters = compiler.get_converters([f.get_col(meta.db_table) for f in self.fields])
        if converters:
            [row] = compiler.apply_converters([row], converters)
        for field, value in zip(self.fields, row, strict=True):
            setattr(obj, field.attname, value)
        obj._state.adding = False
        obj._state.db = using
        post_save.send(
            sender=type(obj), instance=obj, created=True, update_fields=None, raw=False, using=using
        )


_HELD: dict = {}


def _shape(values) -> tuple | None:
    """Which values are expressions, and which ones (their identity): None where a
    value is plain. None for the whole row when an expression cannot be told apart."""
    try:
        return tuple(
            (type(v), v.identity) if hasattr(v, "resolve_expression") else None for v in values
        )
    except (AttributeError, TypeError):
        return None


def _layout(compiler, fields, values, params) -> list | None:
    """For each field, None when its value is plain (one placeholder, one parameter:
    its get_db_prep_save) or the parameters its expression compiles to; None when the
    fields' parts do not add up to the compiled statement's parameters."""
    layout, seen = [], []
    for field, value in zip(fields, values, strict=True):
        prepared = compiler.prepare_value(field, value)
        placeholder, part = compiler.field_as_sql(
            field, getattr(field, "get_placeholder", None), prepared
        )
        plain = not hasattr(value, "resolve_expression")
        if plain and (placeholder != "%s" or len(part) != 1):
            return None
        layout.append(None if plain else tuple(part))
        seen.extend(part)
    return layout if seen == list(params) else None


_TARGETS: dict = {}


def _conflict_target(db, model, name: str) -> str:
    """`(columns) WHERE condition`: the conflict target that names one unique
    constraint (a partial index by its predicate), as PostgreSQL and SQLite infer it."""
    key = (model, name, db.vendor)
    target = _TARGETS.get(key)
    if target is None:
        [constraint] = [c for c in model._meta.constraints if c.name == name]
        quote = db.ops.quote_name
        columns = ", ".join(quote(model._meta.get_field(f).column) for f in constraint.fields)
        condition = constraint._get_condition_sql(model, db.SchemaEditorClass(db))
        target = f"({columns})" + (f" WHERE {condition}" if condition else "")
        _TARGETS[key] = target
    return target
