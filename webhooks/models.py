"""Transactional outbox for merchant notifications (docs/webhooks.md).

An event and one delivery per target URL are written in the same transaction as the
change they describe; delivery happens after commit, and a periodic sweep re-queues
anything due, so a lost broker message or a dead worker loses nothing."""

import uuid

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from core.actors import Actor
from core.json_text import KeptTextEncoder
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

    id = models.CharField(primary_key=True, max_length=40, editable=False, verbose_name=_("id"))
    # Indexed by event_terminal_newest, which starts with it.
    terminal = models.ForeignKey(
        Terminal,
        on_delete=models.PROTECT,
        related_name="webhook_events",
        db_index=False,
        verbose_name=_("terminal"),
    )
    order_id = models.UUIDField(verbose_name=_("order id"))
    type = models.CharField(max_length=30, choices=EventType.choices, verbose_name=_("type"))
    sequence = models.PositiveIntegerField(verbose_name=_("sequence"))
    actor = models.CharField(max_length=10, choices=Actor.choices, verbose_name=_("actor"))
    livemode = models.BooleanField(default=True, verbose_name=_("livemode"))
    # Written from `body`'s own text (core.json_text), not encoded again.
    payload = models.JSONField(encoder=KeptTextEncoder, verbose_name=_("payload"))
    # The exact bytes sent (and signed) on every attempt: JSON columns may reorder keys.
    body = models.TextField(verbose_name=_("body"))
    created_at = models.DateTimeField(verbose_name=_("created at"))

    class Meta:
        verbose_name = _("webhook event")
        verbose_name_plural = _("webhook events")
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
    PENDING = "pending", pgettext_lazy("delivery state", "pending")
    DELIVERED = "delivered", pgettext_lazy("delivery state", "delivered")
    FAILED = "failed", pgettext_lazy("delivery state", "failed")


class WebhookDelivery(models.Model):
    event = models.ForeignKey(
        WebhookEvent, on_delete=models.CASCADE, related_name="deliveries", verbose_name=_("event")
    )
    # The event's terminal, copied so one terminal's deliveries list newest first from
    # one index, without a join that grows with every other terminal's traffic.
    terminal = models.ForeignKey(
        Terminal,
        on_delete=models.PROTECT,
        related_name="webhook_deliveries",
        db_index=False,
        verbose_name=_("terminal"),
    )
    url = models.CharField(max_length=512, verbose_name=_("url"))
    state = models.CharField(
        max_length=10,
        choices=DeliveryState.choices,
        default=DeliveryState.PENDING,
        verbose_name=_("state"),
    )
    attempts = models.PositiveIntegerField(default=0, verbose_name=_("attempts"))
    next_attempt_at = models.DateTimeField(verbose_name=_("next attempt at"))
    # A worker claims a delivery by moving this forward with a conditional UPDATE;
    # until it passes, the sweep leaves the delivery alone.
    locked_until = models.DateTimeField(null=True, blank=True, verbose_name=_("locked until"))
    last_status_code = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=_("last status code")
    )
    last_error = models.CharField(max_length=500, blank=True, verbose_name=_("last error"))
    delivered_at = models.DateTimeField(null=True, blank=True, verbose_name=_("delivered at"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        indexes = [
            models.Index(
                fields=["next_attempt_at"], name="delivery_due", condition=Q(state="pending")
            ),
            models.Index(fields=["terminal", "-id"], name="delivery_terminal_newest"),
        ]

    def __str__(self):
        return f"{self.url} ({self.get_state_display()})"


class WebhookAttempt(models.Model):
    delivery = models.ForeignKey(
        WebhookDelivery,
        on_delete=models.CASCADE,
        related_name="attempt_log",
        verbose_name=_("delivery"),
    )
    number = models.PositiveIntegerField(verbose_name=_("number"))
    started_at = models.DateTimeField(verbose_name=_("started at"))
    duration_ms = models.PositiveIntegerField(verbose_name=_("duration ms"))
    status_code = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=_("status code")
    )
    error = models.CharField(max_length=500, blank=True, verbose_name=_("error"))
    response_excerpt = models.TextField(blank=True, verbose_name=_("response excerpt"))

    class Meta:
        verbose_name = _("webhook attempt")
        verbose_name_plural = _("webhook attempts")
        ordering = ["-started_at"]

    def __str__(self):
        outcome = self.status_code or self.error[:60] or gettext("no answer")
        return gettext("attempt {number} · {outcome} · {ms} ms").format(
            number=self.number, outcome=outcome, ms=self.duration_ms
        )
