"""Movements sent together (an order's close): each account's row change is queued as
its movement runs, and all of them go to the database in one statement at the end of
the block, in the order they ran (the lock order), with the ledger's rows they post
(finance/ledger_rows.py). The movements themselves are in finance/ledger.py.

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

from core.prepared import current, prepared_cursor

from .balance_rows import Lead, row_change_made, rows_change_together
from .ledger_rows import (
    Rows,
    ledger_row_write,
    ledger_rows_after,
    ledger_rows_together,
    nothing_gathered,
)

# Inside `movements_together` on PostgreSQL: the row changes of the movements run so
# far, not sent yet.
_QUEUED = threading.local()


@dataclass
class _Queued:
    lookup: dict
    made_on_first_use: bool
    change: dict
    refused: Callable
    rows: Rows


def row_moved(lookup: dict, *, made_on_first_use: bool, refused: Callable, rows: Rows, **change):
    """A movement's change of its account's row (`row_change_made`) and its ledger
    `rows`, or the exception `refused()` gives when the change matched no row: at once
    (the first ledger row back), or inside `movements_together` (None then) with the
    block's other changes."""
    queued = getattr(_QUEUED, "changes", None)
    if queued is None:
        changed = row_change_made(lookup, made_on_first_use=made_on_first_use, **change)
        return _posted(changed, rows, refused)
    if any(other.lookup == lookup for other in queued):
        send_queued()  # one statement changes a row once
    _QUEUED.changes.append(_Queued(lookup, made_on_first_use, change, refused, rows))
    return None


def _posted(changed: tuple | None, rows: Rows, refused: Callable):
    """The ledger's rows of a change made (its row's id and total after), the first of
    them back; the refusal raised when it matched no row."""
    if changed is None:
        raise refused()
    balance_id, total = changed
    posted = [
        ledger_row_write(balance_id=balance_id, balance_after=total - later, **fields)
        for fields, later in rows
    ]
    return posted[0] if posted else None


def send_queued(*, commit: bool = False) -> None:
    """The queued changes sent, in one statement, in their order, the block's lead at
    its head (once: it goes with the first changes sent, or alone when a movement that
    is not queued comes first), and on PostgreSQL the ledger's rows of the changes made
    written by the same statement; then each movement that matched no row is refused,
    in the same order. A row missing where one is made on first use is made and
    changed afterwards (after the rows queued behind it: only an account's first
    movement ever), its ledger rows written at the end of the block.

    `commit`: the transaction is committed with that statement when it holds nothing
    else that is still to be written (`movements_together`)."""
    queued = getattr(_QUEUED, "changes", None)
    lead = getattr(_QUEUED, "lead", None)
    if lead is not None:
        _QUEUED.lead = None
    if not queued:
        if lead is not None:
            _lead_alone(lead)
        return
    _QUEUED.changes = []
    ledger = ledger_rows_after([q.rows for q in queued])
    results = rows_change_together(
        [{"lookup": q.lookup, **q.change} for q in queued],
        lead=lead,
        then=ledger,
        commit=commit and ledger is not None and _all_written_with_it(),
    )
    for q, result in zip(queued, results, strict=True):
        if result is not None and ledger is not None:
            continue  # its ledger rows were written with it
        if result is None and q.made_on_first_use:
            result = row_change_made(q.lookup, made_on_first_use=True, **q.change)
        _posted(result, q.rows, q.refused)


def _all_written_with_it() -> bool:
    """Whether the statement about to go holds all that the transaction has left to
    write, and the transaction may end with it: no savepoint to go back to, no ledger
    row gathered for the end of its block. The writes riding on the next statement
    ride on this one (`rows_change_together` carries them)."""
    db = current()
    return (
        db.in_atomic_block
        and not db.needs_rollback
        and not any(db.savepoint_ids)
        and nothing_gathered()
    )


def _lead_alone(lead: Lead) -> None:
    """The lead on its own (a Sell's close sends it ahead of its reserve's post or
    void): prepared, as every close's statements are."""
    with prepared_cursor() as cursor:
        cursor.execute(f"WITH {lead.items} SELECT count(*) FROM l", lead.values)


@contextmanager
def movements_together(*, lead: Lead | None = None, commit: bool = False):
    """The movements inside (credits, debits, unfreezes; a reserve's post or void sends
    what came before it first) change their rows in one statement at the end of the
    block, in their order, which is the lock order, with their ledger rows (on
    PostgreSQL; elsewhere each row at once, and the ledger's rows together in one
    INSERT after, `ledger_rows_together`). A refusal (402) is raised at the end of the
    block, so the block must sit inside the transaction or savepoint that undoes the
    movements; they return None, and nothing in the block may read their rows back.
    Every shared row of a close is then held for one round trip (the rows and the
    ledger's) instead of one per account.

    `lead` (PostgreSQL, a `balance_rows.Lead`): the writes of rows that come before the
    balances in the lock order (a requisite's load row), written at the head of their
    statement, ahead of the first row it changes (and locked first with them, by the
    statement that locks the rows before it changes them); sent alone if no change is
    queued, and at once inside another block.

    `commit` (PostgreSQL): the caller's transaction is committed in the round trip of
    that statement, the shared rows held to the end of COMMIT with nothing run between
    (`balance_rows.rows_change_together`). Only for a caller that opened the
    outermost transaction itself and writes nothing after the block; when the block's
    statement could not have been the last (a savepoint, a write still waiting, a row
    made on first use, a refusal), the transaction is not committed: either it is
    committed at its end as usual, or `NotCommittedAhead` is raised and the caller
    takes the whole action again without `commit`."""
    with ledger_rows_together():
        if getattr(_QUEUED, "changes", None) is not None or connection.vendor != "postgresql":
            if lead is not None:  # inside another block: written now, as it comes
                _lead_alone(lead)
            yield
            return
        _QUEUED.changes, _QUEUED.lead = [], lead
        try:
            yield
            send_queued(commit=commit)
        finally:
            _QUEUED.changes = _QUEUED.lead = None
