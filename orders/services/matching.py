"""The matcher: which requisite (and, with unique_amount, which amount) an order gets.

A payer's transfer is recognised by its amount, so a requisite may hold at most one
Pending Buy order of a given amount. The database enforces that with a partial
unique index, and each requisite's `max_pending` and `daily_limit` with a conditional
UPDATE of its RequisiteLoad row (orders/services/load.py). The matcher only proposes
candidates in a sensible order; placement tries them one by one inside savepoints.
A concurrent request that took the same requisite's last room or the same pair first
makes our UPDATE match nothing or our INSERT fail on the slot index (on PostgreSQL
each waits for the other transaction first), and we simply try the next candidate: a
lost race is retried, never reported. The 500 is answered only when every candidate
is taken.
"""

import random
import uuid
from collections.abc import Iterator
from decimal import Decimal

from django.db import connection
from django.db.models import Q

from core.money import quantize_money
from core.prepared import prepared_cursor
from finance.models import AccountKind, Balance, PaymentMethod, Side

from ..models import Order, OrderStatus, Requisite, RequisiteLoad, Trader
from . import load

UNIQUE_AMOUNT_STEPS = 10  # amount .. amount + 9, in whole steps of 1


def concrete_methods(method: PaymentMethod, *, terminal) -> list[PaymentMethod]:
    """The bank methods an (aggregate) method stands for on `terminal`: only those
    enabled on it, as for a method named directly."""
    if not method.is_aggregate:
        return [method]
    return list(
        PaymentMethod.objects.enabled_on(terminal).filter(
            method_type=method.method_type,
            currency=method.currency,
            is_aggregate=False,
            nspk_code__isnull=False,
        )
    )


def candidate_amounts(amount: Decimal, unique_amount: bool) -> list[Decimal]:
    steps = UNIQUE_AMOUNT_STEPS if unique_amount else 1
    return [amount + k for k in range(steps)]


CHUNK = 32


class _Chunks:
    """Slices of the eligible requisites, each loaded (in one query) only when the
    search reaches it.

    Requisite ids are random UUIDs, so the ring of ids read from a random point on is
    a random order: each slice is the next CHUNK eligible requisites along the ring
    (through the primary key, wrapping around at its end) after the previous slice,
    until the search is back where it began. A match reads one slice, whatever the
    method's requisite count.
    """

    write = True  # off for availability: nothing is written

    def __init__(
        self,
        methods: list[PaymentMethod],
        side: str,
        amounts: list[Decimal],
        sandbox: bool,
        freed=None,  # a freed.Freed (availability): overdue holders counted as free
    ):
        self.methods = {method.pk: method for method in methods}
        self.side, self.amounts, self.sandbox, self.freed = side, amounts, sandbox, freed
        self.start = uuid.uuid4()
        self.after, self.wrapped = None, False
        self.loaded: list[list[Candidate]] = []
        self.exhausted = False

    def __iter__(self) -> Iterator[list["Candidate"]]:
        index = 0
        while True:
            if index == len(self.loaded):
                if self.exhausted:
                    return
                self._draw()
                continue
            yield self.loaded[index]
            index += 1

    def _draw(self) -> None:
        """The next slice: up to the ring's end and on from its start, or, once past
        the end, from there up to the starting point."""
        if self.wrapped:
            arcs = [("e.id > %s AND e.id < %s", [self.after, self.start])]
        elif self.after is None:
            arcs = [("e.id >= %s", [self.start]), ("e.id < %s", [self.start])]
        else:
            arcs = [("e.id > %s", [self.after]), ("e.id < %s", [self.start])]
        rows = _slice(
            methods=self.methods,
            side=self.side,
            amounts=self.amounts,
            arcs=arcs,
            sandbox=self.sandbox,
            write=self.write,
            freed=self.freed,
        )
        if rows:
            self.after = rows[-1].pk
            self.wrapped = self.wrapped or rows[-1].arc == 1
            random.shuffle(rows)
            rows.sort(key=lambda r: r.pending)
            self.loaded.append(rows)
        self.exhausted = len(rows) < CHUNK


def slice_sql(
    *,
    methods: dict,
    side: str,
    amounts: list[Decimal],
    arcs: list,
    sandbox: bool,
    deposit_floor: Decimal | None = None,
) -> tuple[str, list]:
    """The slice's statement and its parameters (see `_slice`).

    "Holds this amount" is a scalar subquery with LIMIT 1, so it stays a probe per
    requisite and amount (a SubPlan): an EXISTS could be turned into a semi-join that
    reads every Pending order of the amount, and its cost would grow with them. Its
    equality on both columns and its condition written as literals match the partial
    unique index, which answers it without the table (an index-only probe).

    A Buy reads only requisites whose trader's deposit covers the smallest candidate
    amount and whose own range (min_amount, max_amount) lets some candidate in;
    Candidate keeps the figures to judge each amount. `deposit_floor` lowers that
    deposit bar (availability counting overdue Buys' frozen money as free).
    """
    today = load.utc_day()
    key = Requisite._meta.pk
    money = Order._meta.get_field("amount")

    def db_uuid(value):
        return key.get_db_prep_value(value, connection)

    def db_money(value):
        return money.get_db_prep_value(value, connection)

    holds, holds_params = "", []
    if side == Side.BUY:
        for k, amount in enumerate(amounts):
            holds += (
                f", (SELECT 1 FROM {ORDERS} o WHERE o.requisite_id = r.id"
                f" AND o.amount = %s AND o.status = '{OrderStatus.PENDING.value}'"
                f" AND o.side = '{Side.BUY.value}' LIMIT 1) IS NOT NULL AS holds_{k}"
            )
            holds_params.append(db_money(amount))
    method_list = ", ".join(["%s"] * len(methods))
    low, high = db_money(min(amounts)), db_money(max(amounts))
    if side == Side.BUY:
        deposit = (
            f" INNER JOIN {BALANCES} b ON b.trader_id = t.id"
            f" AND b.kind = '{AccountKind.TRADER.value}' AND b.available >= %s"
        )
        deposit_params = [low if deposit_floor is None else db_money(deposit_floor)]
        available = "b.available"
    else:
        deposit, deposit_params, available = "", [], "NULL"
    arc_selects, arc_params = [], []
    for number, (condition, values) in enumerate(arcs):
        arc_selects.append(
            f"SELECT * FROM (SELECT {_COLUMNS}, {available} AS available, {number} AS arc"
            f" FROM {REQUISITES} e INNER JOIN {TRADERS} t ON t.id = e.trader_id{deposit}"
            f" WHERE e.method_id IN ({method_list}) AND e.is_active AND t.is_active"
            f" AND t.sandbox = %s AND {condition}"
            f" AND (e.min_amount IS NULL OR e.min_amount <= %s)"
            f" AND (e.max_amount IS NULL OR e.max_amount >= %s)"
            f" ORDER BY e.id LIMIT %s) a{number}"
        )
        arc_params += [
            *deposit_params,
            *(db_uuid(pk) for pk in methods),
            sandbox,
            *map(db_uuid, values),
            high,
            low,
            CHUNK,
        ]
    sql = f"""
        SELECT r.*, l.requisite_id IS NOT NULL AS has_load,
          COALESCE(l.pending, 0) AS pending,
          CASE WHEN l.day = %s THEN l.turnover ELSE 0 END AS turnover
          {holds}
        FROM ({" UNION ALL ".join(arc_selects)}) r
        LEFT JOIN {LOADS} l ON l.requisite_id = r.id
        ORDER BY r.arc, r.id
        LIMIT %s
    """
    day = RequisiteLoad._meta.get_field("day").get_db_prep_value(today, connection)
    return sql, [day, *holds_params, *arc_params, CHUNK]


def _slice(
    *,
    methods: dict,
    side: str,
    amounts: list[Decimal],
    arcs: list,
    sandbox: bool,
    write=True,
    freed=None,  # a freed.Freed (availability): overdue holders counted as free
) -> list["Candidate"]:
    """Up to CHUNK eligible requisites (of sandbox traders for a sandbox order, of live
    ones for a live order: never across), taken along `arcs` (id ranges) in order, each
    with its Pending count and today's turnover as its RequisiteLoad row has them and,
    for a Buy, which candidate amounts it holds and its trader's available deposit.

    Written in SQL because the ORM spent more time building this statement than the
    database spends running it. Each arc is read through the primary key and limited
    on its own, so a slice reads at most CHUNK requisites per arc. Nothing here grows
    with a requisite's day: the figures are one row, and "holds this amount" is one
    probe of the partial unique index on Pending Buy (requisite, amount) (its
    condition written as literals so the planner can match it). These figures only
    order and thin out the candidates; the conditional UPDATE of the load row and
    the INSERT against the unique index decide. A requisite without a load row yet
    gets one, counted from its orders.
    """
    floor = None if freed is None else freed.deposit_floor(min(amounts))
    sql, params = slice_sql(
        methods=methods, side=side, amounts=amounts, arcs=arcs, sandbox=sandbox, deposit_floor=floor
    )
    # Planning the slice cost more than running it: prepared once per connection.
    with prepared_cursor() as cursor:
        cursor.execute(sql, params)
        rows = [Candidate(values, methods, amounts) for values in cursor.fetchall()]
    if freed is not None:
        for row in rows:
            freed.apply(row)
    missing = [row.pk for row in rows if not row.has_load]
    if missing and write:  # availability (write off) counts them as empty
        load.requisite_load_ensure(requisite_ids=missing)
    return rows


# What placement needs of a requisite; read as plain columns (building model instances
# of the requisite and its trader was most of a slice's Python time).
_FIELDS = (
    "id",
    "method_id",
    "trader_id",
    "holder_name",
    "account",
    "daily_limit",
    "max_pending",
    "min_amount",
    "max_amount",
)
_COLUMNS = ", ".join(f"e.{name}" for name in _FIELDS)


def _uuid(value) -> uuid.UUID:
    return value if isinstance(value, uuid.UUID) else uuid.UUID(value)  # SQLite: hex text


def _money(value) -> Decimal:
    # PostgreSQL gives Decimal; SQLite an int or float of a 2-place number.
    return value if isinstance(value, Decimal) else quantize_money(Decimal(str(value or 0)))


class Candidate:
    """A requisite as placement uses it: what the order copies, its caps and figures."""

    __slots__ = (
        "pk",
        *_FIELDS[1:],
        "available",
        "arc",
        "has_load",
        "pending",
        "turnover",
        "method",
        "busy",
    )

    def __init__(self, values: tuple, methods: dict, amounts: list[Decimal]):
        (pk, method_id, trader_id, self.holder_name, self.account, daily_limit) = values[:6]
        self.max_pending, low, high, available, self.arc = values[6:11]
        self.has_load, self.pending, turnover = values[11:14]
        self.pk, self.method_id, self.trader_id = _uuid(pk), _uuid(method_id), _uuid(trader_id)
        self.daily_limit, self.turnover = _money(daily_limit), _money(turnover)
        self.min_amount = None if low is None else _money(low)
        self.max_amount = None if high is None else _money(high)
        self.available = None if available is None else _money(available)  # a Buy's only
        self.method = methods[self.method_id]  # already loaded
        self.busy = {amount for amount, held in zip(amounts, values[14:], strict=False) if held}

    def takes(self, amount: Decimal) -> bool:
        """Whether this requisite's own range and (for a Buy) its trader's deposit as
        read let `amount` in; the caps and the deposit are decided again by the
        conditional UPDATE."""
        if self.min_amount is not None and amount < self.min_amount:
            return False
        if self.max_amount is not None and amount > self.max_amount:
            return False
        return self.available is None or self.available >= amount


ORDERS = Order._meta.db_table
REQUISITES = Requisite._meta.db_table
TRADERS = Trader._meta.db_table
LOADS = RequisiteLoad._meta.db_table
BALANCES = Balance._meta.db_table


def candidates(
    *,
    methods: list[PaymentMethod],
    side: str,
    amounts: list[Decimal],
    sandbox: bool = False,
    write: bool = True,
    freed=None,
) -> Iterator[tuple["Candidate", Decimal]]:
    """(requisite, amount) pairs free at this moment, best first.

    Amounts closest to what was asked come first. Requisites are visited in random
    chunks, the least busy first within a chunk, so load spreads out and the cost of a
    match does not grow with the number of requisites a method has. `freed`
    (availability's, a freed.Freed): overdue orders' holds counted as free.
    """
    chunks = _Chunks(methods, side, amounts, sandbox, freed)
    chunks.write = write
    for amount in amounts:
        for chunk in chunks:
            for requisite in chunk:
                if amount in requisite.busy or not requisite.takes(amount):
                    continue
                if (requisite.turnover or 0) + amount > requisite.daily_limit:
                    continue
                if requisite.max_pending is not None and requisite.pending >= requisite.max_pending:
                    continue
                yield requisite, amount


SLOT_CONSTRAINT = "order_pending_buy_requisite_amount_unique"


def overdue_holders(*, methods: list[PaymentMethod], amounts: list[Decimal]) -> list:
    """Pending orders past expiry on these methods' requisites that may stand in the
    way: Buys holding a candidate amount, and any on a requisite with a Pending cap."""
    return list(
        Order.objects.overdue()
        .filter(
            Q(amount__in=amounts, side=Side.BUY) | Q(requisite__max_pending__isnull=False),
            requisite__method__in=methods,
        )
        .values_list("id", flat=True)[:50]
    )
