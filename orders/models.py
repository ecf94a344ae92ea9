import uuid
from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.db import DbNow, db_now
from core.keys import ApiKeyBase
from core.money import MoneyField
from finance.models import Currency, PaymentMethod, Reserve, Side, Terminal


class Trader(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200)
    is_active = models.BooleanField(default=True)
    sandbox = models.BooleanField(
        default=False,
        help_text="Serves only sandbox terminals' orders (and live terminals never reach it)",
    )
    # The one user who signs in to this trader's cabinet (/trader/login/).
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="trader",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return self.name

    @property
    def livemode(self) -> bool:
        """Live traders serve live orders only, sandbox traders sandbox ones only."""
        return not self.sandbox


class TraderApiKey(ApiKeyBase):
    trader = models.ForeignKey(Trader, on_delete=models.CASCADE, related_name="api_keys")

    class Meta:
        verbose_name = "trader API key"


class RequisiteDisabledReason(models.TextChoices):
    TRADER = "trader", "trader"
    OPERATOR = "operator", "operator"
    AUTO_EXPIRED = "auto_expired", "auto_expired"


class Requisite(models.Model):
    """A trader's card or SBP phone for one concrete (bank) payment method."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    trader = models.ForeignKey(Trader, on_delete=models.PROTECT, related_name="requisites")
    method = models.ForeignKey(PaymentMethod, on_delete=models.PROTECT, related_name="requisites")
    holder_name = models.CharField(max_length=200)
    account = models.CharField(max_length=64)
    is_active = models.BooleanField(default=True)
    daily_limit = MoneyField(default=100_000_000, help_text="Turnover per UTC day")
    max_pending = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Pending orders at once; empty: no cap beyond one per amount",
    )
    # The requisite's own amount range, inside the method's (empty: no bound).
    min_amount = MoneyField(null=True, blank=True)
    max_amount = MoneyField(null=True, blank=True)
    # Switched off after this many orders in a row ended Expired by the clock (empty: never).
    auto_disable_after = models.PositiveIntegerField(null=True, blank=True)
    # Expired-by-the-clock orders in a row since the last one that did not expire.
    expired_in_a_row = models.PositiveIntegerField(default=0)
    # Why is_active is off: null while on.
    disabled_reason = models.CharField(
        max_length=16, null=True, blank=True, choices=RequisiteDisabledReason.choices
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
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
        Requisite, on_delete=models.CASCADE, primary_key=True, related_name="load"
    )
    pending = models.IntegerField(default=0)
    day = models.DateField()
    turnover = MoneyField(default=0)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(pending__gte=0), name="requisite_load_pending"),
        ]

    def __str__(self):
        return f"{self.pending} pending, {self.turnover} on {self.day}"


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
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # No single-column indexes on terminal, initial_method, requisite and trader: the
    # composite indexes below lead with them, and each index is one more write on
    # every INSERT and status UPDATE.
    terminal = models.ForeignKey(
        Terminal, on_delete=models.PROTECT, related_name="orders", db_index=False
    )
    client_order_id = models.CharField(max_length=64)
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.RUB)
    side = models.CharField(max_length=4, choices=Side.choices)
    method = models.ForeignKey(PaymentMethod, on_delete=models.PROTECT, related_name="orders")
    initial_method = models.ForeignKey(
        PaymentMethod, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    requisite = models.ForeignKey(
        Requisite, on_delete=models.PROTECT, related_name="orders", null=True, db_index=False
    )
    trader = models.ForeignKey(
        Trader, on_delete=models.PROTECT, related_name="orders", null=True, db_index=False
    )
    status = models.CharField(
        max_length=10, choices=OrderStatus.choices, default=OrderStatus.PENDING
    )

    requested_amount = MoneyField()
    amount = MoneyField()
    fee = models.DecimalField(max_digits=7, decimal_places=2)
    fixed_fee = MoneyField(default=0)
    fee_amount = MoneyField()
    paid_amount = MoneyField(null=True, blank=True)
    # The trader's reward on this order (set when it completes); the platform's revenue
    # is fee_amount minus it.
    trader_reward = MoneyField(null=True, blank=True)
    # The fee range's trader_reward_percent when the order was made, as `fee` is.
    trader_reward_percent = models.DecimalField(max_digits=7, decimal_places=2, default=0)
    reserve = models.OneToOneField(
        Reserve, on_delete=models.PROTECT, null=True, blank=True, related_name="order"
    )

    holder_name = models.CharField(max_length=200, blank=True)
    holder_account = models.CharField(max_length=64, blank=True)
    customer_name = models.CharField(max_length=200, null=True, blank=True)
    customer_account = models.CharField(max_length=64, null=True, blank=True)
    customer_bank = models.CharField(max_length=30, null=True, blank=True)
    user_id = models.CharField(max_length=255, null=True, blank=True)
    webhook_url = models.CharField(max_length=512, null=True, blank=True)
    payment_link = models.CharField(max_length=1000, null=True, blank=True)
    form_url = models.CharField(max_length=500, null=True, blank=True)
    # The terminal's mode when the order was made: an operator flipping the flag later
    # does not move an order between live and sandbox.
    livemode = models.BooleanField(default=True)
    # A sandbox order's magic amount, decided at creation: what the sandbox does to it
    # within seconds (complete, cancel, expire); null for every other order.
    sandbox_action = models.CharField(max_length=8, null=True, blank=True)

    event_sequence = models.PositiveIntegerField(default=0)
    receipts_count = models.PositiveSmallIntegerField(default=0)
    # Expiry follows the database's clock, one for every web process: creation writes
    # both moments with DbNow() in its INSERT, which returns them (a field with a
    # db_default comes back by RETURNING). Without a TTL an order is due at once.
    created_at = models.DateTimeField(db_default=DbNow())
    updated_at = models.DateTimeField(auto_now=True)
    expires_at = models.DateTimeField(db_default=DbNow())
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.CharField(max_length=200, blank=True)

    class Meta:
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

    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="receipts")
    file = models.FileField(upload_to="receipts/%Y/%m/", max_length=300)
    content_type = models.CharField(max_length=100)
    size = models.PositiveIntegerField()
    original_name = models.CharField(max_length=255, blank=True)
    uploaded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["uploaded_at", "id"]

    def __str__(self):
        return self.original_name or self.file.name
