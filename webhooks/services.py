import json
import logging
import time

from django.db import transaction
from django.utils import timezone

from paymentsvc.formats import iso_utc

from .models import DeliveryState, WebhookDelivery, WebhookEvent, new_event_id

logger = logging.getLogger(__name__)


# After a failed publish, requests stop trying the broker for a while: a broker that
# is down costs one slow connection attempt per process per pause, not one per order.
BROKER_PAUSE_SECONDS = 15
_broker_paused_until = 0.0


def enqueue_deliveries(delivery_ids: list[int]) -> None:
    """Hand deliveries to the broker. If it is down, nothing is lost: the rows are
    already committed and the periodic sweep queues them again."""
    global _broker_paused_until
    from .tasks import deliver_webhook

    if time.monotonic() < _broker_paused_until:
        return
    for delivery_id in delivery_ids:
        try:
            deliver_webhook.apply_async(args=[delivery_id], retry=False)
        except Exception as exc:
            _broker_paused_until = time.monotonic() + BROKER_PAUSE_SECONDS
            logger.warning(
                "Broker unavailable (%s); %d delivery(ies) left to the sweep",
                exc,
                len(delivery_ids),
            )
            return


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
    from finance.services import terminal_webhook_secret_rotate

    with transaction.atomic():
        terminal_webhook_secret_rotate(terminal=terminal)
    return terminal
