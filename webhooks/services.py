import json

from django.db import transaction
from django.utils import timezone

from audit.models import ActorKind
from audit.services import audit_record
from core.actors import actor_kind
from core.fast_insert import insert_row
from core.formats import iso_utc
from core.json_text import RenderedJSON
from core.livemode import livemode_of
from finance.services import terminal_webhook_secret_rotate, terminal_webhook_urls_set

from .models import DeliveryState, WebhookDelivery, WebhookEvent, new_event_id
from .tasks import enqueue_deliveries


def terminal_livemode(terminal) -> bool:
    """Live unless a sandbox terminal (core.livemode's one rule): for events
    that belong to no order."""
    return livemode_of(terminal)


def event_record(**fields) -> WebhookEvent:
    """Write an event and its deliveries in the caller's transaction; queue on commit.
    The event is stored whether or not there is a target: it is the order's history.
    `fields` as `event_build` takes them."""
    return event_write(*event_build(**fields))


def event_build(
    *,
    terminal,
    order_id,
    event_type: str,
    sequence: int,
    data: dict,
    webhook_url: str | None,
    actor: str,
    livemode: bool | None = None,
) -> tuple[WebhookEvent, list[str]]:
    """The event (its payload and body rendered) and its targets, not yet written:
    `event_write` writes them. `livemode` is the order's own (kept from its creation);
    without it, the terminal's."""
    now = timezone.now()
    event_id = new_event_id()
    kind = actor_kind(actor)
    if livemode is None:
        livemode = terminal_livemode(terminal)
    payload = RenderedJSON(
        id=event_id,
        type=event_type,
        created_at=iso_utc(now),
        sequence=sequence,
        livemode=livemode,
        actor=kind,
        data=data,
    )
    payload.text = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    event = WebhookEvent(
        id=event_id,
        terminal=terminal,
        order_id=order_id,
        type=event_type,
        sequence=sequence,
        actor=kind,
        livemode=livemode,
        payload=payload,
        body=payload.text,
        created_at=now,
    )
    targets = [webhook_url] if webhook_url else list(dict.fromkeys(terminal.webhook_urls or []))
    return event, targets


def event_write(
    event: WebhookEvent, targets: list[str], *, queue: bool = True, ride: bool = False
) -> WebhookEvent:
    """Write an event `event_build` made, with a delivery to each target, in the
    caller's transaction; the deliveries are queued on commit (with `queue` off, once
    the caller calls `event_queue`). With `ride`
    (inside core.riding's `riding()`), the event and its deliveries wait to be written
    in the statement of the caller's next write."""
    insert_row(event, ride=ride)
    deliveries = [
        WebhookDelivery(
            event=event, terminal=event.terminal, url=url, next_attempt_at=event.created_at
        )
        for url in targets
    ]
    if ride:
        for delivery in deliveries:
            insert_row(delivery, ride=True)  # numbered when it is written
    elif deliveries:
        WebhookDelivery.objects.bulk_create(deliveries)
    event.written_deliveries = deliveries
    if queue:
        event_queue(event)
    return event


def event_queue(event: WebhookEvent) -> None:
    """Queue the deliveries of an event written with `queue` off, when the caller's
    transaction commits."""
    deliveries = event.written_deliveries
    if deliveries:
        transaction.on_commit(lambda: enqueue_deliveries([d.pk for d in deliveries]), robust=True)


def delivery_resend(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Send a delivery again now, whatever its state (delivered and failed alike):
    the same event, so the same webhook-id, with a fresh timestamp and signature made
    at send time. The attempt is logged like any other."""
    with transaction.atomic():
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            state=DeliveryState.PENDING,
            next_attempt_at=timezone.now(),
            locked_until=None,
            updated_at=timezone.now(),
        )
        transaction.on_commit(lambda: enqueue_deliveries([delivery.pk]), robust=True)
    delivery.refresh_from_db()
    return delivery


def webhook_secret_rotate(*, terminal) -> str:
    """A new signing secret for the terminal, returned once. The old one keeps signing
    beside it for 24 h (both signatures are sent), so the merchant switches
    verification to the new secret without losing an event."""
    with transaction.atomic():
        secret = terminal_webhook_secret_rotate(terminal=terminal)
        audit_record(
            actor_kind=ActorKind.MERCHANT,
            actor_id=terminal.pk,
            action="webhook_secret.rotate",
            obj=terminal,
            changes={"rotated": "webhook signing secret"},
        )
    return secret


def webhook_urls_set(*, terminal, urls: list[str]) -> list[str]:
    with transaction.atomic():
        before = list(terminal.webhook_urls or [])
        after = terminal_webhook_urls_set(terminal=terminal, urls=urls)
        audit_record(
            actor_kind=ActorKind.MERCHANT,
            actor_id=terminal.pk,
            action="webhook_urls.set",
            obj=terminal,
            changes={"webhook_urls": [before, after]},
        )
    return after
