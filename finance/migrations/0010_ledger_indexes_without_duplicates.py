"""The ledger's rows without two indexes that no lookup needs. Each money movement
writes its ledger rows while it holds the shared balance rows, so each index entry
fewer shortens that hold.

- The balance's own foreign-key index: txn_balance_created leads with the balance and
  answers every lookup by it (PROTECT's check included).
- The reference's `varchar_pattern_ops` copy: the books read references by equality,
  and the admin's search by a contained text, which neither index answers. The plain
  index is kept, renamed to the Meta index txn_reference, not rebuilt."""

import django.db.models.deletion
from django.db import migrations, models

from core.migration_indexes import index_move

TABLE = "finance_transaction"
OLD = "finance_transaction_reference_3eee4cde"
NEW = "txn_reference"


class Migration(migrations.Migration):
    dependencies = [("finance", "0009_choice_labels_for_people")]

    operations = [
        migrations.AlterField(
            model_name="transaction",
            name="balance",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="transactions",
                to="finance.balance",
                verbose_name="balance",
            ),
        ),
        migrations.SeparateDatabaseAndState(
            database_operations=[index_move(TABLE, "reference", OLD, NEW)],
            state_operations=[
                migrations.AlterField(
                    model_name="transaction",
                    name="reference",
                    field=models.CharField(
                        blank=True,
                        help_text="Order id, when any",
                        max_length=64,
                        verbose_name="reference",
                    ),
                ),
                migrations.AddIndex(
                    model_name="transaction",
                    index=models.Index(fields=["reference"], name=NEW),
                ),
            ],
        ),
    ]
