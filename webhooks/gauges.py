"""Read at every Prometheus scrape (core.metrics): one query each, answered from
the partial index on pending deliveries' next attempt."""

from django.db.models import Min
from django.utils import timezone

from .models import DeliveryState, WebhookDelivery


def _due():
    return WebhookDelivery.objects.filter(
        state=DeliveryState.PENDING, next_attempt_at__lte=timezone.now()
    )


def deliveries_due_count() -> int:
    return _due().count()


def deliveries_oldest_due_seconds() -> float:
    """How long the longest-waiting due delivery has waited; 0 when none is due.
    Climbing steadily: nothing is sending (workers or the sweep are down)."""
    oldest = _due().aggregate(oldest=Min("next_attempt_at"))["oldest"]
    return 0.0 if oldest is None else max(0.0, (timezone.now() - oldest).total_seconds())
