"""Order lifecycle: create (with matching), confirm, cancel, expire, dispute completion.

Every change is one transaction that locks in a fixed order (balance, then order),
checks the transition against ORDER_TRANSITIONS, moves money through finance,
writes the status and records the webhook event in the outbox.
"""

import logging
import uuid
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from finance.models import FeeRange, MethodType, PaymentMethod, Side, Terminal, TerminalMethod
from finance.services import (
    account_is_blacklisted,
    balance_credit,
    balance_lock,
    balance_post,
    balance_reserve,
    balance_void,
    method_deeplink,
    normalize_account,
)
from paymentsvc.db import advisory_xact_lock
from paymentsvc.errors import (
    Conflict,
    InvalidRequest,
    NoAvailableTraders,
    NotFound,
    TooManyRequests,
)
from paymentsvc.formats import parse_uuid
from paymentsvc.keys import generate_key
from paymentsvc.money import fee_for, quantize_money
from webhooks.models import EventType
from webhooks.services import event_record

from . import hooks, matching
from .models import DISPUTE_COMPLETABLE, ORDER_TRANSITIONS, Order, OrderStatus
from .render import render_order

logger = logging.getLogger(__name__)

LIMITS_MESSAGE = "Expectation Failed. Amount for the chosen payment method doesn't meet limits"
ANTIFRAUD_MESSAGE = "User has reached the maximum limit of pending orders. Please try again later"
CUSTOMER_BANKS = {"sberbank", "vtb", "tinkoff", "alfabank"}


class OrderNotPending(Conflict):
    code = "order_not_pending"


# --- Resolving the method and its fees ----------------------------------------------------


def _methods_named(*, terminal: Terminal, payment_method_id, method_type, nspk_code):
    """The methods a request names, way 1 (payment_method_id) or way 2 (method_type
    [+ nspk_code]), among those enabled on the terminal; the one meant comes first."""
    enabled = PaymentMethod.objects.filter(
        terminals__terminal=terminal,
        terminals__enabled=True,
        is_active=True,
        currency=terminal.currency,
    )
    if payment_method_id is not None:
        method_uuid = parse_uuid(payment_method_id)
        return enabled.filter(pk=method_uuid) if method_uuid else enabled.none()
    if nspk_code is not None:
        return enabled.filter(
            method_type=method_type, nspk_code=nspk_code, is_aggregate=False
        ).order_by("name")
    return enabled.filter(method_type=method_type, nspk_code__isnull=True).order_by(
        "-is_aggregate", "name"
    )


def method_resolve(
    *, terminal: Terminal, side: str, payment_method_id=None, method_type=None, nspk_code=None
) -> tuple[PaymentMethod, list[FeeRange]]:
    """The method a request names and its fee ranges for `side`; 404 if it names
    nothing. One query when the method has ranges for the side (every order that
    goes on to be created), a second only to tell 404 from 'no such side'."""
    named = _methods_named(
        terminal=terminal,
        payment_method_id=payment_method_id,
        method_type=method_type,
        nspk_code=nspk_code,
    )
    ranges = list(
        FeeRange.objects.select_related("method").filter(
            method__in=named.values("pk")[:1], side=side, currency=F("method__currency")
        )
    )
    if ranges:
        return ranges[0].method, ranges
    method = named.first()
    if method is None:
        raise NotFound("Payment method not found", code="payment_method_not_found")
    return method, []


def fee_range_for(*, ranges: list[FeeRange], side: str, amount: Decimal) -> FeeRange:
    for fee_range in ranges:
        if fee_range.min_amount <= amount <= fee_range.max_amount:
            return fee_range
    if not ranges:
        raise Conflict(
            f"{LIMITS_MESSAGE}: the method does not support {side}", code="amount_out_of_limits"
        )
    low = min(r.min_amount for r in ranges)
    high = max(r.max_amount for r in ranges)
    raise Conflict(f"{LIMITS_MESSAGE} ({low:.2f} - {high:.2f})", code="amount_out_of_limits")


def antifraud_cap(terminal: Terminal) -> int:
    if terminal.antifraud_max_pending is not None:
        return terminal.antifraud_max_pending
    return settings.ANTIFRAUD_MAX_PENDING_PER_USER


def pending_count_for_user(*, terminal: Terminal, user_id: str) -> int:
    return Order.objects.filter(
        terminal=terminal,
        user_id=user_id,
        status=OrderStatus.PENDING,
        expires_at__gt=timezone.now(),
    ).count()


def _record(order: Order, event_type: str) -> None:
    """Bump the order's event sequence and put the event in the outbox (the order
    row is already locked by the caller)."""
    order.event_sequence += 1
    Order.objects.filter(pk=order.pk).update(event_sequence=order.event_sequence)
    _emit(order, event_type)


def _emit(order: Order, event_type: str) -> None:
    event_record(
        terminal=order.terminal,
        order_id=order.pk,
        event_type=event_type,
        sequence=order.event_sequence,
        data={"order": render_order(order)},
        webhook_url=order.webhook_url,
    )


# --- Creation ---------------------------------------------------------------------------


def order_validate_request(
    *,
    terminal: Terminal,
    side: str,
    payment_method_id=None,
    method_type=None,
    nspk_code=None,
    customer_account=None,
) -> None:
    """The request-shape rules that need no database, in the contract's order."""
    if payment_method_id is not None and method_type is not None:
        raise InvalidRequest(
            "Pass either payment_method_id or method_type, not both",
            errors={"payment_method_id": ["Cannot be combined with method_type"]},
        )
    if payment_method_id is None and method_type is None:
        raise InvalidRequest(
            "Payment method ID or method type is required",
            code="payment_method_required",
            errors={"payment_method_id": ["Payment method ID or method type is required"]},
        )
    if nspk_code is not None and method_type is None:
        raise InvalidRequest(
            "nspk_code is only accepted together with method_type",
            errors={"nspk_code": ["Only accepted together with method_type"]},
        )
    if terminal.integration_type == "order_with_form" and side == Side.SELL:
        raise InvalidRequest(
            "Only Buy orders are supported for this terminal's integration type (order_with_form)",
            code="sell_not_supported",
            errors={"order_side": ["Only Buy is supported for order_with_form terminals"]},
        )
    if side == Side.BUY and customer_account is not None:
        raise InvalidRequest(
            "customer_account must be null for Buy orders",
            errors={"customer_account": ["Must be null for Buy orders"]},
        )
    if side == Side.SELL and not customer_account:
        raise InvalidRequest(
            "Customer account is required",
            code="customer_account_required",
            errors={"customer_account": ["Required for Sell orders"]},
        )


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
    form_options: dict | None = None,
) -> Order:
    order_validate_request(
        terminal=terminal,
        side=side,
        payment_method_id=payment_method_id,
        method_type=method_type,
        nspk_code=nspk_code,
        customer_account=customer_account,
    )
    amount = quantize_money(amount)
    if customer_bank is not None:
        customer_bank = customer_bank.lower()
        if customer_bank not in CUSTOMER_BANKS:
            raise InvalidRequest(
                f"Unknown customer_bank; allowed: {', '.join(sorted(CUSTOMER_BANKS))}",
                errors={"customer_bank": [f"Allowed: {', '.join(sorted(CUSTOMER_BANKS))}"]},
            )
    method, ranges = method_resolve(
        terminal=terminal,
        side=side,
        payment_method_id=payment_method_id,
        method_type=method_type,
        nspk_code=nspk_code,
    )
    if method.is_aggregate and side == Side.SELL:
        raise InvalidRequest(
            "The aggregate method works only for Buy orders",
            code="aggregate_method_buy_only",
            errors={"payment_method_id": ["The aggregate method works only for Buy orders"]},
        )
    fee_range = fee_range_for(ranges=ranges, side=side, amount=amount)
    if side == Side.SELL:
        customer_account = normalize_account(customer_account, method.method_type)
        if account_is_blacklisted(customer_account):
            raise Conflict("Customer account is blacklisted", code="customer_account_blacklisted")

    methods = matching.concrete_methods(method, terminal=terminal)
    amounts = [
        a
        for a in matching.candidate_amounts(amount, unique_amount)
        if fee_range.min_amount <= a <= fee_range.max_amount
    ]
    place = dict(
        terminal=terminal,
        client_order_id=client_order_id,
        side=side,
        amount=amount,
        method=method,
        fee_range=fee_range,
        methods=methods,
        amounts=amounts,
        customer_name=customer_name,
        customer_account=customer_account,
        customer_bank=customer_bank,
        user_id=user_id,
        webhook_url=webhook_url,
        form_options=form_options,
    )
    try:
        return _order_place(**place)
    except NoAvailableTraders:
        # A Pending order past its expiry holds its (requisite, amount) until the
        # sweep expires it. Rather than look for such orders on every creation, free
        # them when they may be what stood in the way, and match once more.
        overdue = matching.overdue_holders(methods=methods, amounts=amounts)
        if not overdue:
            raise
        for overdue_id in overdue:
            order_expire(order_id=overdue_id)
        return _order_place(**place)


def _order_place(
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
    form_options: dict | None,
) -> Order:
    """One try at creating the order, in one transaction: the anti-fraud cap, a Sell's
    reserve, the first free (requisite, amount), the order and its event."""
    ttl = settings.ORDER_TTL_BUY_SECONDS if side == Side.BUY else settings.ORDER_TTL_SELL_SECONDS
    with transaction.atomic():
        if user_id is not None:
            # Two requests of one user must not both slip under the cap.
            advisory_xact_lock("antifraud", terminal.pk, user_id)
            if pending_count_for_user(terminal=terminal, user_id=user_id) >= antifraud_cap(
                terminal
            ):
                raise TooManyRequests(ANTIFRAUD_MESSAGE, code="antifraud_pending_limit")

        order_id = uuid.uuid4()
        reserve = None
        if side == Side.SELL:
            # Sells take the amount asked for unless a requisite's limits force another
            # candidate; then the reserve is re-made below for the amount chosen.
            reserve_amount = amount + fee_for(amount, rate=fee_range.fee, fixed=fee_range.fixed_fee)
            reserve = balance_reserve(
                terminal_id=terminal.pk, amount=reserve_amount, reference=str(order_id)
            )

        now = timezone.now()
        order = None
        for requisite, chosen in matching.candidates(methods=methods, side=side, amounts=amounts):
            fee_amount = fee_for(chosen, rate=fee_range.fee, fixed=fee_range.fixed_fee)
            candidate = Order(
                id=order_id,
                terminal=terminal,
                client_order_id=client_order_id,
                currency=terminal.currency,
                side=side,
                method=requisite.method,
                initial_method=method,
                requisite=requisite,
                trader=requisite.trader,
                requested_amount=amount,
                amount=chosen,
                fee=fee_range.fee,
                fixed_fee=fee_range.fixed_fee,
                fee_amount=fee_amount,
                holder_name=requisite.holder_name,
                holder_account=requisite.account,
                customer_name=customer_name,
                customer_account=customer_account,
                customer_bank=customer_bank,
                user_id=user_id,
                webhook_url=webhook_url,
                payment_link=(
                    method_deeplink(
                        requisite.method,
                        account=requisite.account,
                        amount=chosen,
                        order_id=order_id,
                    )
                    if side == Side.BUY
                    else None
                ),
                reserve=reserve,
                event_sequence=1,  # order.created, recorded below
                created_at=now,
                expires_at=now + timedelta(seconds=ttl),
            )
            try:
                with transaction.atomic():
                    candidate.save(force_insert=True)
            except IntegrityError:
                continue  # a concurrent order took this (requisite, amount): try the next
            order = candidate
            break
        if order is None:
            raise NoAvailableTraders(
                "No available traders that match order requirements. Try another amount or payment method"
            )
        if reserve is not None and reserve.amount != order.amount + order.fee_amount:
            balance_void(reserve_id=reserve.pk)
            order.reserve = balance_reserve(
                terminal_id=terminal.pk,
                amount=order.amount + order.fee_amount,
                reference=str(order_id),
            )
            Order.objects.filter(pk=order.pk).update(reserve=order.reserve)
        if form_options is not None:
            order.form_url = hooks.form_session_for(order=order, options=form_options)
            Order.objects.filter(pk=order.pk).update(form_url=order.form_url)
        _emit(order, EventType.ORDER_CREATED)
    return order


# --- Transitions ------------------------------------------------------------------------


def _lock(order_id, *, with_balance: bool) -> Order:
    """Balance first, then the order: the one lock order every writer follows."""
    if with_balance:
        terminal_id = (
            Order.objects.filter(pk=order_id).values_list("terminal_id", flat=True).first()
        )
        if terminal_id is None:
            raise NotFound("Order not found", code="order_not_found")
        balance_lock(terminal_id=terminal_id)
    order = (
        Order.objects.select_for_update(of=("self",))
        .select_related("terminal", "method")
        .filter(pk=order_id)
        .first()
    )
    if order is None:
        raise NotFound("Order not found", code="order_not_found")
    return order


def _close(order: Order, status: str, *, actor: str, paid_amount: Decimal | None = None) -> Order:
    if status not in ORDER_TRANSITIONS[order.status]:
        raise OrderNotPending(f"Order is {order.status}, not Pending")
    if status == OrderStatus.COMPLETED:
        order.paid_amount = order.amount if paid_amount is None else paid_amount
        if order.side == Side.BUY:
            credit = order.paid_amount - order.fee_amount
            if credit > 0:
                balance_credit(
                    terminal_id=order.terminal_id,
                    amount=credit,
                    description=f"Order {order.client_order_id}",
                    reference=str(order.pk),
                )
        elif order.reserve_id:
            balance_post(reserve_id=order.reserve_id, description=f"Payout {order.client_order_id}")
    elif order.side == Side.SELL and order.reserve_id:
        balance_void(reserve_id=order.reserve_id)
    order.status = status
    order.closed_at = timezone.now()
    order.closed_by = actor
    order.save(update_fields=["status", "paid_amount", "closed_at", "closed_by", "updated_at"])
    _record(
        order,
        {
            OrderStatus.COMPLETED: EventType.ORDER_COMPLETED,
            OrderStatus.CANCELLED: EventType.ORDER_CANCELLED,
            OrderStatus.EXPIRED: EventType.ORDER_EXPIRED,
        }[status],
    )
    return order


def _needs_balance(order_id, status: str) -> bool:
    side = Order.objects.filter(pk=order_id).values_list("side", flat=True).first()
    return side == Side.SELL or status == OrderStatus.COMPLETED


def _transition(order_id, status: str, *, actor: str) -> Order:
    """Move a Pending order to `status`; an order already past expiry expires instead
    and the caller gets 409, as if the sweep had run first."""
    overdue = False
    with transaction.atomic():
        order = _lock(order_id, with_balance=_needs_balance(order_id, status))
        if order.is_overdue:
            _close(order, OrderStatus.EXPIRED, actor="expiry")
            overdue = True
        else:
            _close(order, status, actor=actor)
    if overdue:
        raise OrderNotPending("Order is Expired, not Pending")
    return order


def order_confirm(*, order_id, actor: str) -> Order:
    return _transition(order_id, OrderStatus.COMPLETED, actor=actor)


def order_cancel(*, order_id, actor: str) -> Order:
    return _transition(order_id, OrderStatus.CANCELLED, actor=actor)


def order_expire(*, order_id) -> Order | None:
    """Expire one order if it is still Pending and due; None when there is nothing to do."""
    with transaction.atomic():
        order = _lock(order_id, with_balance=_needs_balance(order_id, OrderStatus.EXPIRED))
        if not order.is_overdue:
            return None
        return _close(order, OrderStatus.EXPIRED, actor="expiry")


def order_expire_due(*, limit: int = 500, terminal_id=None) -> int:
    """The sweep: expire Pending orders past expires_at, each in its own transaction."""
    due = Order.objects.filter(status=OrderStatus.PENDING, expires_at__lte=timezone.now())
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
        order = _lock(order_id, with_balance=True)
        if order.side != Side.BUY or order.status not in DISPUTE_COMPLETABLE:
            return None
        paid_amount = quantize_money(paid_amount)
        fee_amount = fee_for(paid_amount, rate=order.fee, fixed=order.fixed_fee)
        credit = paid_amount - fee_amount
        if credit > 0:
            balance_credit(
                terminal_id=order.terminal_id,
                amount=credit,
                description=f"Dispute on order {order.client_order_id}",
                reference=str(order.pk),
            )
        order.status = OrderStatus.COMPLETED
        order.paid_amount = paid_amount
        order.fee_amount = fee_amount
        order.closed_at = timezone.now()
        order.closed_by = actor
        order.save(
            update_fields=[
                "status",
                "paid_amount",
                "fee_amount",
                "closed_at",
                "closed_by",
                "updated_at",
            ]
        )
        _record(order, EventType.ORDER_COMPLETED)
        return order


def order_event_record(*, order_id, event_type: str, extra: dict) -> None:
    """Record an event about an order from elsewhere (disputes), on the order's own
    sequence, with the current Order beside `extra` in `data`. Runs in the caller's
    transaction; the order row is locked so sequences never repeat."""
    order = (
        Order.objects.select_for_update(of=("self",))
        .select_related("terminal", "method")
        .get(pk=order_id)
    )
    order.event_sequence += 1
    Order.objects.filter(pk=order.pk).update(event_sequence=order.event_sequence)
    event_record(
        terminal=order.terminal,
        order_id=order.pk,
        event_type=event_type,
        sequence=order.event_sequence,
        data={**extra, "order": render_order(order)},
        webhook_url=order.webhook_url,
    )


def trader_key_issue(*, trader, name: str = "", raw: str | None = None):
    """A new trader key; the raw value is returned once and never stored."""
    from .models import TraderApiKey

    raw = raw or generate_key("tk")
    key = TraderApiKey(trader=trader, name=name)
    key.set_key(raw)
    key.save()
    return key, raw


def method_offered_as_button(*, terminal: Terminal, button_name: str) -> PaymentMethod | None:
    link = (
        TerminalMethod.objects.select_related("method")
        .filter(terminal=terminal, button_name=button_name, enabled=True, method__is_active=True)
        .first()
    )
    return link.method if link else None


__all__ = [
    "MethodType",
    "order_create",
    "order_confirm",
    "order_cancel",
    "order_expire",
    "order_expire_due",
    "order_complete_by_dispute",
    "order_event_record",
]
