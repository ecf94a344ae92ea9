from django.db.models import Q
from django.utils import timezone

from .models import DeliveryState, WebhookDelivery


def deliveries_due(*, limit: int = 500) -> list[int]:
    """Deliveries that are due and not claimed by a live worker, oldest first."""
    now = timezone.now()
    return list(
        WebhookDelivery.objects.filter(state=DeliveryState.PENDING, next_attempt_at__lte=now)
        .filter(Q(locked_until__isnull=True) | Q(locked_until__lt=now))
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
