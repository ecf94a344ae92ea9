"""The Order as merchants see it: one rendering for API responses and webhook payloads."""

from collections import namedtuple

from core.formats import iso_utc
from core.money import money_number, money_str

from .models import Order, order_is_overdue, order_shown_status


def render_order(order: Order) -> dict:
    method = order.method
    data = {
        "id": str(order.id),
        "client_order_id": order.client_order_id,
        "currency": order.currency,
        "method_id": str(order.method_id),
        "method_name": method.name,
        "method_type": method.method_type,
        "initial_method_id": str(order.initial_method_id),
        "order_side": order.side,
        "amount": money_str(order.amount),
        "fee": money_str(order.fee),
        "fixed_fee": money_number(order.fixed_fee) if order.fixed_fee else None,
        "fee_amount": money_str(order.fee_amount),
        "paid_amount": money_str(order.paid_amount) if order.paid_amount is not None else None,
        "status": order.shown_status,
        "holder_name": order.holder_name,
        "holder_account": order.holder_account,
        "customer_name": order.customer_name,
        "customer_account": order.customer_account,
        "customer_bank": order.customer_bank,
        "payment_link": order.payment_link,
        "webhook_url": order.webhook_url,
        "created_at": iso_utc(order.created_at),
        "updated_at": iso_utc(order.updated_at),
        "expires_at": iso_utc(order.expires_at),
        "receipts_count": order.receipts_count,
        "livemode": order.livemode,
    }
    if order.form_url:
        data["form_url"] = order.form_url
    return data


def render_orders(orders) -> list[dict]:
    return [render_order(o) for o in orders]


def render_trader_order(order: Order) -> dict:
    """The Order as its trader sees it: what to pay or receive, and
    nothing that is the merchant's (no webhook, form or redirect URLs, no client order
    id or user id, nothing naming the merchant or its terminal, no merchant fees)."""
    method = order.method
    is_sell = order.side == "Sell"
    return {
        "id": str(order.id),
        "order_side": order.side,
        "currency": order.currency,
        "amount": money_str(order.amount),
        "paid_amount": money_str(order.paid_amount) if order.paid_amount is not None else None,
        "status": order.shown_status,
        "method_id": str(order.method_id),
        "method_name": method.name,
        "method_type": method.method_type,
        "requisite_id": str(order.requisite_id) if order.requisite_id else None,
        "holder_name": order.holder_name,
        "holder_account": order.holder_account,
        # Where a Sell's money goes; a Buy's payer is not the trader's to know.
        "customer_account": order.customer_account if is_sell else None,
        "customer_bank": order.customer_bank if is_sell else None,
        "created_at": iso_utc(order.created_at),
        "updated_at": iso_utc(order.updated_at),
        "expires_at": iso_utc(order.expires_at),
    }


def render_trader_orders(orders) -> list[dict]:
    return [render_trader_order(o) for o in orders]


_ROW_FIELDS = (
    "id",
    "client_order_id",
    "currency",
    "method_id",
    "initial_method_id",
    "side",
    "amount",
    "fee",
    "fixed_fee",
    "fee_amount",
    "paid_amount",
    "status",
    "holder_name",
    "holder_account",
    "customer_name",
    "customer_account",
    "customer_bank",
    "payment_link",
    "webhook_url",
    "form_url",
    "created_at",
    "updated_at",
    "expires_at",
    "receipts_count",
    "livemode",
    "db_clock",  # with_db_clock(): the database's time, which is_overdue compares with
)


class OrderRow(namedtuple("OrderRowBase", (*_ROW_FIELDS, "method_name", "method_type"))):
    """An order as the merchants' lists read it: the columns render_order uses, one
    tuple from `with_db_clock().values_list(*OrderRow.COLUMNS)` (the database's time
    comes with each row, for the shown status), taken as it is (no model instance, no
    copying: building 50 instances with their methods was most of a page's time)."""

    __slots__ = ()
    FIELDS = _ROW_FIELDS
    COLUMNS = (*_ROW_FIELDS, "method__name", "method__method_type")

    # The same rules as the model's (its pure functions), read against the database's
    # time that came with the row; without it (NULL) the row's status is the shown one
    # already, read by that clock (orders.list_page on PostgreSQL).
    @property
    def is_overdue(self) -> bool:
        if self.db_clock is None:
            return False
        return order_is_overdue(self.status, self.expires_at, self.db_clock)

    @property
    def shown_status(self) -> str:
        if self.db_clock is None:
            return self.status
        return order_shown_status(self.status, self.expires_at, self.db_clock)

    @property
    def method(self) -> "_Method":
        return _Method(self.method_name, self.method_type)


class _Method:
    __slots__ = ("name", "method_type")

    def __init__(self, name: str, method_type: str):
        self.name, self.method_type = name, method_type


def render_rows(rows) -> list[dict]:
    """render_order for each `values_list(*OrderRow.COLUMNS)` tuple."""
    return [render_order(OrderRow._make(row)) for row in rows]
