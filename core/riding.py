"""Rows that ride: a write sent not on its own but in the statement of the action's next
write, as a data-modifying WITH before it (PostgreSQL), which saves the action a round
trip per row. core.fast_insert's insert_row and update_row take `ride=True`:

    with riding():                        # inside the action's transaction
        update_row(order, fields, ride=True)   # waits
        insert_row(entry, ride=True)           # waits
        insert_row(event)                      # sent, the two above in its statement

What still waits at the block's end is sent then, in one statement. Only writes that
nothing reads back (or refers to) before they are sent may ride: their keys, counts and
post_save come when they are written. Where data-modifying WITHs are not (SQLite),
nothing waits: each write is sent at once.

A statement built elsewhere may carry what waits too: it takes the riders
(`riders_taken`), puts their WITH items in its own (`riders_items`), and tells them
they are written with what it returned for them (`riders_written`): a close's
balances statement does (finance.balance_rows), so its order's row, its event and its
caller's writes cost the close no round trip of their own.

In a gated block (`riding(gated=True)`) the waiting writes belong to the carrier's
outcome: a carrier sent with `gate` (the name of one of its own WITHs) writes them only
if that WITH returned a row, as INSERT ... SELECT ... WHERE EXISTS at its `/*riders*/`
mark (PostgreSQL); elsewhere they wait on every database until the carrier's own
statements `release` them, written or dropped.
"""

import threading
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass

from .prepared import current, prepared_cursor, statement_alone

# Inside `riding()` on PostgreSQL (a gated one anywhere): the writes waiting for the
# next one.
_WAITING = threading.local()
RIDERS_MARK = "/*riders*/"


@dataclass
class Rider:
    """A write waiting: its statement and values; `returns`, when its statement
    returns a value (RETURNING), what the carrying statement returns for it, a
    template of the WITH's `{name}` (its numbered key, the rows it changed);
    `written(value)` once it is written, with that value (None without)."""

    sql: str
    values: list
    returns: str | None
    written: Callable


@contextmanager
def riding(*, gated: bool = False):
    """The block in which writes may ride (see the module). A block inside another
    joins it, but a gated one sends what the outer block holds first: its gate decides
    only its own writes."""
    outer = getattr(_WAITING, "riders", None)
    if gated and outer is not None:
        send_waiting()
    elif outer is not None or (not gated and current().vendor != "postgresql"):
        yield
        return
    _WAITING.riders = []
    try:
        yield
        send_waiting()
    finally:
        _WAITING.riders = None if outer is None else []


def wait(rider: Rider) -> bool:
    """Whether `rider` waits (a riding block is open): False when it must be sent now."""
    waiting = getattr(_WAITING, "riders", None)
    if waiting is None:
        return False
    waiting.append(rider)
    return True


def send(
    db,
    sql: str,
    values: list,
    *,
    returns: bool | int,
    gate: str | None = None,
    alone: bool = False,
) -> tuple[tuple, int]:
    """Run `sql` with the writes waiting before it, each as a WITH: (its own returned
    values, the rows it changed). `returns`: how many values its RETURNING (or, for a
    statement that is a SELECT, its select list) gives, True for one. A statement that
    begins with WITH of its own gets the riders' WITHs before its own.

    With `gate` (PostgreSQL; `sql` a WITH of its own with that name among its WITHs,
    its `/*riders*/` mark after them, its `values` in text order): the riders go at
    the mark, each written only if the gate's WITH returned a row.

    `alone` (PostgreSQL, outside any transaction block): the statement is a transaction
    of its own (core.prepared.statement_alone)."""
    return _send(db, riders_taken(), sql, values, returns, gate, alone)


def riders_taken() -> list[Rider]:
    """The writes waiting, taken to be carried by a statement the caller builds itself
    (`riders_items`, then `riders_written` with what it returned): [] when none waits."""
    waiting = getattr(_WAITING, "riders", None)
    if not waiting:
        return []
    _WAITING.riders = []
    return waiting


def riders_items(riders: list[Rider], gate: str | None = None) -> tuple[list[str], list, list]:
    """`riders` as the WITH items of the statement that carries them (`r0`, `r1`, ...;
    with `gate`, each written only if that WITH returned a row), their values in
    that order, and what the statement returns for them: each `returns` made of its
    item's name, in their order."""
    items, values, returned = [], [], []
    for n, rider in enumerate(riders):
        items.append(f"r{n} AS ({rider.sql if gate is None else _gated(rider.sql, gate)})")
        values.extend(rider.values)
        if rider.returns:
            returned.append(rider.returns.format(name=f"r{n}"))
    return items, values, returned


def riders_written(riders: list[Rider], returned) -> None:
    """Each of `riders` written, told so with the value returned for it (`returned`:
    the values of those that return one, in their order)."""
    returned = iter(returned)
    for rider in riders:
        rider.written(next(returned, None) if rider.returns else None)


def send_waiting() -> None:
    """What waits, sent now on its own (before a write that cannot carry it)."""
    waiting = riders_taken()
    if not waiting:
        return
    db = current()
    if db.vendor != "postgresql":  # a gated block's writes, one by one
        release(True, waiting)
        return
    last = waiting[-1]
    own, _count = _send(db, waiting[:-1], last.sql, last.values, bool(last.returns))
    last.written(own[0] if own else None)


def release(held: bool, waiting: list[Rider] | None = None) -> None:
    """In a gated block, where the carrier cannot hold its riders (SQLite): what waits,
    written now each on its own if the carrier's gate `held`, or dropped."""
    if waiting is None:
        waiting = getattr(_WAITING, "riders", None) or []
        _WAITING.riders = []
    for rider in waiting if held else ():
        own, _count = _send(current(), [], rider.sql, rider.values, bool(rider.returns))
        rider.written(own[0] if own else None)


def _gated(sql: str, gate: str) -> str:
    """A single row's INSERT ... VALUES (...) [RETURNING ...] as INSERT ... SELECT ...
    that writes it only if `gate` returned a row."""
    head, values, rest = sql.partition(" VALUES (")
    row, _close, returning = rest.rpartition(")")
    if not (head.startswith("INSERT ") and values and "(" not in row):
        raise ValueError("only a one-row INSERT waits on a gate")
    return f"{head} SELECT {row} WHERE EXISTS (SELECT 1 FROM {gate}){returning}"


def _send(
    db,
    riders: list[Rider],
    sql: str,
    values: list,
    returns: int,
    gate: str | None = None,
    alone: bool = False,
) -> tuple[tuple, int]:
    parts, params, tail = riders_items(riders, gate)
    if gate is not None and riders:  # whether the riders were written
        tail.insert(0, f"EXISTS (SELECT 1 FROM {gate})")
    if tail:
        sql += (", " if returns else " RETURNING ") + ", ".join(tail)
    if gate is not None:
        own_with, mark, main = sql.partition(RIDERS_MARK)
        if not mark:
            raise ValueError(f"a gated statement marks where its riders go: {RIDERS_MARK}")
        sql = own_with + "".join(f", {part}" for part in parts) + main
        before = own_with.count("%s")  # the carrier's values ahead of the mark
        values = [*values[:before], *params, *values[before:]]
        params = []
    elif parts:
        own_with = sql.lstrip()
        if own_with[:5].upper() == "WITH ":
            sql = f"WITH {', '.join(parts)}, {own_with[5:]}"
        else:
            sql = f"WITH {', '.join(parts)} {sql}"
    with prepared_cursor(db) as cursor:
        with statement_alone(db) if alone else nullcontext():
            cursor.execute(sql, [*params, *values])
        count = cursor.rowcount
        row = (cursor.fetchone() if returns or tail else None) or ()
    own, theirs = row[: int(returns)], iter(row[int(returns) :])
    if gate is not None and riders and not next(theirs):
        return own, count  # the gate held nothing: they were not written
    riders_written(riders, theirs)
    return own, count
