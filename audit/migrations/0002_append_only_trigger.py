"""On PostgreSQL the database itself refuses UPDATE and DELETE of audit entries, so no
path around the model (raw SQL, a bulk path, a console) changes the log."""

from django.db import migrations

TABLE = "audit_auditentry"

FORWARD = f"""
CREATE OR REPLACE FUNCTION audit_entry_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'audit entries are append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER audit_entry_append_only
    BEFORE UPDATE OR DELETE ON {TABLE}
    FOR EACH ROW EXECUTE FUNCTION audit_entry_append_only();
"""

BACKWARD = f"""
DROP TRIGGER IF EXISTS audit_entry_append_only ON {TABLE};
DROP FUNCTION IF EXISTS audit_entry_append_only();
"""


class PostgresOnlySQL(migrations.RunSQL):
    """RunSQL that runs on PostgreSQL and does nothing elsewhere."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_audit_entry")]

    operations = [PostgresOnlySQL(FORWARD, BACKWARD)]
