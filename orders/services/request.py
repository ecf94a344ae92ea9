"""An order request resolved: its rules, its method and fee range, a Sell's blacklist,
and what the matcher is to search; creation and availability share it."""

from decimal import Decimal

from core.error_codes import ErrorCode, message_for
from core.errors import Conflict, InvalidRequest
from core.money import quantize_money
from finance.accounts import account_is_blacklisted, normalize_account
from finance.models import Side, Terminal

from . import matching
from .pricing import fee_range_for, method_resolve
from .request_rules import customer_bank_normalize, order_validate_request


def order_request_resolve(
    *,
    terminal: Terminal,
    side: str,
    amount: Decimal,
    payment_method_id: str | None = None,
    method_type: str | None = None,
    nspk_code: str | None = None,
    customer_account: str | None = None,
    customer_bank: str | None = None,
    unique_amount: bool = False,
) -> dict:
    """The request's rules, its method and fee range, a Sell's blacklist, and what the
    matcher is to search: what creation and availability share, in the contract's
    order of refusals."""
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
        customer_bank = customer_bank_normalize(customer_bank, field="customer_bank")
    method, ranges = method_resolve(
        terminal=terminal,
        side=side,
        payment_method_id=payment_method_id,
        method_type=method_type,
        nspk_code=nspk_code,
    )
    if method.is_aggregate and side == Side.SELL:
        raise InvalidRequest(
            code=ErrorCode.AGGREGATE_METHOD_BUY_ONLY,
            errors={"payment_method_id": [message_for(ErrorCode.AGGREGATE_METHOD_BUY_ONLY)]},
        )
    fee_range = fee_range_for(ranges=ranges, side=side, amount=amount)
    if side == Side.SELL:
        customer_account = normalize_account(customer_account, method.method_type)
        if account_is_blacklisted(customer_account):
            raise Conflict(code=ErrorCode.CUSTOMER_ACCOUNT_BLACKLISTED)
    return dict(
        terminal=terminal,
        side=side,
        amount=amount,
        method=method,
        fee_range=fee_range,
        methods=matching.concrete_methods(method, terminal=terminal),
        amounts=[
            a
            for a in matching.candidate_amounts(amount, unique_amount)
            if fee_range.min_amount <= a <= fee_range.max_amount
        ],
        customer_account=customer_account,
        customer_bank=customer_bank,
    )
