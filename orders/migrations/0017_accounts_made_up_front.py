"""Every trader's working-deposit row and the platform's two rows, made now for an
install that has none yet: from here on a trader's row is made with the trader and the
platform's with each terminal, never by a first movement (whose new row would be
changed out of the lock order)."""

from django.db import migrations


def make_accounts(apps, schema_editor):
    Balance = apps.get_model("finance", "Balance")
    Trader = apps.get_model("orders", "Trader")
    have = set(Balance.objects.filter(kind="trader").values_list("trader_id", flat=True))
    rows = [
        Balance(kind="trader", trader_id=pk)
        for pk in Trader.objects.values_list("pk", flat=True)
        if pk not in have
    ]
    rows += [Balance(kind="platform", sandbox=sandbox) for sandbox in (False, True)]
    Balance.objects.bulk_create(rows, ignore_conflicts=True, batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("finance", "0009_choice_labels_for_people"),
        ("orders", "0016_requisite_method_walk"),
    ]

    operations = [migrations.RunPython(make_accounts, migrations.RunPython.noop)]
