"""An account's balance row: named by its owner, made on first use (a trader's, the
platform's), locked, or locked and changed in one statement. The ledger's movements
(finance/ledger.py) are made of these."""

from dataclasses import dataclass
from decimal import Decimal

from django.db import connection
from django.utils import timezone

from core.money import quantize_money
from core.prepared import current, pipelined, prepared_cursor
from core.riding import riders_items, riders_taken, riders_written

from .models import AccountKind, Balance


def account_filter(*, terminal_id=None, trader_id=None, platform: bool | None = None) -> dict:
    named = [v for v in (terminal_id, trader_id, platform) if v is not None]
    if len(named) != 1:
        raise ValueError("Name exactly one account: terminal_id, trader_id or platform")
    if terminal_id is not None:
        return {"terminal_id": terminal_id}
    if trader_id is not None:
        return {"kind": AccountKind.TRADER, "trader_id": trader_id}
    return {"kind": AccountKind.PLATFORM, "sandbox": bool(platform)}


def account_ensure(*, trader_id=None, platform: bool | None = None, sandbox: bool = False) -> None:
    """Make a trader's (or the platform's) balance row unless it exists; a row made
    meanwhile by another transaction wins."""
    if trader_id is not None:
        row = Balance(kind=AccountKind.TRADER, trader_id=trader_id, sandbox=sandbox)
    else:
        row = Balance(kind=AccountKind.PLATFORM, sandbox=bool(platform))
    Balance.objects.bulk_create([row], ignore_conflicts=True)


def account_lock(*, terminal_id=None, trader_id=None, platform: bool | None = None) -> Balance:
    """The account's balance row, locked until the transaction ends."""
    lookup = account_filter(terminal_id=terminal_id, trader_id=trader_id, platform=platform)
    balance = Balance.objects.select_for_update().filter(**lookup).first()
    if balance is None and terminal_id is None:
        account_ensure(trader_id=trader_id, platform=platform)
        balance = Balance.objects.select_for_update().filter(**lookup).first()
    if balance is None:
        raise Balance.DoesNotExist(f"No balance for {lookup}")
    return balance


RETURNED = "RETURNING id, available, frozen"


@dataclass(frozen=True)
class Lead:
    """Writes of rows that come before the balances in the lock order (a requisite's
    load row), sent at the head of the balances' statement (`rows_change_together`):
    `items`, WITH items (the last named `l`), with their `values`; `locks`, WITH items
    that lock the same rows in the same order without writing them (the last named `l`
    too), with their `lock_values`."""

    items: str
    values: list
    locks: str
    lock_values: list


def _where(lookup: dict) -> tuple[list[str], list]:
    """The conditions naming the account's row, and their parameters."""
    meta = Balance._meta
    where, params = [], []
    for name, value in lookup.items():
        field = meta.get_field(name)
        where.append(f"{field.column} = %s")
        params.append(field.get_db_prep_value(value, connection))
    return where, params


def _change(lookup: dict, *, available=None, frozen=None, only_if=("", [])) -> tuple[str, list]:
    """The UPDATE (without its RETURNING) that changes the account's row, and its
    parameters: see row_change."""
    meta = Balance._meta
    prep = meta.get_field("available").get_db_prep_value
    sets, params = [], []
    for column, change in (("available", available), ("frozen", frozen)):
        if change is not None:
            sets.append(f"{column} = ROUND({column} + %s, 2)")
            params.append(prep(change, connection))
    sets.append("updated_at = %s")
    params.append(meta.get_field("updated_at").get_db_prep_value(timezone.now(), connection))
    where, named = _where(lookup)
    params += named
    condition, condition_params = only_if
    if condition:
        where.append(condition)
        params += [prep(value, connection) for value in condition_params]
    return f"UPDATE {meta.db_table} SET {', '.join(sets)} WHERE {' AND '.join(where)}", params


def _changed(row) -> tuple | None:
    if row is None:
        return None
    balance_id, now_available, now_frozen = row
    total = quantize_money(Decimal(str(now_available)) + Decimal(str(now_frozen)))
    return Balance._meta.pk.to_python(balance_id), total


def row_change(lookup: dict, *, available=None, frozen=None, only_if=("", [])) -> tuple | None:
    """The account's row locked and changed in one statement (UPDATE ... RETURNING: no
    SELECT ... FOR UPDATE before it): `available` and `frozen` are the amounts added to
    each (negative to take away), `only_if` a condition on the row as it is and its
    parameters (the database evaluates it on the locked row). (its id, its total after), or None when
    no row matches. Rounded to cents in SQL, as SQLite keeps decimals as floats."""
    sql, params = _change(lookup, available=available, frozen=frozen, only_if=only_if)
    with prepared_cursor() as cursor:  # a handful of shapes, each planned once
        cursor.execute(f"{sql} {RETURNED}", params)
        return _changed(cursor.fetchone())


def rows_change_together(
    changes: list[dict],
    *,
    lead: Lead | None = None,
    then: tuple[str, list] | None = None,
    commit: bool = False,
) -> list[tuple | None]:
    """Several accounts' rows changed (each as `row_change(**change)` would), in the
    order given, in one statement: on PostgreSQL each UPDATE is a data-modifying WITH
    that reads the one before it first, so the rows are locked in the order given, as
    one statement after the other would lock them; elsewhere one statement each. Each
    change names another row (a row changed twice in one statement would keep one
    change). The results in the same order. `lead` (PostgreSQL): rows written first,
    locked before these (`Lead`). `then` (PostgreSQL): a WITH item written after them,
    which may read the k-th change's RETURNING as `c{k}` (the ledger's rows), and its
    values.

    On PostgreSQL the rows are locked first by a statement of their own, pipelined
    with the one that changes them (one round trip for both, nothing run between). A
    statement that waits for a row another transaction changes rechecks what it read
    against the row's newest version, and for that PostgreSQL sets up every subplan of
    the statement again, once for each row it waited on: in a burst of closes on one
    requisite that was the load row and each balance, four times the balances'
    statement with its ledger rows (a quarter of the database's CPU per close). The
    waiting now falls on the small locking statement; the changing one starts after
    it, sees the rows as they are, and waits on none.

    The writes waiting in a riding block (core.riding: a close's order row, its event
    and deliveries, its caller's audit entry or device notification) ride on the
    changing statement, which is sent after the rows are locked and waits on none of
    them: no round trip of their own, and not in the locking statement, whose every
    subplan PostgreSQL would set up again for each row it waited on.

    `commit` (PostgreSQL, the caller sure that nothing more is written in the
    transaction and that it is the outermost: `movements_together(commit=True)`):
    the transaction's COMMIT goes in the same round trip, so the shared rows are held
    from their lock to the end of COMMIT with no Python and no round trip between. The
    statement then fails (`NotCommittedAhead`, the transaction left to be rolled back)
    unless every change matched its row and every rider that returns a value returned
    one other than 0 (a numbered key, or the rows an UPDATE changed): a refusal, or a
    row that is made on first use, is for the caller to take the usual way, after its
    transaction is undone."""
    if connection.vendor != "postgresql" or (lead is None and then is None and len(changes) < 2):
        return [row_change(**change) for change in changes]
    parts, params, selects = [], [], []
    locks, lock_params, locked = [], [], []  # `locked`: the lock items' names, in order
    previous = None
    if lead is not None:
        parts.append(lead.items)
        params += lead.values
        locks.append(lead.locks)
        lock_params += lead.lock_values
        previous = "l"
        locked.append("l")
    table = Balance._meta.db_table
    for k, change in enumerate(changes):
        sql, values = _change(**change)
        after = f" AND (SELECT count(*) FROM {previous}) >= 0" if previous else ""
        where, named = _where(change["lookup"])
        if locked:
            where.append(f"(SELECT count(*) FROM {locked[-1]}) >= 0")
        locks.append(
            f"k{k} AS MATERIALIZED (SELECT 1 FROM {table} WHERE {' AND '.join(where)}"
            " FOR NO KEY UPDATE)"
        )
        lock_params += named
        previous = f"c{k}"
        locked.append(f"k{k}")
        parts.append(f"c{k} AS ({sql}{after} {RETURNED})")
        params += values
        selects.append(f"SELECT {k}, id, available, frozen FROM c{k}")
    if then is not None:
        parts.append(then[0])
        params += then[1]
    riders = riders_taken()
    items, rider_values, returned = riders_items(riders)
    parts, params = items + parts, rider_values + params
    # What a rider returns comes back in a row of its own, numbered -2, -3, ... (only
    # integers are returned: a numbered key, a count of rows changed).
    selects += [
        f"SELECT {-2 - n}, NULL, ({value})::numeric, NULL" for n, value in enumerate(returned)
    ]
    if commit:
        # No row ever comes from this branch: its condition divides by the product of
        # the changes' counts, 0 when one matched no row, and of the riders' returned
        # values' signs, 0 when one is 0 or missing, which fails the statement before
        # the COMMIT behind it runs (a division by zero: nothing else in the statement
        # divides). Not a constant, so evaluated as the statement runs.
        changed = " * ".join(
            [f"(SELECT count(*) FROM c{k})" for k in range(len(changes))]
            + [f"COALESCE(sign({value}), 0)" for value in returned]
        )
        selects.append(f"SELECT -1, NULL, NULL, NULL WHERE 1 / ({changed}) < 0")
    # Each lock read on its own too, in the lock order: one whose row is missing (made
    # on first use) reads no row, so the condition that reads the one before it is never
    # evaluated, and would leave that one unlocked.
    counts = ", ".join(f"(SELECT count(*) FROM {name})" for name in locked)
    results: list[tuple | None] = [None] * len(changes)
    values = [None] * len(returned)
    db = current()
    # a handful of shapes, each planned once
    with prepared_cursor(db) as locking, prepared_cursor(db) as cursor:
        with pipelined(db, commit=commit):
            locking.execute(f"WITH {', '.join(locks)} SELECT {counts}", lock_params)
            cursor.execute(f"WITH {', '.join(parts)} {' UNION ALL '.join(selects)}", params)
        for k, *row in cursor.fetchall():
            if k >= 0:
                results[k] = _changed(row)
            else:
                values[-2 - k] = None if row[1] is None else int(row[1])
    riders_written(riders, values)
    return results


def row_change_made(lookup: dict, *, made_on_first_use: bool, **change) -> tuple | None:
    """`row_change`, making a trader's or the platform's row first when it has none.

    When the UPDATE matched nothing, the row may be missing, or (the condition aside)
    another transaction may have made and committed it since: either way it is made
    unless it exists (`account_ensure` leaves one that does alone) and the change is
    tried once more, on the row that now exists."""
    changed = row_change(lookup, **change)
    if changed is None and made_on_first_use:
        account_ensure(
            trader_id=lookup.get("trader_id"),
            platform=lookup["sandbox"] if lookup.get("kind") == AccountKind.PLATFORM else None,
        )
        changed = row_change(lookup, **change)
    return changed
