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
"""

import threading
from contextlib import contextmanager

from django.db import connection

from core.fast_insert import insert_row, insert_rows

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
