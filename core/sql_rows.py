"""Speed shortcuts for hand-written SELECTs that lean on Django and psycopg internals,
kept in this one module: rows converted by the converters Django's SQL compiler would
apply to the same values_list (SQLite keeps dates, decimals and ids as text), and model
instances built from a row as the ORM builds them.

core/tests/test_framework_internals.py fails when the compiler code these rely on
changes, and checks that converted rows equal the ORM's for the same query.
"""

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


# Model instances from a hand-written statement's row, as the ORM builds them from a
# row it read itself (Model.from_db, each column through its converters). A hot lock
# (the order a close locks, with its terminal and method) is one such statement:
# building its query through the ORM took longer than running it.


def columns(model, alias: str) -> str:
    """The model's concrete columns, qualified by `alias`, in the order `from_row` reads
    them."""
    quote = connection.ops.quote_name
    return ", ".join(f"{alias}.{quote(field.column)}" for field in model._meta.concrete_fields)


def _converters(expression) -> list:
    # As the ORM's compiler gathers them for a selected column: the backend's, then
    # the field's own (a JSONField's decoding, SQLite's UUIDs and decimals).
    return connection.ops.get_db_converters(expression) + expression.get_db_converters(connection)


_READERS: dict = {}


def _reader(model) -> tuple[list[str], list]:
    """The model's attribute names and, for each column that has converters on this
    kind of database, its position, the column and its converters (each is called
    with the connection in use, as the compiler calls it). On PostgreSQL most columns
    have none: their values are taken as they come."""
    key = (model, connection.vendor)
    reader = _READERS.get(key)
    if reader is None:
        fields = model._meta.concrete_fields
        table = model._meta.db_table
        columns = [field.get_col(table) for field in fields]
        reader = _READERS[key] = (
            [field.attname for field in fields],
            [
                (position, col, converters)
                for position, col in enumerate(columns)
                if (converters := _converters(col))
            ],
        )
    return reader


def _converted(value, expression, converters):
    for converter in converters:
        value = converter(value, expression, connection)
    return value


def convert_value(expression, value):
    """One value of `expression` (a column or an annotation) as the ORM would read it."""
    return _converted(value, expression, _converters(expression))


def from_row(model, values):
    """A `model` instance from its columns' values, as `columns(model, ...)` selects
    them: what the ORM's `from_db` makes of a row it read itself."""
    names, readers = _reader(model)
    if len(values) != len(names):
        raise ValueError(f"{model.__name__} has {len(names)} columns, the row {len(values)}")
    converted = list(values)
    for position, col, converters in readers:
        converted[position] = _converted(converted[position], col, converters)
    return model.from_db(connection.alias, names, converted)


def from_joined_row(row, *models) -> tuple[list, tuple]:
    """An instance of each of `models` from a row that selects their `columns(...)` one
    after another (a join, as select_related reads it), and what the row has after
    them (an annotation)."""
    instances, start = [], 0
    for model in models:
        end = start + len(model._meta.concrete_fields)
        instances.append(from_row(model, row[start:end]))
        start = end
    return instances, tuple(row[start:])
