"""The order creation is about to write on a candidate requisite, built before any
write (orders.services.placement)."""

from datetime import timedelta
from decimal import Decimal

from core.money import fee_for
from finance.models import FeeRange, PaymentMethod, Side, Terminal
from finance.services import method_deeplink

from ..models import Order
from .sandbox import sandbox_action_for


def order_draft(
    *,
    order_id,
    terminal: Terminal,
    side: str,
    amount: Decimal,
    method: PaymentMethod,
    fee_range: FeeRange,
    requisite,
    chosen: Decimal,
    reserve_id,
    ttl: int,
    **customer,
) -> Order:
    """The order as it is to be written on `requisite` for the `chosen` amount."""
    candidate = Order(
        id=order_id,
        terminal=terminal,
        currency=terminal.currency,
        side=side,
        method=requisite.method,
        initial_method=method,
        requisite_id=requisite.pk,
        trader_id=requisite.trader_id,
        requested_amount=amount,
        amount=chosen,
        fee=fee_range.fee,
        fixed_fee=fee_range.fixed_fee,
        fee_amount=fee_for(chosen, rate=fee_range.fee, fixed=fee_range.fixed_fee),
        trader_reward_percent=fee_range.trader_reward_percent,
        holder_name=requisite.holder_name,
        holder_account=requisite.account,
        payment_link=(
            method_deeplink(
                requisite.method, account=requisite.account, amount=chosen, order_id=order_id
            )
            if side == Side.BUY
            else None
        ),
        reserve_id=reserve_id,
        livemode=terminal.livemode,
        sandbox_action=sandbox_action_for(terminal=terminal, amount=amount),
        event_sequence=1,  # order.created, recorded below
        # by the database's clock, as the slice read it
        created_at=requisite.clock,
        expires_at=requisite.clock + timedelta(seconds=ttl),
        **customer,  # client_order_id, the customer's fields, user_id, webhook_url
    )
    candidate.db_clock = requisite.clock  # the database's now, for its status
    return candidate
