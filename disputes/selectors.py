from decimal import Decimal

from finance.models import Side
from orders.models import DISPUTE_COMPLETABLE
from paymentsvc.money import fee_for, quantize_money

from .models import Dispute


def dispute_effect(*, dispute: Dispute, accept: bool) -> str:
    """What a decision would do, in the operator's words, computed by the same rule
    as dispute_resolve (order_complete_by_dispute): "order -> Completed, merchant
    +760.00 RUB" or that only the decision is recorded."""
    order = dispute.order
    if not accept:
        return "decision recorded; no money moves"
    if order.side != Side.BUY or order.status not in DISPUTE_COMPLETABLE:
        return (
            f"decision recorded; the {order.status} {order.side} order and money stay as they are"
        )
    paid = quantize_money(dispute.amount)
    credit = max(paid - fee_for(paid, rate=order.fee, fixed=order.fixed_fee), Decimal("0.00"))
    return f"order {order.shown_status} -> Completed, merchant +{credit} {order.currency}"
