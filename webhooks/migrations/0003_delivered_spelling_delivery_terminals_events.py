# Data, in its own migration: PostgreSQL refuses to alter a table in the transaction
# that updated its rows while foreign-key checks are deferred.

from django.db import migrations, models
from django.db.models import F


def delivered_spelling(apps, schema_editor):
    """One spelling end to end: the API's `delivered`."""
    WebhookDelivery = apps.get_model("webhooks", "WebhookDelivery")
    WebhookDelivery.objects.filter(state="succeeded").update(
        state="delivered", delivered_at=F("updated_at")
    )


def delivery_terminals(apps, schema_editor):
    WebhookDelivery = apps.get_model("webhooks", "WebhookDelivery")
    WebhookEvent = apps.get_model("webhooks", "WebhookEvent")
    WebhookDelivery.objects.update(
        terminal_id=models.Subquery(
            WebhookEvent.objects.filter(pk=models.OuterRef("event_id")).values("terminal_id")[:1]
        )
    )


def succeeded_spelling(apps, schema_editor):
    WebhookDelivery = apps.get_model("webhooks", "WebhookDelivery")
    WebhookDelivery.objects.filter(state="delivered").update(state="succeeded")


class Migration(migrations.Migration):

    dependencies = [
        ('webhooks', '0002_event_actor_livemode_indexes_events'),
    ]

    operations = [
        migrations.RunPython(delivered_spelling, succeeded_spelling),
        migrations.RunPython(delivery_terminals, migrations.RunPython.noop),
    ]
