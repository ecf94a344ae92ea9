"""A device's bank notification: kept, read, matched to the one Pending Buy it pays
for (traders.md §20).

Matching rests on `unique_amount`: one requisite never has two Pending Buy orders of
the same amount (the partial unique index on Pending Buy (requisite, amount)). So
the candidates are found by equality on (requisite, amount) for each requisite bound
to the device, read straight off that index: the cost does not grow with how many
orders a requisite has Pending. Exactly one candidate is completed through
`orders.services.order_confirm` with actor `device:<id>`, the same service a trader's
tap calls; two or more (the same amount on two of the device's requisites) complete
nothing.

The match reads the candidates locked, as a close reads the order it locks, and the
notification's row is written next, in the same transaction as the order's
completion: a retry of the same (device, id) waits on the order's lock (or on the
unique constraint), then finds the order no longer Pending and the first row, so an
order is never completed twice and every retry gets the first answer."""

import functools
import logging
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db import IntegrityError, connection, transaction
from django.utils.translation import gettext as _

from audit.models import ActorKind
from audit.services import audit_record
from core.db import db_now_sql
from core.error_codes import ErrorCode
from core.errors import InsufficientFunds, InvalidRequest, NotFound
from core.fast_insert import insert_row
from core.formats import parse_uuid
from core.prepared import NotCommittedAhead
from core.riding import riding, send_waiting
from finance.models import PaymentMethod, Side
from orders.audited import order_act_audited
from orders.joined import CLOSE_RELATED, order_read_sql, prep, read_orders
from orders.models import Order, OrderStatus, Requisite
from orders.services import OrderNotPending, order_confirm

from .models import BankNotification, Device, NotificationStatus
from .reader import INCOMING, read_notification

logger = logging.getLogger(__name__)


@dataclass
class Received:
    notification: BankNotification
    duplicate: bool

    @property
    def order_id(self):
        """The order the answer names: for a duplicate, the first answer's, and a
        notification attached to an order later was first answered without one."""
        if self.duplicate and self.notification.attached_by:
            return None
        return self.notification.order_id


def device_actor(device: Device) -> str:
    return f"device:{device.pk}"


def notification_receive(
    *,
    device: Device,
    external_id: str,
    source: str,
    title: str,
    text: str,
    received_at: datetime,
) -> Received:
    """Keep the notification with what was read from it, and complete the order it pays
    for when there is exactly one; a (device, id) seen before is a duplicate and
    changes nothing. A duplicate is told by the unique (device, id) constraint
    itself: no lookup before the INSERT, which a phone's retry (rare) pays for instead
    of every first delivery.

    Received in a transaction of its own (not inside a caller's), the notification
    writes nothing after the order's close, so the close commits it in the round trip
    of its last statement (`order_confirm`'s `commit_ahead`): a burst of closes on one
    requisite holds its shared rows the shorter. A close that cannot end the
    transaction that way (the trader's balance refuses it, or an account's row is
    made on first use) leaves it uncommitted and undone, and the notification is
    received again the usual way.

    A close the books refuse (the trader's reward above the fee when the platform's
    revenue cannot cover it: `InsufficientFunds`) undoes the close, and the
    notification is kept `unmatched` with the order still Pending: the device's
    message is never lost, and its trader can attach it once the books allow it."""
    reading = read_notification(text, title, source)
    kept = {  # the row's fields known before the match
        "device": device,
        "external_id": external_id,
        "source": source,
        "title": title,
        "text": text,
        "received_at": received_at,
        "amount": reading.amount,
        "direction": reading.direction,
        "bank": reading.bank,
    }
    payment = reading.direction == INCOMING and reading.amount is not None
    try:
        try:
            return _received(kept, payment, commit_ahead=not connection.in_atomic_block)
        except NotCommittedAhead:
            return _received(kept, payment, commit_ahead=False)
    except InsufficientFunds as refusal:
        logger.warning(
            "device %s notification %r: the order's close was refused (%s); kept unmatched",
            device.pk,
            external_id,
            refusal,
        )
        return _received(kept, payment, commit_ahead=False, refused=True)


def _received(kept: dict, payment: bool, *, commit_ahead: bool, refused=False) -> Received:
    device = kept["device"]
    try:
        with transaction.atomic(), riding():
            found = (
                matching_orders(device=device, amount=kept["amount"], bank=kept["bank"])
                if payment and not refused
                else []
            )
            status = _status_for(payment, found)
            # Written with the order it is about to complete locked, in the statement
            # that changes the close's balances (core.riding; alone when nothing is
            # closed): a retry of the same id waits on that lock, or on the unique
            # constraint, until this transaction ends; one that finds the order still
            # Pending (this one was kept unmatched) is refused by that constraint in
            # its close's statement, and the close undone with it.
            notification = BankNotification(
                **kept,
                status=status,
                order_id=found[0].pk if status == NotificationStatus.MATCHED else None,
            )
            insert_row(notification, ride=True)
            if status == NotificationStatus.MATCHED:
                _complete(notification, device, found[0], commit_ahead=commit_ahead)
    except IntegrityError:
        first = _first_of(device, kept["external_id"])
        if first is None:
            raise
        return Received(first, duplicate=True)
    return Received(notification, duplicate=False)


def _status_for(payment: bool, found: list) -> str:
    if not payment:
        return NotificationStatus.IGNORED
    if not found:
        return NotificationStatus.UNMATCHED
    return NotificationStatus.MATCHED if len(found) == 1 else NotificationStatus.AMBIGUOUS


def _first_of(device: Device, external_id: str) -> BankNotification | None:
    return BankNotification.objects.filter(device=device, external_id=external_id).first()


REQUISITES = Requisite._meta.db_table
DEVICE_REQUISITES = Device.requisites.through._meta.db_table
METHODS = PaymentMethod._meta.db_table

# The condition on the order (alias `o`) of one statement that reads the candidates as
# a close reads and locks its order (orders.joined), prepared once per connection
# (core.prepared): the match is the close's lock, one round trip instead of two.
# Status and side are written into the text, not bound, so that even a generic plan
# can prove the partial unique index's condition and probe it by (requisite, amount).
# On PostgreSQL the device's requisites come as one array (computed once, before the
# orders are read), which makes them an index condition on that index's first column
# beside the amount. No other condition may lead the planner to another index: a
# generic plan made on statistics from when few orders were Pending read every Pending
# order of every trader through `order_pending_expiry` (10,000 Pending elsewhere: 4 ms
# a notification), or every order the trader ever had through `order_trader_created`.
# So the expiry is written so that it does not imply the first index's condition, and
# the trader's test is not a condition an index can take (`IS TRUE`: the same rows).
_MATCH = """
    o.requisite_id {among}
        SELECT dr.requisite_id FROM {device_requisites} dr
        JOIN {requisites} r ON r.id = dr.requisite_id{bank_join}
        WHERE dr.device_id = %s AND r.trader_id = %s{bank_match}{close}
      AND o.amount = %s AND o.status = '{pending}' AND o.side = '{buy}'
      AND (o.trader_id = %s) IS TRUE AND o.livemode = %s
      AND COALESCE(o.expires_at > {now}, FALSE)
"""


@functools.cache
def _match_where(by_bank: bool, vendor: str) -> str:
    array = vendor == "postgresql"
    return _MATCH.format(
        among="= ANY(ARRAY(" if array else "IN (",
        close="))" if array else ")",
        device_requisites=DEVICE_REQUISITES,
        requisites=REQUISITES,
        bank_join=f" JOIN {METHODS} m ON m.id = r.method_id" if by_bank else "",
        bank_match=" AND m.nspk_code = %s" if by_bank else "",
        pending=OrderStatus.PENDING,
        buy=Side.BUY,
        now=db_now_sql(vendor),
    )


def _match_sql(by_bank: bool) -> str:
    """The match's whole statement on this database."""
    where = _match_where(by_bank, connection.vendor)
    return order_read_sql(where, CLOSE_RELATED, lock=True, limit=2)


def matching_orders(*, device: Device, amount: Decimal | None, bank: str | None) -> list:
    """The Pending, not overdue Buy orders of exactly `amount` on the device's
    requisites (of `bank` when it is named), of the device's trader and its mode (live
    or sandbox), locked, read as a close reads its order; at most two, which is enough
    to tell one from many (the first two by id, so two notifications lock them in the
    same order). A row completed meanwhile by another transaction is not among them:
    the lock waits for it and then finds it no longer Pending."""
    if amount is None:
        return []
    trader = Requisite._meta.get_field("trader").get_db_prep_value(device.trader_id, connection)
    params = [Device._meta.pk.get_db_prep_value(device.pk, connection), trader]
    if bank:
        params.append(bank)
    params += [prep("amount", amount), trader, device.trader.livemode]
    where = _match_where(bool(bank), connection.vendor)
    return read_orders(where, params, related=CLOSE_RELATED, lock=True, limit=2)


def _complete(
    notification: BankNotification, device: Device, order: Order, *, commit_ahead: bool
) -> None:
    """The matched order (locked by the match) confirmed by the device, with its audit
    entry (actor kind device) in the same transaction, which the close may commit
    (`commit_ahead`: nothing is written after it but on a refusal, which it does not
    commit)."""
    try:
        notification.order = order_act_audited(
            # no savepoint: a refusal before the close's first write (no longer
            # Pending) is handled below; any other error fails the notification whole
            service=functools.partial(
                order_confirm, savepoint=False, locked=order, commit_ahead=commit_ahead
            ),
            order_id=order.pk,
            actor=device_actor(device),
            actor_kind=ActorKind.DEVICE,
            actor_id=device.pk,
            action="order.confirm",
            request=None,
            # inside the notification's transaction, which any other error undoes whole
            savepoint=False,
        )
    except OrderNotPending:  # just expired since it was found
        send_waiting()  # the notification's row, if the expiry did not carry it
        notification.status, notification.order = NotificationStatus.UNMATCHED, None
        notification.save(update_fields=["status", "order"])


ATTACHABLE = {NotificationStatus.UNMATCHED, NotificationStatus.AMBIGUOUS}


def notification_attach(*, notification: BankNotification, order_id, actor: str) -> Order:
    """An unmatched (or ambiguous) notification attached to a Pending Buy of its
    device's trader, by that trader or an operator (`actor`: `trader:<id>` or
    `operator:<user name>`): the order completes as a trader's confirm would, with the
    amount the notification says arrived; the notification records it, and the audit
    log who did it. Refusals are said in the page's language (only pages attach)."""
    device = notification.device
    if notification.status not in ATTACHABLE:
        raise InvalidRequest(_("Only an unmatched notification can be attached to an order"))
    order = (
        Order.objects.filter(
            pk=order_id,
            trader_id=device.trader_id,
            side=Side.BUY,
            livemode=device.trader.livemode,
        ).first()
        if parse_uuid(order_id)
        else None
    )
    if order is None:
        message = _("No Buy of this notification's trader has this id")
        raise NotFound(message, code=ErrorCode.ORDER_NOT_FOUND)
    paid = notification.amount
    if paid is None or paid > order.amount * 2:
        raise InvalidRequest(_("The notification's amount cannot pay this order"))
    kind, _colon, actor_id = actor.partition(":")
    with transaction.atomic():
        locked = BankNotification.objects.select_for_update().get(pk=notification.pk)
        if locked.status not in ATTACHABLE:
            raise InvalidRequest(_("Only an unmatched notification can be attached to an order"))
        try:
            order = order_confirm(order_id=order.pk, actor=actor, paid_amount=paid)
        except OrderNotPending:
            raise OrderNotPending(_("The order is no longer Pending")) from None
        locked.status = NotificationStatus.MATCHED
        locked.order = order
        locked.attached_by = actor
        locked.save(update_fields=["status", "order", "attached_by"])
        audit_record(
            actor_kind=ActorKind.TRADER if kind == "trader" else ActorKind.OPERATOR,
            actor_id=actor_id,
            action="notification.attach",
            obj=order,
            changes={"notification": locked.pk, "paid_amount": paid},
        )
    notification.status, notification.order, notification.attached_by = (
        locked.status,
        order,
        actor,
    )
    return order
