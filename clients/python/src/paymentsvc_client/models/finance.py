"""The deposit, its transactions and the payment methods with their fees."""

from datetime import datetime
from decimal import Decimal

from ._base import Model
from .enums import OrderSide, TransactionType


class Balance(Model):
    available: Decimal
    frozen: Decimal
    total: Decimal
    id: str
    currency: str


class TerminalRef(Model):
    id: str
    currency: str
    name: str


class Transaction(Model):
    id: str
    deposit_id: str
    amount: Decimal
    transaction_type: TransactionType
    created_at: datetime
    terminal: TerminalRef
    client_description: str
    client_id: str
    balance_after: Decimal


class FeeRange(Model):
    fee_side: OrderSide
    currency: str
    min_amount: Decimal
    max_amount: Decimal
    fee: Decimal
    fixed_fee: Decimal | None


class PaymentMethod(Model):
    method_id: str
    method_name: str
    method_type: str
    method_currency: str
    nspk_code: str | None
    active: bool
    ranges: list[FeeRange]
