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
from datetime import datetime, timedelta
from decimal import Decimal

from django.db.models import Q

from core import memo
from finance.models import PaymentMethod, Side

from ..models import Order, OrderStatus
from ..rules import overdue_q
from .load import requisite_load_ensure
from .walk import CHUNK, Candidate, read_slice

UNIQUE_AMOUNT_STEPS = 10  # amount .. amount + 9, in whole steps of 1


# What concrete_methods found for an aggregate method on a terminal, kept per process
# while no method, terminal or link between them changed anywhere (core.memo): read on
# every order made on an aggregate (the demo shop's SBP), where it was a query of its
# own.
_expanded = memo.Memo("aggregate methods' bank methods")


def concrete_methods(method: PaymentMethod, *, terminal) -> list[PaymentMethod]:
    """The bank methods an (aggregate) method stands for on `terminal`: only those
    enabled on it, as for a method named directly."""
    if not method.is_aggregate:
        return [method]
    kept_as = (method.pk, terminal.pk)
    kept = _expanded.get(kept_as)
    if kept is not None:
        return kept
    found = list(
        PaymentMethod.objects.enabled_on(terminal).filter(
            method_type=method.method_type,
            currency=method.currency,
            is_aggregate=False,
            nspk_code__isnull=False,
        )
    )
    _expanded.put(kept_as, memo.snapshot(found))
    return found


def candidate_amounts(amount: Decimal, unique_amount: bool) -> list[Decimal]:
    steps = UNIQUE_AMOUNT_STEPS if unique_amount else 1
    return [amount + k for k in range(steps)]


WIDEST = 1024  # the longest walk one slice takes along the ring


class _Chunks:
    """Slices of the eligible requisites, each loaded (in one query) only when the
    search reaches it.

    Requisite ids are random UUIDs, so the ring of ids read from a random point on is
    a random order: each slice walks the method's next active requisites along the
    ring (through the (method, id) index, wrapping around at its end) after the
    previous slice's walk, until the search is back where it began, and keeps those
    whose trader and deposit can serve the order. A walk is CHUNK long; after one that
    kept fewer than half of what it read (a sandbox order on a ring of live traders'
    requisites, say), the next walk is twice as long, up to WIDEST. A match reads one
    slice, whatever the method's requisite count.
    """

    write = True  # off for availability: nothing is written
    # On for the slices read before creation's transaction (placement): a requisite
    # without a load row yet is noted, and its row made once the transaction has begun
    # (`begin_writing`), counted under its locks as before.
    early = False

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
        self.width = CHUNK
        self.loaded: list[list[Candidate]] = []
        self.exhausted = False
        self.clock: datetime | None = None  # the database's, as the first slice read it
        self.missing: list = []  # read early without a load row

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
        rows, walked = read_slice(
            methods=self.methods,
            side=self.side,
            amounts=self.amounts,
            arcs=arcs,
            sandbox=self.sandbox,
            width=self.width,
            write=self.write and not self.early,
            freed=self.freed,
        )
        if self.early:
            self.missing += [row.pk for row in rows if row.ok and not row.has_load]
        if rows:  # the last row is the walk's last, kept or not
            self.clock = self.clock or rows[0].clock
            self.after = rows[-1].pk
            self.wrapped = self.wrapped or rows[-1].arc == 1
        kept = [row for row in rows if row.ok]
        if kept:
            random.shuffle(kept)
            kept.sort(key=lambda r: r.pending)
            self.loaded.append(kept)
        self.exhausted = walked < self.width
        if len(kept) * 2 < walked:
            self.width = min(self.width * 2, WIDEST)

    def begin_writing(self) -> None:
        """The transaction has begun: the load rows the early slices missed are made,
        and later slices make theirs as they are read."""
        self.early = False
        if self.missing:
            requisite_load_ensure(requisite_ids=self.missing)
            self.missing = []


def candidates(
    *,
    methods: list[PaymentMethod],
    side: str,
    amounts: list[Decimal],
    sandbox: bool = False,
    write: bool = True,
    freed=None,
    walks: list | None = None,
    early: bool = False,
) -> Iterator[tuple["Candidate", Decimal]]:
    """(requisite, amount) pairs free at this moment, best first.

    Amounts closest to what was asked come first. Requisites are visited in random
    chunks, the least busy first within a chunk, so load spreads out and the cost of a
    match does not grow with the number of requisites a method has. `freed`
    (availability's, a freed.Freed): overdue orders' holds counted as free. `walks`:
    a list the walk is appended to, for its `clock` (see overdue_holders). `early`:
    the first slices are read before creation's transaction, which then calls the
    walk's `begin_writing` (placement).
    """
    chunks = _Chunks(methods, side, amounts, sandbox, freed)
    chunks.write, chunks.early = write, early
    if walks is not None:
        walks.append(chunks)
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


def _in_the_way(methods: list[PaymentMethod], amounts: list[Decimal]) -> Q:
    """Orders that may stand in a match's way: Buys holding a candidate amount, and any
    on a requisite with a Pending cap, on these methods' requisites."""
    return Q(
        Q(amount__in=amounts, side=Side.BUY) | Q(requisite__max_pending__isnull=False),
        requisite__method__in=methods,
    )


# How long before its COMMIT an expiry may have stamped closed_at: the order's lock
# statement's clock, then the rest of its transaction (milliseconds, as a rule).
EXPIRY_SLACK = timedelta(seconds=2)


def overdue_holders(
    *, methods: list[PaymentMethod], amounts: list[Decimal], since: datetime | None = None
) -> tuple[list, bool]:
    """Pending orders past expiry that may stand in the way (_in_the_way), to expire;
    and whether one that may have stood in the way of a walk that read the requisites
    at `since`, overdue then, has been expired since by another transaction (the sweep,
    between that walk and this look): its place is free now, as it was due to be then.
    One query, through the partial indexes of Pending orders by expiry and of Expired
    orders by closed_at; the Pending ones first."""
    due = overdue_q()
    if since is not None:
        due |= Q(
            status=OrderStatus.EXPIRED,
            closed_at__gte=since - EXPIRY_SLACK,
            expires_at__lte=since,
        )
    rows = list(
        Order.objects.filter(due, _in_the_way(methods, amounts))
        .order_by("-status")  # Pending before Expired
        .values_list("id", "status")[:50]
    )
    overdue = [pk for pk, status in rows if status == OrderStatus.PENDING]
    return overdue, len(overdue) < len(rows)
