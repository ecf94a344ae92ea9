"""The anti-fraud cap: how many Pending orders one user may hold on a terminal."""

from django.conf import settings

from core.error_codes import ErrorCode
from core.errors import TooManyRequests
from finance.models import Terminal

from ..models import Order, OrderStatus


def antifraud_cap(terminal: Terminal) -> int:
    if terminal.antifraud_max_pending is not None:
        return terminal.antifraud_max_pending
    return settings.ANTIFRAUD_MAX_PENDING_PER_USER


def pending_count_for_user(*, terminal: Terminal, user_id: str) -> int:
    return (
        Order.objects.shown_as(OrderStatus.PENDING)
        .filter(terminal=terminal, user_id=user_id)
        .count()
    )


def antifraud_check(*, terminal: Terminal, user_id: str | None) -> None:
    """429 when the user already holds as many Pending orders as the cap allows."""
    if user_id is None:
        return
    if pending_count_for_user(terminal=terminal, user_id=user_id) >= antifraud_cap(terminal):
        raise TooManyRequests(code=ErrorCode.ANTIFRAUD_PENDING_LIMIT)
