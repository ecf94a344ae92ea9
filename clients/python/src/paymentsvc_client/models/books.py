"""The books: the merchant's terminal, its withdrawals, a trader's working deposit and
its ledger."""

from datetime import datetime
from decimal import Decimal

from ._base import Model
from .enums import TraderTransactionType, WithdrawalStatus


class Terminal(Model):
    """The terminal a key belongs to; its `id` is what a settlement names."""

    id: str
    name: str
    livemode: bool
    integration_type: str
    currency: str


class Withdrawal(Model):
    id: str
    amount: Decimal
    destination: str
    comment: str | None
    status: WithdrawalStatus
    created_at: datetime
    decided_at: datetime | None


class TraderBalance(Model):
    available: Decimal
    frozen: Decimal
    total: Decimal
    currency: str


class TraderTransaction(Model):
    id: str
    transaction_type: TraderTransactionType
    amount: Decimal
    balance_after: Decimal
    order_id: str | None
    description: str
    created_at: datetime


class Bank(Model):
    """A bank behind the terminal's methods, for `customer_bank` choices."""

    nspk_code: str
    name: str
    name_ru: str


class OrderAvailability(Model):
    """Whether an order like the one asked would find a trader now, and at what amount
    and fee; nothing is created."""

    success: bool
    message: str
    available: bool
    method_id: str
    amount: Decimal
    fee_amount: Decimal
