import uuid
from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.db import DbNow, db_now
from core.keys import ApiKeyBase
from core.money import MoneyField
from finance.models import Currency, PaymentMethod, Reserve, Side, Terminal


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

    def __str__(self):
        return self.name

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
    TRADER = "trader", "trader"
    OPERATOR = "operator", "operator"
    AUTO_EXPIRED = "auto_expired", "auto_expired"


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
        indexes = [models.Index(fields=["method", "is_active"], name="requisite_method_active")]

    def __str__(self):
        return f"{self.method} · {self.account} ({self.trader})"


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


class OrderStatus(models.TextChoices):
    PENDING = "Pending", "Pending"
    COMPLETED = "Completed", "Completed"
    CANCELLED = "Cancelled", "Cancelled"
    EXPIRED = "Expired", "Expired"


# The order state machine (decisions §3), written once; services check against it.
# Reaching Completed from Cancelled/Expired is only for an accepted dispute.
ORDER_TRANSITIONS: dict[str, set[str]] = {
    OrderStatus.PENDING: {OrderStatus.COMPLETED, OrderStatus.CANCELLED, OrderStatus.EXPIRED},
    OrderStatus.COMPLETED: set(),
    OrderStatus.CANCELLED: set(),
    OrderStatus.EXPIRED: set(),
}
DISPUTE_COMPLETABLE = {OrderStatus.PENDING, OrderStatus.CANCELLED, OrderStatus.EXPIRED}


class OrderQuerySet(models.QuerySet):
    def with_db_clock(self):
        """Each order read with the database's time beside it (`db_clock`), which
        is_overdue compares expires_at with: no extra round trip."""
        return self.annotate(db_clock=DbNow())


class Order(models.Model):
    id = models.UUIDField(
        primary_key=True, default=uuid.uuid4, editable=False, verbose_name=_("id")
    )
    # No single-column indexes on terminal, initial_method, requisite and trader: the
    # composite indexes below lead with them, and each index is one more write on
    # every INSERT and status UPDATE.
    terminal = models.ForeignKey(
        Terminal,
        on_delete=models.PROTECT,
        related_name="orders",
        db_index=False,
        verbose_name=_("terminal"),
    )
    client_order_id = models.CharField(max_length=64, verbose_name=_("client order id"))
    currency = models.CharField(
        max_length=3, choices=Currency.choices, default=Currency.RUB, verbose_name=_("currency")
    )
    side = models.CharField(max_length=4, choices=Side.choices, verbose_name=_("side"))
    method = models.ForeignKey(
        PaymentMethod, on_delete=models.PROTECT, related_name="orders", verbose_name=_("method")
    )
    initial_method = models.ForeignKey(
        PaymentMethod,
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,
        verbose_name=_("initial method"),
    )
    requisite = models.ForeignKey(
        Requisite,
        on_delete=models.PROTECT,
        related_name="orders",
        null=True,
        db_index=False,
        verbose_name=_("requisite"),
    )
    trader = models.ForeignKey(
        Trader,
        on_delete=models.PROTECT,
        related_name="orders",
        null=True,
        db_index=False,
        verbose_name=_("trader"),
    )
    status = models.CharField(
        max_length=10,
        choices=OrderStatus.choices,
        default=OrderStatus.PENDING,
        verbose_name=_("status"),
    )

    requested_amount = MoneyField(verbose_name=_("requested amount"))
    amount = MoneyField(verbose_name=_("amount"))
    fee = models.DecimalField(max_digits=7, decimal_places=2, verbose_name=_("fee"))
    fixed_fee = MoneyField(default=0, verbose_name=_("fixed fee"))
    fee_amount = MoneyField(verbose_name=_("fee amount"))
    paid_amount = MoneyField(null=True, blank=True, verbose_name=_("paid amount"))
    # The trader's reward on this order (set when it completes); the platform's revenue
    # is fee_amount minus it.
    trader_reward = MoneyField(null=True, blank=True, verbose_name=_("trader reward"))
    reserve = models.OneToOneField(
        Reserve,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="order",
        verbose_name=_("reserve"),
    )

    holder_name = models.CharField(max_length=200, blank=True, verbose_name=_("holder name"))
    holder_account = models.CharField(max_length=64, blank=True, verbose_name=_("holder account"))
    customer_name = models.CharField(
        max_length=200, null=True, blank=True, verbose_name=_("customer name")
    )
    customer_account = models.CharField(
        max_length=64, null=True, blank=True, verbose_name=_("customer account")
    )
    customer_bank = models.CharField(
        max_length=30, null=True, blank=True, verbose_name=_("customer bank")
    )
    user_id = models.CharField(max_length=255, null=True, blank=True, verbose_name=_("user id"))
    webhook_url = models.CharField(
        max_length=512, null=True, blank=True, verbose_name=_("webhook url")
    )
    payment_link = models.CharField(
        max_length=1000, null=True, blank=True, verbose_name=_("payment link")
    )
    form_url = models.CharField(max_length=500, null=True, blank=True, verbose_name=_("form url"))
    # The terminal's mode when the order was made: an operator flipping the flag later
    # does not move an order between live and sandbox.
    livemode = models.BooleanField(default=True, verbose_name=_("livemode"))
    # A sandbox order's magic amount, decided at creation: what the sandbox does to it
    # within seconds (complete, cancel, expire); null for every other order.
    sandbox_action = models.CharField(
        max_length=8, null=True, blank=True, verbose_name=_("sandbox action")
    )

    event_sequence = models.PositiveIntegerField(default=0, verbose_name=_("event sequence"))
    receipts_count = models.PositiveSmallIntegerField(default=0, verbose_name=_("receipts count"))
    # Expiry follows the database's clock, one for every web process: creation writes
    # both moments with DbNow() in its INSERT, which returns them (a field with a
    # db_default comes back by RETURNING). Without a TTL an order is due at once.
    created_at = models.DateTimeField(db_default=DbNow(), verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))
    expires_at = models.DateTimeField(db_default=DbNow(), verbose_name=_("expires at"))
    closed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("closed at"))
    closed_by = models.CharField(max_length=200, blank=True, verbose_name=_("closed by"))

    class Meta:
        verbose_name = _("order")
        verbose_name_plural = _("orders")
        indexes = [
            # The list's order (created_at, then id) read straight off the index,
            # whatever the planner's statistics say.
            models.Index(
                fields=["terminal", "-created_at", "-id"], name="order_terminal_created_id"
            ),
            models.Index(
                fields=["terminal", "client_order_id", "-created_at"],
                name="order_terminal_client_id",
            ),
            models.Index(
                fields=["terminal", "status", "-created_at"], name="order_terminal_status"
            ),
            models.Index(fields=["terminal", "amount"], name="order_terminal_amount"),
            models.Index(
                fields=["expires_at"], name="order_pending_expiry", condition=Q(status="Pending")
            ),
            models.Index(
                fields=["terminal", "user_id"],
                name="order_pending_user",
                condition=Q(status="Pending"),
            ),
            models.Index(fields=["trader", "-created_at"], name="order_trader_created"),
            # The operators' dashboard reads a period of every terminal's orders.
            models.Index(fields=["created_at"], name="order_created"),
            models.Index(fields=["requisite", "created_at"], name="order_requisite_created"),
            # The sandbox sweep: Pending magic-amount orders, oldest first.
            models.Index(
                fields=["created_at"],
                name="order_pending_sandbox_action",
                condition=Q(status="Pending", sandbox_action__isnull=False),
            ),
        ]
        constraints = [
            # A payer's transfer is recognised by its amount: one requisite never has
            # two Pending Buy orders of the same amount (decisions §4).
            models.UniqueConstraint(
                fields=["requisite", "amount"],
                condition=Q(status="Pending", side="Buy"),
                name="order_pending_buy_requisite_amount_unique",
            ),
            models.CheckConstraint(condition=Q(amount__gt=0), name="order_amount_positive"),
            models.CheckConstraint(
                condition=Q(fee_amount__gte=0), name="order_fee_amount_non_negative"
            ),
        ]

    objects = OrderQuerySet.as_manager()

    def __str__(self):
        return f"{self.side} {self.amount} {self.currency} ({self.status})"

    @property
    def clock(self) -> datetime:
        """The database's time as this order was read (`with_db_clock()`), or else
        read once now; never the web process's own clock."""
        clock = getattr(self, "db_clock", None)
        if clock is None:
            clock = self.db_clock = db_now()
        return clock

    @property
    def is_overdue(self) -> bool:
        return self.status == OrderStatus.PENDING and self.expires_at <= self.clock

    @property
    def seconds_left(self) -> int:
        """Whole seconds until expiry by the database's clock; 0 once it is not Pending."""
        if self.status != OrderStatus.PENDING:
            return 0
        return max(0, int((self.expires_at - self.clock).total_seconds()))

    @property
    def shown_status(self) -> str:
        """Never shown as Pending after expires_at, even before the sweep has run."""
        return OrderStatus.EXPIRED if self.is_overdue else self.status


class Receipt(models.Model):
    """A payer's receipt for an order, attached on the payment page. Stored privately
    (default storage: a local directory outside any URL, or a private bucket)."""

    order = models.ForeignKey(
        Order, on_delete=models.CASCADE, related_name="receipts", verbose_name=_("order")
    )
    file = models.FileField(upload_to="receipts/%Y/%m/", max_length=300, verbose_name=_("file"))
    content_type = models.CharField(max_length=100, verbose_name=_("content type"))
    size = models.PositiveIntegerField(verbose_name=_("size"))
    original_name = models.CharField(max_length=255, blank=True, verbose_name=_("original name"))
    uploaded_at = models.DateTimeField(auto_now_add=True, verbose_name=_("uploaded at"))

    class Meta:
        verbose_name = _("receipt")
        verbose_name_plural = _("receipts")
        ordering = ["uploaded_at", "id"]

    def __str__(self):
        return self.original_name or self.file.name
