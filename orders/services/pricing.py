"""Resolving the method a request names, its fee ranges, and the limits message."""

from decimal import Decimal

from core import memo
from core.error_codes import ErrorCode, message_for
from core.errors import Conflict, NotFound
from core.formats import parse_uuid
from finance.models import FeeRange, PaymentMethod, Terminal, TerminalMethod

LIMITS_MESSAGE = message_for(ErrorCode.AMOUNT_OUT_OF_LIMITS)
# What method_resolve found, kept per process while no method, fee range or terminal
# changed anywhere (core.memo).
_resolved = memo.Memo("methods and fee ranges")


def _methods_named(*, terminal: Terminal, payment_method_id, method_type, nspk_code):
    """The methods a request names, way 1 (payment_method_id) or way 2 (method_type
    [+ nspk_code]), among those enabled on the terminal; the one meant comes first."""
    enabled = PaymentMethod.objects.enabled_on(terminal)
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
    goes on to be created), a second only to tell 404 from 'no such side'; none while
    the answer is kept (core.memo)."""
    kept_as = (terminal.pk, terminal.currency, side, payment_method_id, method_type, nspk_code)
    kept = _resolved.get(kept_as)
    if kept is not None:
        return kept[0], kept[1:]
    named = _methods_named(
        terminal=terminal,
        payment_method_id=payment_method_id,
        method_type=method_type,
        nspk_code=nspk_code,
    )
    ranges = list(
        FeeRange.objects.usable()
        .select_related("method")
        .filter(method__in=named.values("pk")[:1], side=side)
    )
    if ranges:
        _resolved.put(kept_as, memo.snapshot([ranges[0].method, *ranges]))
        return ranges[0].method, ranges
    method = named.first()
    if method is None:
        raise NotFound(code=ErrorCode.PAYMENT_METHOD_NOT_FOUND)
    return method, []


def fee_range_for(*, ranges: list[FeeRange], side: str, amount: Decimal) -> FeeRange:
    for fee_range in ranges:
        if fee_range.min_amount <= amount <= fee_range.max_amount:
            return fee_range
    if not ranges:
        raise Conflict(
            f"{LIMITS_MESSAGE}: the method does not support {side}",
            code=ErrorCode.AMOUNT_OUT_OF_LIMITS,
        )
    low = min(r.min_amount for r in ranges)
    high = max(r.max_amount for r in ranges)
    raise Conflict(
        f"{LIMITS_MESSAGE} ({low:.2f} - {high:.2f})", code=ErrorCode.AMOUNT_OUT_OF_LIMITS
    )


def method_offered_as_button(*, terminal: Terminal, button_name: str) -> PaymentMethod | None:
    link = (
        TerminalMethod.objects.select_related("method")
        .filter(terminal=terminal, button_name=button_name, enabled=True, method__is_active=True)
        .first()
    )
    return link.method if link else None
