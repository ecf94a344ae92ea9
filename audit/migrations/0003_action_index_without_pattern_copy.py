"""The action's index without the `varchar_pattern_ops` copy that `db_index=True` adds
on PostgreSQL: the log is filtered by action with `=` only, and every entry written
paid for the second index. The plain index is kept, renamed, not rebuilt."""

from django.db import migrations, models

TABLE = "audit_auditentry"
OLD = "audit_auditentry_action_dee621eb"
NEW = "audit_action"


def _move(schema_editor, source: str, target: str, *, pattern_copy: bool) -> None:
    """The plain index on action renamed from `source` to `target` (SQLite renames no
    index: built again), with PostgreSQL's pattern copy dropped or made again."""
    run = schema_editor.execute
    if schema_editor.connection.vendor == "postgresql":
        if not pattern_copy:
            run(f"DROP INDEX IF EXISTS {source}_like")
        run(f"ALTER INDEX IF EXISTS {source} RENAME TO {target}")
        if pattern_copy:
            run(f"CREATE INDEX IF NOT EXISTS {target}_like ON {TABLE} (action varchar_pattern_ops)")
    else:
        run(f"DROP INDEX IF EXISTS {source}")
    run(f"CREATE INDEX IF NOT EXISTS {target} ON {TABLE} (action)")


def forwards(apps, schema_editor):
    _move(schema_editor, OLD, NEW, pattern_copy=False)


def backwards(apps, schema_editor):
    _move(schema_editor, NEW, OLD, pattern_copy=True)


class Migration(migrations.Migration):
    dependencies = [("audit", "0002_append_only_trigger")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(forwards, backwards)],
            state_operations=[
                migrations.AlterField(
                    model_name="auditentry",
                    name="action",
                    field=models.CharField(max_length=64, verbose_name="action"),
                ),
                migrations.AddIndex(
                    model_name="auditentry",
                    index=models.Index(fields=["action"], name=NEW),
                ),
            ],
        )
    ]
