"""Movements sent together (an order's close): each account's row change is queued as
its movement runs, and all of them go to the database in one statement at the end of
the block, in the order they ran (the lock order), the ledger's rows after them in one
INSERT (finance/ledger_rows.py). The movements themselves are in finance/ledger.py.

    with movements_together():   # inside the transaction (or savepoint) they run in
        balance_debit(...)       # queued: returns None
        balance_credit(...)
    # here the rows have changed, each movement refused or wrote its ledger rows
"""

import threading
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

from django.db import connection

from core.prepared import prepared_cursor

from .balance_rows import row_change_made, rows_change_together
from .ledger_rows import ledger_rows_together

# Inside `movements_together` on PostgreSQL: the row changes of the movements run so
# far, not sent yet.
_QUEUED = threading.local()


@dataclass
class _Queued:
    lookup: dict
    made_on_first_use: bool
    change: dict
    done: Callable


def row_moved(lookup: dict, *, made_on_first_use: bool, done: Callable, **change):
    """A movement's change of its account's row (`row_change_made`), then
    `done(result)`, which refuses or writes the movement's ledger rows: at once, or
    inside `movements_together` (None then) with the block's other changes."""
    queued = getattr(_QUEUED, "changes", None)
    if queued is None:
        return done(row_change_made(lookup, made_on_first_use=made_on_first_use, **change))
    if any(other.lookup == lookup for other in queued):
        send_queued()  # one statement changes a row once
    _QUEUED.changes.append(_Queued(lookup, made_on_first_use, change, done))
    return None


def send_queued() -> None:
    """The queued changes sent, in one statement, in their order, the block's lead at
    its head (once: it goes with the first changes sent, or alone when a movement that
    is not queued comes first); each movement's `done` then refuses or writes its
    ledger rows, in the same order. A row missing where one is made on first use is
    made and changed afterwards (after the rows queued behind it: only an account's
    first movement ever)."""
    queued = getattr(_QUEUED, "changes", None)
    lead = getattr(_QUEUED, "lead", None)
    if lead is not None:
        _QUEUED.lead = None
    if not queued:
        if lead is not None:
            _lead_alone(lead)
        return
    _QUEUED.changes = []
    results = rows_change_together([{"lookup": q.lookup, **q.change} for q in queued], lead=lead)
    for q, result in zip(queued, results, strict=True):
        if result is None and q.made_on_first_use:
            result = row_change_made(q.lookup, made_on_first_use=True, **q.change)
        q.done(result)


def _lead_alone(lead: tuple[str, list]) -> None:
    """The lead on its own (a Sell's close sends it ahead of its reserve's post or
    void): prepared, as every close's statements are."""
    with prepared_cursor() as cursor:
        cursor.execute(f"WITH {lead[0]} SELECT count(*) FROM l", lead[1])


@contextmanager
def movements_together(*, lead: tuple[str, list] | None = None):
    """The movements inside (credits, debits, unfreezes; a reserve's post or void sends
    what came before it first) change their rows in one statement at the end of the
    block, in their order, which is the lock order (on PostgreSQL; elsewhere each at
    once), and their ledger rows are written together in one INSERT after
    (`ledger_rows_together`). A refusal (402) is raised at the end of the block, so the
    block must sit inside the transaction or savepoint that undoes the movements; they
    return None, and nothing in the block may read their rows back. Every shared row
    of a close is then held for two round trips (the rows, the ledger) instead of one
    per account.

    `lead` (PostgreSQL): the writes of rows that come before the balances in the lock
    order (a requisite's load row), as WITH items (the last named `l`) and their
    values, written at the head of their statement, ahead of the first row it changes;
    sent alone if no change is queued, and at once inside another block."""
    with ledger_rows_together():
        if getattr(_QUEUED, "changes", None) is not None or connection.vendor != "postgresql":
            if lead is not None:  # inside another block: written now, as it comes
                _lead_alone(lead)
            yield
            return
        _QUEUED.changes, _QUEUED.lead = [], lead
        try:
            yield
            send_queued()
        finally:
            _QUEUED.changes = _QUEUED.lead = None
