"""The matcher: which requisite (and, with unique_amount, which amount) an order gets.

A payer's transfer is recognised by its amount, so a requisite may hold at most one
Pending Buy order of a given amount. The database enforces that with a partial
unique index; the matcher only proposes candidates in a sensible order and tries them
one by one inside savepoints. A concurrent request that took the same pair first
makes our INSERT fail with IntegrityError (on PostgreSQL it waits for the other
transaction, then fails), and we simply try the next candidate: a lost race is
retried, never reported. The 500 is answered only when every candidate is taken.
"""

import random
import uuid
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db import connection
from django.utils import timezone

from finance.models import PaymentMethod, Side

from .models import Order, OrderStatus, Requisite, Trader

UNIQUE_AMOUNT_STEPS = 10  # amount .. amount + 9, in whole steps of 1


def concrete_methods(method: PaymentMethod, *, terminal) -> list[PaymentMethod]:
    """The bank methods an (aggregate) method stands for on `terminal`: only those
    enabled on it, as for a method named directly."""
    if not method.is_aggregate:
        return [method]
    return list(
        PaymentMethod.objects.filter(
            method_type=method.method_type,
            currency=method.currency,
            is_aggregate=False,
            is_active=True,
            nspk_code__isnull=False,
            terminals__terminal=terminal,
            terminals__enabled=True,
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

    def __init__(
        self, methods: list[PaymentMethod], side: str, amounts: list[Decimal], sandbox: bool
    ):
        self.methods = {method.pk: method for method in methods}
        self.side, self.amounts, self.sandbox = side, amounts, sandbox
        self.start = uuid.uuid4()
        self.after, self.wrapped = None, False
        self.loaded: list[list[Requisite]] = []
        self.exhausted = False

    def __iter__(self) -> Iterator[list[Requisite]]:
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
        )
        if rows:
            self.after = rows[-1].pk
            self.wrapped = self.wrapped or rows[-1].arc == 1
            random.shuffle(rows)
            rows.sort(key=lambda r: r.pending)
            self.loaded.append(rows)
        self.exhausted = len(rows) < CHUNK


def _slice(
    *, methods: dict, side: str, amounts: list[Decimal], arcs: list, sandbox: bool
) -> list[Requisite]:
    """Up to CHUNK eligible requisites (of sandbox traders for a sandbox order, of live
    ones for a live order: never across), taken along `arcs` (id ranges) in order, each
    with its live Pending count, today's turnover and, for a Buy, which candidate
    amounts it holds.

    Written in SQL because the ORM spent more time building this statement than the
    database spends running it. Each arc is read through the primary key and limited
    on its own, so a slice reads at most CHUNK requisites per arc; the figures are
    computed only for the CHUNK kept, each a correlated subquery over the order index
    (requisite, created_at) from the start of the UTC day or the longest order
    lifetime ago, whichever is earlier: a requisite's history, however long, is never
    read. The conditions on status sit inside the aggregates, not in WHERE: with
    `status = 'Pending'` in WHERE the planner may take a partial index of every Pending
    order instead (it did, with statistics taken before a burst of orders, at 0.5 ms
    for each requisite). An order Pending past its expiry is not counted: it is shown
    as Expired, and its slot is freed before matching.
    """
    now = timezone.now()
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    longest_ttl = max(settings.ORDER_TTL_BUY_SECONDS, settings.ORDER_TTL_SELL_SECONDS)
    live_from = now - timedelta(seconds=longest_ttl)
    key = Requisite._meta.pk
    when = Order._meta.get_field("created_at")
    money = Order._meta.get_field("amount")

    def db_uuid(value):
        return key.get_db_prep_value(value, connection)

    def db_time(value):
        return when.get_db_prep_value(value, connection)

    window = db_time(min(day_start, live_from))
    holds, holds_params = "", []
    if side == Side.BUY:
        for k, amount in enumerate(amounts):
            holds += (
                f", (SELECT COUNT(CASE WHEN o.status = %s AND o.side = %s AND o.amount = %s"
                f" THEN 1 END) FROM {ORDERS} o WHERE o.requisite_id = r.id"
                f" AND o.created_at >= %s) AS holds_{k}"
            )
            holds_params += [
                OrderStatus.PENDING,
                Side.BUY,
                money.get_db_prep_value(amount, connection),
                window,
            ]
    method_list = ", ".join(["%s"] * len(methods))
    arc_selects, arc_params = [], []
    for number, (condition, values) in enumerate(arcs):
        arc_selects.append(
            f"SELECT * FROM (SELECT e.*, {number} AS arc"
            f" FROM {REQUISITES} e INNER JOIN {TRADERS} t ON t.id = e.trader_id"
            f" WHERE e.method_id IN ({method_list}) AND e.is_active AND t.is_active"
            f" AND t.sandbox = %s AND {condition} ORDER BY e.id LIMIT %s) a{number}"
        )
        arc_params += [*(db_uuid(pk) for pk in methods), sandbox, *map(db_uuid, values), CHUNK]
    sql = f"""
        SELECT r.*,
          (SELECT COUNT(CASE WHEN o.status = %s AND o.created_at >= %s AND o.expires_at > %s
                        THEN 1 END)
             FROM {ORDERS} o WHERE o.requisite_id = r.id AND o.created_at >= %s) AS pending,
          (SELECT SUM(CASE WHEN o.created_at >= %s AND o.status IN (%s, %s) THEN o.amount END)
             FROM {ORDERS} o WHERE o.requisite_id = r.id AND o.created_at >= %s) AS turnover
          {holds}
        FROM ({" UNION ALL ".join(arc_selects)}) r
        ORDER BY r.arc, r.id
        LIMIT %s
    """
    params = [
        OrderStatus.PENDING,
        db_time(live_from),
        db_time(now),
        window,
        db_time(day_start),
        OrderStatus.PENDING,
        OrderStatus.COMPLETED,
        window,
        *holds_params,
        *arc_params,
        CHUNK,
    ]
    rows = list(Requisite.objects.raw(sql, params))
    for row in rows:
        row.method = methods[row.method_id]  # already loaded
        # The order needs only the trader's id; the rest loads if anything asks.
        row.trader = Trader.from_db(connection.alias, ["id"], [row.trader_id])
        row.turnover = Decimal(str(row.turnover or 0))
        row.busy = {amount for k, amount in enumerate(amounts) if getattr(row, f"holds_{k}", 0)}
    return rows


ORDERS = Order._meta.db_table
REQUISITES = Requisite._meta.db_table
TRADERS = Trader._meta.db_table


def candidates(
    *, methods: list[PaymentMethod], side: str, amounts: list[Decimal], sandbox: bool = False
) -> Iterator[tuple[Requisite, Decimal]]:
    """(requisite, amount) pairs free at this moment, best first.

    Amounts closest to what was asked come first. Requisites are visited in random
    chunks, the least busy first within a chunk, so load spreads out and the cost of a
    match does not grow with the number of requisites a method has.
    """
    chunks = _Chunks(methods, side, amounts, sandbox)
    for amount in amounts:
        for chunk in chunks:
            for requisite in chunk:
                if amount in requisite.busy:
                    continue
                if (requisite.turnover or 0) + amount > requisite.daily_limit:
                    continue
                if requisite.max_pending is not None and requisite.pending >= requisite.max_pending:
                    continue
                yield requisite, amount


def overdue_holders(*, methods: list[PaymentMethod], amounts: list[Decimal]) -> list:
    """Pending Buy orders past expiry that still hold a candidate slot."""
    return list(
        Order.objects.filter(
            requisite__method__in=methods,
            amount__in=amounts,
            side=Side.BUY,
            status=OrderStatus.PENDING,
            expires_at__lte=timezone.now() + timedelta(seconds=0),
        ).values_list("id", flat=True)[:50]
    )
