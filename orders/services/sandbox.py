"""Test mode (product §11): what the sandbox does to a sandbox terminal's orders.

A sandbox order is matched only to sandbox traders' requisites (the matcher's filter)
and otherwise lives exactly as a live one: same balance rules, events and webhooks.
Its kopecks may ask for an outcome, decided once at creation and kept on the order
(`sandbox_action`): .11 completes, .12 is cancelled, .13 expires, each within 10 s of
creation; .14 is refused at creation as if no trader were free. The outcome is
reached through the same lifecycle services as a trader's confirm and decline and the
expiry sweep, with actor "sandbox".

Two roads lead there, so a lost broker message or a dead worker still keeps the
10 s promise: a task queued on commit with a short countdown, and a beat sweep that
takes any such order still Pending a few seconds after creation. Both end in
`sandbox_act`, which does nothing to an order that is no longer Pending, so the one
that comes second is harmless.
"""

import logging
from datetime import timedelta
from decimal import Decimal
from enum import StrEnum

from celery import current_app
from django.db import transaction

from core.db import DbNow
from core.error_codes import ErrorCode
from core.errors import Forbidden, InvalidRequest, NoAvailableTraders
from core.money import quantize_money
from finance.models import Side, Terminal

from ..models import Order, OrderStatus
from .lifecycle import OrderNotPending, order_cancel, order_confirm, order_expire_now

logger = logging.getLogger(__name__)

SANDBOX_ACTOR = "sandbox"
# The queued task waits this long, so the merchant sees the order Pending first (its
# order.created webhook, the creation response) and the outcome a moment later.
ACT_AFTER_SECONDS = 2
# The sweep (every 2 s) takes magic orders at least this old: the task had its chance.
SWEEP_AFTER_SECONDS = 4
ACT_TASK = "orders.tasks.sandbox_act"


class SandboxAction(StrEnum):
    COMPLETE = "complete"
    CANCEL = "cancel"
    EXPIRE = "expire"


MAGIC_KOPECKS = {11: SandboxAction.COMPLETE, 12: SandboxAction.CANCEL, 13: SandboxAction.EXPIRE}
REFUSED_KOPECKS = 14


def kopecks(amount: Decimal) -> int:
    return int(quantize_money(amount) * 100 % 100)


def sandbox_action_for(*, terminal: Terminal, amount: Decimal) -> SandboxAction | None:
    """The outcome a sandbox order of `amount` asks for; none on live terminals, where
    magic amounts are ordinary amounts."""
    if terminal.livemode:
        return None
    return MAGIC_KOPECKS.get(kopecks(amount))


def sandbox_refusal_check(*, terminal: Terminal, amount: Decimal) -> None:
    """.14 on a sandbox terminal: the 500 a merchant gets when no trader is free."""
    if not terminal.livemode and kopecks(amount) == REFUSED_KOPECKS:
        raise NoAvailableTraders(
            "No available traders that match order requirements. "
            "Try another amount or payment method (sandbox: amounts ending in .14 are refused)"
        )


def sandbox_schedule(order: Order) -> None:
    """Queue the magic amount's task once the order is committed. Sent by name: the
    task module imports these services, not the other way round. A broker that is
    down loses nothing: the beat sweep finds the order a few seconds later."""
    order_id = str(order.pk)

    def publish():
        try:
            current_app.send_task(
                ACT_TASK, args=[order_id], countdown=ACT_AFTER_SECONDS, retry=False
            )
        except Exception as exc:
            logger.warning("Broker unavailable (%s); sandbox order left to the sweep", exc)

    transaction.on_commit(publish, robust=True)


def _apply(order_id, action: str, *, paid_amount: Decimal | None = None) -> Order:
    if action == SandboxAction.COMPLETE:
        return order_confirm(order_id=order_id, actor=SANDBOX_ACTOR, paid_amount=paid_amount)
    if action == SandboxAction.CANCEL:
        return order_cancel(order_id=order_id, actor=SANDBOX_ACTOR)
    return order_expire_now(order_id=order_id, actor=SANDBOX_ACTOR)


def sandbox_act(*, order_id) -> Order | None:
    """Give a magic-amount order its outcome; None when there is nothing to do (not a
    magic order, or already closed by the other road, the merchant or expiry)."""
    row = Order.objects.filter(pk=order_id).values("status", "sandbox_action").first()
    if row is None or row["status"] != OrderStatus.PENDING or not row["sandbox_action"]:
        return None
    try:
        return _apply(order_id, row["sandbox_action"])
    except OrderNotPending:
        return None


def sandbox_act_due(*, limit: int = 200) -> int:
    """The sweep: act on magic-amount orders still Pending a few seconds after creation."""
    due_before = DbNow() - timedelta(seconds=SWEEP_AFTER_SECONDS)
    due = Order.objects.filter(
        status=OrderStatus.PENDING, sandbox_action__isnull=False, created_at__lte=due_before
    )
    acted = 0
    for order_id in list(due.order_by("created_at").values_list("id", flat=True)[:limit]):
        if sandbox_act(order_id=order_id) is not None:
            acted += 1
    return acted


def order_simulate(*, order: Order, action: str, paid_amount: Decimal | None = None) -> Order:
    """Act on a sandbox order as its trader (complete, cancel) or the clock (expire)
    would. 403 for a live order; 409 when it is not Pending."""
    if order.livemode:
        raise Forbidden(code=ErrorCode.SANDBOX_ONLY)
    if action not in list(SandboxAction):
        allowed = ", ".join(SandboxAction)
        raise InvalidRequest(f"Unknown action; allowed: {allowed}", errors={"action": [allowed]})
    if paid_amount is not None:
        if action != SandboxAction.COMPLETE:
            raise InvalidRequest(
                "paid_amount is only accepted with action complete",
                errors={"paid_amount": ["Only accepted with action complete"]},
            )
        if order.side == Side.SELL and paid_amount != order.amount:
            raise InvalidRequest(
                "A Sell is paid out in full: paid_amount must equal the order's amount",
                errors={"paid_amount": ["Must equal the order's amount for a Sell"]},
            )
        if order.side == Side.SELL:
            paid_amount = None  # its amount, as a Sell always completes
    return _apply(order.pk, action, paid_amount=paid_amount)
