"""Settlements: money coming into or leaving the books from outside (traders.md §19).

An operator enters a merchant's or a trader's deposit or withdrawal, or a merchant
asks for its own withdrawal over the API; it waits (`awaiting_approval`) until an
operator other than the one who entered it approves or rejects it. A withdrawal's
amount is frozen (a finance Reserve) from entry to the decision.
"""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core.money import MoneyField
from finance.models import Reserve, Terminal, Transaction
from orders.models import Trader


class SettlementKind(models.TextChoices):
    MERCHANT_DEPOSIT = "merchant_deposit", _("Merchant deposit")
    MERCHANT_WITHDRAWAL = "merchant_withdrawal", _("Merchant withdrawal")
    TRADER_DEPOSIT = "trader_deposit", _("Trader deposit")
    TRADER_WITHDRAWAL = "trader_withdrawal", _("Trader withdrawal")


WITHDRAWALS = {SettlementKind.MERCHANT_WITHDRAWAL, SettlementKind.TRADER_WITHDRAWAL}
MERCHANT_KINDS = {SettlementKind.MERCHANT_DEPOSIT, SettlementKind.MERCHANT_WITHDRAWAL}


class SettlementStatus(models.TextChoices):
    AWAITING_APPROVAL = "awaiting_approval", pgettext_lazy("settlement", "Awaiting approval")
    COMPLETED = "completed", pgettext_lazy("settlement", "Completed")
    REJECTED = "rejected", pgettext_lazy("settlement", "Rejected")


class Settlement(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(
        pgettext_lazy("settlement", "kind"), max_length=20, choices=SettlementKind.choices
    )
    terminal = models.ForeignKey(
        Terminal, null=True, blank=True, on_delete=models.PROTECT, related_name="settlements"
    )
    trader = models.ForeignKey(
        Trader, null=True, blank=True, on_delete=models.PROTECT, related_name="settlements"
    )
    amount = MoneyField(pgettext_lazy("settlement", "amount"))
    # The world its money belongs to: live money, or the sandbox's test money. It is
    # the account's own world, always: a settlement never moves money across.
    sandbox = models.BooleanField(pgettext_lazy("settlement", "sandbox"), default=False)
    destination = models.CharField(
        pgettext_lazy("settlement", "destination"), max_length=255, blank=True
    )
    comment = models.CharField(pgettext_lazy("settlement", "comment"), max_length=255, blank=True)
    status = models.CharField(
        pgettext_lazy("settlement", "status"),
        max_length=20,
        choices=SettlementStatus.choices,
        default=SettlementStatus.AWAITING_APPROVAL,
    )
    reserve = models.OneToOneField(
        Reserve, null=True, blank=True, on_delete=models.PROTECT, related_name="settlement"
    )
    transaction = models.OneToOneField(
        Transaction, null=True, blank=True, on_delete=models.PROTECT, related_name="settlement"
    )
    # Who entered it: an operator, or the merchant itself (a withdrawal over the API).
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="settlements_entered",
    )
    entered_by_merchant = models.BooleanField(default=False)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="settlements_decided",
    )
    created_at = models.DateTimeField(pgettext_lazy("settlement", "created at"), auto_now_add=True)
    decided_at = models.DateTimeField(
        pgettext_lazy("settlement", "decided at"), null=True, blank=True
    )

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("settlement")
        verbose_name_plural = _("settlements")
        indexes = [
            models.Index(fields=["terminal", "kind", "-created_at"], name="settlement_terminal"),
            models.Index(fields=["status", "-created_at"], name="settlement_status"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="settlement_amount_positive"),
            models.CheckConstraint(
                condition=(
                    Q(
                        kind__in=["merchant_deposit", "merchant_withdrawal"],
                        terminal__isnull=False,
                        trader__isnull=True,
                    )
                    | Q(
                        kind__in=["trader_deposit", "trader_withdrawal"],
                        terminal__isnull=True,
                        trader__isnull=False,
                    )
                ),
                name="settlement_account",
            ),
        ]

    def __str__(self):
        return f"{self.kind} {self.amount} ({self.status})"

    @property
    def account(self):
        return self.terminal if self.kind in MERCHANT_KINDS else self.trader
