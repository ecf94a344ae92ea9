"""Typed results. Every field the API documents is declared with its Python type
(`Decimal` for money, aware `datetime` for times, enums for statuses and sides);
a field the service adds later is kept too, as the raw JSON value, so an older
client keeps working against a newer service."""

import types
import typing
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any, Generic, TypeVar


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


class DeliveryStatus(StrEnum):
    PENDING = "pending"
    DELIVERED = "delivered"
    FAILED = "failed"


class SimulateAction(StrEnum):
    COMPLETE = "complete"
    CANCEL = "cancel"
    EXPIRE = "expire"


def parse_datetime(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    # The API speaks UTC; a time without an offset is read as UTC, never as local.
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _convert(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        tp = next(arg for arg in typing.get_args(tp) if arg is not type(None))
        origin = typing.get_origin(tp)
    if origin is list:
        (item,) = typing.get_args(tp)
        return [_convert(item, v) for v in value] if isinstance(value, list) else value
    try:
        if tp is Decimal:
            return value if isinstance(value, Decimal) else Decimal(str(value))
        if tp is datetime:
            return parse_datetime(value)
        if isinstance(tp, type) and issubclass(tp, StrEnum):
            return tp(value)
        if isinstance(tp, type) and issubclass(tp, Model) and isinstance(value, dict):
            return tp.from_api(value)
    except (ValueError, TypeError, InvalidOperation):
        # A value this client does not know (a new status, say) stays as sent.
        return value
    return value


class Model:
    """A result: the API's field names as attributes."""

    @classmethod
    def fields(cls) -> dict[str, Any]:
        return {
            name: tp
            for name, tp in typing.get_type_hints(cls).items()
            if not name.startswith("_") and typing.get_origin(tp) is not typing.ClassVar
        }

    @classmethod
    def from_api(cls, data: dict[str, Any]):
        obj = cls.__new__(cls)
        hints = cls.fields()
        for name in hints:
            setattr(obj, name, None)
        for key, value in data.items():
            setattr(obj, key, _convert(hints[key], value) if key in hints else value)
        obj._raw = data
        return obj

    def to_dict(self) -> dict[str, Any]:
        """The JSON object as the service sent it."""
        return dict(self._raw)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._raw == self._raw

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k, None)!r}" for k in list(self.fields())[:4])
        return f"{type(self).__name__}({shown}, ...)"


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


class Dispute(Model):
    dispute_id: str
    order_id: str
    client_order_id: str
    amount: Decimal
    currency: str
    processed: bool
    resolution: DisputeResolution | None
    created_at: datetime


class DisputeCreated(Model):
    order_id: str
    dispute_id: str
    dispute_files: list[str]


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


class EventData(Model):
    order: Order | None
    dispute: Dispute | None


class Event(Model):
    """A stored event, and exactly the body of the webhook that carried it."""

    id: str
    type: EventType
    created_at: datetime
    sequence: int
    livemode: bool | None
    actor: Actor | None
    data: EventData


class DeliveryAttempt(Model):
    attempted_at: datetime
    response_status: int | None
    duration_ms: int | None
    error: str | None
    response_excerpt: str | None


class Delivery(Model):
    # The contract does not say whether a delivery's id is a number or a string.
    id: int | str
    event_id: str
    event_type: EventType
    order_id: str | None
    url: str
    status: DeliveryStatus
    attempts_count: int
    next_attempt_at: datetime | None
    delivered_at: datetime | None
    last_response_status: int | None
    attempts: list[DeliveryAttempt] | None


class WebhookSecret(Model):
    """The answer to a rotation as sent: `{success, message, secret}`."""

    success: bool
    message: str
    secret: str


class WebhookEndpoints(Model):
    """The terminal's webhook URLs; the whole answer `{success, message, urls}` as sent."""

    success: bool
    message: str
    urls: list[str]


class Receipt(Model):
    id: str
    content_type: str
    size: int
    uploaded_at: datetime


class Ping(Model):
    success: bool


M = TypeVar("M", bound=Model)


class Page(Generic[M]):
    """One page of a list: `items` plus `total`, `page`, `size` and `pages`; the order
    list adds `has_more` and `total_is_estimate` (None where a list does not say)."""

    def __init__(
        self,
        items: list[M],
        total: int,
        page: int,
        size: int,
        pages: int,
        has_more: bool | None = None,
        total_is_estimate: bool | None = None,
    ):
        self.items = items
        self.total = total
        self.page = page
        self.size = size
        self.pages = pages
        self.has_more = has_more
        self.total_is_estimate = total_is_estimate

    @classmethod
    def from_api(cls, data: dict[str, Any], model: type[M]) -> "Page[M]":
        return cls(
            items=[model.from_api(item) for item in data.get("items", [])],
            total=int(data.get("total", 0)),
            page=int(data.get("page", 1)),
            size=int(data.get("size", 0)),
            pages=int(data.get("pages", 0)),
            has_more=data.get("has_more"),
            total_is_estimate=data.get("total_is_estimate"),
        )

    @property
    def has_next(self) -> bool:
        return bool(self.items) and self.page < self.pages

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        return f"Page(page={self.page}/{self.pages}, total={self.total}, items={len(self.items)})"
