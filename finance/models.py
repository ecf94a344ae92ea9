"""Merchants' side of the books: clients, terminals and their keys, payment methods
and fees, and each terminal's balance with its append-only ledger.

Ledger model (a two-phase transfer, decisions §2):
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

from core.keys import ApiKeyBase
from core.money import MoneyField


class Currency(models.TextChoices):
    RUB = "RUB", "RUB"


class Side(models.TextChoices):
    BUY = "Buy", "Buy"
    SELL = "Sell", "Sell"


class MethodType(models.TextChoices):
    SBP = "SBP", "SBP"
    BANK_CARD = "BankCard", "BankCard"


class IntegrationType(models.TextChoices):
    H2H = "h2h", "h2h"
    ORDER_WITH_FORM = "order_with_form", "order_with_form"


class ButtonName(models.TextChoices):
    ALFAPAY = "AlfaPay", "AlfaPay"
    SBERPAY = "SberPay", "SberPay"
    TPAY = "TPay", "TPay"
    VTBPAY = "VTBPay", "VTBPay"


class Client(models.Model):
    """A merchant account; it owns one or more terminals."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.name


class Terminal(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    client = models.ForeignKey(Client, on_delete=models.PROTECT, related_name="terminals")
    name = models.CharField("display name", max_length=200)
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.RUB)
    integration_type = models.CharField(
        max_length=20, choices=IntegrationType.choices, default=IntegrationType.H2H
    )
    form_activated = models.BooleanField(default=False)
    webhook_urls = models.JSONField(default=list, blank=True, help_text="List of URLs")
    webhook_secret = models.CharField(max_length=200, help_text="whsec_ + base64 secret")
    # After a rotation the old secret keeps signing beside the new one until
    # webhook_secret_previous_until, so receivers switch without a failed delivery.
    webhook_secret_previous = models.CharField(max_length=200, blank=True, editable=False)
    webhook_secret_previous_until = models.DateTimeField(null=True, blank=True, editable=False)
    antifraud_max_pending = models.PositiveIntegerField(
        null=True, blank=True, help_text="Pending orders per user_id; empty: the service default"
    )
    is_active = models.BooleanField(default=True)
    sandbox = models.BooleanField(
        default=False,
        help_text="Test mode: its orders go only to sandbox traders, magic amounts act on "
        "their own, and its orders are livemode=false",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.name

    @property
    def livemode(self) -> bool:
        """The one rule for live or test mode: a terminal is live unless it is a
        sandbox one. Its orders keep this value (Order.livemode) from creation."""
        return not self.sandbox


class ApiKey(ApiKeyBase):
    terminal = models.ForeignKey(Terminal, on_delete=models.CASCADE, related_name="api_keys")

    class Meta:
        verbose_name = "terminal API key"


class PaymentMethod(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=100, help_text="English name, also the API's method_name")
    name_ru = models.CharField(
        max_length=100,
        blank=True,
        help_text="Russian name shown to payers (the English one when empty)",
    )
    method_type = models.CharField(max_length=20, choices=MethodType.choices)
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.RUB)
    nspk_code = models.CharField(max_length=20, null=True, blank=True, db_index=True)
    is_aggregate = models.BooleanField(
        default=False, help_text="Matches any bank's requisite of the same method type"
    )
    is_active = models.BooleanField(default=True)
    bank_slug = models.CharField(
        max_length=30,
        blank=True,
        help_text="customer_bank value (sberbank, vtb, tinkoff, alfabank)",
    )
    deeplink_template = models.CharField(
        max_length=500,
        blank=True,
        help_text="Bank deeplink; placeholders {account} {amount} {order_id}",
    )
    hint_ru = models.TextField(blank=True, help_text="Payer's hint on the form, Russian")
    hint_en = models.TextField(blank=True, help_text="Payer's hint on the form, English")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    def payer_name(self, lang: str) -> str:
        """The name shown to payers in their language."""
        return self.name_ru if lang == "ru" and self.name_ru else self.name


class FeeRange(models.Model):
    method = models.ForeignKey(PaymentMethod, on_delete=models.CASCADE, related_name="ranges")
    side = models.CharField(max_length=4, choices=Side.choices)
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.RUB)
    min_amount = MoneyField()
    max_amount = MoneyField()
    fee = models.DecimalField(max_digits=7, decimal_places=2, help_text="Percent")
    fixed_fee = MoneyField(default=0)
    # The trader's reward, a percent of the order's paid amount (Buy) or amount (Sell);
    # never shown to merchants.
    trader_reward_percent = models.DecimalField(max_digits=7, decimal_places=2, default=0)

    class Meta:
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

    terminal = models.ForeignKey(Terminal, on_delete=models.CASCADE, related_name="methods")
    method = models.ForeignKey(PaymentMethod, on_delete=models.CASCADE, related_name="terminals")
    enabled = models.BooleanField(default=True)
    button_name = models.CharField(max_length=10, choices=ButtonName.choices, null=True, blank=True)

    class Meta:
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


class AccountKind(models.TextChoices):
    TERMINAL = "terminal", "terminal"
    TRADER = "trader", "trader"
    PLATFORM = "platform", "platform"


class Balance(models.Model):
    """One account of the books: a terminal's deposit, a trader's working deposit or
    the platform's revenue (one live, one sandbox). Changed only by finance.services,
    under a row lock."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=8, choices=AccountKind.choices, default=AccountKind.TERMINAL)
    terminal = models.OneToOneField(
        Terminal, on_delete=models.PROTECT, related_name="balance", null=True, blank=True
    )
    # A trader's id (orders.Trader sits above finance, so no foreign key).
    trader_id = models.UUIDField(null=True, blank=True, unique=True)
    # The platform's account of sandbox orders (their revenue is not real money).
    sandbox = models.BooleanField(default=False)
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.RUB)
    available = MoneyField(default=0)
    frozen = MoneyField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
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
        owner = self.terminal if self.kind == AccountKind.TERMINAL else self.kind
        return f"{owner}: {self.available} available, {self.frozen} frozen"


class TransactionType(models.TextChoices):
    DEPOSIT = "deposit", "deposit"
    WITHDRAWAL = "withdrawal", "withdrawal"
    ORDER_BUY = "order_buy", "order_buy"
    ORDER_SELL = "order_sell", "order_sell"
    REWARD = "reward", "reward"
    REVENUE = "revenue", "revenue"


# Which types add to a balance and which take from it.
CREDIT_TYPES = frozenset(
    {
        TransactionType.DEPOSIT,
        TransactionType.ORDER_SELL,
        TransactionType.REWARD,
        TransactionType.REVENUE,
    }
)
DEBIT_TYPES = frozenset({TransactionType.WITHDRAWAL, TransactionType.ORDER_BUY})
# What each kind of account's ledger may hold.
MERCHANT_TRANSACTION_TYPES = (TransactionType.DEPOSIT, TransactionType.WITHDRAWAL)
TRADER_TRANSACTION_TYPES = (
    TransactionType.DEPOSIT,
    TransactionType.WITHDRAWAL,
    TransactionType.ORDER_BUY,
    TransactionType.ORDER_SELL,
    TransactionType.REWARD,
)


class Transaction(models.Model):
    """Posted money. Append-only: never updated, never deleted."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    balance = models.ForeignKey(Balance, on_delete=models.PROTECT, related_name="transactions")
    amount = MoneyField()
    transaction_type = models.CharField(max_length=10, choices=TransactionType.choices)
    balance_after = MoneyField()
    client_description = models.CharField(max_length=500, blank=True)
    reference = models.CharField(
        max_length=64, blank=True, db_index=True, help_text="Order id, when any"
    )
    created_by = models.CharField(
        max_length=150, blank=True, help_text="Operator, for manual entries"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["balance", "-created_at"], name="txn_balance_created")]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="txn_amount_positive"),
            models.CheckConstraint(
                condition=Q(balance_after__gte=0), name="txn_balance_after_non_negative"
            ),
        ]

    def __str__(self):
        return f"{self.transaction_type} {self.amount}"


class ReserveState(models.TextChoices):
    OPEN = "open", "open"
    POSTED = "posted", "posted"
    VOIDED = "voided", "voided"


class Reserve(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    balance = models.ForeignKey(Balance, on_delete=models.PROTECT, related_name="reserves")
    amount = MoneyField()
    state = models.CharField(max_length=6, choices=ReserveState.choices, default=ReserveState.OPEN)
    reference = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["balance", "state"], name="reserve_balance_state")]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="reserve_amount_positive")
        ]


class BlacklistedAccount(models.Model):
    account = models.CharField(
        max_length=64, unique=True, help_text="Normalised: +7XXXXXXXXXX or card digits"
    )
    comment = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.account
