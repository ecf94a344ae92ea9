"""A trader's orders and their receipts."""

from __future__ import annotations

from typing import Any

from .._core import Call
from ..models import Receipt, TraderOrder
from ._base import Amount, Resource, _filters, _id, _paged

_TRADER_ORDERS = _paged("/api/v1/trader/orders", TraderOrder, "orders")


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

    def confirm(self, id: str, *, paid_amount: Amount | None = None) -> TraderOrder:
        """Completed; a Buy's `paid_amount` when another amount arrived."""
        return self._send(
            Call(
                "POST",
                f"/api/v1/trader/orders/{_id(id)}/confirm",
                json=None if paid_amount is None else {"paid_amount": str(paid_amount)},
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
