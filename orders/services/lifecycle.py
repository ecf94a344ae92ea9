"""Order transitions: confirm, cancel, expire, and completion by an accepted dispute.

Every change is one transaction that locks the order, checks the transition against
ORDER_TRANSITIONS, writes the status and records the webhook event in the outbox, and
then keeps the requisite's figures and moves the money through finance.

The lock order every writer follows: the order, the requisite's row (where its run of
expiries is written), the requisite's load row, then the balance rows, a trader's
before the platform's before a merchant's. Creation takes the load row before the
trader's (a Buy's deposit) or the merchant's (a Sell's reserve) row. The balance
rows are the ones many transactions share (one merchant's orders, one trader's, every
order's platform row), so they come last, all changed in one statement in that order
(finance's `movements_together`, which writes the ledger's rows in it on PostgreSQL):
they are held from it to COMMIT, not through the whole close (the caller's audit entry
is written before them: `on_closed`).
"""

from collections.abc import Callable
from decimal import Decimal

from django.db import transaction

from core import metrics
from core.error_codes import ErrorCode
from core.errors import Conflict, NotFound, ServiceError
from core.fast_insert import update_row
from core.money import fee_for, quantize_money
from core.riding import riding
from finance.models import Side, TransactionType
from finance.services import (
    Credit,
    balance_credit,
    balance_debit,
    balance_post,
    balance_unfreeze,
    balance_void,
    movements_together,
)
from webhooks.models import EventType

from ..joined import CLOSE_RELATED, prep, read_order
from ..models import ORDER_TRANSITIONS, Order, OrderStatus, merchant_credit
from .events import emit_event
from .load import requisite_load_move
from .request_rules import paid_amount_check
from .requisite_state import requisite_count_expiry, requisite_run_ends

# A caller's writes inside a close (its audit entry), given the order just closed.
OnClosed = Callable[[Order], None]


class OrderNotPending(Conflict):
    code = ErrorCode.ORDER_NOT_PENDING


def _lock(order_id) -> Order:
    """The order, locked (the first lock of every close: see the module's lock order),
    with its terminal and method and the database's time beside it."""
    order = read_order("o.id = %s", [prep("id", order_id)], related=CLOSE_RELATED, lock=True)
    if order is None:
        raise NotFound(code=ErrorCode.ORDER_NOT_FOUND)
    return order


def _close(
    order: Order,
    status: str,
    *,
    actor: str,
    paid_amount: Decimal | None = None,
    on_closed: OnClosed | None = None,
    commit_ahead: bool = False,
) -> Order:
    _close_check(order, status, paid_amount)
    if status == OrderStatus.COMPLETED:
        order.paid_amount = order.amount if paid_amount is None else quantize_money(paid_amount)
        if order.paid_amount != order.amount and order.side == Side.BUY:
            # Charged on what arrived, as for an accepted dispute.
            order.fee_amount = fee_for(order.paid_amount, rate=order.fee, fixed=order.fixed_fee)
    return _settle(
        order,
        status,
        actor=actor,
        credit_description=f"Order {order.client_order_id}",
        on_closed=on_closed,
        commit_ahead=commit_ahead,
    )


def _close_check(order: Order, status: str, paid_amount: Decimal | None) -> None:
    """Every refusal of a close, raised before it writes anything."""
    if status not in ORDER_TRANSITIONS[order.status]:
        raise OrderNotPending(f"Order is {order.status}, not Pending")
    if status == OrderStatus.COMPLETED and paid_amount is not None:
        paid_amount_check(order, paid_amount)


_EVENT_FOR_STATUS = {
    OrderStatus.COMPLETED: EventType.ORDER_COMPLETED,
    OrderStatus.CANCELLED: EventType.ORDER_CANCELLED,
    OrderStatus.EXPIRED: EventType.ORDER_EXPIRED,
}


CLOSE_FIELDS = [
    "status",
    "paid_amount",
    "fee_amount",
    "trader_reward",
    "closed_at",
    "closed_by",
    "event_sequence",
    "updated_at",
]


def _settle(
    order: Order,
    status: str,
    *,
    actor: str,
    credit_description: str,
    on_closed: OnClosed | None = None,
    commit_ahead: bool = False,
) -> Order:
    """The one way an order closes (locked, transition already checked): write the
    status and record its event (and call `on_closed(order)`: a caller's own writes,
    its audit entry), then, in the lock order, keep the requisite's figures (its load
    row) and move the money for `status` on all three sides: the trader's and the
    platform's (`_settle_trader`), then the merchant's (a Buy's credit of paid_amount
    less fee_amount, a Sell's reserve posted or voided). `commit_ahead`: the
    caller's transaction may be committed with the close's last statement
    (`movements_together`'s `commit`)."""
    # A Pending Buy's working deposit is frozen on its trader (`_settle_trader` leaves
    # out one made before the books); read before the status changes.
    frozen = (
        order.amount
        if order.side == Side.BUY and order.status == OrderStatus.PENDING
        else Decimal(0)
    )
    if status == OrderStatus.EXPIRED:
        requisite_count_expiry(requisite_id=order.requisite_id, actor=actor)
    if status == OrderStatus.COMPLETED and order.trader_id is not None and not order.before_books:
        base = order.paid_amount if order.side == Side.BUY else order.amount
        order.trader_reward = fee_for(base, rate=order.trader_reward_percent, fixed=Decimal(0))
    previous = order.status
    order.status = status
    order.closed_at = order.clock
    order.closed_by = actor
    order.event_sequence += 1  # the event below, written with the order
    # The order's UPDATE, the caller's writes (its audit entry) and the event with its
    # deliveries ride (core.riding) on the statement that changes the balances below:
    # no round trip of their own. The order's row is locked already; the rest are new
    # rows, which nothing else waits for.
    with riding():
        update_row(order, CLOSE_FIELDS, ride=True)
        if on_closed is not None:
            on_closed(order)
        emit_event(order, _EVENT_FOR_STATUS[status], actor=actor, ride=True)
        metrics.order_transitioned(to=status, actor=actor)
        # The rows many closes share, in the lock order, each held from here to
        # COMMIT: the requisite's load row (and before it, when its run of expiries
        # ends, the requisite's row), then the balances.
        lead = requisite_load_move(
            order=order,
            status=status,
            previous=previous,
            end_run=requisite_run_ends(status=status, actor=actor),
        )
        # The balance rows are changed (and locked) together, in the lock order, in
        # one statement once all the movements have run, the load row's move (when it
        # was handed back) at its head, their ledger rows and the writes riding
        # written by it too. A burst of closes on one requisite queues on its load row:
        # no Python and no round trip runs between its lock and the balances', nor
        # between those and the ledger's rows. What no such statement carried (no
        # balance moved, or not on PostgreSQL) is sent as the block ends.
        with movements_together(lead=lead, commit=commit_ahead):
            _settle_trader(order, status, frozen=frozen)
            _settle_merchant(order, status, credit_description=credit_description)
    return order


def _settle_merchant(order: Order, status: str, *, credit_description: str) -> None:
    """The merchant's side, the last row locked: a Buy's credit of paid_amount less
    fee_amount on Completed; a Sell's reserve posted on Completed, voided otherwise."""
    if status == OrderStatus.COMPLETED:
        if order.side == Side.BUY:
            credit = merchant_credit(order.paid_amount, order.fee_amount)
            if credit > 0:
                balance_credit(
                    terminal_id=order.terminal_id,
                    amount=credit,
                    description=credit_description,
                    reference=str(order.pk),
                )
        elif order.reserve_id:
            balance_post(reserve_id=order.reserve_id, description=f"Payout {order.client_order_id}")
    elif order.side == Side.SELL and order.reserve_id:
        balance_void(reserve_id=order.reserve_id)


def _settle_trader(order: Order, status: str, *, frozen: Decimal) -> None:
    """The trader's and the platform's side (trader, then platform: the lock order).
    `frozen`: the Buy's working deposit, unfrozen; on Completed a Buy debits the
    trader paid_amount (order_buy) in that same row update, a Sell credits it the
    amount (order_sell), the reward (order.trader_reward) following in the same row
    update too; then the platform's revenue fee_amount - reward. Merchant + trader +
    platform = 0.
    A Buy made before the books (`before_books`) froze nothing: it closes as it would
    have then, the merchant's side only (no reward written, so the three-sided check
    leaves it out as it does orders completed before the books)."""
    if order.trader_id is None or order.before_books:
        return
    if status != OrderStatus.COMPLETED:
        if frozen:
            balance_unfreeze(trader_id=order.trader_id, amount=frozen)
        return
    # The trader's ledger names the order by our id, never the merchant's
    # client_order_id (the trader's view leaves out what is the merchant's).
    reference, label = str(order.pk), str(order.pk)[:8]
    # The reward follows the order's own money in the same row update (two ledger rows).
    reward = (
        Credit(order.trader_reward, TransactionType.REWARD, f"Reward {label}")
        if order.trader_reward > 0
        else None
    )
    if order.side == Side.BUY:
        balance_debit(
            trader_id=order.trader_id,
            amount=order.paid_amount,
            unfreeze=frozen,
            kind=TransactionType.ORDER_BUY,
            description=f"Buy {label}",
            reference=reference,
            then_credit=reward,
        )
    else:
        balance_credit(
            trader_id=order.trader_id,
            amount=order.amount,
            kind=TransactionType.ORDER_SELL,
            description=f"Sell {label}",
            reference=reference,
            then_credit=reward,
        )
    revenue = order.fee_amount - order.trader_reward
    platform = not order.livemode
    if revenue > 0:
        balance_credit(
            platform=platform,
            amount=revenue,
            kind=TransactionType.REVENUE,
            description=f"Revenue {label}",
            reference=reference,
        )
    elif revenue < 0:
        balance_debit(
            platform=platform,
            amount=-revenue,
            kind=TransactionType.WITHDRAWAL,
            description=f"Reward above fee {label}",
            reference=reference,
        )


def _transition(
    order_id,
    status: str,
    *,
    actor: str,
    paid_amount: Decimal | None = None,
    savepoint: bool = True,
    on_closed: OnClosed | None = None,
    locked: Order | None = None,
    commit_ahead: bool = False,
) -> Order:
    """Move a Pending order to `status`; an order already past expiry expires instead
    and the caller gets 409, as if the sweep had run first. `on_closed(order)` runs in
    the close, once its status is written, before the rows it shares with other closes
    (not when the order expires instead); a money refusal after it takes it back too.

    The refusals checked before the first write (`_lock`, `_close_check`) are raised
    once the block is over. A money refusal comes later (a paid amount the trader's
    balance does not cover, 402), so inside a caller's transaction the block is a
    savepoint that takes the close back, and the caller's transaction goes on. A
    caller whose transaction fails whole on any error but a refusal before the first
    write (a device's notification) passes `savepoint=False`: two round trips fewer.
    Such a caller may also have locked the order already, in its transaction, as
    `_lock` reads it (`locked`: the notification's match reads it that way), and,
    when it opened the outermost transaction and writes nothing after the close, let
    the close commit it (`commit_ahead`; not an overdue order's expiry, after which the
    caller writes its refusal)."""
    refused = None
    with transaction.atomic(savepoint=savepoint):
        try:
            order = locked if locked is not None else _lock(order_id)
            overdue = order.is_overdue
            if not overdue:
                _close_check(order, status, paid_amount)
        except ServiceError as error:
            refused = error
        else:
            if overdue:
                _close(order, OrderStatus.EXPIRED, actor="expiry")
                refused = OrderNotPending("Order is Expired, not Pending")
            else:
                _close(
                    order,
                    status,
                    actor=actor,
                    paid_amount=paid_amount,
                    on_closed=on_closed,
                    commit_ahead=commit_ahead,
                )
    if refused is not None:
        raise refused
    return order


def order_confirm(
    *,
    order_id,
    actor: str,
    paid_amount: Decimal | None = None,
    savepoint: bool = True,
    on_closed: OnClosed | None = None,
    locked: Order | None = None,
    commit_ahead: bool = False,
) -> Order:
    """Completed; `paid_amount` is the order's amount unless told otherwise (the
    sandbox's simulate may say what arrived). `savepoint`, `on_closed`, `locked`,
    `commit_ahead`: see `_transition`."""
    return _transition(
        order_id,
        OrderStatus.COMPLETED,
        actor=actor,
        paid_amount=paid_amount,
        savepoint=savepoint,
        on_closed=on_closed,
        locked=locked,
        commit_ahead=commit_ahead,
    )


def order_cancel(*, order_id, actor: str, on_closed: OnClosed | None = None) -> Order:
    return _transition(order_id, OrderStatus.CANCELLED, actor=actor, on_closed=on_closed)


def order_expire_now(*, order_id, actor: str) -> Order:
    """Expire a Pending order before its time, as if it had run out (the sandbox's
    .13 and simulate); 409 when it is not Pending."""
    return _transition(order_id, OrderStatus.EXPIRED, actor=actor)


def order_expire(*, order_id) -> Order | None:
    """Expire one order if it is still Pending and due; None when there is nothing to do."""
    with transaction.atomic():
        order = _lock(order_id)
        if not order.is_overdue:
            return None
        return _close(order, OrderStatus.EXPIRED, actor="expiry")


def order_expire_due(*, limit: int = 500, terminal_id=None) -> int:
    """The sweep: expire Pending orders past expires_at, each in its own transaction."""
    due = Order.objects.overdue()
    if terminal_id is not None:
        due = due.filter(terminal_id=terminal_id)
    expired = 0
    for order_id in list(due.order_by("expires_at").values_list("id", flat=True)[:limit]):
        try:
            if order_expire(order_id=order_id) is not None:
                expired += 1
        except NotFound:
            continue
    return expired


def order_complete_by_dispute(*, order_id, paid_amount: Decimal, actor: str) -> Order | None:
    """Accepting a dispute on a Buy order that is not Completed completes it with the
    disputed amount; the merchant is credited that amount less the fee on it.
    Returns None when the order is not such an order (the decision is recorded only)."""
    with transaction.atomic():
        order = _lock(order_id)
        if not order.completable_by_dispute:
            return None
        order.paid_amount = quantize_money(paid_amount)
        order.fee_amount = order.fee_on(order.paid_amount)
        return _settle(
            order,
            OrderStatus.COMPLETED,
            actor=actor,
            credit_description=f"Dispute on order {order.client_order_id}",
        )
