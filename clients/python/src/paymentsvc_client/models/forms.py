"""Hosted payment-form sessions."""

from datetime import datetime
from decimal import Decimal

from ._base import Model
from .enums import OrderSide, SessionState


class FormOrderData(Model):
    client_order_id: str
    order_side: OrderSide
    payment_method_id: str | None
    amount: Decimal
    customer_bank: str | None
    unique_amount: bool


class FormSession(Model):
    """The result of creating a form session (the API's `form_data`)."""

    session_id: str
    form_url: str
    order_data: FormOrderData
    support_url: str | None
    redirect_url: str | None
    return_url: str | None


class FormSessionItem(Model):
    """A form session as the search lists it."""

    session_id: str
    ip_address: str | None
    client_order_id: str
    terminal_id: str
    order_side: OrderSide
    amount: Decimal
    payment_method_type: str | None
    nspk_code: str | None
    order_id: str | None
    redirect_url: str | None
    support_url: str | None
    return_url: str | None
    search_count: int
    merchant_name: str
    currency: str
    selection: bool
    created_at: datetime
    updated_at: datetime
    unique_amount: bool
    user_id: str | None
    state: SessionState
    requisites_request_starts_at: datetime
    requisites_request_expires_at: datetime
    payment_confirmation_starts_at: datetime | None
    payment_confirmation_expires_at: datetime | None
    expires_at: datetime
