"""Creating an order: the request resolved (orders.services.request), the anti-fraud
cap, a Sell's reserve and the matcher's (requisite, amount), written."""

import itertools
import uuid
from collections.abc import Callable
from contextlib import nullcontext
from decimal import Decimal
from typing import NamedTuple

from django.conf import settings
from django.db import connection, transaction

from core import metrics
from core.db import advisory_xact_lock
from core.errors import NoAvailableTraders
from core.fast_insert import HeldInsert
from core.money import fee_for
from core.prepared import NotCommittedAhead
from core.riding import riding
from finance.models import Balance, FeeRange, PaymentMethod, Side, Terminal
from finance.services import balance_covers_check, balance_reserve
from webhooks.models import EventType
from webhooks.services import event_queue, event_write

from ..models import Order
from . import matching
from .antifraud import antifraud_check
from .draft import order_draft
from .events import emit_event, event_prepare
from .freed import Freed
from .lifecycle import order_expire
from .load import requisite_load_take, requisite_load_untake, utc_day
from .request import order_request_resolve
from .sandbox import sandbox_refusal_check, sandbox_schedule


class OrderAvailability(NamedTuple):
    """What an order like the one asked would get now, written nowhere."""

    available: bool
    method: PaymentMethod
    amount: Decimal
    fee_amount: Decimal


def order_create(
    *,
    terminal: Terminal,
    client_order_id: str,
    side: str,
    amount: Decimal,
    payment_method_id: str | None = None,
    method_type: str | None = None,
    nspk_code: str | None = None,
    customer_name: str | None = None,
    customer_account: str | None = None,
    customer_bank: str | None = None,
    user_id: str | None = None,
    webhook_url: str | None = None,
    unique_amount: bool = False,
    form_session: Callable[[Order], str] | None = None,
    actor: str | None = None,
) -> Order:
    """`actor`: who creates it, the terminal's merchant unless told (a payer on the
    payment form). `form_session`: the caller's own step in the same transaction,
    after the INSERT and before the order.created event (forms_ui's session for an
    order_with_form terminal's order): it returns the order's form_url."""
    place = order_request_resolve(
        terminal=terminal,
        side=side,
        amount=amount,
        payment_method_id=payment_method_id,
        method_type=method_type,
        nspk_code=nspk_code,
        customer_account=customer_account,
        customer_bank=customer_bank,
        unique_amount=unique_amount,
    )
    sandbox_refusal_check(terminal=terminal, amount=place["amount"])
    place.update(
        client_order_id=client_order_id,
        customer_name=customer_name,
        user_id=user_id,
        webhook_url=webhook_url,
        form_session=form_session,
        actor=actor or f"merchant:{terminal.pk}",
    )
    return _order_place_freeing_overdue(place, write=True)


def _order_place_freeing_overdue(place: dict, *, write: bool) -> Order | OrderAvailability:
    """Creation's and availability's one way to match. A Pending order past its
    expiry holds its (requisite, amount), its place under the caps and a Buy's frozen
    deposit until the sweep expires it. Rather than look for such orders on every
    creation, free them when they may be what stood in the way, and match once more:
    creation expires them; availability (`write` off) counts what that would free
    and writes nothing. Once more too when none is left because another transaction
    (the sweep) expired one after the walk read it (matching.overdue_holders)."""
    try:
        return _order_place(**place, write=write)
    except NoAvailableTraders as refusal:
        overdue, expired = matching.overdue_holders(
            methods=place["methods"], amounts=place["amounts"], since=refusal.clock
        )
        if not overdue:
            if expired:
                return _order_place(**place, write=write)
            raise
        if not write:
            return _order_place(**place, write=False, freed=Freed(overdue))
        for overdue_id in overdue:
            order_expire(order_id=overdue_id)
        return _order_place(**place)


def order_availability(
    *, terminal: Terminal, user_id: str | None = None, **request
) -> OrderAvailability:
    """Whether order_create with these values (`request`: its side, amount, method and
    customer fields) would find a trader now, and at what amount and fee: the same
    rules (the same 4xx) and the same matcher query, with nothing locked or written:
    no order, no reserve, no load row, no event."""
    place = order_request_resolve(terminal=terminal, **request)
    place.update(
        client_order_id="",
        customer_name=None,
        user_id=user_id,
        webhook_url=None,
        form_session=None,
        actor="",
    )
    fee_range = place["fee_range"]
    try:
        sandbox_refusal_check(terminal=terminal, amount=place["amount"])
        return _order_place_freeing_overdue(place, write=False)
    except NoAvailableTraders:
        fee_amount = fee_for(place["amount"], rate=fee_range.fee, fixed=fee_range.fixed_fee)
        return OrderAvailability(False, place["method"], place["amount"], fee_amount)


def _order_place(**place) -> Order | OrderAvailability:
    """`_order_place_once`, its write sent as a transaction of its own where nothing is
    written with it (`_written_alone`); taken again the usual way when that write
    refused itself (`NotCommittedAhead`: since the walk read them, a concurrent order
    took the amount or the requisite's last room, or the trader's deposit fell short)."""
    if _written_alone(place):
        try:
            return _order_place_once(**place, alone=True)
        except NotCommittedAhead:
            pass  # nothing was written; the walk is read again
    return _order_place_once(**place)


def _written_alone(place: dict) -> bool:
    """Whether creation's one write can be its whole transaction (PostgreSQL, where it
    is one statement): a Buy (a Sell's reserve is written after it), without a user_id
    (the anti-fraud cap's lock is held by the transaction around it), without a form
    session (which writes the order's form_url after it), and not inside a caller's
    transaction (an Idempotency-Key's answer is stored after it, in the caller's)."""
    return (
        place.get("write", True)
        and place["side"] == Side.BUY
        and place["user_id"] is None
        and place["form_session"] is None
        and connection.vendor == "postgresql"
        and not connection.in_atomic_block
    )


def _order_place_once(
    *,
    terminal: Terminal,
    client_order_id: str,
    side: str,
    amount: Decimal,
    method: PaymentMethod,
    fee_range: FeeRange,
    methods: list[PaymentMethod],
    amounts: list[Decimal],
    customer_name: str | None,
    customer_account: str | None,
    customer_bank: str | None,
    user_id: str | None,
    webhook_url: str | None,
    form_session: Callable[[Order], str] | None,
    actor: str,
    write: bool = True,
    freed: Freed | None = None,
    alone: bool = False,
) -> Order | OrderAvailability:
    """One try at creating the order, in one transaction: the anti-fraud cap, a Sell's
    balance check, then candidates (requisite, amount) in turn: the INSERT (skipped
    when the slot index holds the amount already), the order's event, the requisite's
    caps (a conditional UPDATE of its load row and a Buy's trader's deposit, taken back
    by hand when they leave no room), then a Sell's reserve for the amount chosen.

    The first slice of candidates is read, and the first candidate's order and event
    built, before the transaction: what it holds is then only the writes. On SQLite a
    transaction holds the database's one write lock from BEGIN to COMMIT, and the read
    and the building were half of that time. The read's figures decide nothing (the
    INSERT against the slot index and the conditional UPDATEs do), as on PostgreSQL,
    where the read never held a lock.

    With `write` off (availability) the same checks read and refuse alike, nothing is
    locked or written, and the matcher's first candidate is the answer; `freed`: what
    expiring overdue holders would free, counted as free.

    `alone` (`_written_alone`): the first candidate's write, one statement, is sent
    outside a transaction block, so PostgreSQL commits it as it ends: no BEGIN and no
    COMMIT, two round trips fewer. It writes nothing, and raises `NotCommittedAhead`,
    unless the order, its slot and its trader's freeze were all written; so no later
    candidate is tried. Not when a load row the walk found missing is to be made
    first: that write is in the transaction with it."""
    ttl = settings.ORDER_TTL_BUY_SECONDS if side == Side.BUY else settings.ORDER_TTL_SELL_SECONDS
    order_id = uuid.uuid4()
    reserve_id = uuid.uuid4() if side == Side.SELL and write else None
    livemode = terminal.livemode
    walks = []
    found = matching.candidates(
        methods=methods,
        side=side,
        amounts=amounts,
        sandbox=not livemode,
        write=write,
        freed=freed,
        walks=walks,
        early=write,
    )

    # What every candidate's order copies from the request.
    asked = dict(
        order_id=order_id,
        terminal=terminal,
        side=side,
        amount=amount,
        method=method,
        fee_range=fee_range,
        reserve_id=reserve_id,
        ttl=ttl,
        client_order_id=client_order_id,
        customer_name=customer_name,
        customer_account=customer_account,
        customer_bank=customer_bank,
        user_id=user_id,
        webhook_url=webhook_url,
    )

    def build(requisite, chosen: Decimal) -> tuple:
        """The order on this candidate, its INSERT and (without a form session) its
        order.created event, made now: nothing is written yet."""
        candidate = order_draft(requisite=requisite, chosen=chosen, **asked)
        insert = HeldInsert(candidate, held_by=matching.SLOT_CONSTRAINT)
        prepared = (
            event_prepare(candidate, EventType.ORDER_CREATED, actor=actor)
            if form_session is None
            else None
        )
        return candidate, insert, prepared

    first = next(found, None) if write else None
    ready = [] if first is None else [(*first, build(*first))]
    alone = alone and not walks[0].missing
    with transaction.atomic() if write and not alone else nullcontext():
        if user_id is not None:
            if write:
                # Two requests of one user must not both slip under the cap.
                advisory_xact_lock("antifraud", terminal.pk, user_id)
            antifraud_check(terminal=terminal, user_id=user_id)

        if side == Side.SELL:
            # 402 before matching when the balance cannot cover the amount asked. The
            # reserve itself is made last, for the amount chosen, once the requisite's
            # caps hold (the lock order: the load row before the merchant's balance);
            # the order row names it by the id it will have.
            reserve_amount = amount + fee_for(amount, rate=fee_range.fee, fixed=fee_range.fixed_fee)
            balance_covers_check(Balance.objects.get(terminal=terminal), reserve_amount)

        if write:
            walks[0].begin_writing()  # the load rows the early read found missing
        order, full, short = None, set(), set()
        attempts = itertools.chain(ready, ((r, c, None) for r, c in found))
        for requisite, chosen, built in attempts:
            if requisite.pk in full or requisite.trader_id in short:
                continue
            if not write:
                fee_amount = fee_for(chosen, rate=fee_range.fee, fixed=fee_range.fixed_fee)
                return OrderAvailability(True, requisite.method, chosen, fee_amount)
            candidate, insert, prepared = built or build(requisite, chosen)
            with riding(gated=True):
                # The order.created event with its deliveries, written with the order
                # only if the caps hold (core.riding), queued then; unless a form
                # session changes the order (its form_url) once it is written.
                event = None if prepared is None else event_write(*prepared, queue=False, ride=True)
                # The INSERT (nothing written when a concurrent order holds this
                # (requisite, amount)), then the caps (then a Sell's reserve): the
                # requisite's load row and a Buy's trader's balance row (frozen in the
                # same statement) stay locked only from here to COMMIT, so creations on
                # one requisite, and on one trader's requisites, queue briefly.
                written, room, deposit = requisite_load_take(
                    insert=insert,
                    requisite_id=requisite.pk,
                    amount=chosen,
                    today=utc_day(candidate.created_at),
                    freeze_on_trader=requisite.trader_id if side == Side.BUY else None,
                    alone=alone,
                )
            if not written:
                continue  # try the next candidate
            if not (room and deposit):
                # No savepoint to roll back (two round trips on every creation for a
                # rare case): the order row, and the slot when it took one, are taken
                # back by hand; the event was never written.
                _untake(candidate, took=room)
                if room:
                    # The trader's deposit does not cover it: none of its requisites
                    # will (a smaller amount was tried first).
                    short.add(requisite.trader_id)
                else:
                    # No room under max_pending or daily_limit; a larger amount fits
                    # no better.
                    full.add(requisite.pk)
                continue
            if event is None:
                _order_complete_creation(candidate, form_session=form_session, actor=actor)
            else:
                event_queue(event)
            if reserve_id is not None:
                # 402 (and nothing written) if the balance was spent since the check.
                candidate.reserve = balance_reserve(
                    terminal_id=terminal.pk,
                    amount=candidate.amount + candidate.fee_amount,
                    reference=str(order_id),
                    reserve_id=reserve_id,
                )
            order = candidate
            break
        if order is None:
            refusal = NoAvailableTraders(
                "No available traders that match order requirements. Try another amount or payment method"
            )
            refusal.clock = walks[0].clock  # when the walk read the requisites
            raise refusal
        if order.sandbox_action:
            sandbox_schedule(order)
    metrics.order_created(order=order)
    return order


def _untake(order: Order, *, took: bool) -> None:
    """Take back a candidate that found no room, or no deposit: its order row (nothing
    refers to it yet), and the requisite's slot when it `took` one (then it was the
    trader's freeze that failed, which changed nothing)."""
    if took:
        requisite_load_untake(requisite_id=order.requisite_id, amount=order.amount)
    with connection.cursor() as cursor:
        cursor.execute(_DELETE_ORDER, [Order._meta.pk.get_db_prep_value(order.pk, connection)])


_DELETE_ORDER = f"DELETE FROM {Order._meta.db_table} WHERE id = %s"


def _order_complete_creation(
    order: Order, *, form_session: Callable[[Order], str] | None, actor: str
) -> None:
    """What follows once the candidate holds its place when it changes the order (the
    form session: its form_url); then the order.created event."""
    order.form_url = form_session(order)
    Order.objects.filter(pk=order.pk).update(form_url=order.form_url)
    emit_event(order, EventType.ORDER_CREATED, actor=actor)
