"""The books' rows: each account's balance (a merchant's terminal, a trader, the
platform), its append-only ledger and the reserves of money set aside (see
finance/models.py for the two-phase transfer they make)."""

import uuid

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.money import MoneyField

from .choices import AccountKind, Currency, ReserveState, TransactionType


class Balance(models.Model):
    """One account of the books: a terminal's deposit, a trader's working deposit or
    the platform's revenue (one live, one sandbox). Changed only by finance.services,
    under a row lock."""

    id = models.UUIDField(
        primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("id")
    )
    kind = models.CharField(
        max_length=8,
        choices=AccountKind.choices,
        default=AccountKind.TERMINAL,
        verbose_name=_("account kind"),
    )
    terminal = models.OneToOneField(
        "finance.Terminal",
        on_delete=models.PROTECT,
        related_name="balance",
        null=True,
        blank=True,
        verbose_name=_("terminal"),
    )
    # A trader's id (orders.Trader sits above finance, so no foreign key).
    trader_id = models.UUIDField(null=True, blank=True, unique=True, verbose_name=_("trader"))
    # The platform's account of sandbox orders (their revenue is not real money).
    sandbox = models.BooleanField(default=False, verbose_name=_("sandbox"))
    currency = models.CharField(
        max_length=3, choices=Currency.choices, default=Currency.RUB, verbose_name=_("currency")
    )
    available = MoneyField(default=0, verbose_name=_("available"))
    frozen = MoneyField(default=0, verbose_name=_("frozen"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("balance")
        verbose_name_plural = _("balances")
        constraints = [
            models.CheckConstraint(
                condition=Q(available__gte=0), name="balance_available_non_negative"
            ),
            models.CheckConstraint(condition=Q(frozen__gte=0), name="balance_frozen_non_negative"),
            # Each kind names exactly its owner.
            models.CheckConstraint(
                condition=(
                    Q(kind="terminal", terminal__isnull=False, trader_id__isnull=True)
                    | Q(kind="trader", terminal__isnull=True, trader_id__isnull=False)
                    | Q(kind="platform", terminal__isnull=True, trader_id__isnull=True)
                ),
                name="balance_account_owner",
            ),
            models.UniqueConstraint(
                fields=["sandbox"], condition=Q(kind="platform"), name="balance_platform_unique"
            ),
        ]

    @property
    def total(self):
        return self.available + self.frozen

    def __str__(self):
        owner = self.terminal if self.kind == AccountKind.TERMINAL else self.get_kind_display()
        return gettext("{terminal}: {available} available, {frozen} frozen").format(
            terminal=owner, available=self.available, frozen=self.frozen
        )


class Transaction(models.Model):
    """Posted money. Append-only: never updated, never deleted."""

    id = models.UUIDField(
        primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("id")
    )
    # No index of its own: txn_balance_created leads with it and answers every lookup by
    # balance (a close writes three ledger rows while it holds the shared balance rows,
    # each one index entry fewer).
    balance = models.ForeignKey(
        Balance,
        on_delete=models.PROTECT,
        related_name="transactions",
        db_index=False,
        verbose_name=_("balance"),
    )
    amount = MoneyField(verbose_name=_("amount"))
    transaction_type = models.CharField(
        max_length=10, choices=TransactionType.choices, verbose_name=_("transaction type")
    )
    balance_after = MoneyField(verbose_name=_("balance after"))
    client_description = models.CharField(
        max_length=500, blank=True, verbose_name=_("client description")
    )
    # Indexed in Meta (txn_reference): a field's own db_index would add a second,
    # pattern-matching index on PostgreSQL, which no lookup of it uses (the books read it
    # by equality, the admin's search by a contained text no index can answer).
    reference = models.CharField(
        max_length=64,
        blank=True,
        help_text=_("Order id, when any"),
        verbose_name=_("reference"),
    )
    created_by = models.CharField(
        max_length=150,
        blank=True,
        help_text=_("Operator, for manual entries"),
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("transaction")
        verbose_name_plural = _("transactions")
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["balance", "-created_at"], name="txn_balance_created"),
            models.Index(fields=["reference"], name="txn_reference"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="txn_amount_positive"),
            models.CheckConstraint(
                condition=Q(balance_after__gte=0), name="txn_balance_after_non_negative"
            ),
        ]

    def __str__(self):
        return f"{self.get_transaction_type_display()} {self.amount}"


class Reserve(models.Model):
    id = models.UUIDField(
        primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("id")
    )
    balance = models.ForeignKey(
        Balance, on_delete=models.PROTECT, related_name="reserves", verbose_name=_("balance")
    )
    amount = MoneyField(verbose_name=_("amount"))
    state = models.CharField(
        max_length=6,
        choices=ReserveState.choices,
        default=ReserveState.OPEN,
        verbose_name=_("state"),
    )
    reference = models.CharField(max_length=64, blank=True, verbose_name=_("reference"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    closed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("closed at"))

    class Meta:
        verbose_name = _("reserve")
        verbose_name_plural = _("reserves")
        indexes = [models.Index(fields=["balance", "state"], name="reserve_balance_state")]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="reserve_amount_positive")
        ]

    def __str__(self):
        return gettext("Reserve {amount} ({state})").format(
            amount=self.amount, state=self.get_state_display()
        )
