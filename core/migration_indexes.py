"""Index moves for migrations: a column's `db_index=True` index renamed to a named Meta
index (not built again) without the `varchar_pattern_ops` copy PostgreSQL adds beside a
text column's own index, which only a LIKE 'prefix%' lookup could use.

Each write to the table pays for every index it has, so a copy that no lookup uses
costs every row written. The plain index is kept under its new name: on a large table
building it again would hold off writes for as long as the build takes."""

from django.db import migrations


def index_moved(
    schema_editor, table: str, column: str, source: str, target: str, *, pattern_copy: bool
) -> None:
    """The plain index on `column` renamed from `source` to `target` (SQLite renames no
    index: built again), with PostgreSQL's pattern copy of `source` dropped, or, with
    `pattern_copy` (the way back), made again for `target`."""
    run = schema_editor.execute
    if schema_editor.connection.vendor == "postgresql":
        if not pattern_copy:
            run(f"DROP INDEX IF EXISTS {source}_like")
        run(f"ALTER INDEX IF EXISTS {source} RENAME TO {target}")
        if pattern_copy:
            pattern_made(schema_editor, table, column, f"{target}_like")
    else:
        run(f"DROP INDEX IF EXISTS {source}")
    run(f"CREATE INDEX IF NOT EXISTS {target} ON {table} ({column})")


def pattern_dropped(schema_editor, name: str) -> None:
    """PostgreSQL's pattern copy `name` dropped (nothing elsewhere: only PostgreSQL
    makes one)."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


def pattern_made(schema_editor, table: str, column: str, name: str) -> None:
    """The way back: the pattern copy `name` on `column` made again (PostgreSQL)."""
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({column} varchar_pattern_ops)"
        )


def index_move(table: str, column: str, source: str, target: str) -> migrations.RunPython:
    """The operation that moves the plain index on `column` from `source` to `target`
    without the pattern copy (`index_moved`), and back with it."""

    def forwards(apps, schema_editor):
        index_moved(schema_editor, table, column, source, target, pattern_copy=False)

    def backwards(apps, schema_editor):
        index_moved(schema_editor, table, column, target, source, pattern_copy=True)

    return migrations.RunPython(forwards, backwards)
