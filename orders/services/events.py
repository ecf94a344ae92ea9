"""Putting an order's events in the webhook outbox, on the order's own sequence."""

from webhooks.services import event_build, event_write

from ..models import Order
from ..render import render_order


def record_event(order: Order, event_type: str, *, actor: str, extra: dict | None = None) -> None:
    """Bump the order's event sequence and put the event in the outbox (the order
    row is already locked by the caller)."""
    order.event_sequence += 1
    Order.objects.filter(pk=order.pk).update(event_sequence=order.event_sequence)
    emit_event(order, event_type, actor=actor, extra=extra)


def emit_event(
    order: Order, event_type: str, *, actor: str, extra: dict | None = None, ride: bool = False
) -> None:
    """Put the event at the order's current sequence in the outbox, with the current
    Order beside `extra` in `data`. `ride`: see webhooks.services.event_write."""
    event_write(*event_prepare(order, event_type, actor=actor, extra=extra), ride=ride)


def event_prepare(order: Order, event_type: str, *, actor: str, extra: dict | None = None):
    """The event `emit_event` writes, rendered now and written later by
    `webhooks.services.event_write` (creation renders it before it takes its locks)."""
    return event_build(
        terminal=order.terminal,
        order_id=order.pk,
        event_type=event_type,
        sequence=order.event_sequence,
        data={**(extra or {}), "order": render_order(order)},
        webhook_url=order.webhook_url,
        actor=actor,
        livemode=order.livemode,
    )


def order_event_record(*, order_id, event_type: str, extra: dict, actor: str) -> None:
    """Record an event about an order from elsewhere (disputes), on the order's own
    sequence. Runs in the caller's transaction; the order row is locked so sequences
    never repeat."""
    order = (
        Order.objects.select_for_update(of=("self",))
        .select_related("terminal", "method")
        .with_db_clock()
        .get(pk=order_id)
    )
    record_event(order, event_type, actor=actor, extra=extra)
