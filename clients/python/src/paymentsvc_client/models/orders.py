"""Orders as the merchant and as the trader see them, and a trader's receipts."""

from datetime import datetime
from decimal import Decimal

from ._base import Model
from .enums import OrderSide, OrderStatus


class Order(Model):
    id: str
    client_order_id: str | None
    currency: str
    method_id: str
    method_name: str
    method_type: str
    initial_method_id: str
    order_side: OrderSide
    amount: Decimal
    fee: Decimal
    fixed_fee: Decimal | None
    fee_amount: Decimal
    paid_amount: Decimal | None
    status: OrderStatus
    holder_name: str
    holder_account: str
    customer_name: str | None
    customer_account: str | None
    customer_bank: str | None
    payment_link: str | None
    webhook_url: str | None
    form_url: str | None
    livemode: bool | None
    receipts_count: int | None
    created_at: datetime
    updated_at: datetime
    expires_at: datetime


class TraderOrder(Model):
    """An order as its trader sees it: what to pay or receive, nothing of the merchant's."""

    id: str
    order_side: OrderSide
    currency: str
    amount: Decimal
    paid_amount: Decimal | None
    status: OrderStatus
    method_id: str
    method_name: str
    method_type: str
    requisite_id: str | None
    holder_name: str
    holder_account: str
    customer_account: str | None
    customer_bank: str | None
    created_at: datetime
    updated_at: datetime
    expires_at: datetime


class Receipt(Model):
    id: str
    content_type: str
    size: int
    uploaded_at: datetime
