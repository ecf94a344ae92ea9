import secrets

from django.db import models
from django.utils.translation import gettext_lazy as _

from core.money import MoneyField
from finance.models import ButtonName, Currency, PaymentMethod, Side, Terminal
from orders.models import Order, OrderStatus


def new_session_id() -> str:
    return secrets.token_urlsafe(32)  # 43 URL-safe characters, 256 bits


class SessionState(models.TextChoices):
    METHOD_SELECTION = "method_selection", "method_selection"
    REQUISITES_SEARCH = "requisites_search", "requisites_search"
    REQUISITES_FOUND = "requisites_found", "requisites_found"
    PAYMENT_CONFIRMATION = "payment_confirmation", "payment_confirmation"
    COMPLETED = "completed", "completed"
    REQUISITES_NOT_FOUND = "requisites_not_found", "requisites_not_found"
    EXPIRED = "expired", "expired"
    CANCELLED = "cancelled", "cancelled"


FINAL_SESSION_STATES = {
    SessionState.COMPLETED,
    SessionState.REQUISITES_NOT_FOUND,
    SessionState.EXPIRED,
    SessionState.CANCELLED,
}


# The session state machine, written once (docs/form.md#states).
SESSION_TRANSITIONS: dict[str, set[str]] = {
    SessionState.METHOD_SELECTION: {SessionState.REQUISITES_SEARCH, SessionState.EXPIRED},
    SessionState.REQUISITES_SEARCH: {
        SessionState.REQUISITES_FOUND,
        SessionState.REQUISITES_NOT_FOUND,
        SessionState.EXPIRED,
    },
    SessionState.REQUISITES_FOUND: {
        SessionState.PAYMENT_CONFIRMATION,
        SessionState.COMPLETED,
        SessionState.CANCELLED,
        SessionState.EXPIRED,
    },
    SessionState.PAYMENT_CONFIRMATION: {
        SessionState.COMPLETED,
        SessionState.CANCELLED,
        SessionState.EXPIRED,
    },
    # An accepted dispute may complete an expired or cancelled order later.
    SessionState.EXPIRED: {SessionState.COMPLETED},
    SessionState.CANCELLED: {SessionState.COMPLETED},
    SessionState.COMPLETED: set(),
    SessionState.REQUISITES_NOT_FOUND: set(),
}

ORDER_TO_SESSION = {
    OrderStatus.COMPLETED: SessionState.COMPLETED,
    OrderStatus.CANCELLED: SessionState.CANCELLED,
    OrderStatus.EXPIRED: SessionState.EXPIRED,
}


class FormSession(models.Model):
    id = models.CharField(
        primary_key=True,
        max_length=64,
        default=new_session_id,
        editable=False,
        verbose_name=_("id"),
    )
    terminal = models.ForeignKey(
        Terminal, on_delete=models.PROTECT, related_name="form_sessions", verbose_name=_("terminal")
    )
    order = models.OneToOneField(
        Order,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="form_session",
        verbose_name=_("order"),
    )
    client_order_id = models.CharField(max_length=64, verbose_name=_("client order id"))
    order_side = models.CharField(
        max_length=4, choices=Side.choices, default=Side.BUY, verbose_name=_("order side")
    )
    amount = MoneyField(verbose_name=_("amount"))
    currency = models.CharField(
        max_length=3, choices=Currency.choices, default=Currency.RUB, verbose_name=_("currency")
    )
    button_name = models.CharField(
        max_length=10,
        choices=ButtonName.choices,
        null=True,
        blank=True,
        verbose_name=_("button name"),
    )
    method = models.ForeignKey(
        PaymentMethod,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("method"),
    )
    customer_bank = models.CharField(
        max_length=30, null=True, blank=True, verbose_name=_("customer bank")
    )
    unique_amount = models.BooleanField(default=False, verbose_name=_("unique amount"))
    user_id = models.CharField(max_length=255, null=True, blank=True, verbose_name=_("user id"))
    ip_address = models.GenericIPAddressField(null=True, blank=True, verbose_name=_("ip address"))
    redirect_url = models.CharField(
        max_length=2048, null=True, blank=True, verbose_name=_("redirect url")
    )
    support_url = models.CharField(
        max_length=2048, null=True, blank=True, verbose_name=_("support url")
    )
    return_url = models.CharField(
        max_length=2048, null=True, blank=True, verbose_name=_("return url")
    )
    state = models.CharField(max_length=24, choices=SessionState.choices, verbose_name=_("state"))
    selection = models.BooleanField(default=False, verbose_name=_("selection"))
    search_count = models.PositiveIntegerField(default=0, verbose_name=_("search count"))
    last_search_at = models.DateTimeField(null=True, blank=True, verbose_name=_("last search at"))
    requisites_request_starts_at = models.DateTimeField(
        null=True, blank=True, verbose_name=_("requisites request starts at")
    )
    requisites_request_expires_at = models.DateTimeField(
        null=True, blank=True, verbose_name=_("requisites request expires at")
    )
    payment_confirmation_starts_at = models.DateTimeField(
        null=True, blank=True, verbose_name=_("payment confirmation starts at")
    )
    payment_confirmation_expires_at = models.DateTimeField(
        null=True, blank=True, verbose_name=_("payment confirmation expires at")
    )
    # When the payer first saw the success screen: its countdown runs from there.
    success_shown_at = models.DateTimeField(
        null=True, blank=True, verbose_name=_("success shown at")
    )
    expires_at = models.DateTimeField(verbose_name=_("expires at"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("form session")
        verbose_name_plural = _("form sessions")
        indexes = [
            models.Index(fields=["terminal", "-created_at"], name="session_terminal_created"),
            models.Index(fields=["terminal", "client_order_id"], name="session_terminal_client_id"),
            models.Index(fields=["state", "expires_at"], name="session_state_expiry"),
        ]

    def __str__(self):
        return f"{self.client_order_id} ({self.state})"
