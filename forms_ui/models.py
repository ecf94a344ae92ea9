import secrets

from django.db import models

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
    id = models.CharField(primary_key=True, max_length=64, default=new_session_id, editable=False)
    terminal = models.ForeignKey(Terminal, on_delete=models.PROTECT, related_name="form_sessions")
    order = models.OneToOneField(
        Order, on_delete=models.PROTECT, null=True, blank=True, related_name="form_session"
    )
    client_order_id = models.CharField(max_length=64)
    order_side = models.CharField(max_length=4, choices=Side.choices, default=Side.BUY)
    amount = MoneyField()
    currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.RUB)
    button_name = models.CharField(max_length=10, choices=ButtonName.choices, null=True, blank=True)
    method = models.ForeignKey(
        PaymentMethod, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    customer_bank = models.CharField(max_length=30, null=True, blank=True)
    unique_amount = models.BooleanField(default=False)
    user_id = models.CharField(max_length=255, null=True, blank=True)
    ip_address = models.GenericIPAddressField(null=True, blank=True)
    redirect_url = models.CharField(max_length=2048, null=True, blank=True)
    support_url = models.CharField(max_length=2048, null=True, blank=True)
    return_url = models.CharField(max_length=2048, null=True, blank=True)
    state = models.CharField(max_length=24, choices=SessionState.choices)
    selection = models.BooleanField(default=False)
    search_count = models.PositiveIntegerField(default=0)
    last_search_at = models.DateTimeField(null=True, blank=True)
    requisites_request_starts_at = models.DateTimeField(null=True, blank=True)
    requisites_request_expires_at = models.DateTimeField(null=True, blank=True)
    payment_confirmation_starts_at = models.DateTimeField(null=True, blank=True)
    payment_confirmation_expires_at = models.DateTimeField(null=True, blank=True)
    # When the payer first saw the success screen: its countdown runs from there.
    success_shown_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            models.Index(fields=["terminal", "-created_at"], name="session_terminal_created"),
            models.Index(fields=["terminal", "client_order_id"], name="session_terminal_client_id"),
            models.Index(fields=["state", "expires_at"], name="session_state_expiry"),
        ]

    def __str__(self):
        return f"{self.client_order_id} ({self.state})"
