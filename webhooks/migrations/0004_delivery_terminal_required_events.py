import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('webhooks', '0003_delivered_spelling_delivery_terminals_events'),
    ]

    operations = [
        migrations.AlterField(
            model_name='webhookdelivery',
            name='terminal',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='webhook_deliveries', to='finance.terminal'),
        ),
        migrations.AddIndex(
            model_name='webhookdelivery',
            index=models.Index(fields=['terminal', '-id'], name='delivery_terminal_newest'),
        ),
    ]
