"""Reads behind the events and deliveries API: always one terminal's rows, in the order
the indexes hold them (newest first), so a page costs the same however long the log."""

import json

from django.db.models import Q
from django.utils import timezone

from core.error_codes import ErrorCode
from core.formats import iso_utc
from core.pagination import PageAsked, list_page

from .models import DeliveryState, WebhookDelivery, WebhookEvent


def event_page(
    asked: PageAsked,
    *,
    terminal,
    type: str | None = None,
    order_id=None,
    created_after=None,
    created_before=None,
) -> dict:
    """The page `asked` of the terminal's events, newest first; a cursor is an event
    id (core.pagination.list_page). Raises NotFound when a cursor is not one of
    the terminal's events."""
    events = WebhookEvent.objects.filter(terminal=terminal)
    if type:
        events = events.filter(type=type)
    if created_after is not None:
        events = events.filter(created_at__gte=created_after)
    if created_before is not None:
        events = events.filter(created_at__lte=created_before)
    # The log by event_terminal_newest; one order's history by event_order_history (its
    # sequence is its order, even within one instant).
    keys = ("created_at", "id")
    if order_id is not None:
        events, keys = events.filter(order_id=order_id), ("sequence", "id")
    return list_page(
        events,
        asked,
        own=WebhookEvent.objects.filter(terminal=terminal),
        keys=keys,
        code=ErrorCode.EVENT_NOT_FOUND,
        what="an event of this terminal",
    )


def event_get(*, terminal, event_id: str) -> WebhookEvent | None:
    return WebhookEvent.objects.filter(terminal=terminal, pk=event_id).first()


def render_event(event: WebhookEvent) -> dict:
    """Exactly the webhook body that is signed and sent: the stored bytes, parsed."""
    return json.loads(event.body)


def render_events(events) -> list[dict]:
    return [render_event(e) for e in events]


def delivery_page(
    asked: PageAsked,
    *,
    terminal,
    event_id: str | None = None,
    order_id=None,
    status: str | None = None,
) -> dict:
    """The page `asked` of the terminal's deliveries, newest first (by id, as
    delivery_terminal_newest holds them); a cursor is a delivery id. Raises NotFound
    when a cursor is not one of the terminal's deliveries."""
    deliveries = WebhookDelivery.objects.filter(terminal=terminal)
    if event_id is not None:
        deliveries = deliveries.filter(event_id=event_id)
    if order_id is not None:
        deliveries = deliveries.filter(event__order_id=order_id)
    if status:
        deliveries = deliveries.filter(state=status)
    return list_page(
        deliveries,
        asked,
        own=WebhookDelivery.objects.filter(terminal=terminal),
        keys=("id",),
        code=ErrorCode.DELIVERY_NOT_FOUND,
        what="a delivery of this terminal",
        # The page's rows with their events; the count takes the bare filter.
        read=lambda rows: rows.select_related("event"),
    )


def delivery_get(*, terminal, delivery_id) -> WebhookDelivery | None:
    return (
        WebhookDelivery.objects.select_related("event")
        .filter(terminal=terminal, pk=delivery_id)
        .first()
    )


def render_delivery(delivery: WebhookDelivery, *, with_attempts: bool = False) -> dict:
    event = delivery.event
    out = {
        "id": str(delivery.pk),  # identifiers of records are strings (api.md)
        "event_id": event.pk,
        "event_type": event.type,
        "order_id": str(event.order_id),
        "url": delivery.url,
        "status": delivery.state,
        "attempts_count": delivery.attempts,
        # Only a pending delivery has a next attempt.
        "next_attempt_at": (
            iso_utc(delivery.next_attempt_at) if delivery.state == DeliveryState.PENDING else None
        ),
        "delivered_at": iso_utc(delivery.delivered_at),
        "last_response_status": delivery.last_status_code,
    }
    if with_attempts:
        out["attempts"] = [
            {
                "attempted_at": iso_utc(a.started_at),
                "response_status": a.status_code,
                "duration_ms": a.duration_ms,
                "error": a.error or None,
                "response_excerpt": a.response_excerpt,
            }
            for a in delivery.attempt_log.order_by("-started_at", "-number")
        ]
    return out


def render_deliveries(deliveries) -> list[dict]:
    return [render_delivery(d) for d in deliveries]


def deliveries_due(*, limit: int = 500) -> list[int]:
    """Deliveries that are due and not claimed by a live worker, oldest first."""
    now = timezone.now()
    return list(
        WebhookDelivery.objects.filter(state=DeliveryState.PENDING, next_attempt_at__lte=now)
        .filter(Q(locked_until__isnull=True) | Q(locked_until__lt=now))
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
