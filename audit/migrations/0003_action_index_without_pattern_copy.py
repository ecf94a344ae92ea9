"""The action's index without the `varchar_pattern_ops` copy that `db_index=True` adds
on PostgreSQL: the log is filtered by action with `=` only, and every entry written
paid for the second index. The plain index is kept, renamed, not rebuilt."""

from django.db import migrations, models

from core.migration_indexes import index_move

TABLE = "audit_auditentry"
OLD = "audit_auditentry_action_dee621eb"
NEW = "audit_action"


class Migration(migrations.Migration):
    dependencies = [("audit", "0002_append_only_trigger")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[index_move(TABLE, "action", OLD, NEW)],
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
