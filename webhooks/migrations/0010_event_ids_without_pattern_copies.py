"""The event's id, and a delivery's event, without the `varchar_pattern_ops` copies
PostgreSQL adds beside a text key's own index: both are looked up by equality only
(the admin's search too: `=id`), and every event and delivery written paid for them."""

from django.db import migrations

from core.migration_indexes import pattern_dropped, pattern_made

COPIES = [
    ("webhooks_webhookevent", "id", "webhooks_webhookevent_id_b40855ca_like"),
    ("webhooks_webhookdelivery", "event_id", "webhooks_webhookdelivery_event_id_48da21e7_like"),
]


def forwards(apps, schema_editor):
    for _table, _column, name in COPIES:
        pattern_dropped(schema_editor, name)


def backwards(apps, schema_editor):
    for table, column, name in COPIES:
        pattern_made(schema_editor, table, column, name)


class Migration(migrations.Migration):
    dependencies = [("webhooks", "0009_payload_from_body_text")]

    operations = [migrations.RunPython(forwards, backwards)]
