"""The API's closed vocabularies: statuses, sides, types and actors."""

from enum import StrEnum


class OrderSide(StrEnum):
    BUY = "Buy"
    SELL = "Sell"


class OrderStatus(StrEnum):
    PENDING = "Pending"
    COMPLETED = "Completed"
    CANCELLED = "Cancelled"
    EXPIRED = "Expired"


class SessionState(StrEnum):
    METHOD_SELECTION = "method_selection"
    REQUISITES_SEARCH = "requisites_search"
    REQUISITES_FOUND = "requisites_found"
    PAYMENT_CONFIRMATION = "payment_confirmation"
    COMPLETED = "completed"
    REQUISITES_NOT_FOUND = "requisites_not_found"
    EXPIRED = "expired"
    CANCELLED = "cancelled"


class TransactionType(StrEnum):
    DEPOSIT = "deposit"
    WITHDRAWAL = "withdrawal"


class MethodType(StrEnum):
    SBP = "SBP"
    BANK_CARD = "BankCard"


class DisputeResolution(StrEnum):
    ACCEPTED = "accepted"
    REJECTED = "rejected"


class EventType(StrEnum):
    ORDER_CREATED = "order.created"
    ORDER_COMPLETED = "order.completed"
    ORDER_CANCELLED = "order.cancelled"
    ORDER_EXPIRED = "order.expired"
    DISPUTE_CREATED = "dispute.created"
    DISPUTE_PROCESSED = "dispute.processed"


class Actor(StrEnum):
    MERCHANT = "merchant"
    TRADER = "trader"
    OPERATOR = "operator"
    PAYER = "payer"
    SYSTEM = "system"
    SANDBOX = "sandbox"
    DEVICE = "device"


class NotificationStatus(StrEnum):
    """What the service did with a device's bank notification."""

    MATCHED = "matched"
    UNMATCHED = "unmatched"
    AMBIGUOUS = "ambiguous"
    IGNORED = "ignored"
    DUPLICATE = "duplicate"


class Direction(StrEnum):
    INCOMING = "incoming"
    OUTGOING = "outgoing"


class DeliveryStatus(StrEnum):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


class SimulateAction(StrEnum):
    COMPLETE = "complete"
    CANCEL = "cancel"
    EXPIRE = "expire"


class RequisiteDisabledReason(StrEnum):
    """Who switched a requisite off (null while it is on)."""

    TRADER = "trader"
    OPERATOR = "operator"
    AUTO_EXPIRED = "auto_expired"


class StatsPeriod(StrEnum):
    DAY = "24h"
    WEEK = "7d"
    MONTH = "30d"
