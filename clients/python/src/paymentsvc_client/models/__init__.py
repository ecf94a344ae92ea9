"""Typed results. Every field the API documents is declared with its Python type
(`Decimal` for money, aware `datetime` for times, enums for statuses and sides);
a field the service adds later is kept too, as the raw JSON value, so an older
client keeps working against a newer service."""

from ._base import M, Model, Page, parse_datetime
from ._base import _convert as _convert
from .books import (
    Bank,
    OrderAvailability,
    Terminal,
    TraderBalance,
    TraderTransaction,
    Withdrawal,
)
from .devices import DeviceNotification, DeviceState, NotificationParsed
from .disputes import Dispute, DisputeCreated
from .enums import (
    Actor,
    DeliveryStatus,
    Direction,
    DisputeResolution,
    EventType,
    MethodType,
    NotificationStatus,
    OrderSide,
    OrderStatus,
    RequisiteDisabledReason,
    SessionState,
    SimulateAction,
    StatsPeriod,
    TraderTransactionType,
    TransactionType,
    WithdrawalStatus,
)
from .events import (
    Delivery,
    DeliveryAttempt,
    Event,
    EventData,
    WebhookEndpoints,
    WebhookSecret,
)
from .finance import Balance, FeeRange, PaymentMethod, TerminalRef, Transaction
from .forms import FormOrderData, FormSession, FormSessionItem
from .orders import Order, Receipt, TraderOrder
from .service import Ping
from .trader import Trader, TraderRequisite, TraderStats

__all__ = [
    "Actor",
    "Balance",
    "Delivery",
    "DeliveryAttempt",
    "DeliveryStatus",
    "DeviceNotification",
    "DeviceState",
    "Direction",
    "Dispute",
    "DisputeCreated",
    "DisputeResolution",
    "Event",
    "EventData",
    "EventType",
    "FeeRange",
    "FormOrderData",
    "FormSession",
    "FormSessionItem",
    "M",
    "MethodType",
    "NotificationParsed",
    "NotificationStatus",
    "Model",
    "Order",
    "OrderSide",
    "OrderStatus",
    "Page",
    "PaymentMethod",
    "Ping",
    "Receipt",
    "RequisiteDisabledReason",
    "SessionState",
    "StatsPeriod",
    "SimulateAction",
    "Terminal",
    "Bank",
    "OrderAvailability",
    "TerminalRef",
    "TraderBalance",
    "TraderTransaction",
    "TraderTransactionType",
    "Trader",
    "TraderOrder",
    "TraderRequisite",
    "TraderStats",
    "Transaction",
    "TransactionType",
    "WebhookEndpoints",
    "WebhookSecret",
    "Withdrawal",
    "WithdrawalStatus",
    "parse_datetime",
]
