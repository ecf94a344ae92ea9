"""What the payment form offers a terminal's payer: buttons, methods, amount limits."""

from decimal import Decimal

from core.error_codes import ErrorCode
from core.errors import Conflict, InvalidRequest
from finance.models import ButtonName, FeeRange, PaymentMethod, Side, Terminal
from orders import services as orders
from orders.models import Requisite


def canonical_button(value: str | None) -> str | None:
    if value is None:
        return None
    for choice in ButtonName.values:
        if choice.lower() == value.strip().lower():
            return choice
    raise InvalidRequest(
        f"Unknown button_name; allowed: {', '.join(ButtonName.values)}",
        errors={"order_data.button_name": [f"Allowed: {', '.join(ButtonName.values)}"]},
    )


def methods_offered(*, terminal: Terminal, amount: Decimal) -> list[PaymentMethod]:
    """What the payer may pick on the form: enabled, active, with a Buy range that
    takes the amount."""
    buy_methods = (
        FeeRange.objects.usable()
        .filter(side=Side.BUY, min_amount__lte=amount, max_amount__gte=amount)
        .values("method_id")
    )
    return list(
        PaymentMethod.objects.enabled_on(terminal)
        .filter(id__in=buy_methods)
        .order_by("-is_aggregate", "name")
    )


def methods_that_can_match(
    methods: list[PaymentMethod], *, terminal: Terminal
) -> list[PaymentMethod]:
    """The methods some active trader of the terminal's mode (live or sandbox: matching
    never crosses) holds an active requisite for (an aggregate method: any bank's
    requisite of its type). A method nobody serves is not offered: it could only spin
    until the search window closes."""
    serving = Requisite.objects.filter(
        is_active=True, trader__is_active=True, trader__sandbox=terminal.sandbox
    )
    held = set(serving.values_list("method_id", flat=True).distinct())
    held_types = set(serving.values_list("method__method_type", "method__currency").distinct())
    return [
        m
        for m in methods
        if m.pk in held or (m.is_aggregate and (m.method_type, m.currency) in held_types)
    ]


def check_amount_within_limits(
    *, terminal: Terminal, method: PaymentMethod | None, amount: Decimal
) -> None:
    """The H2H rule for the amount: 409 when the preselected method cannot take it, or,
    with no method preselected, when no method on offer can."""
    if method is not None:
        ranges = list(FeeRange.objects.usable().filter(method=method, side=Side.BUY))
        orders.fee_range_for(ranges=ranges, side=Side.BUY, amount=amount)
    elif not methods_offered(terminal=terminal, amount=amount):
        raise Conflict(
            f"{orders.LIMITS_MESSAGE}: no payment method takes this amount",
            code=ErrorCode.AMOUNT_OUT_OF_LIMITS,
        )
