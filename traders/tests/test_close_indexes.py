"""The tables a notification's close writes carry no index that no lookup needs: each
row written pays for every index of its table, and the ledger's rows are written while
the close holds the shared balance rows."""

import pytest
from django.db import connection

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's catalog"),
]

# Every table a matched notification writes a row of.
WRITTEN = [
    "orders_order",
    "audit_auditentry",
    "webhooks_webhookevent",
    "webhooks_webhookdelivery",
    "traders_banknotification",
    "finance_transaction",
]


def _indexes(table: str) -> list[tuple[str, list[str], bool, bool, str]]:
    """(name, key columns, unique, partial, definition) of each index of `table`."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT c.relname,
                   ARRAY(SELECT a.attname FROM unnest(i.indkey) WITH ORDINALITY k(n, o)
                         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n
                         ORDER BY k.o),
                   i.indisunique, i.indpred IS NOT NULL, pg_get_indexdef(i.indexrelid)
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = %s::regclass
            """,
            [table],
        )
        return [
            (name, list(keys), unique, partial, sql) for name, keys, unique, partial, sql in cursor
        ]


@pytest.mark.parametrize("table", WRITTEN)
def test_no_pattern_copies(table):
    """No `varchar_pattern_ops` copy (only a LIKE 'prefix%' could use one; each of these
    columns is compared with `=`)."""
    copies = [name for name, *_rest, sql in _indexes(table) if "pattern_ops" in sql]
    assert copies == []


@pytest.mark.parametrize("table", WRITTEN)
def test_no_index_is_the_head_of_another(table):
    """No plain index whose columns lead another full index of the same table: that one
    answers every lookup the shorter would."""
    indexes = _indexes(table)
    covered = [
        (name, other)
        for name, keys, unique, partial, _sql in indexes
        if not unique and not partial
        for other, longer, _u, other_partial, _s in indexes
        if other != name and not other_partial and longer[: len(keys)] == keys
    ]
    assert covered == []


def test_the_ledger_keeps_its_lookups():
    """What the two dropped indexes answered is still answered: by balance (newest
    first) and by reference, each by an index that leads with it."""
    leading = {keys[0] for _name, keys, *_rest in _indexes("finance_transaction")}
    assert {"balance_id", "reference"} <= leading
