import uuid
from datetime import datetime
from decimal import Decimal

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from core.db import DbNow, db_now
from core.money import MoneyField, fee_for
from finance.models import Currency, PaymentMethod, Reserve, Side, Terminal

from .rules import (  # noqa: F401 - named from here as before
    DISPUTE_COMPLETABLE,
    ORDER_TRANSITIONS,
    OrderStatus,
    conversion,
    merchant_credit,
    order_completable_by_dispute,
    order_is_overdue,
    order_shown_status,
    overdue_q,
    shown_as_q,
    shown_as_sql,
    shown_status_expression,
)
from .trader_models import (  # noqa: F401 - named from here as before
    Requisite,
    RequisiteDisabledReason,
    RequisiteLoad,
    Trader,
    TraderApiKey,
)


class OrderQuerySet(models.QuerySet):
    def with_db_clock(self):
        """Each order read with the database's time beside it (`db_clock`), which
        is_overdue compares expires_at with: no extra round trip."""
        return self.annotate(db_clock=DbNow())

    def with_shown_status(self, *, now=None):  # as `shown` (order_shown_status)
        return self.annotate(shown=shown_status_expression(now=now))

    def shown_as(self, status: str | None, *, now=None):
        """Orders shown as `status` (every order when it is empty)."""
        return self.filter(shown_as_q(status, now=now)) if status else self

    def overdue(self, *, now=None):
        """Pending past expires_at: what the expiry sweep has still to do."""
        return self.filter(overdue_q(now=now))

    def completable_by_dispute(self):
        """order_completable_by_dispute in SQL."""
        return self.filter(side=Side.BUY, status__in=DISPUTE_COMPLETABLE)

    def taking_receipts(self, *, now=None):
        """Order.takes_receipts in SQL."""
        return self.shown_as(OrderStatus.PENDING, now=now)


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
    # The trader's reward on this order (set at completion); revenue = fee_amount - it.
    trader_reward = MoneyField(null=True, blank=True, verbose_name=_("trader reward"))
    # The fee range's trader_reward_percent when the order was made, as `fee` is.
    trader_reward_percent = models.DecimalField(
        max_digits=7,
        decimal_places=2,
        default=0,
        db_default=0,  # rows written by code older than the books (a deploy's window)
        verbose_name=_("trader reward percent"),
    )
    # A Buy that was Pending when the books came (docs/money.md#orders-older-than-the-books):
    # nothing frozen on its trader, so its close moves only the merchant, as before.
    before_books = models.BooleanField(
        default=False, db_default=False, verbose_name=_("before the books")
    )
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
            # Each Pending index names its own column in its condition, so a query
            # reads it only when it asks about that column. "Pending" alone would let
            # the planner scan any of them for the matcher's "holds this amount"
            # probe, which only the slot index answers in one row: it did so whenever
            # the statistics were taken with few orders Pending (every row filtered).
            models.Index(
                fields=["expires_at"],
                name="order_pending_expiry",
                condition=Q(status="Pending", expires_at__isnull=False),
            ),
            models.Index(
                fields=["terminal", "user_id"],
                name="order_pending_user",
                condition=Q(status="Pending", user_id__isnull=False),
            ),
            # What expired lately, by when (matching.overdue_holders): written once per
            # order, by its expiry.
            models.Index(
                fields=["closed_at"],
                name="order_expired_closed",
                condition=Q(status="Expired", closed_at__isnull=False),
            ),
            models.Index(fields=["trader", "-created_at"], name="order_trader_created"),
            # A trader's open orders, newest first (the cabinet's list): read by the
            # trader, whatever the other traders hold Pending. Written once per order,
            # by its creation (a close's new row version is no longer Pending).
            models.Index(
                fields=["trader", "-created_at", "-id"],
                name="order_trader_pending",
                condition=Q(status="Pending", trader__isnull=False),
            ),
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
            # two Pending Buy orders of the same amount (docs/orders.md#matching).
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
        return order_is_overdue(self.status, self.expires_at, self.clock)

    @property
    def seconds_left(self) -> int:
        """Whole seconds until expiry by the database's clock; 0 once it is not Pending."""
        if self.status != OrderStatus.PENDING:
            return 0
        return max(0, int((self.expires_at - self.clock).total_seconds()))

    @property
    def shown_status(self) -> str:
        """Never shown as Pending after expires_at, even before the sweep has run."""
        return order_shown_status(self.status, self.expires_at, self.clock)

    @property
    def completable_by_dispute(self) -> bool:
        return order_completable_by_dispute(self.side, self.status)

    def fee_on(self, paid_amount: Decimal) -> Decimal:  # on what arrived (a dispute's claim)
        return fee_for(paid_amount, rate=self.fee, fixed=self.fixed_fee)

    @property
    def takes_receipts(self) -> bool:
        """The payer may still attach receipts: shown as Pending (not past expiry)."""
        return self.shown_status == OrderStatus.PENDING


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
