import json

from django.db import transaction
from django.utils import timezone

from finance.services import terminal_webhook_secret_rotate
from paymentsvc.formats import iso_utc

from .models import DeliveryState, WebhookDelivery, WebhookEvent, new_event_id
from .tasks import enqueue_deliveries


def event_record(
    *, terminal, order_id, event_type: str, sequence: int, data: dict, webhook_url: str | None
) -> WebhookEvent:
    """Write an event and its deliveries in the caller's transaction; queue on commit."""
    now = timezone.now()
    event_id = new_event_id()
    payload = {
        "id": event_id,
        "type": event_type,
        "created_at": iso_utc(now),
        "sequence": sequence,
        "data": data,
    }
    event = WebhookEvent.objects.create(
        id=event_id,
        terminal=terminal,
        order_id=order_id,
        type=event_type,
        sequence=sequence,
        payload=payload,
        body=json.dumps(payload, separators=(",", ":"), ensure_ascii=False),
        created_at=now,
    )
    targets = [webhook_url] if webhook_url else list(dict.fromkeys(terminal.webhook_urls or []))
    deliveries = WebhookDelivery.objects.bulk_create(
        [WebhookDelivery(event=event, url=url, next_attempt_at=now) for url in targets]
    )
    ids = [d.pk for d in deliveries]
    if ids:
        transaction.on_commit(lambda: enqueue_deliveries(ids), robust=True)
    return event


def delivery_resend(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """An operator's resend: due now, as a fresh pending delivery with the same id."""
    with transaction.atomic():
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            state=DeliveryState.PENDING, next_attempt_at=timezone.now(), locked_until=None
        )
        transaction.on_commit(lambda: enqueue_deliveries([delivery.pk]), robust=True)
    delivery.refresh_from_db()
    return delivery


def webhook_secret_rotate(*, terminal):
    """A new signing secret for the terminal. Every attempt from now on is signed with
    it, retries of older events included (signatures are made at send time), so the
    merchant switches verification to the new secret when it is handed over."""
    with transaction.atomic():
        terminal_webhook_secret_rotate(terminal=terminal)
    return terminal
