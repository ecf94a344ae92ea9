"""A trader's phones and what they forward (traders.md §20).

A device's token is a key like any API key (core.keys): random, shown once, kept only
as its SHA-256 digest. Removing a device revokes it (the row stays, with the
notifications it sent). Every notification is kept with what the reader read from it;
the pair (device, the device's own id of the notification) is unique, so a retry is
recognised by the database however many arrive at once."""

import uuid
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.keys import hash_key
from core.memo import WatchedQuerySet
from core.money import MoneyField
from orders.models import Order, Requisite, Trader

TOKEN_PREFIX = "dev"


class Device(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    trader = models.ForeignKey(
        Trader, on_delete=models.CASCADE, related_name="devices", verbose_name=_("trader")
    )
    name = models.CharField(_("name"), max_length=100)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    token_prefix = models.CharField(
        _("token prefix"), max_length=12, editable=False, help_text=_("To tell tokens apart")
    )
    requisites = models.ManyToManyField(
        Requisite, related_name="devices", blank=True, verbose_name=_("requisites")
    )
    last_seen_at = models.DateTimeField(_("last seen"), null=True, blank=True, editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    revoked_at = models.DateTimeField(_("removed"), null=True, blank=True, editable=False)

    # Kept per process by its token (traders.devices, core.memo): every change to a
    # device makes what is kept stale; its last_seen_at is written quietly.
    objects = WatchedQuerySet.as_manager()

    class Meta:
        verbose_name = _("device")
        verbose_name_plural = _("devices")
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["trader", "-created_at"], name="device_trader_created")]

    def __str__(self):
        return f"{self.name} ({self.token_prefix}…)"

    def set_token(self, raw: str) -> None:
        self.token_hash = hash_key(raw)
        self.token_prefix = raw[:8]

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    @property
    def is_online(self) -> bool:
        """Heard from within DEVICE_OFFLINE_AFTER_SECONDS (a removed device never is)."""
        if self.revoked_at is not None or self.last_seen_at is None:
            return False
        silent = timedelta(seconds=settings.DEVICE_OFFLINE_AFTER_SECONDS)
        return timezone.now() - self.last_seen_at <= silent


class Direction(models.TextChoices):
    INCOMING = "incoming", _("incoming")
    OUTGOING = "outgoing", _("outgoing")


class NotificationStatus(models.TextChoices):
    MATCHED = "matched", _("matched")
    UNMATCHED = "unmatched", _("unmatched")
    AMBIGUOUS = "ambiguous", _("ambiguous")
    IGNORED = "ignored", _("ignored")


class BankNotification(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # No index of its own: the unique (device, external_id) and notification_device_created
    # both lead with it.
    device = models.ForeignKey(
        Device,
        on_delete=models.CASCADE,
        related_name="notifications",
        db_index=False,
        verbose_name=_("device"),
    )
    external_id = models.CharField(_("device's id"), max_length=128)
    source = models.CharField(_("source"), max_length=255)
    title = models.CharField(_("title"), max_length=255, blank=True)
    text = models.TextField(_("text"))
    received_at = models.DateTimeField(_("received on the device"))
    amount = MoneyField(_("amount read"), null=True, blank=True)
    direction = models.CharField(
        _("direction read"), max_length=8, choices=Direction.choices, null=True, blank=True
    )
    bank = models.CharField(_("bank read"), max_length=20, null=True, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=NotificationStatus.choices)
    order = models.ForeignKey(
        Order,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="bank_notifications",
        verbose_name=_("order"),
    )
    # Who attached an unmatched notification to an order ("trader:<id>", an operator's
    # name); empty when the service matched it itself.
    attached_by = models.CharField(_("attached by"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("bank notification")
        verbose_name_plural = _("bank notifications")
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["device", "external_id"], name="bank_notification_device_external_id"
            ),
        ]
        indexes = [
            models.Index(fields=["device", "-created_at"], name="notification_device_created"),
            models.Index(fields=["status", "-created_at"], name="notification_status_created"),
        ]

    def __str__(self):
        return f"{self.source}: {self.text[:40]}"
