"""Merchant orders."""

from __future__ import annotations

from typing import Any

from .._core import Call, body, query
from ..models import Order, OrderAvailability
from ._base import Amount, Resource, _filters, _id, _paged

_ORDERS = _paged("/api/v1/order/", Order, "orders")

# An order's body, as creation and availability send it (availability has no
# client_order_id), in this order; anything else the caller passes goes in as given.
_ORDER_FIELDS = (
    "client_order_id",
    "order_side",
    "amount",
    "payment_method_id",
    "method_type",
    "nspk_code",
    "customer_name",
    "customer_account",
    "user_id",
    "webhook_url",
    "unique_amount",
    "redirect_url",
    "support_url",
    "return_url",
    "customer_bank",
)


def _order_body(arguments: dict[str, Any]) -> dict[str, Any]:
    """The JSON body from a method's arguments (its `locals()`): the order's fields
    that were given, then `extra`."""
    fields = {name: arguments[name] for name in _ORDER_FIELDS if name in arguments}
    return body(**fields, **arguments["extra"])


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
        payload = _order_body(locals())
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

    def availability(
        self,
        *,
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
        **extra: Any,
    ) -> OrderAvailability:
        """POST /api/v1/order/availability: whether such an order would find a trader
        now, at what amount and fee; nothing is created."""
        payload = _order_body(locals())
        return self._send(
            Call("POST", "/api/v1/order/availability", json=payload, model=OrderAvailability)
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
