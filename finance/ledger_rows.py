"""The ledger's rows (Transaction), written as each movement posts them, or gathered
and written together in one INSERT where one change moves several accounts.

    with ledger_rows_together():   # inside the transaction that moves the money
        balance_debit(...)         # each balance row is changed as the movement runs
        balance_credit(...)
    # here every Transaction those movements posted is written, in one statement

Only the rows wait: each movement changes (and locks) its balance row at once, and
checks what it refuses before that. Nothing in the block may read the ledger's rows
back; a block left by an error writes none of them, so it must sit inside the
transaction (or savepoint) that error undoes.

Movements sent together (finance/movements_together.py) write theirs on PostgreSQL in
the statement that changes their balance rows (`ledger_rows_after`).
"""

import threading
from contextlib import contextmanager

from django.db import connection

from core.fast_insert import insert_row, insert_rows
from core.prepared import current

from .models import Transaction

_GATHERED = threading.local()


def ledger_row_write(**fields) -> Transaction:
    """One posted Transaction: written now, or at the end of the enclosing
    `ledger_rows_together` block."""
    row = Transaction(**fields)
    gathered = getattr(_GATHERED, "rows", None)
    if gathered is None:
        insert_row(row)
    else:
        gathered.append(row)
    return row


@contextmanager
def ledger_rows_together():
    """The Transactions the movements inside post, written together when the block
    ends without an error. Nested blocks join the outermost."""
    if getattr(_GATHERED, "rows", None) is not None:
        yield
        return
    if not connection.in_atomic_block:
        raise RuntimeError("ledger_rows_together() runs inside the movements' transaction")
    _GATHERED.rows = rows = []
    try:
        yield
        if rows:
            insert_rows(rows)
    finally:
        _GATHERED.rows = None


def ledger_rows_after(changes: list[list[tuple[dict, object]]]) -> tuple[str, list] | None:
    """On PostgreSQL, the ledger's rows of balance changes made in one statement, where
    the k-th change is the WITH item `c{k}` returning the row's id, available and
    frozen (finance.balance_rows.rows_change_together): a WITH item that inserts
    each change's rows from what it returns (its balance's id; its total after, less
    what came after the row), and its values. A change that matched no row inserts
    none. None on other databases, or when no change posts a row.

    `created_at` is the database's clock as each row is written, after its balance
    row's lock was taken (a microsecond apart for each row of the statement, in their
    order): an account's rows then follow the order its changes were made in, as
    rows stamped after the lock always did. A time taken before the statement would
    not: a close that waited for the lock would stamp its rows before the close it
    waited for."""
    db = current()
    if db.vendor != "postgresql" or not any(changes):
        return None
    meta = Transaction._meta
    quote = db.ops.quote_name
    fields = meta.local_concrete_fields
    selects, params = [], []
    for k, rows in enumerate(changes):
        for values, later in rows:
            row = Transaction(**values)
            exprs = []
            for field in fields:
                if field.attname == "balance_id":
                    exprs.append(f"c{k}.id")
                elif field.attname == "created_at":
                    exprs.append(f"clock_timestamp() + interval '{len(selects)} microseconds'")
                elif field.attname == "balance_after":
                    exprs.append(f"ROUND(c{k}.available + c{k}.frozen - %s, 2)")
                    params.append(field.get_db_prep_save(later, db))
                else:
                    exprs.append("%s")
                    params.append(field.get_db_prep_save(field.pre_save(row, True), db))
            selects.append(f"SELECT {', '.join(exprs)} FROM c{k}")
    columns = ", ".join(quote(field.column) for field in fields)
    union = " UNION ALL ".join(selects)
    return f"t AS (INSERT INTO {quote(meta.db_table)} ({columns}) {union})", params
