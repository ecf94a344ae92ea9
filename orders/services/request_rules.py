"""The rules of an order request that need no database (its shape, its customer
bank), in the contract's order of refusals; creation and availability both apply them.
And a confirm's paid amount, checked against the order before its close writes."""

from decimal import Decimal

from core.error_codes import ErrorCode, message_for
from core.errors import InvalidRequest
from finance.models import Side, Terminal

from ..models import Order

CUSTOMER_BANKS = {"sberbank", "vtb", "tinkoff", "alfabank"}


def customer_bank_normalize(value: str, *, field: str) -> str:
    """The bank's slug in lower case; 400 naming `field` when it is not one we know."""
    bank = value.lower()
    if bank not in CUSTOMER_BANKS:
        allowed = ", ".join(sorted(CUSTOMER_BANKS))
        raise InvalidRequest(
            f"Unknown customer_bank; allowed: {allowed}", errors={field: [f"Allowed: {allowed}"]}
        )
    return bank


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
            code=ErrorCode.PAYMENT_METHOD_REQUIRED,
            errors={"payment_method_id": [message_for(ErrorCode.PAYMENT_METHOD_REQUIRED)]},
        )
    if nspk_code is not None and method_type is None:
        raise InvalidRequest(
            "nspk_code is only accepted together with method_type",
            errors={"nspk_code": ["Only accepted together with method_type"]},
        )
    if terminal.integration_type == "order_with_form" and side == Side.SELL:
        raise InvalidRequest(
            "Only Buy orders are supported for this terminal's integration type (order_with_form)",
            code=ErrorCode.SELL_NOT_SUPPORTED,
            errors={"order_side": ["Only Buy is supported for order_with_form terminals"]},
        )
    if side == Side.BUY and customer_account is not None:
        raise InvalidRequest(
            "customer_account must be null for Buy orders",
            errors={"customer_account": ["Must be null for Buy orders"]},
        )
    if side == Side.SELL and not customer_account:
        raise InvalidRequest(
            code=ErrorCode.CUSTOMER_ACCOUNT_REQUIRED,
            errors={"customer_account": ["Required for Sell orders"]},
        )


def paid_amount_check(order: Order, paid_amount: Decimal) -> None:
    """Another amount received (traders.md §21): a Buy's only, above zero, at most
    twice the amount, in whole cents. 400 naming `paid_amount` otherwise."""
    if order.side != Side.BUY:
        raise InvalidRequest(
            "paid_amount is accepted only when confirming a Buy order",
            errors={"paid_amount": ["A Sell completes for its amount"]},
        )
    if not paid_amount.is_finite() or paid_amount <= 0:
        raise InvalidRequest(
            "paid_amount must be above zero", errors={"paid_amount": ["Must be above zero"]}
        )
    if paid_amount != paid_amount.quantize(Decimal("0.01")):
        raise InvalidRequest(
            "paid_amount has more than two decimal places",
            errors={"paid_amount": ["At most two decimal places"]},
        )
    if paid_amount > 2 * order.amount:
        raise InvalidRequest(
            f"paid_amount must be at most twice the amount ({2 * order.amount:.2f})",
            errors={"paid_amount": [f"At most {2 * order.amount:.2f}"]},
        )
