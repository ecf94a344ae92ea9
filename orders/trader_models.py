"""The traders' side of the orders app: traders, their API keys, their requisites and
each requisite's load row."""

import uuid
from datetime import UTC, datetime

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from core.keys import ApiKeyBase
from core.memo import WatchedQuerySet
from core.money import MoneyField
from finance.models import PaymentMethod
from finance.services import account_ensure


class Trader(models.Model):
    id = models.UUIDField(
        primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("id")
    )
    name = models.CharField(max_length=200, verbose_name=_("name"))
    is_active = models.BooleanField(default=True, verbose_name=_("is active"))
    sandbox = models.BooleanField(
        default=False,
        help_text=_("Serves only sandbox terminals' orders (and live terminals never reach it)"),
        verbose_name=_("sandbox"),
    )
    # The one user who signs in to this trader's cabinet (/trader/login/).
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="trader",
        verbose_name=_("user"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("trader")
        verbose_name_plural = _("traders")

    objects = WatchedQuerySet.as_manager()

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        adding = self._state.adding
        super().save(*args, **kwargs)
        if adding:
            # Its working deposit's row from the start, as a terminal's: made by a first
            # movement instead, it would be changed after the rows queued behind it,
            # against the lock order (finance.movements_together).
            account_ensure(trader_id=self.pk)

    @property
    def livemode(self) -> bool:
        """Live traders serve live orders only, sandbox traders sandbox ones only."""
        return not self.sandbox


class TraderApiKey(ApiKeyBase):
    trader = models.ForeignKey(
        Trader, on_delete=models.CASCADE, related_name="api_keys", verbose_name=_("trader")
    )

    class Meta:
        verbose_name_plural = _("trader API keys")
        verbose_name = _("trader API key")


class RequisiteDisabledReason(models.TextChoices):
    TRADER = "trader", pgettext_lazy("switched off by", "by its trader")
    OPERATOR = "operator", pgettext_lazy("switched off by", "by an operator")
    AUTO_EXPIRED = "auto_expired", pgettext_lazy("switched off by", "by itself (expiries in a row)")


class Requisite(models.Model):
    """A trader's card or SBP phone for one concrete (bank) payment method."""

    id = models.UUIDField(
        primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("id")
    )
    trader = models.ForeignKey(
        Trader, on_delete=models.PROTECT, related_name="requisites", verbose_name=_("trader")
    )
    method = models.ForeignKey(
        PaymentMethod, on_delete=models.PROTECT, related_name="requisites", verbose_name=_("method")
    )
    holder_name = models.CharField(max_length=200, verbose_name=_("holder name"))
    account = models.CharField(max_length=64, verbose_name=_("account"))
    is_active = models.BooleanField(default=True, verbose_name=_("is active"))
    daily_limit = MoneyField(
        default=100_000_000, help_text=_("Turnover per UTC day"), verbose_name=_("daily limit")
    )
    max_pending = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text=_("Pending orders at once; empty: no cap beyond one per amount"),
        verbose_name=_("max pending"),
    )
    # The requisite's own amount range, inside the method's (empty: no bound).
    min_amount = MoneyField(null=True, blank=True, verbose_name=_("min amount"))
    max_amount = MoneyField(null=True, blank=True, verbose_name=_("max amount"))
    # Switched off after this many orders in a row ended Expired by the clock (empty: never).
    auto_disable_after = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=_("auto disable after")
    )
    # Expired-by-the-clock orders in a row since the last one that did not expire.
    expired_in_a_row = models.PositiveIntegerField(default=0, verbose_name=_("expired in a row"))
    # Why is_active is off: null while on.
    disabled_reason = models.CharField(
        max_length=16,
        null=True,
        blank=True,
        choices=RequisiteDisabledReason.choices,
        verbose_name=_("disabled reason"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("requisite")
        verbose_name_plural = _("requisites")
        indexes = [
            # The matcher's walk: a method's active requisites in id order (its ring).
            models.Index(
                fields=["method", "id"], name="requisite_method_walk", condition=Q(is_active=True)
            )
        ]

    def __str__(self):
        return f"{self.method} · {self.account} ({self.trader})"

    def save(self, *args, **kwargs):
        adding = self._state.adding
        super().save(*args, **kwargs)
        if adding:
            # Its live figures from the start (all zero), so its first order does not
            # count them from the orders (orders/services/load.py).
            RequisiteLoad.objects.get_or_create(
                requisite=self, defaults={"day": datetime.now(UTC).date()}
            )


class RequisiteLoad(models.Model):
    """A requisite's live figures, kept by the transactions that change them.

    `pending` is the number of its Pending orders (either side); `turnover` is the sum
    of the amounts of its orders created on the UTC day `day` that are Pending or
    Completed. Order creation raises both with one conditional UPDATE that holds only
    while they stay within the requisite's `max_pending` and `daily_limit`, so the
    database enforces the caps under any concurrency (see orders/load.py); leaving
    Pending lowers `pending`, and a cancel or expiry gives the amount back.
    """

    requisite = models.OneToOneField(
        Requisite,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="load",
        verbose_name=_("requisite"),
    )
    pending = models.IntegerField(default=0, verbose_name=_("pending"))
    day = models.DateField(verbose_name=_("day"))
    turnover = MoneyField(default=0, verbose_name=_("turnover"))

    class Meta:
        verbose_name = _("requisite load")
        verbose_name_plural = _("requisite loads")
        constraints = [
            models.CheckConstraint(condition=Q(pending__gte=0), name="requisite_load_pending"),
        ]

    def __str__(self):
        return gettext("{pending} pending, {turnover} on {day}").format(
            pending=self.pending, turnover=self.turnover, day=self.day
        )
