"""A requisite's live figures (RequisiteLoad): its Pending count and its turnover of
the UTC day, kept exact by the transactions that change them.

- Creation takes one slot with `requisite_load_take`: a single conditional UPDATE
  that raises `pending` by one and `turnover` by the amount only while the result
  stays within the requisite's `max_pending` and `daily_limit` (a new UTC day starts
  the turnover from zero in the same statement). On PostgreSQL the row stays locked
  until the creating transaction ends, so a concurrent creation on the same requisite
  waits and then sees the raised figures; on SQLite the write lock queues them. The
  database, not a snapshot, decides whether the cap holds.
- Leaving Pending lowers `pending`; a cancel or an expiry also gives the amount back
  to the turnover of the day the order was created (if that is still the row's day);
  completion keeps it. An accepted dispute that completes a Cancelled or Expired
  order adds its amount back (no cap: the money moved).

Turnover counts `amount` (what the payer was asked to send) of orders created that
day that are Pending or Completed; the day is the UTC day of the database's clock (an
order's `created_at`), whatever a web host's clock says. Rounded to cents in SQL so
that SQLite, which keeps decimals as floating point, compares exactly.
"""

import functools
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from django.db import connection, transaction
from django.db.models import Count, Q, Sum
from django.utils import timezone

from core.db import db_now
from core.fast_insert import HeldInsert
from core.prepared import current, prepared_cursor
from core.riding import RIDERS_MARK, release, send
from finance.models import AccountKind, Balance
from finance.services import Lead

from ..models import Order, OrderStatus, Requisite, RequisiteLoad
from .requisite_state import RUN_ENDED

LOAD = RequisiteLoad._meta.db_table
REQUISITES = Requisite._meta.db_table
BALANCES = Balance._meta.db_table


def utc_day(moment: datetime | None = None) -> date:
    return (moment or timezone.now()).astimezone(UTC).date()


def _day(value: date):
    return RequisiteLoad._meta.get_field("day").get_db_prep_value(value, connection)


def _money(value: Decimal):
    return RequisiteLoad._meta.get_field("turnover").get_db_prep_value(value, connection)


def _key(value):
    return Requisite._meta.pk.get_db_prep_value(value, connection)


_TAKE = f"""
    UPDATE {LOAD} SET
      pending = pending + 1,
      turnover = ROUND((CASE WHEN day = %s THEN turnover ELSE 0 END) + %s, 2),
      day = %s
    WHERE requisite_id = %s
      AND ROUND((CASE WHEN day = %s THEN turnover ELSE 0 END) + %s, 2)
          <= (SELECT daily_limit FROM {REQUISITES} WHERE id = %s)
      AND pending < COALESCE((SELECT max_pending FROM {REQUISITES} WHERE id = %s), pending + 1)
"""


# A Buy's working deposit: the trader's available covers the amount, which moves to
# frozen. On PostgreSQL it rides in the same statement as the load row's update (a
# data-modifying WITH), so the deposit check costs no round trip of its own.
_FREEZE = f"""
    UPDATE {BALANCES} SET available = available - %s, frozen = frozen + %s
    WHERE kind = '{AccountKind.TRADER.value}' AND trader_id = %s AND available >= %s
"""


def requisite_load_take(
    *,
    insert: HeldInsert,
    requisite_id,
    amount: Decimal,
    today: date,
    freeze_on_trader=None,
    alone: bool = False,
) -> tuple[bool, bool, bool]:
    """Write the order (`insert`, skipped when its slot is held) and, only if it was
    written, count one more Pending order of `amount` on the requisite if its caps
    allow and, with `freeze_on_trader` (a Buy), freeze `amount` on that trader's
    balance if its available covers it. Returns (written, room, deposit): room is
    False when `max_pending` or `daily_limit` would be passed, deposit False when the
    trader's available falls short (always True without a trader). The writes waiting
    in a gated riding block (core.riding) are written only with all three.

    Anything short of all three after the order was written leaves it, and maybe the
    load row's slot (room but no deposit), for the caller to take back
    (`requisite_load_untake`). On PostgreSQL it is one statement: the INSERT, the load
    row's update and the freeze each read the one before, so the order's slot is taken
    before the load row is locked, and the load row before the trader's balance (the
    order closes lock them in that order too).

    `alone` (PostgreSQL; the caller outside any transaction block): the statement is a
    transaction of its own, committed as it ends, and it fails unless all three were
    written (`NotCommittedAhead`: nothing written; core.prepared.statement_alone).
    """
    day, money, key = _day(today), _money(amount), _key(requisite_id)
    take = [day, money, day, key, day, money, key, key]
    freeze = None if freeze_on_trader is None else [money, money, _key(freeze_on_trader), money]
    db = current()
    if db.vendor == "postgresql":
        columns = tuple(insert.columns)
        sql = _take_text(insert.sql, columns, freeze is not None, alone)
        values = [*insert.params, *take, *(freeze or ())]
        own, _count = send(
            db,
            sql,
            values,
            returns=3 + len(columns) + alone,
            gate="b" if freeze else "l",
            alone=alone,
        )
        written, room, deposit = (own[0] == 1, own[1] == 1, own[2] == 1)
        if written:
            insert.written(own[3 : 3 + len(columns)])
        return written, room, deposit
    with prepared_cursor(db) as cursor:
        cursor.execute(insert.sql, insert.params)
        row = cursor.fetchone()
        room = deposit = False
        if row is not None:
            insert.written(row)
            cursor.execute(_TAKE, take)
            room = cursor.rowcount == 1
            deposit = True
            if room and freeze is not None:
                cursor.execute(_FREEZE, freeze)
                deposit = cursor.rowcount == 1
    release(room and deposit)
    return row is not None, room, deposit


@functools.lru_cache(maxsize=16)
def _take_text(insert: str, columns: tuple, freeze: bool, alone: bool = False) -> str:
    """The order's INSERT, the take and (a Buy) the freeze as one statement, each
    written only if the one before wrote its row; then what each wrote, and the
    order's values the INSERT returned. `alone` (the statement its own transaction):
    a last value that divides by the product of the three counts, which fails the
    statement, and so undoes it, unless all three wrote their row."""
    parts = [f"o AS ({insert})", f"l AS ({_TAKE} AND EXISTS (SELECT 1 FROM o) RETURNING 1)"]
    if freeze:
        parts.append(f"b AS ({_FREEZE} AND EXISTS (SELECT 1 FROM l) RETURNING 1)")
    reads = [
        "(SELECT count(*) FROM o)",
        "(SELECT count(*) FROM l)",
        "(SELECT count(*) FROM b)" if freeze else "1",
        *(f"(SELECT {column} FROM o)" for column in columns),
    ]
    if alone:
        reads.append(f"1 / ({' * '.join(reads[:3])})")
    return f"WITH {', '.join(parts)} {RIDERS_MARK} SELECT {', '.join(reads)}"


_UNTAKE = f"""
    UPDATE {LOAD} SET pending = pending - 1, turnover = ROUND(turnover - %s, 2)
    WHERE requisite_id = %s
"""


def requisite_load_untake(*, requisite_id, amount: Decimal) -> None:
    """Give back a slot `requisite_load_take` took in this same transaction (the row is
    still locked by it, and its day is the take's: a take that opened a new day leaves
    that day's turnover at zero, as if it had never come)."""
    with connection.cursor() as cursor:
        cursor.execute(_UNTAKE, [_money(amount), _key(requisite_id)])


_MOVE = f"""
    UPDATE {LOAD} SET
      pending = pending - %s,
      turnover = CASE WHEN day = %s THEN ROUND(turnover + %s, 2) ELSE turnover END
    WHERE requisite_id = %s
"""


# On PostgreSQL the move goes as WITH items at the head of the close's balances'
# statement (finance's movements_together): the last is named `l`, which that
# statement's first UPDATE reads first. A close that ends the requisite's run of
# expiries writes it in the same statement, and the figures' UPDATE reads the run's
# result first, so the requisite's row (when its run is written) is locked before the
# load row, as an expiry's count locks them.
_MOVE_ITEMS = f"l AS ({_MOVE} RETURNING 1)"
_RUN_ENDED_AND_MOVE_ITEMS = (
    f"run AS ({RUN_ENDED} RETURNING 1),"
    f" l AS ({_MOVE} AND (SELECT count(*) FROM run) >= 0 RETURNING 1)"
)
# The same rows locked in the same order, not written (the balances' locking statement,
# finance.balance_rows): the requisite's row only where the run's end will write it.
_LOCK_ITEMS = f"l AS MATERIALIZED (SELECT 1 FROM {LOAD} WHERE requisite_id = %s FOR NO KEY UPDATE)"
_RUN_AND_LOCK_ITEMS = (
    f"run AS MATERIALIZED (SELECT 1 FROM {REQUISITES}"
    " WHERE id = %s AND expired_in_a_row > 0 FOR NO KEY UPDATE),"
    f" l AS MATERIALIZED (SELECT 1 FROM {LOAD}"
    " WHERE requisite_id = %s AND (SELECT count(*) FROM run) >= 0 FOR NO KEY UPDATE)"
)


def requisite_load_move(*, order: Order, status: str, previous: str, end_run: bool) -> Lead | None:
    """Keep the requisite's figures right as `order` (locked) moves from `previous`
    to `status`, and with `end_run` (requisite_run_ends) end the requisite's run of
    expiries. Runs in the transaction that writes the status; on every close, so its
    statements are planned once per connection.

    On PostgreSQL the move (with the run's end) is not sent but given back as a
    finance `Lead` (its WITH items, the last named `l`, and the items that lock the
    same rows), for the caller to send at the head of its balances' statement
    (finance's movements_together `lead`): the load row is then locked with the
    balance rows that follow it in the lock order.
    Elsewhere, and for a run's end alone, it is written now (None)."""
    if order.requisite_id is None:
        return None
    key = _key(order.requisite_id)
    move = None
    if previous != status:
        leaves_pending = previous == OrderStatus.PENDING
        counted_before = previous in (OrderStatus.PENDING, OrderStatus.COMPLETED)
        counted_after = status in (OrderStatus.PENDING, OrderStatus.COMPLETED)
        delta = order.amount * (int(counted_after) - int(counted_before))
        move = [int(leaves_pending), _day(utc_day(order.created_at)), _money(delta), key]
    if move is not None and connection.vendor == "postgresql":
        if end_run:
            return Lead(_RUN_ENDED_AND_MOVE_ITEMS, [key, *move], _RUN_AND_LOCK_ITEMS, [key, key])
        return Lead(_MOVE_ITEMS, move, _LOCK_ITEMS, [key])
    with prepared_cursor() as cursor:
        if end_run:
            cursor.execute(RUN_ENDED, [key])
        if move is not None:
            cursor.execute(_MOVE, move)
    return None


def _figures(requisite_ids, today: date) -> dict:
    """Each requisite's figures counted from its orders (its whole Pending set and
    the orders it took on `today`)."""
    start = datetime.combine(today, time.min, tzinfo=UTC)
    rows = (
        Order.objects.filter(requisite_id__in=requisite_ids)
        .filter(Q(status=OrderStatus.PENDING) | Q(created_at__gte=start))
        .values("requisite_id")
        .annotate(
            pending=Count("id", filter=Q(status=OrderStatus.PENDING)),
            turnover=Sum(
                "amount",
                filter=Q(
                    created_at__gte=start,
                    created_at__lt=start + timedelta(days=1),
                    status__in=[OrderStatus.PENDING, OrderStatus.COMPLETED],
                ),
            ),
        )
    )
    return {row["requisite_id"]: (row["pending"], row["turnover"] or Decimal(0)) for row in rows}


def requisite_load_ensure(*, requisite_ids) -> None:
    """Create the missing rows (a requisite made by bulk_create or before the rows
    existed), counted from the requisites' orders. A row that appears meanwhile wins.
    The rows go in in one order (by id), so parallel creations never wait on each
    other's half-inserted rows in a circle (a deadlock on PostgreSQL)."""
    requisite_ids = sorted(set(requisite_ids), key=str)
    today = utc_day(db_now())
    figures = _figures(requisite_ids, today)
    RequisiteLoad.objects.bulk_create(
        [
            RequisiteLoad(
                requisite_id=pk,
                day=today,
                pending=figures.get(pk, (0, 0))[0],
                turnover=figures.get(pk, (0, 0))[1],
            )
            for pk in requisite_ids
        ],
        ignore_conflicts=True,
    )


def requisite_load_rebuild(*, requisite_ids=None) -> int:
    """Count every (or the given) requisite's figures afresh from its orders and
    write them, each row locked while it is rewritten. For repairs, imports and the
    bench; returns how many rows were written."""
    ids = list(
        Requisite.objects.values_list("pk", flat=True) if requisite_ids is None else requisite_ids
    )
    written = 0
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        with transaction.atomic():
            requisite_load_ensure(requisite_ids=chunk)
            list(RequisiteLoad.objects.select_for_update().filter(requisite_id__in=chunk))
            today = utc_day(db_now())
            figures = _figures(chunk, today)
            for pk in chunk:
                pending, turnover = figures.get(pk, (0, Decimal(0)))
                written += RequisiteLoad.objects.filter(requisite_id=pk).update(
                    pending=pending, turnover=turnover, day=today
                )
    return written
