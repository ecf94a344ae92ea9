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

import functools
import threading
from contextlib import contextmanager
from decimal import Decimal

from django.db import connection

from core.fast_insert import insert_row, insert_rows
from core.prepared import current

from .models import Transaction

_GATHERED = threading.local()

# A movement's ledger rows: each row's fields but its balance and balance_after, and
# what of the account's total after the change came after the row (finance/ledger.py).
Rows = list[tuple[dict, Decimal]]


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


def nothing_gathered() -> bool:
    """Whether no row waits for the end of a `ledger_rows_together` block."""
    return not getattr(_GATHERED, "rows", None)


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


def ledger_rows_after(changes: list[Rows]) -> tuple[str, list] | None:
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
    shape = tuple(len(rows) for rows in changes)
    sql = _AFTER.get(shape) or _AFTER.setdefault(shape, _after_sql(shape, db))
    plain, after = _after_fields()
    params = []
    for rows in changes:
        for values, later in rows:
            for field in plain:
                value = values[field.attname] if field.attname in values else field.get_default()
                params.append(field.get_db_prep_save(value, db))
            params.append(after.get_db_prep_save(later, db))
    return sql, params


# The WITH item of each shape (how many rows each change of a close posts: a handful of
# shapes), made once.
_AFTER: dict = {}


@functools.cache
def _after_fields() -> tuple[list, object]:
    """The fields written from values (the key's default made for each row), and
    balance_after's: the rest come from the change (the balance) or the database."""
    meta = Transaction._meta
    elsewhere = {"balance_id", "balance_after", "created_at"}
    plain = [f for f in meta.local_concrete_fields if f.attname not in elsewhere]
    return plain, meta.get_field("balance_after")


def _after_sql(shape: tuple, db) -> str:
    plain, after = _after_fields()
    meta, quote = Transaction._meta, db.ops.quote_name
    named = (meta.get_field("balance"), after, meta.get_field("created_at"))
    columns = [f.column for f in (*plain, *named)]
    selects = []
    for k, count in enumerate(shape):
        for _ in range(count):
            values = ["%s"] * len(plain) + [
                f"c{k}.id",
                f"ROUND(c{k}.available + c{k}.frozen - %s, 2)",
                f"clock_timestamp() + interval '{len(selects)} microseconds'",
            ]
            selects.append(f"SELECT {', '.join(values)} FROM c{k}")
    return (
        f"t AS (INSERT INTO {quote(meta.db_table)}"
        f" ({', '.join(quote(c) for c in columns)}) {' UNION ALL '.join(selects)})"
    )
