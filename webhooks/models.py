"""Transactional outbox for merchant notifications (decisions §7).

An event and one delivery per target URL are written in the same transaction as the
change they describe; delivery happens after commit, and a periodic sweep re-queues
anything due, so a lost broker message or a dead worker loses nothing."""

import uuid

from django.db import models
from django.db.models import Q

from core.actors import Actor
from finance.models import Terminal


class EventType(models.TextChoices):
    ORDER_CREATED = "order.created", "order.created"
    ORDER_COMPLETED = "order.completed", "order.completed"
    ORDER_CANCELLED = "order.cancelled", "order.cancelled"
    ORDER_EXPIRED = "order.expired", "order.expired"
    DISPUTE_CREATED = "dispute.created", "dispute.created"
    DISPUTE_PROCESSED = "dispute.processed", "dispute.processed"
    WITHDRAWAL_COMPLETED = "withdrawal.completed", "withdrawal.completed"
    WITHDRAWAL_REJECTED = "withdrawal.rejected", "withdrawal.rejected"


class WebhookEvent(models.Model):
    """An event of an order or a dispute, stored whether or not anyone is notified:
    the merchant's event log and the order's history. `body` is exactly what is
    signed and sent, and what the events API answers with."""

    id = models.CharField(primary_key=True, max_length=40, editable=False)
    # Indexed by event_terminal_newest, which starts with it.
    terminal = models.ForeignKey(
        Terminal, on_delete=models.PROTECT, related_name="webhook_events", db_index=False
    )
    order_id = models.UUIDField()
    type = models.CharField(max_length=30, choices=EventType.choices)
    sequence = models.PositiveIntegerField()
    actor = models.CharField(max_length=10, choices=Actor.choices)
    livemode = models.BooleanField(default=True)
    payload = models.JSONField()
    # The exact bytes sent (and signed) on every attempt: JSON columns may reorder keys.
    body = models.TextField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # The events list: one terminal's, newest first (filters narrow the same scan).
            models.Index(fields=["terminal", "-created_at", "-id"], name="event_terminal_newest"),
            # One order's history, newest first.
            models.Index(fields=["order_id", "-sequence"], name="event_order_history"),
        ]

    def __str__(self):
        return f"{self.type} #{self.sequence} ({self.id})"


def new_event_id() -> str:
    return f"msg_{uuid.uuid4().hex}"


class DeliveryState(models.TextChoices):
    PENDING = "pending", "pending"
    DELIVERED = "delivered", "delivered"
    FAILED = "failed", "failed"


class WebhookDelivery(models.Model):
    event = models.ForeignKey(WebhookEvent, on_delete=models.CASCADE, related_name="deliveries")
    # The event's terminal, copied so one terminal's deliveries list newest first from
    # one index, without a join that grows with every other terminal's traffic.
    terminal = models.ForeignKey(
        Terminal, on_delete=models.PROTECT, related_name="webhook_deliveries", db_index=False
    )
    url = models.CharField(max_length=512)
    state = models.CharField(
        max_length=10, choices=DeliveryState.choices, default=DeliveryState.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    # A worker claims a delivery by moving this forward with a conditional UPDATE;
    # until it passes, the sweep leaves the delivery alone.
    locked_until = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "webhook deliveries"
        indexes = [
            models.Index(
                fields=["next_attempt_at"], name="delivery_due", condition=Q(state="pending")
            ),
            models.Index(fields=["terminal", "-id"], name="delivery_terminal_newest"),
        ]

    def __str__(self):
        return f"{self.url} ({self.state})"


class WebhookAttempt(models.Model):
    delivery = models.ForeignKey(
        WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_log"
    )
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    response_excerpt = models.TextField(blank=True)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self):
        outcome = self.status_code or self.error[:60] or "no answer"
        return f"attempt {self.number} · {outcome} · {self.duration_ms} ms"
