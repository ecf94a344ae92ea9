"""Merchants' side of the books: clients, terminals and their keys, payment methods
and fees, and each terminal's balance with its append-only ledger.

Ledger model (a two-phase transfer, docs/money.md):
- `Balance` holds `available` and `frozen`; the database refuses either going negative.
- `Transaction` is posted money (a deposit or a withdrawal); rows are never edited.
- `Reserve` is money set aside for a Pending Sell: `open` while it sits in `frozen`,
  then `posted` (a withdrawal transaction) or `voided` (back to `available`).
So at any moment: total == sum(deposits) - sum(withdrawals) and frozen == sum(open
reserves). `check_ledger` verifies exactly that.
"""

import uuid

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from core.keys import ApiKeyBase
from core.memo import WatchedQuerySet
from core.money import MoneyField

from .choices import (  # noqa: F401 - the choices are imported from here too
    CREDIT_TYPES,
    DEBIT_TYPES,
    MERCHANT_TRANSACTION_TYPES,
    TRADER_TRANSACTION_TYPES,
    AccountKind,
    ButtonName,
    Currency,
    IntegrationType,
    MethodType,
    ReserveState,
    Side,
    TransactionType,
)


class Client(models.Model):
    """A merchant account; it owns one or more terminals."""

    id = models.UUIDField(
        primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("id")
    )
    name = models.CharField(max_length=200, unique=True, verbose_name=_("name"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("client")
        verbose_name_plural = _("clients")

    objects = WatchedQuerySet.as_manager()

    def __str__(self):
        return self.name


# A terminal's webhook URLs: at most this many, each at most this long (the API, the
# admin and an order's own webhook_url all check against these).
WEBHOOK_URLS_MAX = 10
WEBHOOK_URL_MAX_LENGTH = 512


class Terminal(models.Model):
    id = models.UUIDField(
        primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("id")
    )
    client = models.ForeignKey(
        Client, on_delete=models.PROTECT, related_name="terminals", verbose_name=_("client")
    )
    name = models.CharField(_("display name"), max_length=200)
    currency = models.CharField(
        max_length=3, choices=Currency.choices, default=Currency.RUB, verbose_name=_("currency")
    )
    integration_type = models.CharField(
        max_length=20,
        choices=IntegrationType.choices,
        default=IntegrationType.H2H,
        verbose_name=_("integration type"),
    )
    form_activated = models.BooleanField(default=False, verbose_name=_("form activated"))
    webhook_urls = models.JSONField(
        default=list, blank=True, help_text=_("List of URLs"), verbose_name=_("webhook urls")
    )
    webhook_secret = models.CharField(
        max_length=200, help_text=_("whsec_ + base64 secret"), verbose_name=_("webhook secret")
    )
    # After a rotation the old secret keeps signing beside the new one until
    # webhook_secret_previous_until, so receivers switch without a failed delivery.
    webhook_secret_previous = models.CharField(
        max_length=200, blank=True, editable=False, verbose_name=_("webhook secret previous")
    )
    webhook_secret_previous_until = models.DateTimeField(
        null=True, blank=True, editable=False, verbose_name=_("webhook secret previous until")
    )
    antifraud_max_pending = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text=_("Pending orders per user_id; empty: the service default"),
        verbose_name=_("antifraud max pending"),
    )
    is_active = models.BooleanField(default=True, verbose_name=_("is active"))
    sandbox = models.BooleanField(
        default=False,
        help_text=_(
            "Test mode: its orders go only to sandbox traders, magic amounts act on "
            "their own, and its orders are livemode=false"
        ),
        verbose_name=_("sandbox"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("terminal")
        verbose_name_plural = _("terminals")

    objects = WatchedQuerySet.as_manager()

    def __str__(self):
        return self.name

    @property
    def livemode(self) -> bool:
        """The one rule for live or test mode: a terminal is live unless it is a
        sandbox one. Its orders keep this value (Order.livemode) from creation."""
        return not self.sandbox


class ApiKey(ApiKeyBase):
    terminal = models.ForeignKey(
        Terminal, on_delete=models.CASCADE, related_name="api_keys", verbose_name=_("terminal")
    )

    class Meta:
        verbose_name_plural = _("terminal API keys")
        verbose_name = _("terminal API key")


def method_enabled_on(
    method: "PaymentMethod", *, terminal: "Terminal", link: "TerminalMethod | None"
) -> bool:
    """The one rule for "a terminal has this method": its link to the terminal is on
    (`link`: their TerminalMethod, or None), the method is active and of the
    terminal's currency. PaymentMethod.objects.enabled_on says the same in SQL."""
    return (
        link is not None
        and link.enabled
        and method.is_active
        and method.currency == terminal.currency
    )


def fee_range_usable(fee_range: "FeeRange", method: "PaymentMethod") -> bool:
    """A fee range counts only in its method's currency (FeeRange.objects.usable)."""
    return fee_range.currency == method.currency


class PaymentMethodQuerySet(WatchedQuerySet):
    def linked_to(self, terminal: "Terminal"):
        """Methods switched on for the terminal, in its currency, active or not (the
        payment methods API lists inactive ones too)."""
        return self.filter(
            terminals__terminal=terminal, terminals__enabled=True, currency=terminal.currency
        )

    def enabled_on(self, terminal: "Terminal"):
        """method_enabled_on in SQL."""
        return self.linked_to(terminal).filter(is_active=True)


class FeeRangeQuerySet(WatchedQuerySet):
    def usable(self):
        """fee_range_usable in SQL."""
        return self.filter(currency=models.F("method__currency"))


class PaymentMethod(models.Model):
    id = models.UUIDField(
        primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("id")
    )
    name = models.CharField(
        max_length=100,
        help_text=_("English name, also the API's method_name"),
        verbose_name=_("name"),
    )
    name_ru = models.CharField(
        max_length=100,
        blank=True,
        help_text=_("Russian name shown to payers (the English one when empty)"),
        verbose_name=_("name ru"),
    )
    method_type = models.CharField(
        max_length=20, choices=MethodType.choices, verbose_name=_("method type")
    )
    currency = models.CharField(
        max_length=3, choices=Currency.choices, default=Currency.RUB, verbose_name=_("currency")
    )
    nspk_code = models.CharField(
        max_length=20, null=True, blank=True, db_index=True, verbose_name=_("nspk code")
    )
    is_aggregate = models.BooleanField(
        default=False,
        help_text=_("Matches any bank's requisite of the same method type"),
        verbose_name=_("is aggregate"),
    )
    is_active = models.BooleanField(default=True, verbose_name=_("is active"))
    bank_slug = models.CharField(
        max_length=30,
        blank=True,
        help_text=_("customer_bank value (sberbank, vtb, tinkoff, alfabank)"),
        verbose_name=_("bank slug"),
    )
    deeplink_template = models.CharField(
        max_length=500,
        blank=True,
        help_text=_("Bank deeplink; placeholders {account} {amount} {order_id}"),
        verbose_name=_("deeplink template"),
    )
    hint_ru = models.TextField(
        blank=True, help_text=_("Payer's hint on the form, Russian"), verbose_name=_("hint ru")
    )
    hint_en = models.TextField(
        blank=True, help_text=_("Payer's hint on the form, English"), verbose_name=_("hint en")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    objects = PaymentMethodQuerySet.as_manager()

    class Meta:
        verbose_name = _("payment method")
        verbose_name_plural = _("payment methods")
        ordering = ["name"]

    def __str__(self):
        return self.name

    def payer_name(self, lang: str) -> str:
        """The name shown to payers in their language."""
        return self.name_ru if lang == "ru" and self.name_ru else self.name


class FeeRange(models.Model):
    method = models.ForeignKey(
        PaymentMethod, on_delete=models.CASCADE, related_name="ranges", verbose_name=_("method")
    )
    side = models.CharField(max_length=4, choices=Side.choices, verbose_name=_("side"))
    currency = models.CharField(
        max_length=3, choices=Currency.choices, default=Currency.RUB, verbose_name=_("currency")
    )
    min_amount = MoneyField(verbose_name=_("min amount"))
    max_amount = MoneyField(verbose_name=_("max amount"))
    fee = models.DecimalField(
        max_digits=7, decimal_places=2, help_text=_("Percent"), verbose_name=_("fee")
    )
    fixed_fee = MoneyField(default=0, verbose_name=_("fixed fee"))
    # The trader's reward, a percent of the order's paid amount (Buy) or amount (Sell);
    # never shown to merchants.
    trader_reward_percent = models.DecimalField(
        max_digits=7, decimal_places=2, default=0, verbose_name=_("trader reward percent")
    )

    objects = FeeRangeQuerySet.as_manager()

    class Meta:
        verbose_name = _("fee range")
        verbose_name_plural = _("fee ranges")
        ordering = ["side", "min_amount"]
        constraints = [
            models.CheckConstraint(condition=Q(min_amount__gt=0), name="feerange_min_positive"),
            models.CheckConstraint(
                condition=Q(max_amount__gte=models.F("min_amount")), name="feerange_max_ge_min"
            ),
            models.CheckConstraint(
                condition=Q(fee__gte=0) & Q(fixed_fee__gte=0), name="feerange_fee_non_negative"
            ),
        ]

    def __str__(self):
        return f"{self.method} {self.side} {self.min_amount}-{self.max_amount}"


class TerminalMethod(models.Model):
    """A method enabled on a terminal, optionally offered as a form button."""

    terminal = models.ForeignKey(
        Terminal, on_delete=models.CASCADE, related_name="methods", verbose_name=_("terminal")
    )
    method = models.ForeignKey(
        PaymentMethod, on_delete=models.CASCADE, related_name="terminals", verbose_name=_("method")
    )
    enabled = models.BooleanField(default=True, verbose_name=_("enabled"))
    button_name = models.CharField(
        max_length=10,
        choices=ButtonName.choices,
        null=True,
        blank=True,
        verbose_name=_("button name"),
    )

    objects = WatchedQuerySet.as_manager()

    class Meta:
        verbose_name = _("terminal method")
        verbose_name_plural = _("terminal methods")
        constraints = [
            models.UniqueConstraint(fields=["terminal", "method"], name="terminalmethod_unique"),
            models.UniqueConstraint(
                fields=["terminal", "button_name"],
                condition=Q(button_name__isnull=False),
                name="terminalmethod_button_unique",
            ),
        ]

    def __str__(self):
        return f"{self.terminal} · {self.method}"


class BlacklistedAccount(models.Model):
    account = models.CharField(
        max_length=64,
        unique=True,
        help_text=_("Normalised: +7XXXXXXXXXX or card digits"),
        verbose_name=_("account"),
    )
    comment = models.CharField(max_length=300, blank=True, verbose_name=_("comment"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("blacklisted account")
        verbose_name_plural = _("blacklisted accounts")

    def __str__(self):
        return self.account


# The ledger's models live beside the rest, named from here as before.
from .ledger_models import Balance, Reserve, Transaction  # noqa: E402,F401
