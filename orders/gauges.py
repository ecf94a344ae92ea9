"""Read at every Prometheus scrape (core.metrics): one query each, answered from
the partial index on Pending orders' expiry, so the cost follows the number of
Pending orders, not of all orders."""

from .models import Order, OrderStatus


def orders_pending_count() -> int:
    return Order.objects.filter(status=OrderStatus.PENDING).count()


def orders_overdue_count() -> int:
    """Pending past their expiry: the expiry sweep is behind (or not running)."""
    return Order.objects.overdue().count()
