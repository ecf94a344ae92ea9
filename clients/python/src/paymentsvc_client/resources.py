"""One method per endpoint, grouped Stripe-style (`client.orders.create(...)`).

A method only describes its call; the client it belongs to sends it, so the same
classes serve `Client` (results) and `AsyncClient` (awaitables)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from ._core import Call, body, query, upload_files
from .models import (
    Balance,
    Delivery,
    Dispute,
    DisputeCreated,
    Event,
    FormSession,
    FormSessionItem,
    Model,
    Order,
    PaymentMethod,
    Ping,
    Receipt,
    TraderOrder,
    Transaction,
    WebhookEndpoints,
    WebhookSecret,
)

Amount = Decimal | str | int


def _id(value: Any) -> str:
    return quote(str(value), safe="")


def _paged(path: str, model: type[Model], unwrap: str | None = None):
    """The call for one page of a list endpoint, given its page and filters."""

    def make(page: int | None = None, **filters: Any) -> Call:
        params = query(page=page, **filters)
        return Call("GET", path, params=params, unwrap=unwrap, model=model, page=True)

    return make


def _filters(arguments: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in arguments.items() if name != "self"}


_ORDERS = _paged("/api/v1/order/", Order, "orders")
_FORM_SESSIONS = _paged("/api/v1/form/search", FormSessionItem)
_DISPUTES = _paged("/api/v1/disputes/search", Dispute, "data")
_TRANSACTIONS = _paged("/api/v1/finance/transactions", Transaction)
_EVENTS = _paged("/api/v1/events", Event, "events")
_DELIVERIES = _paged("/api/v1/webhooks/deliveries", Delivery, "deliveries")
_TRADER_ORDERS = _paged("/api/v1/trader/orders", TraderOrder, "orders")


class Resource:
    def __init__(self, client):
        self._client = client

    def _send(self, call: Call):
        return self._client._call(call)

    def _all(self, make_call, filters: dict[str, Any]):
        return self._client._paginate(lambda page: make_call(page=page, **filters))


class Orders(Resource):
    def create(
        self,
        *,
        client_order_id: str,
        order_side: str,
        amount: Amount,
        payment_method_id: str | None = None,
        method_type: str | None = None,
        nspk_code: str | None = None,
        customer_name: str | None = None,
        customer_account: str | None = None,
        user_id: str | None = None,
        webhook_url: str | None = None,
        unique_amount: bool | None = None,
        redirect_url: str | None = None,
        support_url: str | None = None,
        return_url: str | None = None,
        customer_bank: str | None = None,
        idempotency_key: str | None = None,
        **extra: Any,
    ) -> Order:
        """POST /api/v1/order/: an H2H order (or one with a form, on order_with_form)."""
        payload = body(
            client_order_id=client_order_id,
            order_side=order_side,
            amount=amount,
            payment_method_id=payment_method_id,
            method_type=method_type,
            nspk_code=nspk_code,
            customer_name=customer_name,
            customer_account=customer_account,
            user_id=user_id,
            webhook_url=webhook_url,
            unique_amount=unique_amount,
            redirect_url=redirect_url,
            support_url=support_url,
            return_url=return_url,
            customer_bank=customer_bank,
            **extra,
        )
        return self._send(
            Call(
                "POST",
                "/api/v1/order/",
                json=payload,
                # The contract answers the bare Order; the schema documents it inside
                # {success, message, order}. Either is read.
                unwrap="order",
                unwrap_optional=True,
                model=Order,
                replayable=True,
                idempotency_key=idempotency_key,
            )
        )

    def get(self, id: str) -> Order:
        return self._send(Call("GET", f"/api/v1/order/{_id(id)}", unwrap="order", model=Order))

    def list(
        self,
        *,
        page: int | None = None,
        size: int | None = None,
        payment_method_id: str | None = None,
        order_side: str | None = None,
        status: str | None = None,
        sort_by: str | None = None,
        sort: str | None = None,
        start_date: Any = None,
        end_date: Any = None,
        starting_after: str | None = None,
        ending_before: str | None = None,
    ):
        """One page of orders (newest first; the last 24 hours unless dates are given).
        `starting_after` / `ending_before` (an order id, instead of `page`): the page
        right after / right before that order; `Page.has_more` tells if more follow."""
        return self._send(_ORDERS(**_filters(locals())))

    def list_all(self, **filters: Any):
        """Every order the filters select, page after page (`list`'s filters)."""
        return self._all(_ORDERS, filters)

    def search_by_client_order_id(self, client_order_id: str, *, size: int | None = None):
        """Orders carrying this client_order_id (one page)."""
        return self._send(
            Call(
                "GET",
                "/api/v1/order/search-by-client-order-id",
                params=query(id=client_order_id, size=size),
                unwrap="orders",
                model=Order,
                page=True,
            )
        )

    def cancel(self, id: str) -> Order:
        return self._send(
            Call("POST", f"/api/v1/order/{_id(id)}/cancel", unwrap="order", model=Order)
        )


class Form(Resource):
    def create(
        self,
        *,
        client_order_id: str,
        amount: Amount,
        order_side: str = "Buy",
        button_name: str | None = None,
        user_id: str | None = None,
        unique_amount: bool | None = None,
        customer_bank: str | None = None,
        redirect_url: str | None = None,
        support_url: str | None = None,
        return_url: str | None = None,
        idempotency_key: str | None = None,
    ) -> FormSession:
        """POST /api/v1/form/create: a hosted payment-form session (its `form_data`)."""
        order_data = body(
            client_order_id=client_order_id,
            order_side=order_side,
            amount=amount,
            button_name=button_name,
            user_id=user_id,
            unique_amount=unique_amount,
            customer_bank=customer_bank,
        )
        payload = body(
            order_data=order_data,
            redirect_url=redirect_url,
            support_url=support_url,
            return_url=return_url,
        )
        return self._send(
            Call(
                "POST",
                "/api/v1/form/create",
                json=payload,
                unwrap="form_data",
                model=FormSession,
                replayable=True,
                idempotency_key=idempotency_key,
            )
        )

    def search(
        self,
        *,
        page: int | None = None,
        size: int | None = None,
        order_id: str | None = None,
        client_order_id: str | None = None,
        terminal_id: str | None = None,
        session_id: str | None = None,
        state: str | None = None,
        currency: str | None = None,
    ):
        return self._send(_FORM_SESSIONS(**_filters(locals())))

    def search_all(self, **filters: Any):
        return self._all(_FORM_SESSIONS, filters)


class Disputes(Resource):
    def create(
        self,
        order_id: str,
        amount: Amount,
        files: list[tuple[str, bytes] | tuple[str, bytes, str]] | None = None,
        *,
        idempotency_key: str | None = None,
    ) -> DisputeCreated:
        """POST /api/v1/disputes/create with evidence files as (name, bytes) pairs."""
        return self._send(
            Call(
                "POST",
                "/api/v1/disputes/create",
                data={"order_id": order_id, "amount": amount},
                files=upload_files(files) or [],
                model=DisputeCreated,
                replayable=True,
                idempotency_key=idempotency_key,
            )
        )

    def search(
        self,
        *,
        page: int | None = None,
        size: int | None = None,
        order_id: str | None = None,
        dispute_id: str | None = None,
        processed: bool | None = None,
        start_date: Any = None,
        end_date: Any = None,
    ):
        return self._send(_DISPUTES(**_filters(locals())))

    def search_all(self, **filters: Any):
        return self._all(_DISPUTES, filters)


class Finance(Resource):
    def balance(self) -> Balance:
        return self._send(Call("GET", "/api/v1/finance/balance", unwrap="deposit", model=Balance))

    def transactions(
        self,
        *,
        page: int | None = None,
        size: int | None = None,
        transaction_type: str | None = None,
        start_date: Any = None,
        end_date: Any = None,
    ):
        return self._send(_TRANSACTIONS(**_filters(locals())))

    def transactions_all(self, **filters: Any):
        return self._all(_TRANSACTIONS, filters)

    def payment_methods(
        self, *, active: bool | None = None, method_type: str | list[str] | None = None
    ) -> list[PaymentMethod]:
        if isinstance(method_type, str):
            method_type = [method_type]
        return self._send(
            Call(
                "GET",
                "/api/v1/finance/payment_methods",
                params=query(active=active, method_type=method_type),
                unwrap="payment_methods",
                model=PaymentMethod,
                many=True,
            )
        )


class Events(Resource):
    def list(
        self,
        *,
        page: int | None = None,
        size: int | None = None,
        type: str | None = None,
        order_id: str | None = None,
        created_after: Any = None,
        created_before: Any = None,
    ):
        """One page of the terminal's events, newest first; `order_id=` gives an
        order's history."""
        return self._send(_EVENTS(**_filters(locals())))

    def list_all(self, **filters: Any):
        return self._all(_EVENTS, filters)

    def get(self, id: str) -> Event:
        return self._send(Call("GET", f"/api/v1/events/{_id(id)}", unwrap="event", model=Event))


class Deliveries(Resource):
    def list(
        self,
        *,
        page: int | None = None,
        size: int | None = None,
        event_id: str | None = None,
        order_id: str | None = None,
        status: str | None = None,
    ):
        return self._send(_DELIVERIES(**_filters(locals())))

    def list_all(self, **filters: Any):
        return self._all(_DELIVERIES, filters)

    def get(self, id: str) -> Delivery:
        return self._send(
            Call("GET", f"/api/v1/webhooks/deliveries/{_id(id)}", unwrap="delivery", model=Delivery)
        )

    def resend(self, id: str) -> Delivery:
        return self._send(
            Call(
                "POST",
                f"/api/v1/webhooks/deliveries/{_id(id)}/resend",
                unwrap="delivery",
                model=Delivery,
            )
        )


class Webhooks(Resource):
    def endpoints(self) -> WebhookEndpoints:
        return self._send(Call("GET", "/api/v1/webhooks/endpoints", model=WebhookEndpoints))

    def set_endpoints(self, urls: list[str]) -> WebhookEndpoints:
        return self._send(
            Call("PUT", "/api/v1/webhooks/endpoints", json={"urls": urls}, model=WebhookEndpoints)
        )

    def rotate_secret(self) -> WebhookSecret:
        """The new `whsec_` secret, shown this once; the old one signs for 24 h more."""
        return self._send(Call("POST", "/api/v1/webhooks/secret/rotate", model=WebhookSecret))


class Sandbox(Resource):
    def simulate(self, order_id: str, action: str, *, paid_amount: Amount | None = None) -> Order:
        """Act on a sandbox order as its trader or its clock would: complete, cancel
        or expire."""
        return self._send(
            Call(
                "POST",
                f"/api/v1/sandbox/order/{_id(order_id)}/simulate",
                json=body(action=action, paid_amount=paid_amount),
                unwrap="order",
                model=Order,
            )
        )


class TraderOrders(Resource):
    def list(
        self,
        *,
        page: int | None = None,
        size: int | None = None,
        status: str | None = None,
        order_side: str | None = None,
    ):
        """One page of the orders on this trader's requisites."""
        return self._send(_TRADER_ORDERS(**_filters(locals())))

    def list_all(self, **filters: Any):
        return self._all(_TRADER_ORDERS, filters)

    def confirm(self, id: str) -> TraderOrder:
        return self._send(
            Call(
                "POST",
                f"/api/v1/trader/orders/{_id(id)}/confirm",
                unwrap="order",
                model=TraderOrder,
            )
        )

    def cancel(self, id: str) -> TraderOrder:
        return self._send(
            Call(
                "POST",
                f"/api/v1/trader/orders/{_id(id)}/cancel",
                unwrap="order",
                model=TraderOrder,
            )
        )

    def receipts(self, order_id: str) -> list[Receipt]:
        return self._send(
            Call(
                "GET",
                f"/api/v1/trader/orders/{_id(order_id)}/receipts",
                unwrap="receipts",
                model=Receipt,
                many=True,
            )
        )

    def receipt_content(self, order_id: str, receipt_id: str) -> bytes:
        return self._send(
            Call(
                "GET",
                f"/api/v1/trader/orders/{_id(order_id)}/receipts/{_id(receipt_id)}",
                raw=True,
            )
        )


@dataclass(frozen=True)
class Operation:
    """Where an API operation lives in this client, for the schema check."""

    method: str
    path: str
    call: str  # "orders.create" on Client, "trader:orders.confirm" on TraderClient
    model: type[Model] | None
    unwrap: str | None = None
    page: bool = False
    unwrap_optional: bool = False
    # Query parameter -> keyword of the method, where they differ.
    aliases: tuple[tuple[str, str], ...] = ()


OPERATIONS: dict[str, Operation] = {
    "order_create": Operation(
        "post", "/api/v1/order/", "orders.create", Order, unwrap="order", unwrap_optional=True
    ),
    "order_list": Operation(
        "get", "/api/v1/order/", "orders.list", Order, unwrap="orders", page=True
    ),
    "order_get": Operation("get", "/api/v1/order/{order_id}", "orders.get", Order, "order"),
    "order_cancel": Operation(
        "post", "/api/v1/order/{order_id}/cancel", "orders.cancel", Order, "order"
    ),
    "order_search_by_client_order_id": Operation(
        "get",
        "/api/v1/order/search-by-client-order-id",
        "orders.search_by_client_order_id",
        Order,
        unwrap="orders",
        page=True,
        aliases=(("id", "client_order_id"),),
    ),
    "form_create": Operation(
        "post", "/api/v1/form/create", "form.create", FormSession, unwrap="form_data"
    ),
    "form_search": Operation(
        "get", "/api/v1/form/search", "form.search", FormSessionItem, page=True
    ),
    "dispute_create": Operation(
        "post", "/api/v1/disputes/create", "disputes.create", DisputeCreated
    ),
    "dispute_search": Operation(
        "get", "/api/v1/disputes/search", "disputes.search", Dispute, unwrap="data", page=True
    ),
    "finance_balance": Operation(
        "get", "/api/v1/finance/balance", "finance.balance", Balance, unwrap="deposit"
    ),
    "finance_transactions": Operation(
        "get", "/api/v1/finance/transactions", "finance.transactions", Transaction, page=True
    ),
    "finance_payment_methods": Operation(
        "get",
        "/api/v1/finance/payment_methods",
        "finance.payment_methods",
        PaymentMethod,
        unwrap="payment_methods",
    ),
    "ping": Operation("get", "/api/v1/ping", "ping", Ping),
    "trader_order_list": Operation(
        "get",
        "/api/v1/trader/orders",
        "trader:orders.list",
        TraderOrder,
        unwrap="orders",
        page=True,
    ),
    "trader_order_confirm": Operation(
        "post",
        "/api/v1/trader/orders/{order_id}/confirm",
        "trader:orders.confirm",
        TraderOrder,
        "order",
    ),
    "trader_order_cancel": Operation(
        "post",
        "/api/v1/trader/orders/{order_id}/cancel",
        "trader:orders.cancel",
        TraderOrder,
        "order",
    ),
    # Product §11-§13: described from the contract; the schema check covers them as
    # soon as the service documents them.
    "event_list": Operation(
        "get", "/api/v1/events", "events.list", Event, unwrap="events", page=True
    ),
    "event_get": Operation("get", "/api/v1/events/{event_id}", "events.get", Event, "event"),
    "delivery_list": Operation(
        "get",
        "/api/v1/webhooks/deliveries",
        "deliveries.list",
        Delivery,
        unwrap="deliveries",
        page=True,
    ),
    "delivery_get": Operation(
        "get",
        "/api/v1/webhooks/deliveries/{delivery_id}",
        "deliveries.get",
        Delivery,
        "delivery",
    ),
    "delivery_resend": Operation(
        "post",
        "/api/v1/webhooks/deliveries/{delivery_id}/resend",
        "deliveries.resend",
        Delivery,
        "delivery",
    ),
    "webhook_endpoints_get": Operation(
        "get", "/api/v1/webhooks/endpoints", "webhooks.endpoints", WebhookEndpoints
    ),
    "webhook_endpoints_put": Operation(
        "put", "/api/v1/webhooks/endpoints", "webhooks.set_endpoints", WebhookEndpoints
    ),
    "webhook_secret_rotate": Operation(
        "post", "/api/v1/webhooks/secret/rotate", "webhooks.rotate_secret", WebhookSecret
    ),
    "sandbox_simulate": Operation(
        "post", "/api/v1/sandbox/order/{order_id}/simulate", "sandbox.simulate", Order, "order"
    ),
    "trader_order_receipts": Operation(
        "get",
        "/api/v1/trader/orders/{order_id}/receipts",
        "trader:orders.receipts",
        Receipt,
        unwrap="receipts",
    ),
    "trader_order_receipt": Operation(
        "get",
        "/api/v1/trader/orders/{order_id}/receipts/{receipt_id}",
        "trader:orders.receipt_content",
        None,
    ),
}
