"""The anti-fraud cap: how many Pending orders one user may hold on a terminal."""

from django.conf import settings
from django.utils import timezone

from finance.models import Terminal

from ..models import Order, OrderStatus

ANTIFRAUD_MESSAGE = "User has reached the maximum limit of pending orders. Please try again later"


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
